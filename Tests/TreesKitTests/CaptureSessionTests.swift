import Foundation
import Testing
import TreesKit

@Suite struct CaptureSessionTests {
    static let origin = Coordinate(latitude: 51.5, longitude: -0.12)
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func fix(_ second: Int, accuracy: Double?, mode: FixMode = .threeD, east: Double = 0, north: Double = 0, alt: Double? = 30) -> Fix {
        Fix(time: t0 + Double(second), mode: mode, status: .gps,
            coordinate: mode.hasPosition ? Geodesy.coordinate(east: east, north: north, from: origin) : nil,
            altitudeMSL: alt, satellitesUsed: 8, hdop: 1.1, horizontalAccuracy: accuracy, accuracySource: .gst)
    }

    @Test func thresholdEdges() {
        var s = CaptureSession()
        s.handle(.fix(Self.fix(1, accuracy: 20.0)), at: .seconds(1))
        #expect(s.state == .poor(accuracy: 20, excess: 0))
        #expect(!s.canFreeze)
        #expect(s.whyNot == "accuracy 20.0 m is not under 20 m")
        #expect(s.freeze() == nil)
        s.handle(.fix(Self.fix(2, accuracy: 19.99)), at: .seconds(2))
        #expect(s.state == .acceptable(accuracy: 19.99))
        #expect(s.canFreeze && s.whyNot == nil)
        s.handle(.fix(Self.fix(3, accuracy: 10.0)), at: .seconds(3))
        #expect(s.state == .acceptable(accuracy: 10))
        s.handle(.fix(Self.fix(4, accuracy: 9.99)), at: .seconds(4))
        #expect(s.state == .good(accuracy: 9.99))
    }

    /// A receiver clock stepping back (a GPS week rollover, a replayed log starting over) does not
    /// leave the session waiting for a later time: only a repeat within seconds is dropped.
    @Test func aReceiverTimeSteppingBackIsFollowed() {
        var s = CaptureSession()
        s.handle(.fix(Self.fix(600, accuracy: 15)), at: .seconds(1))
        s.handle(.fix(Self.fix(599, accuracy: 5)), at: .seconds(2))
        #expect(s.state == .acceptable(accuracy: 15), "a repeat of a recent epoch is dropped")
        s.handle(.fix(Self.fix(0, accuracy: 5)), at: .seconds(3))
        #expect(s.state == .good(accuracy: 5))
        s.handle(.fix(Self.fix(1, accuracy: 6)), at: .seconds(4))
        #expect(s.state == .good(accuracy: 6))
        #expect(s.freeze()?.fix.time == Self.t0 + 1)
    }

    /// A short log played over and over steps back by less than the repeat window: after a run of
    /// repeats its times are taken as stepped back too.
    @Test func aRunOfRepeatsIsTakenAsTheTimeSteppingBack() {
        var timeline = ReceiverTimeline()
        var taken = timeline.takes(Self.t0 + 20)
        #expect(taken)
        for second in 0..<ReceiverTimeline.repeatLimit {
            taken = timeline.takes(Self.t0 + Double(second % 20))
            #expect(!taken)
        }
        taken = timeline.takes(Self.t0 + 10)
        #expect(taken)
        #expect(timeline.last == Self.t0 + 10)
        taken = timeline.takes(Self.t0 + 11)
        #expect(taken)
    }

