import Foundation
import Location
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// Replays the committed sample tracks and checks what SampleTracks/README.md says about them.
@Suite struct ReplaySampleTracksTests {
    static let folder = Repository.url("SampleTracks")

    struct Claim: Sendable, CustomStringConvertible {
        var file: String
        var epochs: Int
        var fixes: Int
        /// First fix under 10 m: "HH:MM:SS", latitude, longitude, accuracy; nil when none.
        var firstUnder10: (String, Double, Double, Double)?
        var description: String { file }
    }

    static let claims: [Claim] = [
        Claim(file: "orchard-walk.nmea", epochs: 335, fixes: 335, firstUnder10: ("09:13:15", 51.2795388, 0.5420172, 9.98)),
        Claim(file: "cold-start.nmea", epochs: 240, fixes: 205, firstUnder10: ("08:57:16", 51.2797132, 0.5420790, 9.84)),
        Claim(file: "signal-loss.nmea", epochs: 300, fixes: 255, firstUnder10: ("10:30:00", 51.2795053, 0.5422522, 3.92)),
        Claim(file: "no-gst.nmea", epochs: 225, fixes: 225, firstUnder10: nil),
        Claim(file: "multi-gnss.nmea", epochs: 132, fixes: 132, firstUnder10: ("11:40:16", 51.2794790, 0.5425827, 9.91)),
        Claim(file: "no-fix.nmea", epochs: 60, fixes: 0, firstUnder10: nil),
        Claim(file: "rtk-walk.nmea", epochs: 260, fixes: 260, firstUnder10: ("13:00:00", 51.2795202, 0.5424133, 3.41)),
    ]

    static func timeOfDay(_ date: Date?) -> String {
        guard let date else { return "-" }
        let s = Int(date.timeIntervalSince1970.rounded()) % 86_400
        return String(format: "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
    }

    @Test(arguments: claims)
    func trackYieldsWhatTheReadmeSays(claim: Claim) async throws {
        let path = Self.folder.appendingPathComponent(claim.file).path
        var fixes: [Fix] = []
        let stats = try await ReplaySource(path: path, speed: .max).run { fixes.append($0) }
        #expect(stats.skipped == 0, "\(stats.diagnostics.prefix(3))")
        #expect(stats.epochs == claim.epochs)
        #expect(stats.fixes == claim.fixes)
        #expect(fixes.allSatisfy { $0.time.map { $0 >= Date(timeIntervalSince1970: 1_735_689_600) } ?? false }, "all timed, in 2025")
        let first = fixes.first { $0.hasPosition && ($0.horizontalAccuracy ?? .infinity) < 10 }
        if let (time, lat, lon, accuracy) = claim.firstUnder10 {
            let f = try #require(first)
            #expect(Self.timeOfDay(f.time) == time)
            #expect(abs((f.coordinate?.latitude ?? 0) - lat) < 1e-7)
            #expect(abs((f.coordinate?.longitude ?? 0) - lon) < 1e-7)
            #expect(abs((f.horizontalAccuracy ?? 0) - accuracy) < 0.005)
        } else {
            #expect(first == nil)
        }
    }

    @Test func noGSTTrackUsesTheDOPModelOnly() async throws {
        var fixes: [Fix] = []
        _ = try await ReplaySource(path: Self.folder.appendingPathComponent("no-gst.nmea").path, speed: .max).run { fixes.append($0) }
        #expect(fixes.allSatisfy { $0.accuracySource == .dop })
        let best = fixes.compactMap(\.horizontalAccuracy).min() ?? 0
        #expect(abs(best - 15.2) < 1e-9)
        let under20 = try #require(fixes.first { ($0.horizontalAccuracy ?? .infinity) < 20 })
        #expect(Self.timeOfDay(under20.time) == "11:06:59")
    }

    /// The RTK walk's story, as the README tells it: 20 s without corrections, 30 s of RTK float,
    /// RTK fixed from 13:00:50 (held 5 s after the corrections stop at 13:02:40), float while
    /// their age grows to 30 s, 10 s without, then float and fixed again from 13:03:45.
    @Test func rtkWalkGoesFromFloatToFixedAndThroughALossOfCorrections() async throws {
        var fixes: [Fix] = []
        _ = try await ReplaySource(path: Self.folder.appendingPathComponent("rtk-walk.nmea").path, speed: .max).run { fixes.append($0) }
        var runs: [(FixStatus, Int)] = []
        for f in fixes {
            if let last = runs.last, last.0 == f.status { runs[runs.count - 1].1 += 1 } else { runs.append((f.status, 1)) }
        }
        #expect(runs.map(\.0) == [.gps, .rtkFloat, .rtkFixed, .rtkFloat, .gps, .rtkFloat, .rtkFixed])
        #expect(runs.map(\.1) == [20, 30, 115, 25, 10, 25, 35])
        let firstFixed = try #require(fixes.first { $0.status == .rtkFixed })
        #expect(Self.timeOfDay(firstFixed.time) == "13:00:50")
        #expect(abs((firstFixed.coordinate?.latitude ?? 0) - 51.2795359) < 1e-7)
        #expect(abs((firstFixed.coordinate?.longitude ?? 0) - 0.5424163) < 1e-7)
        #expect(firstFixed.accuracyClass == .survey)
        #expect(firstFixed.correctionAge == 0.9 && firstFixed.correctionStation == 24)
        // Corrections have an age exactly when they are applied; the height's accuracy comes from GST.
        #expect(fixes.allSatisfy { ($0.correctionAge != nil) == $0.status.isDifferential })
        #expect(fixes.allSatisfy { $0.verticalAccuracySource == .gst && ($0.verticalAccuracy ?? 0) > 0 })
        let lost = fixes.filter { $0.status.isDifferential }.compactMap(\.correctionAge).max() ?? 0
        #expect(abs(lost - 30.8) < 1e-9)
        let fixedAccuracy = fixes.filter { $0.status == .rtkFixed }.compactMap(\.horizontalAccuracy)
        #expect(fixedAccuracy.filter { $0 < 0.1 }.count == 147, "all but the last 3 s before fixed is lost are Survey class")
    }

    @Test func signalLossIsReportedAsSuch() async throws {
        var events: [String] = []
        for try await e in ReplaySource(path: Self.folder.appendingPathComponent("signal-loss.nmea").path, speed: .max).events() {
            switch e {
            case .fixLost: events.append("lost")
            case .noFix: events.append("nofix")
            default: break
            }
        }
        #expect(events == ["lost"])
    }

    @Test func multiGNSSTrackUsesEveryTalker() throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("multi-gnss.nmea"), encoding: .utf8)
        for talker in ["$GNGGA", "$GNRMC", "$GNGSA", "$GPGSV", "$GLGSV", "$GAGSV", "$GBGSV", "$GNGST"] {
            #expect(text.contains(talker), "\(talker)")
        }
    }

    @Test func tracksAreSmall() throws {
        for claim in Self.claims {
            let size = try FileManager.default.attributesOfItem(atPath: Self.folder.appendingPathComponent(claim.file).path)[.size] as? Int ?? 0
            #expect(size > 0 && size < 300_000, "\(claim.file): \(size) bytes")
        }
    }
}
