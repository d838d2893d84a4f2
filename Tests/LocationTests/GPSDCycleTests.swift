import Foundation
@testable import Location
import Testing
import TreesKit

@Suite struct GPSDCycleTests {
    let t0 = Date(timeIntervalSince1970: 1_749_891_600)  // 2025-06-14T09:00:00Z

    func tpv(_ second: Int, eph: Double? = nil, mode: FixMode = .threeD, lat: Double = 51.5) -> Fix {
        Fix(time: t0 + Double(second), mode: mode,
            coordinate: mode.hasPosition ? Coordinate(latitude: lat, longitude: -0.6) : nil, eph: eph)
    }

    func assembler() -> GPSDCycleAssembler {
        var a = GPSDCycleAssembler()
        a.drivers["/dev/ttyACM0"] = "NMEA0183"
        return a
    }

    @Test func aTPVWaitsForItsGSTAndTakesTheLatestReportOfItsEpoch() {
        var a = assembler()
        #expect(a.tpv(tpv(0, mode: .twoD), device: "/dev/ttyACM0").isEmpty)
        #expect(a.tpv(tpv(0, eph: 45.6, lat: 51.6), device: "/dev/ttyACM0").isEmpty)
        #expect(a.sky(GPSDSky(hdop: 2.4, vdop: 3.1, pdop: 3.8, satellitesUsed: 5)).isEmpty)
        let out = a.gst(GPSDGST(time: t0, sigmaLatitude: 3, sigmaLongitude: 4))
        guard case let .fix(fix)? = out.last else { Issue.record("a fix after the GST"); return }
        #expect(out.count == 1)
        #expect(fix.mode == .threeD && fix.coordinate?.latitude == 51.6)
        #expect(fix.hdop == 2.4 && fix.satellitesUsed == 5)
        #expect(fix.accuracySource == .gst)
        #expect(fix.horizontalAccuracy == AccuracyModel.radius95(sigmaLatitude: 3, sigmaLongitude: 4))
    }

    @Test func withoutGSTgpsdsLaggingEPHIsReplacedByTheEpochsOwnDOP() {
        var a = assembler()
        _ = a.tpv(tpv(0, eph: 45.6), device: "/dev/ttyACM0")
        _ = a.sky(GPSDSky(hdop: 2.4))
        _ = a.quiet()
        // gpsd's eph for epoch 1 is still 2.4 × 19: it was computed before epoch 1's GSA.
        _ = a.tpv(tpv(1, eph: 45.6), device: "/dev/ttyACM0")
        _ = a.sky(GPSDSky(hdop: 2.34))
        guard case let .fix(fix)? = a.quiet().last else { Issue.record("a fix"); return }
        #expect(fix.accuracySource == .dop)
        #expect(fix.horizontalAccuracy == 2.34 * 19)
    }

    @Test func anEPHThatIsNotTheDOPModelIsTheReceiversOwn() {
        var a = assembler()
        _ = a.tpv(tpv(0, eph: 45.6), device: "/dev/ttyACM0")
        _ = a.sky(GPSDSky(hdop: 2.4))
        _ = a.quiet()
        _ = a.tpv(tpv(1, eph: 7.5), device: "/dev/ttyACM0")
        _ = a.sky(GPSDSky(hdop: 2.3))
        guard case let .fix(fix)? = a.quiet().last else { Issue.record("a fix"); return }
        #expect(fix.accuracySource == .receiver && fix.horizontalAccuracy == 7.5)

        var binary = GPSDCycleAssembler()
        binary.drivers["/dev/ttyACM0"] = "u-blox"
        _ = binary.tpv(tpv(0, eph: 2.4 * 19), device: "/dev/ttyACM0")
        _ = binary.sky(GPSDSky(hdop: 2.4))
        guard case let .fix(ublox)? = binary.quiet().last else { Issue.record("a fix"); return }
        #expect(ublox.accuracySource == .receiver && ublox.horizontalAccuracy == 45.6)
    }

    @Test func oldAndRepeatedFixesAreDroppedAndLossOfFixIsReported() {
        var a = GPSDCycleAssembler(lastTime: t0 + 1)
        _ = a.tpv(tpv(1, eph: 10), device: nil)
        #expect(a.quiet().isEmpty, "not after the last fix given out")
        _ = a.tpv(tpv(2, eph: 10), device: nil)
        #expect(a.quiet().count == 1)
        _ = a.tpv(tpv(3, mode: .noFix), device: nil)
        #expect(a.quiet().first == .fixLost)
        _ = a.tpv(tpv(4, mode: .noFix), device: nil)
        #expect(a.quiet().count == 1, "no second fixLost")
        var fresh = GPSDCycleAssembler()
        _ = fresh.tpv(tpv(0, mode: .noFix), device: nil)
        #expect(fresh.quiet().first == .noFix)
    }

    /// A receiver clock that steps back (a GPS week rollover, a log replayed from its start) is
    /// followed, not waited out: only a repeat within a couple of seconds is dropped.
    @Test func aReceiverTimeSteppingBackStartsTheTimesOver() {
        var a = GPSDCycleAssembler(lastTime: t0 + 600)
        _ = a.tpv(tpv(599, eph: 10), device: nil)
        #expect(a.quiet().isEmpty, "a repeat of a recent epoch")
        _ = a.tpv(tpv(0, eph: 10), device: nil)
        let stepped = a.quiet()
        guard case .fix(let f)? = stepped.first else {
            Issue.record("ten minutes back is the clock stepping, not a repeat: \(stepped)")
            return
        }
        #expect(f.time == t0)
        _ = a.tpv(tpv(1, eph: 10), device: nil)
        #expect(a.quiet().count == 1)
        #expect(a.lastTime == t0 + 1)
    }

    @Test func aLaterTPVCompletesTheHeldOne() {
        var a = assembler()
        _ = a.tpv(tpv(0, eph: 19), device: "/dev/ttyACM0")
        let out = a.tpv(tpv(1, eph: 19), device: "/dev/ttyACM0")
        #expect(out.count == 1)
        #expect(a.isHolding)
    }

    @Test(arguments: [(1, 1), (2, 2), (3, 4), (4, 8), (5, 10), (9, 10)])
    func backOffDoublesFromOneSecondToTen(attempt: Int, seconds: Int) {
        #expect(ReconnectPolicy.standard.delay(attempt: attempt) == .seconds(seconds))
    }

    @Test func reportClassesAndKeysAreReadFromTheJSONText() {
        let line = #"{"class":"TPV","device":"/dev/pts/3","mode":3}"#
        #expect(GPSDReportReader.reportClass(line) == "TPV")
        #expect(GPSDReportReader.stringValue(of: "device", in: line) == "/dev/pts/3")
        #expect(GPSDReportReader.stringValue(of: "driver", in: line) == nil)
    }
}
