import Location
import TreesKit

/// What the interactive capture does with each input, as a pure reducer over the source's
/// events, clock ticks and key presses: it keeps the capture session and the message the live
/// view shows under the gate, and says when a fix is frozen (time for the prompts), when the user
/// quit or interrupted, and when the source ended without a fix.
public struct InteractiveCapturePolicy: Sendable {
    /// The keys the live view listens to.
    public enum Key: Sendable, Equatable {
        /// Enter: freeze the current fix.
        case capture
        /// a: average the next epochs that pass the gate.
        case average
        /// q: leave, saving nothing more.
        case quit
        /// Ctrl-C: leave at once (exit status 130).
        case interrupt
        case other
    }

    public enum Input: Sendable {
        case event(LocationEvent)
        case tick
        case key(Key)
        /// The source ended.
        case ended
    }

    public enum Step: Sendable, Equatable {
        /// Keep watching: redraw with `message`.
        case watching
        /// A fix is frozen: prompt for the tree.
        case frozen(FrozenFix)
        case quit
        case interrupted
        /// The source ended with no fix frozen.
        case ended
    }

    public private(set) var session: CaptureSession
    /// The line under the gate: why a key did nothing, or that the source ended.
    public private(set) var message: String?
    /// Epochs that `a` averages.
    public let averageEpochs: Int

    public init(gate: CaptureGate, averageEpochs: Int) {
        session = CaptureSession(gate: gate)
        self.averageEpochs = averageEpochs
    }

    /// Takes one input, `time` after the start.
    public mutating func handle(_ input: Input, at time: Duration) -> Step {
        switch input {
        case .event(let event): session.handle(event, at: time)
        case .tick: session.tick(at: time)
        case .key(.capture):
            if session.freeze() == nil { message = notYet }
        case .key(.average):
            if session.canFreeze || session.lastFix?.hasPosition == true {
                session.startAveraging(epochs: averageEpochs)
                message = nil
            } else {
                message = notYet
            }
        case .key(.quit): return .quit
        case .key(.interrupt): return .interrupted
        case .key(.other): break
        case .ended:
            if case .averaging = session.state { _ = session.finishAveraging() }
            if case .frozen(let f) = session.state { return .frozen(f) }
            message = "The source ended."
            return .ended
        }
        if case .frozen(let f) = session.state { return .frozen(f) }
        return .watching
    }

    /// After the prompts: back to the same frozen position's live view to capture it again.
    public mutating func recapture() {
        session.unfreeze()
        message = nil
    }

    /// After a save or a discard: the next tree starts from a fresh session.
    public mutating func next() {
        session.reset()
        message = nil
    }

    private var notYet: String { "Not yet: \(session.whyNot ?? "no fix")." }
}
