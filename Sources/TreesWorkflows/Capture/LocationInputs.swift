import Location
import TreesKit

/// What a live view or a capture reacts to: the source's events, and clock ticks.
public enum LocationInput: Sendable {
    case event(LocationEvent)
    case tick
}

extension LocationSource {
    /// The source's events, with a tick every half second when `ticking` (for a live view or a
    /// capture's clock), ending with the source or at `deadline`. The source's errors end the
    /// stream as they are (`LocationError`).
    public func inputs(ticking: Bool, until deadline: ContinuousClock.Instant? = nil) -> AsyncThrowingStream<LocationInput, any Error> {
        let (stream, out) = AsyncThrowingStream<LocationInput, any Error>.makeStream()
        let events = Task {
            do {
                for try await event in self.events() { out.yield(.event(event)) }
                out.finish()
            } catch {
                out.finish(throwing: error)
            }
        }
        let ticker = Task {
            while !Task.isCancelled {
                if let deadline, ContinuousClock.now >= deadline { out.finish(); return }
                try await Task.sleep(for: .milliseconds(ticking ? 500 : 100))
                if ticking { out.yield(.tick) }
            }
        }
        out.onTermination = { _ in events.cancel(); ticker.cancel() }
        return stream
    }
}