    /// `--require-fix`: a fix of lesser quality is searched past, whatever its accuracy, and never
    /// becomes the best acceptable one; the text says what is missing.
    @Test func requiredFixQualityGatesTheCapture() {
        var s = CaptureSession(gate: CaptureGate(requiredFix: .rtkFixed))
        var float = Self.fix(1, accuracy: 0.3)
        float.status = .rtkFloat
        float.correctionAge = 3
        s.handle(.fix(float), at: .seconds(1))
        #expect(s.state == .searching(.fixQuality(status: .rtkFloat, required: .rtkFixed, correctionAge: 3)))
        #expect(s.whyNot == "RTK float — waiting for RTK fixed; corrections 3.0 s old")
        #expect(!s.canFreeze && s.freeze() == nil && s.freeze(float) == nil && s.bestAcceptable == nil)
        s.handle(.fix(Self.fix(2, accuracy: 3)), at: .seconds(2))
        #expect(s.whyNot == "no corrections (GPS) — waiting for RTK fixed; no corrections reach the receiver")
        var fixed = Self.fix(3, accuracy: 0.02)
        fixed.status = .rtkFixed
        s.handle(.fix(fixed), at: .seconds(3))
        #expect(s.state == .good(accuracy: 0.02))
        #expect(s.freeze()?.fix.status == .rtkFixed)

        // DGPS is met by RTK float and fixed, not by a plain fix.
        #expect(RequiredFix.dgps.isMet(by: .rtkFloat) && RequiredFix.dgps.isMet(by: .dgps) && !RequiredFix.dgps.isMet(by: .gps))
        #expect(RequiredFix.rtkFloat.isMet(by: .rtkFixed) && !RequiredFix.rtkFloat.isMet(by: .dgps))
        #expect(!RequiredFix.rtkFixed.isMet(by: .deadReckoning))
    }

    @Test func theSurveyClassIsUnderTenCentimetres() {
        #expect(AccuracyClass(metres: 0.0999) == .survey)
        #expect(AccuracyClass(metres: 0.1) == .excellent)
        #expect(AccuracyClass(metres: 4.99) == .excellent)
        #expect(AccuracyClass.survey.title == "Survey" && AccuracyClass.survey.colour == .blue)
    }

    @Test func customThresholds() {
        var s = CaptureSession(gate: CaptureGate(require: 5, encourage: 2, stale: .seconds(1)))
        s.handle(.fix(Self.fix(1, accuracy: 4.9)), at: .seconds(1))
        #expect(s.state == .acceptable(accuracy: 4.9))
        s.tick(at: .milliseconds(2_001))
        #expect(s.state == .searching(.stale(age: .milliseconds(1_001))))
    }

    @Test func searchingStatesAndStaleness() {
        var s = CaptureSession()
        #expect(s.state == .searching(.noFix))
        #expect(s.whyNot == "no fix yet")
        s.handle(.fix(Self.fix(1, accuracy: nil, mode: .noFix)), at: .seconds(1))
        #expect(s.state == .searching(.noFix))
        s.handle(.fix(Self.fix(2, accuracy: 5)), at: .seconds(2))
        #expect(s.state == .good(accuracy: 5))
        s.tick(at: .seconds(5))
        #expect(s.state == .good(accuracy: 5))   // exactly 3 s old is still fresh
        s.tick(at: .milliseconds(5_001))
        #expect(s.state == .searching(.stale(age: .milliseconds(3_001))))
        #expect(!s.canFreeze)
        s.handle(.fix(Self.fix(3, accuracy: 6, mode: .twoD)), at: .seconds(6))
        #expect(s.state == .good(accuracy: 6))
        s.handle(.fixLost, at: .seconds(7))
        #expect(s.state == .searching(.noFix))
        s.handle(.fix(Self.fix(8, accuracy: 12)), at: .seconds(8))
        #expect(s.state == .acceptable(accuracy: 12))
        s.handle(.fix(Self.fix(9, accuracy: 15, east: 1)), at: .seconds(9))
        s.handle(.fix(Self.fix(9, accuracy: 1, east: 50)), at: .seconds(9))   // same time again: ignored
        #expect(s.state == .acceptable(accuracy: 15))
    }

    @Test func frozenFixIsUnaffectedByLaterEvents() throws {
        var s = CaptureSession()
        s.handle(.fix(Self.fix(1, accuracy: 8, east: 2)), at: .seconds(1))
        let maybeFrozen = s.freeze()
        let frozen = try #require(maybeFrozen)
        #expect(frozen.horizontalAccuracy == 8 && frozen.epochs == 1 && frozen.accuracySource == .gst)
        s.handle(.fixLost, at: .seconds(2))
        s.handle(.fix(Self.fix(3, accuracy: 2, east: 40)), at: .seconds(3))
        s.tick(at: .seconds(60))
        #expect(s.state == .frozen(frozen))
        s.unfreeze()
        s.handle(.fix(Self.fix(61, accuracy: 3)), at: .seconds(61))
        #expect(s.state == .good(accuracy: 3))
    }

