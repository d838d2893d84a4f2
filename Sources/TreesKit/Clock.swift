import Foundation

/// The wall-clock time source used for record time stamps (createdAt, updatedAt).
///
/// Injected so tests and replays are deterministic; `system` reads the computer's clock.
public struct WallClock: Sendable {
    public let now: @Sendable () -> Date
    public init(now: @escaping @Sendable () -> Date) { self.now = now }
    public static let system = WallClock { Date() }
    /// A clock fixed at `date`.
    public static func fixed(_ date: Date) -> WallClock { WallClock { date } }
}
