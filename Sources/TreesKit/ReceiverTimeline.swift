import Foundation

/// Tells a receiver's new epochs from repeated ones by their receiver time, without ever getting
/// stuck when that time steps back.
///
/// A fix later than the last one taken is new. One at the same time or a little earlier (within
/// `repeatWindow`) is a repeat, as a device that comes back resends its last epochs, and is
/// dropped, but no more than `repeatLimit` in a row: a receiver whose time keeps coming in there
/// has stepped back. One further back means the receiver's clock stepped back (a GPS week
/// rollover, a replayed log starting over) and is new at once. After a step the times that follow
/// count from it.
public struct ReceiverTimeline: Sendable, Equatable {
    /// How far back a fix's time may be and still be taken as a repeat, in seconds.
    public static let repeatWindow: TimeInterval = 30
    /// How many repeats in a row are dropped before the times are taken to have stepped back.
    public static let repeatLimit = 30

    /// Receiver time of the last fix taken.
    public private(set) var last: Date?
    /// Repeats dropped since the last fix taken.
    private var repeats = 0

    public init(last: Date? = nil) { self.last = last }

    /// True when a fix at `time` is new (and then it becomes the last); false for a repeat. A fix
    /// without a time is new and changes nothing.
    public mutating func takes(_ time: Date?) -> Bool {
        guard let time else { return true }
        if let last, time <= last, last.timeIntervalSince(time) <= Self.repeatWindow, repeats < Self.repeatLimit {
            repeats += 1
            return false
        }
        last = time
        repeats = 0
        return true
    }
}
