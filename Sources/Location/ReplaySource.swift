import Foundation
import NMEA
import TreesKit

/// Why a recorded track could not be replayed.
public enum ReplayError: Error, Equatable, CustomStringConvertible {
    /// The file could not be opened (missing, unreadable, a directory).
    case cannotOpen(path: String, reason: String)
    /// Reading failed part way.
    case readFailed(path: String, reason: String)
    /// The file holds no NMEA sentence with a good checksum.
    case noNMEA(path: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .readFailed(let path, let reason): "cannot read \(path): \(reason)"
        case .noNMEA(let path): "no NMEA sentences found in \(path)"
        }
    }
}

/// Replays a recorded NMEA track as a location source.
///
/// The file is read in 1 MiB chunks, so memory stays flat whatever its size. Fixes are paced by
/// their recorded receiver times through the injected clock: with `.factor(2)` a track recorded
/// over ten minutes plays in five; with `.max` there is no pacing at all. Fixes without a time are
/// passed on at once. Tests inject a clock that never sleeps.
public struct ReplaySource: LocationSource {
    public let path: String
    public let speed: ReplaySpeed
    let clock: any Clock<Duration>
    /// Bytes read per chunk.
    static let chunkSize = 1 << 20

    public init(path: String, speed: ReplaySpeed, clock: any Clock<Duration> = ContinuousClock()) {
        self.path = path
        self.speed = speed
        self.clock = clock
    }

    public var description: String { "replay:\(path)" }

    /// Reads the whole track, calling `handle` for every epoch's fix (with or without a position)
    /// at its paced moment, and returns what the reader counted.
    ///
    /// Throws ``ReplayError`` for a file that cannot be read or holds no NMEA, `CancellationError`
    /// when the task is cancelled, and whatever `handle` throws.
    public func run(_ handle: (Fix) throws -> Void) async throws -> NMEAStatistics {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ReplayError.cannotOpen(path: path, reason: Self.errorText(errno)) }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var reader = NMEAFixReader()
        var pacer = Pacer(clock: clock, speed: speed)
        var pending: [Fix] = []
        var failure: (any Error)?
        while true {
            try Task.checkCancellation()
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReplayError.readFailed(path: path, reason: Self.errorText(errno))
            }
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            if speed == .max {
                reader.feed(chunk) { fix in
                    guard failure == nil else { return }
                    do { try handle(fix) } catch { failure = error }
                }
                if let failure { throw failure }
            } else {
                reader.feed(chunk) { pending.append($0) }
                for fix in pending {
                    try await pacer.wait(for: fix)
                    try handle(fix)
                }
                pending.removeAll(keepingCapacity: true)
            }
        }
        reader.finish { pending.append($0) }
        for fix in pending {
            try await pacer.wait(for: fix)
            try handle(fix)
        }
        guard reader.statistics.sentences > 0 else { throw ReplayError.noNMEA(path: path) }
        return reader.statistics
    }

    public func events() -> AsyncThrowingStream<LocationEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var hadPosition: Bool?
                    _ = try await run { fix in
                        if fix.hasPosition {
                            hadPosition = true
                        } else if hadPosition == true {
                            continuation.yield(.fixLost)
                            hadPosition = false
                        } else if hadPosition == nil {
                            continuation.yield(.noFix)
                            hadPosition = false
                        }
                        continuation.yield(.fix(fix))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// Waits between fixes for the time that passed between their recorded times, scaled by the
/// replay speed.
///
/// A fix whose time is earlier than the latest one seen (a receiver's time going backwards) or
/// that has no time is passed on at once.
struct Pacer {
    let clock: any Clock<Duration>
    let speed: ReplaySpeed
    var latest: Date?

    init(clock: any Clock<Duration>, speed: ReplaySpeed) {
        self.clock = clock
        self.speed = speed
    }

    mutating func wait(for fix: Fix) async throws {
        guard case .factor(let factor) = speed, let time = fix.time else { return }
        defer { if latest.map({ time > $0 }) ?? true { latest = time } }
        guard let latest, time > latest else { return }
        let seconds = time.timeIntervalSince(latest) / factor
        try await clock.sleep(for: .nanoseconds(Int64((seconds * 1e9).rounded())))
    }
}
