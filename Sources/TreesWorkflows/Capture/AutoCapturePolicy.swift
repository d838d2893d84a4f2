import TreesKit

/// When a capture without prompts freezes its fix, as a pure reducer over location inputs: it
/// waits for a good fix (or averages `average` epochs that pass the gate, from the first good
/// one); at the end of the source or the timeout it takes the average so far, else (averaging)
/// the average of the last `average` epochs that passed the gate, else the best acceptable fix
/// seen, else nothing.
public struct AutoCapturePolicy: Sendable {
    public private(set) var session: CaptureSession
    /// Epochs to average; nil freezes the first good fix.
    public let average: Int?
    /// With `average`: the last epochs that passed the gate before averaging started.
    private var acceptable: [Fix] = []

    public init(gate: CaptureGate, average: Int?) {
        session = CaptureSession(gate: gate)
        self.average = average
    }

    /// Takes one input, `time` after the start; the frozen fix once there is one.
    public mutating func handle(_ input: LocationInput, at time: Duration) -> FrozenFix? {
        switch input {
        case .event(let event): session.handle(event, at: time)
        case .tick: session.tick(at: time)
        }
        if let average, case .event(.fix) = input, case .acceptable = session.state, let fix = session.lastFix {
            acceptable.append(fix)
            if acceptable.count > average { acceptable.removeFirst(acceptable.count - average) }
        }
        switch session.state {
        case .good where average != nil:
            session.startAveraging(epochs: average ?? 1)
            if case .frozen(let f) = session.state { return f }
            return nil
        case .good:
            return session.freeze()
        case .frozen(let f):
            return f
        default:
            return nil
        }
    }

    /// The fix to save when the inputs end or time runs out: the average so far, else the best
    /// acceptable fix seen; nil when no fix passed the gate.
    public mutating func finish() -> FrozenFix? {
        if case .frozen(let f) = session.state { return f }
        if case .averaging = session.state, let f = session.finishAveraging() { return f }
        if average != nil, let f = session.freezeAverage(of: acceptable) { return f }
        if let best = session.bestAcceptable { return session.freeze(best) }
        return nil
    }
}