    @Test func bestAcceptableIsTheMostAccurateThatPassedTheGate() {
        var s = CaptureSession()
        for (i, a) in [35.0, 18, 12, 25, 14].enumerated() { s.handle(.fix(Self.fix(i, accuracy: a)), at: .seconds(Int64(i))) }
        #expect(s.bestAcceptable?.horizontalAccuracy == 12)
    }

    @Test func averagingSkipsEpochsOutsideTheGateAndDropsAnOutlier() throws {
        var s = CaptureSession()
        s.handle(.fix(Self.fix(0, accuracy: 6)), at: .zero)
        s.startAveraging(epochs: 10)
        #expect(s.state == .averaging(collected: 0, target: 10))
        // Nine epochs within ±0.6 m of (2, 3), one 30 m off; a poor epoch in between does not count.
        let offsets: [(Double, Double)] = [(2.0, 3.0), (2.4, 3.2), (1.6, 2.8), (2.2, 2.6), (1.8, 3.4), (2.0, 3.6), (2.6, 3.0),
                                           (1.4, 3.0), (2.0, 2.4), (32.0, 3.0)]
        var second = 1
        for (i, (e, n)) in offsets.enumerated() {
            if i == 4 {
                s.handle(.fix(Self.fix(second, accuracy: 25, east: 100)), at: .seconds(Int64(second)))
                second += 1
            }
            s.handle(.fix(Self.fix(second, accuracy: 6, east: e, north: n, alt: 30 + Double(i % 2))), at: .seconds(Int64(second)))
            second += 1
        }
        guard case .frozen(let frozen) = s.state else { Issue.record("not frozen: \(s.state)"); return }
        #expect(frozen.epochs == 9 && frozen.outliers == 1)
        let centre = Geodesy.offset(of: frozen.coordinate, from: Self.origin)
        #expect(abs(centre.east - 2.0) < 1e-6 && abs(centre.north - 3.0) < 1e-6)
        // Scatter: σe = σn = √(1.12/8) = 0.3742 m → 95% radius 1.7308 × 0.5292 = 0.9159 m; the epochs claim 6 m: the claim wins.
        #expect(abs(try #require(frozen.spread) - 0.9159) < 1e-3)
        #expect(frozen.horizontalAccuracy == 6)
        #expect(frozen.accuracySource == .averaged)
        #expect(frozen.fix.altitudeMSL.map { abs($0 - 30.444) < 1e-3 } == true)
    }

    @Test func averagedAccuracyIsNeverBetterThanTheScatter() throws {
        let fixes = (0..<6).map { i in Self.fix(i, accuracy: 2, east: Double(i % 2 == 0 ? -4 : 4)) }
        let avg = try #require(PositionAverager.average(fixes))
        #expect(avg.outliers == 0)
        // σe = 4.382 m (n−1), σn = 0 → radius95 = 1.7308 × 4.382 = 7.584 m, far above the claimed 2 m.
        #expect(abs(avg.spread - 7.584) < 1e-2)
        #expect(avg.horizontalAccuracy == avg.spread)
    }

    @Test func trendFollowsTheLastFifteenSeconds() {
        var s = CaptureSession()
        for i in 0..<10 { s.handle(.fix(Self.fix(i, accuracy: 30 - Double(i) * 2)), at: .seconds(Int64(i))) }
        #expect(s.trend == .improving)
        for i in 10..<30 { s.handle(.fix(Self.fix(i, accuracy: 8)), at: .seconds(Int64(i))) }
        #expect(s.trend == .steady)
        for i in 30..<40 { s.handle(.fix(Self.fix(i, accuracy: 8 + Double(i - 30))), at: .seconds(Int64(i))) }
        #expect(s.trend == .worsening)
    }
}
