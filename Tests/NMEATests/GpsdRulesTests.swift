import Foundation
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// The rules the reader shares with gpsd, each on a small made-up log.
@Suite struct GpsdRulesTests {
    static let date = sentence("GPZDA,101459.00,15,03,2025,00,00")

    @Test func ggaOfQualityZeroWithAPositionIsA2DFix() throws {
        let r = readFixes(Self.date + sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,0,05,1.2,,,,,,"))
        let f = try #require(r.fixes.last)
        #expect(f.mode == .twoD)
        #expect(f.status == .unknown)
        #expect(f.coordinate != nil)
    }

    @Test func speedIsWorkedOutFromPositionsWhenNoSentenceGivesIt() throws {
        // A GGA-only receiver moving north by 0.01 minutes of latitude (about 18.5 m) a second.
        var log = Self.date
        for (i, minutes) in ["07.0380", "07.0480", "07.0580"].enumerated() {
            log += sentence("GPGGA,10150\(i).00,48\(minutes),N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
        }
        let fixes = readFixes(log).fixes.filter(\.hasPosition)
        #expect(fixes.count == 3)
        #expect(fixes[0].speed == nil)
        for f in fixes.dropFirst() {
            let speed = try #require(f.speed)
            #expect(abs(speed - 18.53) < 0.05)
            #expect(f.derived == .speed)
            #expect(FixJSON.line(f).contains(#""derived":["speed"]"#))
        }
    }

    @Test func aSpeedFromTheReceiverIsNotMarkedDerived() throws {
        let f = try #require(readFixes(sampleTrack).fixes.first)
        #expect(f.speed != nil)
        #expect(f.derived.isEmpty)
        #expect(!FixJSON.line(f).contains("derived"))
    }

    @Test func theFirstHDOPOfTheCycleGivesEph() throws {
        // As gpsd does: eph is set once per cycle, from the GGA's HDOP here; the GSA's does not replace it.
        let log = Self.date
            + sentence("GPGGA,101500.00,5002.457296,N,01958.828604,E,1,20,0.4,246.0,M,,M,,")
            + sentence("GPGSA,A,3,02,04,06,07,09,30,,,,,,,1.37,0.77,1.14")
            + sentence("GPRMC,101500.00,A,5002.457296,N,01958.828604,E,0.0,,150325,,,A")
        let f = try #require(readFixes(log).fixes.last)
        #expect(abs((f.eph ?? 0) - 0.4 * 19) < 1e-9)
        #expect(f.hdop == 0.77)
    }

    @Test func dopsAreForgottenWhenACycleStartsWithoutOne() throws {
        // RMC gives no DOP: a cycle it starts has no eph until a GSA comes.
        let log = sentence("GPRMC,045849.000,A,3519.9048,N,13640.2631,E,0.10,92.17,270705,,")
            + sentence("GPGSA,A,3,09,05,14,26,,,,,,,,,2.9,2.2,1.9")
            + sentence("GPRMC,045850.000,A,3519.9047,N,13640.2631,E,0.11,99.12,270705,,")
            + sentence("GPRMC,045851.000,A,3519.9046,N,13640.2631,E,0.12,114.35,270705,,")
        let fixes = readFixes(log).fixes
        #expect(fixes.count == 3)
        #expect(fixes.map { $0.eph == nil } == [false, true, true])
    }

    /// Five used satellites at (elevation, azimuth) (40, 45), (60, 150), (25, 220), (10, 300),
    /// (75, 10). Their DOPs, from the inverse of the normal matrix of the lines of sight worked
    /// out apart (numpy): x 1.47157, y 0.97313, h 1.76423, v 2.63319, p 3.16957.
    static let skyDOP = (x: 1.4715664, y: 0.9731350, h: 1.7642277, v: 2.6331905, p: 3.1695728)

    @Test func dopsAreWorkedOutFromTheSkyWhenTheReceiverSendsNone() throws {
        // The GSA is of the cycle before; the RMC starts a cycle without DOPs and the GSV set comes
        // before any sentence that gives one, as a Navior CH-4701 sends them. Satellite 31 is in
        // view but neither used nor heard, so it is left out.
        var log = Self.date + sentence("GPGSA,A,3,05,12,18,24,29,,,,,,,,2.0,1.1,1.7")
        for second in 0..<2 {
            log += sentence("GPRMC,10150\(second).00,A,4807.0380,N,01131.3240,E,0.0,0.0,150325,,,A")
                + sentence("GPGSV,2,1,06,05,40,045,40,12,60,150,42,18,25,220,38,24,10,300,35")
                + sentence("GPGSV,2,2,06,29,75,010,44,31,30,090,")
        }
        let fixes = readFixes(log).fixes.filter(\.hasPosition)
        #expect(fixes.count == 2)
        for f in fixes {
            #expect(abs((f.hdop ?? 0) - Self.skyDOP.h) < 1e-6)
            #expect(abs((f.vdop ?? 0) - Self.skyDOP.v) < 1e-6)
            #expect(abs((f.pdop ?? 0) - Self.skyDOP.p) < 1e-6)
            #expect(abs((f.eph ?? 0) - Self.skyDOP.h * 19) < 1e-4)
            #expect(abs((f.epx ?? 0) - Self.skyDOP.x * 15) < 1e-4)
            #expect(abs((f.epy ?? 0) - Self.skyDOP.y * 15) < 1e-4)
            #expect(f.accuracySource == .dop)
            #expect(f.derived == .dop)
            #expect(FixJSON.line(f).contains(#""derived":["dop"]"#))
        }
    }

    @Test func satellitesOfTwoConstellationsMeetOnGpsdsNumbers() throws {
        // u-blox 9 style: one GNGSA per system (GLONASS as 66 and 80), GLGSV numbering GLONASS 2
        // and 16. Only when both are 66 and 80 are five satellites used; three would give no DOP.
        let log = Self.date
            + sentence("GNGSA,A,3,05,12,18,,,,,,,,,,2.0,1.1,1.7,1")
            + sentence("GNGSA,A,3,66,80,,,,,,,,,,,2.0,1.1,1.7,2")
            + sentence("GNRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,0.0,150325,,,A,V")
            + sentence("GPGSV,1,1,03,05,40,045,40,12,60,150,42,18,25,220,38,1")
            + sentence("GLGSV,1,1,02,02,10,300,35,16,75,010,44,1")
        let f = try #require(readFixes(log).fixes.last)
        #expect(abs((f.hdop ?? 0) - Self.skyDOP.h) < 1e-6)
        #expect(abs((f.eph ?? 0) - Self.skyDOP.h * 19) < 1e-4)
        #expect(f.derived == .dop)
    }

    @Test func anHDOPTheReceiverSentIsKeptAndOnlyTheMissingDOPsComeFromTheSky() throws {
        // GGA gives HDOP 0.9 for the cycle: eph is 0.9 × 19 and nothing is marked; x and y DOPs,
        // which no sentence gives, still come from the sky (and give epx and epy).
        let log = Self.date + sentence("GPGSA,A,3,05,12,18,24,29,,,,,,,,2.0,1.1,1.7")
            + sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,05,0.9,545.4,M,46.9,M,,")
            + sentence("GPGSV,2,1,06,05,40,045,40,12,60,150,42,18,25,220,38,24,10,300,35")
            + sentence("GPGSV,2,2,06,29,75,010,44,31,30,090,")
        let f = try #require(readFixes(log).fixes.last)
        #expect(f.hdop == 0.9)
        #expect(abs((f.eph ?? 0) - 0.9 * 19) < 1e-9)
        #expect(abs((f.epx ?? 0) - Self.skyDOP.x * 15) < 1e-4)
        // A cycle started by a sentence with a DOP keeps the GSA's others, as gpsd does.
        #expect(f.vdop == 1.7)
        #expect(f.derived.isEmpty)
    }

    @Test func fewerThanFourUsableSatellitesGiveNoDOP() throws {
        // Four used, but one without a direction (elevation and azimuth left out): three remain.
        let log = Self.date + sentence("GPGSA,A,3,05,12,18,24,,,,,,,,,2.0,1.1,1.7")
            + sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,0.0,150325,,,A")
            + sentence("GPGSV,1,1,04,05,40,045,40,12,60,150,42,18,25,220,38,24,,,35")
        let f = try #require(readFixes(log).fixes.last)
        #expect(f.hasPosition)
        #expect(f.hdop == nil)
        #expect(f.eph == nil)
        #expect(f.derived.isEmpty)
    }

    /// A GSV set of `satellites` (number, elevation, azimuth, signal) from `talker`, NMEA 4.10 style
    /// with signal id `signal`, four satellites a sentence.
    static func gsvSet(_ talker: String, _ satellites: [String], signal: Int) -> String {
        let parts = (satellites.count + 3) / 4
        return (0..<parts).map { part in
            let slice = satellites[(part * 4)..<min(satellites.count, part * 4 + 4)]
            return sentence("\(talker)GSV,\(parts),\(part + 1),\(satellites.count),\(slice.joined(separator: ",")),\(signal)")
        }.joined()
    }

    /// Each second: an RMC without DOPs, GSV sets of `fillers` satellites in view but unused
    /// (GLONASS, Galileo and BeiDou, several signals each), then the GPS set with the five used
    /// satellites of `skyDOP`.
    static func crowdedSky(fillers: Int) -> String {
        var sets: [(talker: String, first: Int, count: Int, signal: Int)] = [
            ("GL", 65, 32, 1), ("GL", 65, 32, 3), ("GA", 1, 36, 7), ("GA", 1, 36, 1), ("GB", 1, 40, 1), ("GB", 1, 40, 3),
        ]
        sets.append(("GA", 1, fillers - 216, 2))
        var log = Self.date + sentence("GPGSA,A,3,05,12,18,24,29,,,,,,,,2.0,1.1,1.7,1")
        for second in 0..<2 {
            log += sentence("GPRMC,10150\(second).00,A,4807.0380,N,01131.3240,E,0.0,0.0,150325,,,A,V")
            for s in sets {
                let satellites = (0..<s.count).map { i in
                    String(format: "%02d,%02d,%03d,30", s.first + i, 20 + i, (i * 9) % 360)
                }
                log += gsvSet(s.talker, satellites, signal: s.signal)
            }
            log += gsvSet("GP", ["05,40,045,40", "12,60,150,42", "18,25,220,38", "24,10,300,35", "29,75,010,44"], signal: 1)
        }
        return log
    }

    @Test func aSkyOfMoreSatellitesThanGpsdHoldsIsForgotten() throws {
        // gpsd keeps 230 satellites. With 225 unused ones before them, the five used ones fit and
        // give the DOPs; with 228, the third of them finds the sky full: gpsd forgets every
        // satellite, reads no further in that sentence, and the one satellite after it gives no
        // DOP. gpsd 3.27 answers both logs so (eph 33.520, epx 22.073; then none).
        let fits = try #require(readFixes(Self.crowdedSky(fillers: 225)).fixes.last)
        #expect(abs((fits.eph ?? 0) - Self.skyDOP.h * 19) < 1e-4)
        #expect(abs((fits.epx ?? 0) - Self.skyDOP.x * 15) < 1e-4)
        #expect(fits.derived == .dop)
        let full = try #require(readFixes(Self.crowdedSky(fillers: 228)).fixes.last)
        #expect(full.hasPosition)
        #expect(full.eph == nil)
        #expect(full.epx == nil)
        #expect(full.derived.isEmpty)
    }

    @Test func modeAndAltitudeCarryOverToASentenceThatCannotTellThem() throws {
        // A receiver sending GGA one second and RMC the next: the RMC fix stays 3D.
        let log = Self.date
            + sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPRMC,101501.00,A,4807.0390,N,01131.3250,E,2.1,84.0,150325,,,A")
            + sentence("GPGGA,101502.00,4807.0400,N,01131.3260,E,1,08,0.9,545.6,M,46.9,M,,")
        let fixes = readFixes(log).fixes.filter(\.hasPosition)
        #expect(fixes.map(\.mode) == [.threeD, .threeD, .threeD])
        #expect(fixes[1].altitudeMSL == nil)
    }

    @Test func garminPGRMZGivesAltitudeInFeetAndTheMode() throws {
        let log = sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
            + sentence("PGRMZ,1000,f,3")
        let f = try #require(readFixes(log).fixes.last)
        #expect(f.mode == .threeD)
        #expect(abs((f.altitudeMSL ?? 0) - 304.8) < 1e-9)
    }

    @Test func garminPGRMEGivesErrorsScaledTo95Percent() throws {
        let log = sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
            + sentence("PGRME,15.0,M,45.0,M,25.0,M")
        let r = readFixes(log)
        let f = try #require(r.fixes.last)
        #expect(abs((f.epx ?? 0) - 15 / 2.0.squareRoot() * 2.45 / 1.18) < 1e-9)
        #expect(f.epx == f.epy)
        #expect(abs((f.epv ?? 0) - 45 * 2.45 / 1.18) < 1e-9)
        #expect(r.statistics.proprietary == 0)
    }

    @Test func sirfPSRFEPEGivesEph() throws {
        let log = Self.date
            + sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("PSRFEPE,101500.00,A,0.9,3.5,5.1,0.1,0.2")
        let f = try #require(readFixes(log).fixes.last)
        #expect(f.eph == 3.5)
        #expect(f.epv == 5.1)
    }

    @Test func skytraqPSTI030IsAWholeFixAndItsVelocityGivesSpeedAndTrack() throws {
        // A SkyTraq RTK receiver sending only $PSTI,030 and the RTK baseline $PSTI,032. gpsd
        // 3.27 reports each second 3D, status 3 (RTK fixed), altMSL 1102.537, speed 5.000 and
        // track 36.8699 from the east and north velocities 3 and 4 m/s.
        var log = Self.date
        for second in 0..<3 {
            log += sentence("PSTI,030,10150\(second).000,A,4404.12958\(second)0,N,12118.8685453,W,1102.537,3.00,4.00,0.03,150325,R,1.2,4.2")
                + sentence("PSTI,032,10150\(second).000,150325,A,R,0.603,-0.837,-0.089,1.036,144.22,,,,,")
        }
        let read = readFixes(log)
        let fixes = read.fixes.filter(\.hasPosition)
        #expect(fixes.count == 3)
        #expect(read.statistics.sentences == 7)
        for (second, f) in fixes.enumerated() {
            #expect(f.time == utc(2025, 3, 15, 10, 15, Double(second)))
            #expect(f.mode == .threeD)
            #expect(f.status == .rtkFixed)
            #expect(f.altitudeMSL == 1102.537)
            #expect(abs((f.speed ?? 0) - 5) < 1e-9)
            #expect(abs((f.track ?? 0) - 36.869_897_6) < 1e-6)
            #expect(f.derived.isEmpty)
            #expect(f.correctionAge == 1.2)
        }
        // Invalid (status V): no fix, whatever the fields hold.
        let invalid = readFixes(Self.date + sentence("PSTI,030,101500.000,V,4404.1295800,N,12118.8685453,W,1102.537,3.00,4.00,0.03,150325,R,1.2,4.2"))
        #expect(invalid.fixes.allSatisfy { !$0.hasPosition })
    }

    @Test func theLastCycleEndsAsGpsdLastReportedIt() throws {
        // The Triton 400 log without its GGAs: GLL ends each cycle, and the RMC after it is never
        // reported. The log ends on such an RMC: gpsd's last report of 03:01:33 has the speed
        // worked out from positions (0.578 m/s); the reader's own output takes the RMC's 0.
        let text = try String(contentsOfFile: Corpus.path("nmea") + "/triton400.log", encoding: .utf8)
        let log = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("$GPGGA") }.joined(separator: "\n")
        func last(asGpsd: Bool) throws -> Fix {
            try #require(readFixes(log, correctingWeekRollover: true, asGpsd: asGpsd).last)
        }
        let gpsd = try last(asGpsd: true)
        #expect(gpsd.time == utc(2013, 4, 1, 3, 1, 33))
        #expect(abs((gpsd.speed ?? 0) - 0.578) < 0.0005)
        #expect(gpsd.derived == .speed)
        let own = try last(asGpsd: false)
        #expect(own.speed == 0)
        #expect(own.track == 219.6)
    }

    @Test func aCycleGpsdNeverReportsGivesNoFixWhenAgreeingWithGpsd() throws {
        // A 5 Hz GPS (RMC, GGA) and a 1 Hz instrument's GLL on one multiplexer, as in a yacht's
        // log: the GLL's 13:40:01 comes after the GPS's 13:40:01.4 and starts a cycle of its own,
        // which the GPS's next RMC ends. GGA ends the GPS's cycles, so gpsd 3.27 never reports the
        // GLL's position: its TPVs are the GPS's five times and positions. The reader's own output
        // keeps the GLL's fix.
        func gps(_ time: String, _ lat: String) -> String {
            sentence("GPRMC,\(time),A,\(lat),N,01333.13516,E,005.90,010.0,070516,002.8,E")
                + sentence("GPGGA,\(time),\(lat),N,01333.13516,E,2,09,0.9,0.4,M,44.4,M,,")
        }
        let log = gps("134001.0", "4540.76095") + gps("134001.2", "4540.76126") + gps("134001.4", "4540.76160")
            + sentence("IIGLL,4540.760,N,01333.135,E,134001,A,A")
            + gps("134001.6", "4540.76191") + gps("134001.8", "4540.76220")
        func latitudes(asGpsd: Bool) -> [Double] {
            readFixes(log, correctingWeekRollover: true, asGpsd: asGpsd).compactMap { $0.coordinate?.latitude }
        }
        let gpsd = [45.679349167, 45.679354333, 45.679360000, 45.679365167, 45.679370000]
        let agreeing = latitudes(asGpsd: true)
        #expect(agreeing.count == gpsd.count && zip(agreeing, gpsd).allSatisfy { abs($0 - $1) < 1e-9 }, "\(agreeing)")
        let own = latitudes(asGpsd: false)
        #expect(own.count == 6 && abs(own[3] - 45.679333333) < 1e-9, "\(own)")
        let times = readFixes(log, correctingWeekRollover: true, asGpsd: true).compactMap(\.time)
        #expect(Set(times).count == times.count, "one fix a time, as gpsd reports: \(times)")
    }

    @Test func garminPGRMFGivesTheModeButNoTimeOfItsOwn() throws {
        func fixes(_ log: String) -> [Fix] { readFixes(log, correctingWeekRollover: true, asGpsd: true) }
        func pgrmf(_ tow: Int, _ time: String) -> String {
            sentence("PGRMF,290,\(tow),160305,\(time),13,5213.1439,N,02100.6511,E,A,2,0,226,2,1")
        }
        let rmc = sentence("GPRMC,093802,A,5213.1439,N,02100.6511,E,000.0,226.0,160305,004.2,E,D")
        // A Garmin GPS 17N logging RMC and its own sentences, no GGA: gpsd 3.27 reports it 3D
        // (PGRMF's fix type 2).
        let dated = fixes("# Date: 2005-03-16\n" + rmc + sentence("PGRME,1.7,M,2.4,M,3.0,M") + pgrmf(293_895, "093802"))
        #expect(dated.map(\.mode) == [.threeD])
        #expect(dated.map(\.time) == [utc(2005, 3, 16, 9, 38, 2)])
        // gpsd replaces PGRMF's GPS-week time with the date and time it last merged: a PGRMF ten
        // seconds on leaves the fix at 09:38:02, and one alone gives no time at all.
        let later = fixes("# Date: 2005-03-16\n" + rmc + pgrmf(293_905, "093812"))
        #expect(later.last?.time == utc(2005, 3, 16, 9, 38, 2))
        #expect(fixes(pgrmf(293_895, "093802")).allSatisfy { $0.time == nil })
        // Undated: the RMC's 2005 is taken for a week rollover (gpsd's 18 leap seconds) and the
        // date moves with it; the GGA after PGRMF's 13 leap seconds stays in the new era
        // (gpsd 3.27: 2024-10-30T09:38:03).
        let undated = fixes(rmc + pgrmf(293_895, "093802")
            + sentence("GPGGA,093803,5213.1439,N,02100.6511,E,2,10,0.9,137.2,M,36.2,M,,"))
        #expect(undated.map(\.time) == [utc(2024, 10, 30, 9, 38, 2), utc(2024, 10, 30, 9, 38, 3)])
    }

    @Test func garminPGRMVGivesSpeedAndTrackWhenNoSentenceDoes() throws {
        let log = Self.date
            + sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("PGRMV,3.0,4.0,0.1")
        let f = try #require(readFixes(log).fixes.last)
        #expect(abs((f.speed ?? 0) - 5) < 1e-9)
        #expect(abs((f.track ?? 0) - 36.869_897_6) < 1e-6)
        #expect(f.derived.isEmpty)
    }

    @Test func quectelPQGSAIsAGSA() throws {
        // gpsd reads any five-letter address by its last three letters: Quectel's $PQGSA (BeiDou
        // and QZSS in the EC25) is a GSA, which makes an RMC-only fix 3D and gives its DOPs.
        let log = sentence("GPRMC,051347.00,A,6001.336799,N,03014.169008,E,0.0,0.0,200922,8.4,E,A,V")
            + sentence("PQGSA,A,3,12,,,,,,,,,,,,1.2,0.9,0.9,4")
            + sentence("GPRMC,051348.00,A,6001.336431,N,03014.169236,E,0.0,0.0,200922,8.4,E,A,V")
        let read = readFixes(log)
        let f = try #require(read.fixes.first)
        #expect(f.mode == .threeD)
        #expect(f.hdop == 0.9)
        #expect(abs((f.eph ?? 0) - 0.9 * 19) < 1e-9)
        #expect(read.statistics.skipped == 0)
    }

    @Test func magellanPMGNSTGivesTheModeWhereGpsdReadsIt() throws {
        // gpsd takes the mode from field 3 and the fix flag from field 4, one field later than
        // Magellan's own layout (`$PMGNST,01.75,3,T,…`), so such a sentence means no fix to it.
        let log = sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
            + sentence("PMGNST,01.75,x,3,T,11.1,-00496,00")
        #expect(try #require(readFixes(log).fixes.last).mode == .threeD)
        let magellan = sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
            + sentence("PMGNST,01.75,3,T,816,11.1,-00496,00")
        #expect(try #require(readFixes(magellan).fixes.last).mode == .noFix)
    }

    @Test func vtgGivesSpeedAndTrackWhenThereIsNoRMC() throws {
        let log = Self.date
            + sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A")
            + sentence("GPGGA,101501.00,4807.0390,N,01131.3250,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPVTG,055.0,T,034.7,M,005.6,N,010.4,K,A")
        let fixes = readFixes(log).fixes.filter(\.hasPosition)
        let last = try #require(fixes.last)
        #expect(last.track == 55.0)
        #expect(abs((last.speed ?? 0) - 5.6 * 1852 / 3600) < 1e-12)
        #expect(last.derived.isEmpty)
    }

    @Test func aTimeBefore2017IsAWeekRolloverUnlessTheLogIsDatedOrTheLeapSecondsAreFew() throws {
        let rmc = sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,2.0,84.4,150315,,,A")
        func time(_ log: String, correcting: Bool = true) -> Date? {
            readFixes(log, correctingWeekRollover: correcting).last?.time
        }
        let asSent = Date(timeIntervalSince1970: 1_426_414_500)  // 2015-03-15T10:15:00Z
        #expect(time(rmc, correcting: false) == asSent)
        #expect(time(rmc) == asSent.addingTimeInterval(1024 * 7 * 86_400))
        #expect(time("# Date: 2015-03-15\n" + rmc) == asSent)
        // A Garmin saying the leap seconds are 16 (as they were in 2015): no rollover assumed.
        #expect(time(sentence("PGRMF,1835,123300,150315,101500,16,4807.0380,N,01131.3240,E,A,2,2,84,1,1") + rmc) == asSent)
        // From 2017 on, times are taken as they come.
        let recent = sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,2.0,84.4,150317,,,A")
        #expect(time(recent) == Date(timeIntervalSince1970: 1_489_572_900))
    }

    @Test func aggaPastMidnightKeepsTheLastDateAsGpsdDoesButRollsItOtherwise() throws {
        // An RMC on 14 November 2012 at 23:59:59, then GGA alone: gpsd keeps the RMC's date for
        // every time of day that follows (06:00:00 is timed on the 14th); the reader's own dating
        // rolls over midnight. gpsd 3.27 reports no fix at 00:00:00: that cycle ended before GGA was
        // known to end cycles (RMC ended the first), so the reader, agreeing with gpsd, gives none.
        let log = "# Date: 2012-11-14\n"
            + sentence("GPRMC,235959.00,A,4003.9028,N,10512.5771,W,0.77,41.65,141112,,")
            + sentence("GPGGA,000000.00,4003.9030,N,10512.5770,W,1,07,1.37,1596,M,-20,M,,")
            + sentence("GPGGA,060000.00,4003.8820,N,10512.5835,W,1,07,1.37,1596,M,-20,M,,")
        func times(asGpsd: Bool) -> [Date?] {
            readFixes(log, correctingWeekRollover: asGpsd, asGpsd: asGpsd).filter(\.hasPosition).map(\.time)
        }
        let day = 1_352_851_200.0  // 2012-11-14T00:00:00Z
        #expect(times(asGpsd: true) == [day + 86_399, day + 21_600].map { Date(timeIntervalSince1970: $0) })
        #expect(times(asGpsd: false) == [day + 86_399, day + 86_400, day + 86_400 + 21_600].map { Date(timeIntervalSince1970: $0) })
    }
}
