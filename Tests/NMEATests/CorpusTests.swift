import Foundation
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// Reads every log of the gpsd-derived corpus and compares the fixes with gpsd's own answers.
///
/// The corpus folder is `TREES_NMEA_CORPUS` when set (so the held-out set runs unchanged), else
/// `Tests/Corpus/nmea` in the repository. Scoring follows the corpus README, strictly: every fix
/// gpsd reports with mode ≥ 2, in every log, counts. A fix agrees when the reader has a fix of
/// the same time (to the millisecond) and every hard field (mode, lat, lon, altMSL, speed, track,
/// eph) agrees within its tolerance; a value present on one side and missing on the other is a
/// disagreement. At least 99% of the fixes must agree. Status, altHAE, geoidSep, epx, epy and epv
/// are reported per field but not scored.
///
/// On the repository's own corpus every fix must agree, so that no change loses one.
///
/// What the reader does not have of gpsd, and where it shows: its geoid table, which fills a
/// missing geoid separation (altHAE, geoidSep, not scored).
@Suite struct CorpusTests {
    static var folder: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.environment["TREES_NMEA_CORPUS"] ?? Corpus.path("nmea"))
    }

    struct Tally {
        var compared = 0
        var agreed = 0
        var rate: Double { compared == 0 ? 1 : Double(agreed) / Double(compared) }
        mutating func add(_ ok: Bool) { compared += 1; if ok { agreed += 1 } }
        static func += (a: inout Tally, b: Tally) { a.compared += b.compared; a.agreed += b.agreed }
    }

    /// The scored fields and their tolerances (degrees for lat/lon, metres, m/s, degrees for track).
    static let hardFields: [(name: String, tolerance: Double)] = [
        ("lat", 1e-6), ("lon", 1e-6), ("altMSL", 0.01), ("speed", 0.01), ("track", 0.01), ("eph", 0.1),
    ]
    /// Fields reported but not scored.
    static let softFields: [(name: String, tolerance: Double)] = [
        ("altHAE", 0.01), ("geoidSep", 0.01), ("epx", 0.1), ("epy", 0.1), ("epv", 0.1),
    ]
    static let fieldOrder = ["time", "mode"] + hardFields.map(\.name) + ["status"] + softFields.map(\.name)

    static func value(_ fix: Fix, _ key: String) -> Double? {
        switch key {
        case "lat": fix.coordinate?.latitude
        case "lon": fix.coordinate?.longitude
        case "altMSL": fix.altitudeMSL
        case "altHAE": fix.ellipsoidHeight
        case "geoidSep": fix.geoidSeparation
        case "speed": fix.speed
        case "track": fix.track
        case "eph": fix.eph
        case "epx": fix.epx
        case "epy": fix.epy
        case "epv": fix.epv
        default: nil
        }
    }

    /// Both missing, or both present and within `tolerance`.
    static func agrees(_ got: Double?, _ want: Double?, _ tolerance: Double) -> Bool {
        switch (got, want) {
        case (nil, nil): true
        case let (g?, w?): abs(g - w) <= tolerance
        default: false
        }
    }

    @Test func corpusAgreesWithGpsd() throws {
        let fm = FileManager.default
        let names = try fm.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".log") }.sorted()
        #expect(!names.isEmpty, "no .log files in \(Self.folder.path)")
        var fields: [String: Tally] = [:]
        var score = Tally()
        var report: [String] = []
        var missingFixes: [String] = []
        for name in names {
            let log = Self.folder.appendingPathComponent(name)
            let expectedURL = Self.folder.appendingPathComponent(String(name.dropLast(4)) + ".expected.json")
            #expect(fm.fileExists(atPath: expectedURL.path), "\(name) has no expected answers")
            guard fm.fileExists(atPath: expectedURL.path) else { continue }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL)) as? [String: Any])
            let expected = json["fixes"] as? [[String: Any]] ?? []

            let bytes = try [UInt8](Data(contentsOf: log))
            var reader = NMEAFixReader(correctingWeekRollover: true, asGpsd: true)
            var byTime: [Int64: Fix] = [:]
            reader.feed(bytes) { fix in
                if let t = fix.time { byTime[Int64((t.timeIntervalSince1970 * 1000).rounded())] = fix }
            }
            reader.finish { fix in
                if let t = fix.time { byTime[Int64((t.timeIntervalSince1970 * 1000).rounded())] = fix }
            }

            var logFields: [String: Tally] = [:]
            var logScore = Tally()
            for e in expected {
                guard let mode = e["mode"] as? Int, mode >= 2, let timeText = e["time"] as? String,
                      let key = Self.milliseconds(timeText) else { continue }
                guard let fix = byTime[key] else {
                    logFields["time", default: Tally()].add(false)
                    logScore.add(false)
                    missingFixes.append("\(name) \(timeText)")
                    continue
                }
                logFields["time", default: Tally()].add(true)
                var all = fix.mode.rawValue == mode
                logFields["mode", default: Tally()].add(all)
                for (field, tolerance) in Self.hardFields {
                    let want = e[field] as? Double ?? (e[field] as? Int).map(Double.init)
                    let ok = Self.agrees(Self.value(fix, field), want, tolerance)
                    logFields[field, default: Tally()].add(ok)
                    all = all && ok
                }
                logScore.add(all)
                let wantStatus = e["status"] as? Int ?? 1
                let gotStatus = fix.status.rawValue <= 1 ? 1 : fix.status.rawValue
                logFields["status", default: Tally()].add(wantStatus == gotStatus)
                // Soft fields where gpsd has a value, except epx/epy from its own DOP model (the
                // reader keeps only the receiver's own GBS/PGRME figures there).
                let dopModel = e["dop_model"] as? [String] ?? []
                for (field, tolerance) in Self.softFields where !((field == "epx" || field == "epy") && dopModel.contains(field)) {
                    guard let want = e[field] as? Double ?? (e[field] as? Int).map(Double.init) else { continue }
                    logFields[field, default: Tally()].add(Self.agrees(Self.value(fix, field), want, tolerance))
                }
            }
            score += logScore
            let differ = Self.fieldOrder.compactMap { f -> String? in
                guard let t = logFields[f] else { return nil }
                fields[f, default: Tally()] += t
                return t.agreed == t.compared ? nil : "\(f) \(t.agreed)/\(t.compared)"
            }
            let stats = reader.statistics
            let malformed = stats.malformed > 0 ? ", \(stats.malformed) malformed" : ""
            report.append("\(name): \(logScore.agreed)/\(logScore.compared) fixes agree (\(stats.epochs) epochs\(malformed))"
                          + (differ.isEmpty ? "" : ", differ: " + differ.joined(separator: ", ")))
        }
        print("NMEA corpus (\(Self.folder.path)):")
        for r in report { print("  " + r) }
        print("  fields:")
        for f in Self.fieldOrder {
            let t = fields[f, default: Tally()]
            print("    \(f): \(t.agreed)/\(t.compared) = \(String(format: "%.2f", t.rate * 100))%")
        }
        if !missingFixes.isEmpty { print("  missing: " + missingFixes.prefix(20).joined(separator: "; ")) }
        print("  fixes agreeing in every hard field: \(score.agreed)/\(score.compared) = \(String(format: "%.2f", score.rate * 100))%")
        #expect(score.rate >= 0.99, "only \(score.agreed) of \(score.compared) fixes agree with gpsd in every hard field")
        if ProcessInfo.processInfo.environment["TREES_NMEA_CORPUS"] == nil {
            // The repository's corpus agrees on all 2,262.
            #expect(score.agreed == score.compared, "\(score.compared - score.agreed) fixes of the repository's corpus disagree with gpsd")
        }
    }

    /// Where gpsd reports corrections (DGPS, RTK float or fixed), the reader has the same fix
    /// status, age of corrections and reference station: nmea-rtk's Trimble going from DGPS to RTK
    /// fixed, and every other log that has them. Another set (`TREES_NMEA_CORPUS`) may have no such
    /// log, or answers without gpsd's `dgpsAge`; then only what it has is compared.
    @Test func correctionStatusAgeAndStationAgreeWithGpsd() throws {
        let fm = FileManager.default
        let hasRTKLog = fm.fileExists(atPath: Self.folder.appendingPathComponent("nmea-rtk.log").path)
        var compared = 0
        var disagreements: [String] = []
        for name in try fm.contentsOfDirectory(atPath: Self.folder.path).filter({ $0.hasSuffix(".log") }).sorted() {
            let expectedURL = Self.folder.appendingPathComponent(String(name.dropLast(4)) + ".expected.json")
            guard let data = fm.contents(atPath: expectedURL.path),
                  let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
            let corrected = (json["fixes"] as? [[String: Any]] ?? []).filter { ($0["dgpsAge"] as? Double) != nil && ($0["mode"] as? Int ?? 0) >= 2 }
            guard !corrected.isEmpty else { continue }
            var reader = NMEAFixReader()
            var byTime: [Int64: Fix] = [:]
            let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(name)))
            reader.feed(bytes) { fix in if let t = fix.time { byTime[Int64((t.timeIntervalSince1970 * 1000).rounded())] = fix } }
            reader.finish { fix in if let t = fix.time { byTime[Int64((t.timeIntervalSince1970 * 1000).rounded())] = fix } }
            for e in corrected {
                guard let text = e["time"] as? String, let key = Self.milliseconds(text) else { continue }
                compared += 1
                let fix = byTime[key]
                let ok = fix?.status.rawValue == e["status"] as? Int
                    && Self.agrees(fix?.correctionAge, e["dgpsAge"] as? Double, 1e-9)
                    && fix?.correctionStation == e["dgpsSta"] as? Int
                if !ok { disagreements.append("\(name) \(text)") }
            }
        }
        if hasRTKLog { #expect(compared >= 122, "nmea-rtk alone has 122 corrected fixes") }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(compared): \(disagreements.prefix(5))")
        print("corrections: \(compared - disagreements.count)/\(compared) fixes agree in status, age and station")
    }

    /// `2016-02-03T13:15:19.000Z` as milliseconds since 1970.
    static func milliseconds(_ text: String) -> Int64? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let d = f.date(from: text) else { return nil }
        return Int64((d.timeIntervalSince1970 * 1000).rounded())
    }
}
