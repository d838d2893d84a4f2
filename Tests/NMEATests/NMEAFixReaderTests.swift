import Foundation
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// A three-epoch track: GGA, GSA, GST and RMC per epoch (RMC ends each), 3D with DGPS in the last.
let sampleTrack: String = [
    sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,"),
    sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.6,0.9,1.3"),
    sentence("GPGST,101500.00,1.2,2.0,1.0,45.0,1.5,1.1,2.4"),
    sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,2.0,84.4,150325,,,A"),
    sentence("GPGGA,101501.00,4807.0390,N,01131.3250,E,1,08,0.9,545.6,M,46.9,M,,"),
    sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.6,0.9,1.3"),
    sentence("GPGST,101501.00,1.1,1.9,1.0,45.0,1.4,1.0,2.3"),
    sentence("GPRMC,101501.00,A,4807.0390,N,01131.3250,E,2.1,84.0,150325,,,A"),
    sentence("GPGGA,101502.00,4807.0400,N,01131.3260,E,2,09,0.8,545.8,M,46.9,M,3,0120"),
    sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,02,,,,1.5,0.8,1.2"),
    sentence("GPRMC,101502.00,A,4807.0400,N,01131.3260,E,2.2,83.0,150325,,,D"),
].joined()

@Suite struct GSTPlacementTests {
    /// A receiver that sends RMC and GGA first and GST last in each cycle: the GST of the same time
    /// still gives the epoch's accuracy (a GST of another time never does).
    @Test func gstAfterTheLastTimedSentenceCountsForItsOwnEpoch() throws {
        let log = [
            sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,2.0,84.4,150325,,,A"),
            sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.6,0.9,1.3"),
            sentence("GPGST,101500.00,1.2,2.0,1.0,45.0,1.5,1.1,2.4"),
            sentence("GPRMC,101501.00,A,4807.0390,N,01131.3250,E,2.1,84.0,150325,,,A"),
            sentence("GPGGA,101501.00,4807.0390,N,01131.3250,E,1,08,0.9,545.6,M,46.9,M,,"),
            sentence("GPGST,101459.00,1.1,1.9,1.0,45.0,9.0,9.0,2.3"),
            sentence("GPRMC,101502.00,A,4807.0400,N,01131.3260,E,2.2,83.0,150325,,,A"),
        ].joined()
        let fixes = readFixes(log).fixes
        #expect(fixes.count == 3)
        let first = try #require(fixes.first)
        #expect(first.accuracySource == .gst)
        #expect(abs((first.horizontalAccuracy ?? 0) - AccuracyModel.radius95(sigmaLatitude: 1.5, sigmaLongitude: 1.1)) < 1e-9)
        // The second epoch's only GST is of another time: the DOP model it is.
        #expect(fixes[1].accuracySource == .dop)
        #expect(fixes[1].horizontalAccuracy == 0.9 * 19)
    }
}

@Suite struct ChunkingTests {
    static let logs: [String] = {
        let folder = CorpusTests.folder
        return ["isync.log", "triton400.log", "tcp-test.log", "ait250.log"].compactMap {
            try? String(contentsOf: folder.appendingPathComponent($0), encoding: .isoLatin1)
        } + [sampleTrack]
    }()

    @Test func anyChunkingGivesTheSameFixes() {
        for log in Self.logs {
            let whole = ChunkingVerifier(sizes: [1, 2, 3, 7, 82, 4096]).verify(log) { readFixes($0) }
            #expect(!whole.fixes.isEmpty)
        }
    }

    @Test func randomChunkingsGiveTheSameFixes() {
        let verifier = ChunkingVerifier((0..<20).map { .random(seed: UInt64(42 + $0), maximum: 200) })
        for log in Self.logs {
            verifier.verify(log) { readFixes($0) }
        }
    }

    @Test func lfAndCRLFAreTheSame() {
        let lf = sampleTrack.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(readFixes(lf).fixes == readFixes(sampleTrack).fixes)
        #expect(readFixes(lf).fixes.count == 3)
    }

    @Test func linesEndedByCRAloneAreRead() {
        var text = ""
        for i in 0..<200 {
            text += sentence(String(format: "GPRMC,10%02d%02d.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A", i / 60, i % 60), lineEnd: "\r")
        }
        // The same however the bytes arrive: whole, byte by byte, in pieces, at random.
        let r = ChunkingVerifier(sizes: [1, 7, 4096, 100_000]).verify(text) { readFixes($0) }
        #expect(r.fixes.count == 200)
        #expect(r.statistics.skipped == 0)
    }

    @Test func aLastLineWithoutNewlineIsRead() {
        let text = sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,", lineEnd: "")
        let r = readFixes(text)
        #expect(r.fixes.count == 1)
        #expect(r.statistics.lines == 1)
    }
}

