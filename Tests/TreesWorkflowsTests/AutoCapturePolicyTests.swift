import Foundation
import Testing
import TreesKit
import TreesWorkflows

@Suite struct AutoCapturePolicyTests {
    static let origin = Coordinate(latitude: 51.5, longitude: -0.12)
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000)

    static func fix(_ second: Int, accuracy: Double, east: Double = 0) -> LocationInput {
        .event(.fix(Fix(time: t0 + Double(second), mode: .threeD, status: .gps,
                        coordinate: Geodesy.coordinate(east: east, north: 0, from: origin), altitudeMSL: 30,
                        satellitesUsed: 8, hdop: 1.1, horizontalAccuracy: accuracy, accuracySource: .gst)))
    }

    @Test func freezesTheFirstGoodFix() {
        var policy = AutoCapturePolicy(gate: CaptureGate(), average: nil)
        #expect(policy.handle(Self.fix(1, accuracy: 25), at: .seconds(1)) == nil)
        #expect(policy.handle(Self.fix(2, accuracy: 14), at: .seconds(2)) == nil)
        #expect(policy.handle(.tick, at: .milliseconds(2_500)) == nil)
        let frozen = policy.handle(Self.fix(3, accuracy: 6, east: 1), at: .seconds(3))
        #expect(frozen?.horizontalAccuracy == 6)
        #expect(frozen?.epochs == 1)
        #expect(frozen?.fix.time == Self.t0 + 3)
    }

    @Test func withoutAGoodFixTheBestAcceptableOneIsTakenAtTheEnd() {
        var policy = AutoCapturePolicy(gate: CaptureGate(), average: nil)
        for (second, accuracy) in [(1, 30.0), (2, 18.0), (3, 12.0), (4, 15.0)] {
            #expect(policy.handle(Self.fix(second, accuracy: accuracy), at: .seconds(second)) == nil)
        }
        let frozen = policy.finish()
        #expect(frozen?.horizontalAccuracy == 12)
        #expect(frozen?.fix.time == Self.t0 + 3)
    }

    /// `--average` is kept when no fix is ever good: at the end the last epochs that passed the
    /// gate are averaged, not the best single one taken.
    @Test func withoutAGoodFixTheLastAcceptableEpochsAreAveragedAtTheEnd() {
        var policy = AutoCapturePolicy(gate: CaptureGate(), average: 3)
        for (second, accuracy) in [(1, 30.0), (2, 18.0), (3, 12.0), (4, 15.0), (5, 16.0)] {
            #expect(policy.handle(Self.fix(second, accuracy: accuracy, east: Double(second % 2)), at: .seconds(second)) == nil)
        }
        let frozen = policy.finish()
        #expect(frozen?.epochs == 3)
        #expect(frozen?.accuracySource == .averaged)
        #expect(frozen?.fix.time == Self.t0 + 5)
    }

    @Test func nothingPassesTheGateNothingIsFrozen() {
        var policy = AutoCapturePolicy(gate: CaptureGate(require: 20, encourage: 10), average: 3)
        for second in 1...5 { #expect(policy.handle(Self.fix(second, accuracy: 20), at: .seconds(second)) == nil) }
        #expect(policy.finish() == nil)
    }

    @Test func averagesTheGivenNumberOfEpochsFromTheFirstGoodOne() {
        var policy = AutoCapturePolicy(gate: CaptureGate(), average: 3)
        #expect(policy.handle(Self.fix(1, accuracy: 8), at: .seconds(1)) == nil)
        var frozen: FrozenFix?
        var second = 2
        while frozen == nil && second < 10 {
            frozen = policy.handle(Self.fix(second, accuracy: 8, east: Double(second % 2)), at: .seconds(second))
            second += 1
        }
        #expect(frozen?.epochs == 3)
        #expect(frozen?.accuracySource == .averaged)
        #expect(second == 5)
    }

    @Test func anAverageCutShortByTheEndKeepsWhatItHas() {
        var policy = AutoCapturePolicy(gate: CaptureGate(), average: 10)
        #expect(policy.handle(Self.fix(1, accuracy: 8), at: .seconds(1)) == nil)
        #expect(policy.handle(Self.fix(2, accuracy: 8), at: .seconds(2)) == nil)
        #expect(policy.handle(Self.fix(3, accuracy: 8, east: 2), at: .seconds(3)) == nil)
        let frozen = policy.finish()
        #expect(frozen?.accuracySource == .averaged)
        #expect((frozen?.epochs ?? 0) >= 1)
    }
}
