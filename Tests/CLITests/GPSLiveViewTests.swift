import Foundation
import Testing
@testable import trees
import TreesKit

@Suite struct GPSLiveViewTests {
    let t0 = Date(timeIntervalSince1970: 1_749_891_600)

    func fix(_ second: Int, metres: Double, mode: FixMode = .threeD) -> Fix {
        Fix(time: t0 + Double(second), mode: mode, status: .gps,
            coordinate: mode.hasPosition ? Coordinate(latitude: 51.2795388, longitude: 0.5420172) : nil,
            altitudeMSL: 43.9, satellitesUsed: 9, hdop: 0.9,
            horizontalAccuracy: mode.hasPosition ? metres : nil, accuracySource: mode.hasPosition ? .gst : nil)
    }

    func view(improvingOver seconds: Int) -> LiveView {
        var v = LiveView(sourceName: "gpsd://localhost:2947")
        v.update(with: .connected(version: "3.22", devices: [DeviceInfo(path: "/dev/ttyACM0", driver: "NMEA0183")]), now: t0)
        for s in 0..<seconds {
            v.update(with: .fix(fix(s, metres: 20 - Double(s) * 0.5)), now: t0 + Double(s) + 0.2)
        }
        return v
    }

    @Test func rendersTheFixBadgeSparklineAndTrend() {
        let lines = view(improvingOver: 20).render(width: 100, colour: false)
        #expect(lines == [
            "trees gps  gpsd://localhost:2947  gpsd 3.22  /dev/ttyACM0 (NMEA0183)",
            "Acceptable 10.5 m  (gst, 95% radius)",
            "3D fix  9 satellites  HDOP 0.9  age 0.0 s",
            "51.2795388, 0.5420172  alt 43.9 m",
            "last minute ███▇▇▆▆▆▅▅▄▄▃▃▃▂▂▁▁▁  10.5–20.0 m  improving",
            "\(LiveView.clock(t0))  connected to gpsd 3.22; /dev/ttyACM0 NMEA0183",
            "",
            "",
        ])
    }

    /// An RTK receiver under `--require-fix rtk-fixed` with a 2 m pole and an NTRIP stream: float is
    /// shown as what it waits for; fixed shows centimetre heights, the status and the corrections.
    @Test func rtkStatusCorrectionsAndWhatTheGateWaitsFor() {
        var v = LiveView(sourceName: "serial:/dev/ttyACM0", requiredFix: .rtkFixed)
        v.antennaHeight = 2
        var f = fix(0, metres: 0.4)
        f.status = .rtkFloat
        f.correctionAge = 3
        f.verticalAccuracy = 0.62
        f.verticalAccuracySource = .gst
        v.update(with: .corrections(CorrectionStreamStatus(caster: "caster.example.org:2101/ORCH", state: .connecting)), now: t0)
        v.update(with: .corrections(CorrectionStreamStatus(caster: "caster.example.org:2101/ORCH", state: .streaming,
                                                           bytes: 14_230, lastData: t0 + 0.5)), now: t0 + 0.6)
        v.update(with: .corrections(CorrectionStreamStatus(caster: "caster.example.org:2101/ORCH", state: .streaming,
                                                           bytes: 14_230, lastData: t0 + 0.5)), now: t0 + 0.7)
        v.update(with: .fix(f), now: t0 + 0.8)
        let waiting = v.render(width: 120, colour: false)
        // Two state changes are messages; the second streaming report is not.
        #expect(v.messages.map(\.text) == ["corrections: connecting to caster.example.org:2101/ORCH",
                                            "corrections: streaming from caster.example.org:2101/ORCH"])
        #expect(waiting[1].hasSuffix("RTK float — waiting for RTK fixed; corrections 3.0 s old"), "\(waiting[1])")
        #expect(waiting[2].hasPrefix("3D fix  RTK float, corrections 3.0 s old  9 satellites"), "\(waiting[2])")
        #expect(waiting[3] == "51.2795388, 0.5420172  alt 41.900 m  ±0.6 m (95%)  (antenna 2.00 m above the ground)")
        #expect(waiting[5] == "Corrections: caster.example.org:2101/ORCH, 14.2 kB, last 0.3 s ago")
        #expect(!v.session.canFreeze)

        f = fix(1, metres: 0.02)
        f.status = .rtkFixed
        f.correctionAge = 1
        f.verticalAccuracy = 0.031
        v.update(with: .fix(f), now: t0 + 1.2)
        let fixed = v.render(width: 120, colour: false)
        #expect(fixed[1].hasPrefix("Survey "), "\(fixed[1])")
        #expect(fixed[2].hasPrefix("3D fix  RTK fixed, corrections 1.0 s old"), "\(fixed[2])")
        #expect(v.session.canFreeze)
        v.tick(now: t0 + 14)
        #expect(v.render(width: 120, colour: true)[5].contains(ANSI.code(for: .orange) + "Corrections: caster.example.org:2101/ORCH, 14.2 kB, last 14 s ago"))
    }

    /// A receiver may send any number as its correction age: one too big for a whole number of
    /// seconds is shown as over a day old, in the view and in what the gate waits for.
    @Test func anAbsurdCorrectionAgeIsShownAsOverADay() {
        var v = LiveView(sourceName: "serial:/dev/ttyACM0", requiredFix: .rtkFixed)
        var f = fix(0, metres: 0.4)
        f.status = .rtkFloat
        f.correctionAge = 1e300
        v.update(with: .fix(f), now: t0 + 0.1)
        let lines = v.render(width: 120, colour: false)
        #expect(lines[1].hasSuffix("RTK float — waiting for RTK fixed; corrections over a day old"), "\(lines[1])")
        #expect(lines[2].hasPrefix("3D fix  RTK float, corrections over a day old  9 satellites"), "\(lines[2])")
        #expect(LiveView.age(3 * 86_400) == "over a day")
        #expect(LiveView.age(.infinity) == "over a day")
    }

    @Test func anHDOPWorkedOutFromTheSkyIsSaidSo() {
        var v = LiveView(sourceName: "replay:sky.nmea")
        var f = fix(0, metres: 33.5)
        f.hdop = 1.76
        f.accuracySource = .dop
        f.derived = .dop
        v.update(with: .fix(f), now: t0 + 0.2)
        let lines = v.render(width: 100, colour: false)
        #expect(lines[2] == "3D fix  9 satellites  HDOP 1.8 from satellite geometry  age 0.0 s")
    }

    @Test func colourOnlyWhenAsked() {
        let v = view(improvingOver: 5)
        #expect(!v.render(width: 100, colour: false).joined().contains("\u{1B}["))
        let coloured = v.render(width: 100, colour: true)
        // 18 m is Marginal: orange.
        #expect(coloured[1].contains(ANSI.code(for: .orange) + "Marginal 18.0 m"))
    }

    @Test func staleAndLostFixesAreGrey() {
        var v = view(improvingOver: 5)
        v.tick(now: t0 + 12)
        let stale = v.render(width: 100, colour: true)
        #expect(ANSI.strip(stale[1]) == "Stale  last fix 7.8 s ago")
        #expect(stale[1].hasPrefix(ANSI.code(for: .grey)))
        v.update(with: .fixLost, now: t0 + 12.5)
        v.update(with: .fix(fix(13, metres: 0, mode: .noFix)), now: t0 + 13)
        let lost = v.render(width: 100, colour: false)
        #expect(lost[1] == "No fix")
        #expect(lost[2] == "no fix  9 satellites  HDOP 0.9  age 0.0 s")
        #expect(lost[3] == "no position")
        #expect(lost.contains("\(LiveView.clock(t0 + 12.5))  fix lost"))
    }

    @Test func statusEventsAreShownAsTheyHappen() {
        var v = view(improvingOver: 3)
        v.update(with: .sourceLost(reason: "gpsd closed the connection"), now: t0 + 4)
        v.update(with: .reconnecting(attempt: 2, delay: .seconds(2)), now: t0 + 5)
        let lines = v.render(width: 100, colour: false)
        #expect(lines.suffix(2) == [
            "\(LiveView.clock(t0 + 4))  lost the source: gpsd closed the connection",
            "\(LiveView.clock(t0 + 5))  reconnecting in 2.0 s (attempt 2)",
        ])
    }

    @Test func aLostSourceSaysSoAndShowsTheLastFixAsSuch() {
        var v = view(improvingOver: 3)
        v.update(with: .sourceLost(reason: "gpsd closed the connection"), now: t0 + 3.5)
        let lines = v.render(width: 100, colour: false)
        #expect(lines[1] == "No fix  source lost, reconnecting")
        #expect(lines[2] == "last fix 3D fix  9 satellites  HDOP 0.9  age 1.3 s")
        v.update(with: .connected(version: "3.22", devices: []), now: t0 + 5)
        #expect(!v.render(width: 100, colour: false)[1].contains("source lost"))
    }

    @Test func linesFitTheWidth() {
        let lines = view(improvingOver: 30).render(width: 40, colour: true)
        #expect(lines.allSatisfy { ANSI.strip($0).count <= 40 })
    }

    @Test func statusObjectsForJSONLines() {
        #expect(GPSPrinter.statusJSON(.reconnecting(attempt: 2, delay: .seconds(2)))
            == #"{"class":"STATUS","event":"reconnecting","attempt":2,"delay":2}"#)
        #expect(GPSPrinter.statusJSON(.sourceLost(reason: "gpsd closed the connection"))
            == #"{"class":"STATUS","event":"sourceLost","reason":"gpsd closed the connection"}"#)
        #expect(GPSPrinter.statusJSON(.deviceRemoved(DeviceInfo(path: "/dev/ttyACM0")))
            == #"{"class":"STATUS","event":"deviceRemoved","device":{"path":"/dev/ttyACM0"}}"#)
    }
}