@Suite struct SentenceTests {
    @Test func ggaRmcGsaGstMakeOneFixPerEpoch() throws {
        let r = readFixes(sampleTrack)
        #expect(r.fixes.count == 3)
        #expect(r.statistics.epochs == 3)
        #expect(r.statistics.fixes == 3)
        #expect(r.statistics.sentences == 11)
        let f = r.fixes[0]
        #expect(f.time == utc(2025, 3, 15, 10, 15, 0))
        #expect(f.mode == .threeD)
        #expect(f.status == .gps)
        let c = try #require(f.coordinate)
        #expect(abs(c.latitude - (48 + 7.038 / 60)) < 1e-9)
        #expect(abs(c.longitude - (11 + 31.324 / 60)) < 1e-9)
        #expect(f.altitudeMSL == 545.4)
        #expect(f.geoidSeparation == 46.9)
        #expect(abs((f.ellipsoidHeight ?? 0) - 592.3) < 1e-9)
        #expect(f.satellitesUsed == 8)
        #expect(f.hdop == 0.9 && f.vdop == 1.3 && f.pdop == 1.6)
        #expect(abs((f.speed ?? 0) - 2.0 * 1852 / 3600) < 1e-12)
        #expect(f.track == 84.4)
        #expect(abs((f.eph ?? 0) - 0.9 * 19) < 1e-9)
        #expect(abs((f.epv ?? 0) - 1.3 * 23) < 1e-9)
        #expect(f.accuracySource == .gst)
        #expect(abs((f.horizontalAccuracy ?? 0) - AccuracyModel.radius95(sigmaLatitude: 1.5, sigmaLongitude: 1.1)) < 1e-12)
        // DGPS: gpsd's smaller UERE.
        let d = r.fixes[2]
        #expect(d.status == .dgps)
        #expect(abs((d.eph ?? 0) - 0.8 * 4.75) < 1e-9)
        // epv comes from the VDOP known when the cycle's fix became 3D (its GGA): the GSA after
        // it does not change it, as in gpsd.
        #expect(abs((d.epv ?? 0) - 1.3 * 5.75) < 1e-9)
        #expect(d.accuracySource == .dop)
        #expect(abs((d.horizontalAccuracy ?? 0) - 0.8 * 4.75) < 1e-9)
    }

