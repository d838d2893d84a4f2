import TreesKit

/// A stream of fixes and status events from somewhere: gpsd, a serial receiver, a recorded track, stdin.
///
/// Every source reports through the same `LocationEvent`s so the live view and the capture
/// workflow never know where the fixes come from.
public protocol LocationSource: Sendable {
    /// How the source was named on the command line, e.g. `gpsd://localhost:2947`; stored with captured trees.
    var description: String { get }
    /// Starts the source. The stream ends when the source ends (end of a replayed file, stdin closed)
    /// and throws only for failures that leave nothing to retry (a missing file, gpsd unreachable at
    /// start without waiting). Cancelling the consuming task stops the source.
    func events() -> AsyncThrowingStream<LocationEvent, any Error>
}

/// How fast a recorded track is replayed.
public enum ReplaySpeed: Sendable, Equatable {
    /// Paced by the recorded time stamps, `factor` times real time (1 = real time).
    case factor(Double)
    /// As fast as possible, no pacing.
    case max

    /// Parses `max` or a positive number.
    public init?(_ text: String) {
        if text.lowercased() == "max" { self = .max; return }
        guard let v = Double(text), v.isFinite, v > 0 else { return nil }
        self = .factor(v)
    }
}
