import Foundation
import Testing
import TreesKit
import TreesWorkflows

/// The interactive capture's reducer: key presses against the gate, averaging, the source's end.
@Suite struct InteractiveCapturePolicyTests {
    typealias Policy = InteractiveCapturePolicy

    static func fix(_ second: Int, accuracy: Double, east: Double = 0) -> Policy.Input {
        guard case .event(let event) = AutoCapturePolicyTests.fix(second, accuracy: accuracy, east: east) else { return .tick }
        return .event(event)
    }

    @Test func enterBeforeAnAcceptableFixSaysWhyAndFreezesNothing() {
        var policy = Policy(gate: CaptureGate(), averageEpochs: 5)
        #expect(policy.handle(.key(.capture), at: .zero) == .watching)
        #expect(policy.message == "Not yet: no fix yet.")
        #expect(policy.handle(Self.fix(1, accuracy: 25), at: .seconds(1)) == .watching)
        #expect(policy.handle(.key(.capture), at: .seconds(1)) == .watching)
        #expect(policy.message?.hasPrefix("Not yet: ") == true)
        #expect(policy.message != "Not yet: no fix yet.")
    }

    @Test func enterOnAnAcceptableFixFreezesIt() throws {
        var policy = Policy(gate: CaptureGate(), averageEpochs: 5)
        #expect(policy.handle(Self.fix(1, accuracy: 14), at: .seconds(1)) == .watching)
        guard case .frozen(let f) = policy.handle(.key(.capture), at: .seconds(1)) else { Issue.record("not frozen"); return }
        #expect(f.horizontalAccuracy == 14)
        #expect(f.epochs == 1)
        // Re-capture goes back to watching the same source; the next tree starts afresh.
        policy.recapture()
        #expect(policy.handle(.tick, at: .seconds(2)) == .watching)
        policy.next()
        #expect(policy.message == nil)
        // The next tree starts from the fixes that arrive now, not from the frozen one.
        guard case .frozen(let g) = policy.handle(Self.fix(3, accuracy: 6, east: 5), at: .seconds(3)) == .watching
            ? policy.handle(.key(.capture), at: .seconds(3)) : .watching else { Issue.record("not frozen"); return }
        #expect(g.horizontalAccuracy == 6)
        #expect(g.fix.time == AutoCapturePolicyTests.t0 + 3)
    }

    @Test func averagingFreezesAfterItsEpochs() {
        var policy = Policy(gate: CaptureGate(), averageEpochs: 3)
        #expect(policy.handle(.key(.average), at: .zero) == .watching)
        #expect(policy.message == "Not yet: no fix yet.")
        #expect(policy.handle(Self.fix(1, accuracy: 8), at: .seconds(1)) == .watching)
        #expect(policy.handle(.key(.average), at: .seconds(1)) == .watching)
        #expect(policy.message == nil)
        var step = Policy.Step.watching
        var second = 2
        while step == .watching && second < 10 {
            step = policy.handle(Self.fix(second, accuracy: 8, east: Double(second % 2)), at: .seconds(second))
            second += 1
        }
        guard case .frozen(let f) = step else { Issue.record("not frozen: \(step)"); return }
        #expect(f.epochs == 3)
        #expect(f.accuracySource == .averaged)
    }

    @Test func theSourceEndingKeepsAnAverageInProgressOrSaysSo() {
        var averaging = Policy(gate: CaptureGate(), averageEpochs: 10)
        _ = averaging.handle(Self.fix(1, accuracy: 8), at: .seconds(1))
        _ = averaging.handle(.key(.average), at: .seconds(1))
        _ = averaging.handle(Self.fix(2, accuracy: 8), at: .seconds(2))
        guard case .frozen(let f) = averaging.handle(.ended, at: .seconds(3)) else { Issue.record("not frozen"); return }
        #expect(f.accuracySource == .averaged)

        var idle = Policy(gate: CaptureGate(), averageEpochs: 10)
        _ = idle.handle(Self.fix(1, accuracy: 30), at: .seconds(1))
        #expect(idle.handle(.ended, at: .seconds(2)) == .ended)
        #expect(idle.message == "The source ended.")
    }

    @Test func quitAndInterruptLeave() {
        var policy = Policy(gate: CaptureGate(), averageEpochs: 10)
        #expect(policy.handle(.key(.other), at: .zero) == .watching)
        #expect(policy.handle(.key(.quit), at: .zero) == .quit)
        #expect(policy.handle(.key(.interrupt), at: .zero) == .interrupted)
    }
}