    @Test(arguments: [
        ("1", FixStatus.gps), ("2", .dgps), ("3", .pps), ("4", .rtkFixed), ("5", .rtkFloat),
        ("6", .deadReckoning), ("7", .timeOnly), ("8", .simulated),
    ])
    func ggaQualityMapsToGpsdStatus(quality: String, status: FixStatus) throws {
        let r = readFixes(sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,\(quality),08,0.9,545.4,M,46.9,M,,"))
        #expect(try #require(r.fixes.first).status == status)
    }

    @Test func ggaQualityZeroIsNoFix() throws {
        let r = readFixes(sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,0,00,99.9,,,,,,"))
        let f = try #require(r.fixes.first)
        #expect(f.mode == .noFix)
        #expect(f.coordinate == nil)
        #expect(f.horizontalAccuracy == nil)
        #expect(r.statistics.fixes == 0 && r.statistics.epochs == 1)
    }

    @Test func rmcAloneGivesA2DFixWithSpeedAndDate() throws {
        let r = readFixes(sentence("GPRMC,225446.33,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E"))
        let f = try #require(r.fixes.first)
        #expect(f.mode == .twoD)
        #expect(f.time == utc(1994, 11, 19, 22, 54, 46.33))
        #expect(abs((f.coordinate?.longitude ?? 0) + (123 + 11.12 / 60)) < 1e-9)
        #expect(f.altitudeMSL == nil)
        #expect(f.track == 54.7)
        #expect(f.horizontalAccuracy == nil, "no DOP, no GST: accuracy unknown")
    }

    @Test func rmcStatusVIsNoFixAndItsDateIsNotTrusted() {
        let text = sentence("GPGGA,101500.00,,,,,0,00,,,,,,,") + sentence("GPRMC,101500.00,V,,,,,,,150325,,,N")
        let r = readFixes(text)
        #expect(r.fixes.count == 1)
        #expect(r.fixes[0].mode == .noFix)
        #expect(r.fixes[0].time == nil)
    }

    @Test func gllAndGnsGivePositions() throws {
        let zda = sentence("GPZDA,101500.00,15,03,2025,00,00")
        let gll = readFixes(zda + sentence("GPGLL,4807.0380,S,01131.3240,W,101500.00,A,A"))
        let f = try #require(gll.fixes.first)
        #expect(f.mode == .twoD)
        #expect(f.time == utc(2025, 3, 15, 10, 15, 0))
        #expect((f.coordinate?.latitude ?? 0) < 0 && (f.coordinate?.longitude ?? 0) < 0)

        let gns = readFixes(zda + sentence("GNGNS,101500.00,4807.0380,N,01131.3240,E,RR,14,0.6,545.4,46.9,,,S"))
        let g = try #require(gns.fixes.first)
        #expect(g.mode == .threeD)
        #expect(g.status == .rtkFixed)
        #expect(g.satellitesUsed == 14)
        #expect(g.altitudeMSL == 545.4)
        #expect(abs((g.eph ?? 0) - 0.6 * 19) < 1e-9)
    }

    @Test func vtgGivesSpeedAndTrack() throws {
        let r = readFixes(sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
                          + sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A"))
        let f = try #require(r.fixes.first)
        #expect(f.track == 54.7)
        #expect(abs((f.speed ?? 0) - 5.5 * 1852 / 3600) < 1e-12)
    }

    @Test func gsaSetsModeAndSatellitesAcrossConstellations() throws {
        let text = sentence("GNGGA,101500.00,4807.0380,N,01131.3240,E,1,,1.0,545.4,M,46.9,M,,")
            + sentence("GNGSA,A,2,04,05,09,,,,,,,,,,2.0,1.0,1.7")
            + sentence("GNGSA,A,2,67,68,,,,,,,,,,,2.0,1.0,1.7")
        let f = try #require(readFixes(text).fixes.first)
        #expect(f.mode == .twoD)
        #expect(f.satellitesUsed == 5)
        #expect(f.altitudeMSL == 545.4, "gpsd reports the GGA's altitude with a 2D fix too")
    }

    @Test func nmea410GSAWithSystemIDs() throws {
        let text = sentence("GNGGA,101500.00,4807.0380,N,01131.3240,E,1,12,0.6,545.4,M,46.9,M,,")
            + sentence("GNGSA,A,3,13,16,21,15,10,29,27,20,,,,,1.05,0.64,0.83,1")
            + sentence("GNGSA,A,3,82,66,81,,,,,,,,,,1.05,0.64,0.83,2")
        let r = readFixes(text)
        let f = try #require(r.fixes.first)
        #expect(r.statistics.skipped == 0)
        #expect(f.pdop == 1.05 && f.hdop == 0.64 && f.vdop == 0.83)
        #expect(f.mode == .threeD)
    }

    @Test func gbsGivesErrorsWhenThereIsNoGST() throws {
        let text = sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGBS,101500.00,1.2,0.8,2.5,,,,")
        let f = try #require(readFixes(text).fixes.first)
        #expect(f.epy == 1.2 && f.epx == 0.8 && f.epv == 2.5)
        #expect(f.accuracySource == .gbs)
        #expect(abs((f.horizontalAccuracy ?? 0) - AccuracyModel.radius95(sigmaLatitude: 1.2, sigmaLongitude: 0.8)) < 1e-12)
    }

    @Test func absurdGSTFallsBackToTheDOPModel() throws {
        let text = sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,1.5,545.4,M,46.9,M,,")
            + sentence("GPGST,101500.00,0.0000,,,,304885,304880,62123")
        let f = try #require(readFixes(text).fixes.first)
        #expect(f.accuracySource == .dop)
        #expect(abs((f.horizontalAccuracy ?? 0) - 28.5) < 1e-9)
    }

    @Test func aGSAAfterTheCycleEnderIsReportedWithItsCycle() {
        // As gpsd reports: once GGA is known to end the cycle, a GSA after it brings new data and
        // the cycle is reported again with its DOPs. The first cycle, before the ender is known,
        // is reported as its GSA left it.
        let text = sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.6,0.9,1.3")
            + sentence("GPGGA,101501.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGSA,A,3,04,05,09,12,24,25,29,31,,,,,1.9,0.9,1.7")
            + sentence("GPGGA,101502.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
        let r = readFixes(text)
        #expect(r.fixes.map(\.vdop) == [1.3, 1.7, 1.7])
    }

    @Test func zdaDatesGGAAndGSVIsReadWithoutEffect() throws {
        let text = sentence("GPZDA,235959.00,31,12,2024,00,00")
            + sentence("GPGSV,2,1,08,01,40,083,46,02,17,308,41,12,07,344,39,14,22,228,45")
            + sentence("GPGGA,235959.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
        let r = readFixes(text)
        #expect(r.fixes.first?.time == utc(2024, 12, 31, 23, 59, 59))
        #expect(r.statistics.sentences == 3)
        #expect(r.statistics.skipped == 0)
    }
}
