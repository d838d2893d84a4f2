import Foundation
import NMEA
import TreesKit

/// Replays a recorded NMEA track (a file, or standard input for `-`) as a location source.
///
/// The file is read in 1 MiB chunks, so memory stays flat whatever its size. Fixes are paced by
/// their recorded receiver times through the injected clock: with `.factor(2)` a track recorded
/// over ten minutes plays in five; with `.max` there is no pacing at all. Fixes without a time are
/// passed on at once. Tests inject a clock that never sleeps.
public struct ReplaySource: LocationSource {
    public let path: String
    public let speed: ReplaySpeed
    let clock: any Clock<Duration>
    /// Times as gpsd would give them replaying the file now: receiver times before 2017 moved
    /// ahead by 1024 weeks unless the file says when it was recorded (see
    /// `NMEAFixReader.init(correctingWeekRollover:)`). Off: times as the receiver wrote them.
    public let timesAsGpsd: Bool
    /// Bytes read per chunk.
    static let chunkSize = 1 << 20
    /// The longest wait between two fixes (a year): a slow speed or a jump in the recorded times
    /// that asks for more waits this long.
    public static let longestWait: Duration = .seconds(31_536_000)

    public init(path: String, speed: ReplaySpeed, clock: any Clock<Duration> = ContinuousClock(), timesAsGpsd: Bool = false) {
        self.path = path
        self.speed = speed
        self.clock = clock
        self.timesAsGpsd = timesAsGpsd
    }

    public var description: String { "replay:\(path)" }

    /// Refuses a track that replaying would refuse at once (missing, unreadable, a folder), as
    /// replaying would, without reading it: for a command to do before it changes anything.
    public static func checkReadable(_ path: String) throws {
        guard path != "-" else { return }
        _ = try ReplayFile(path: path)
    }

    /// Reads the whole track, calling `handle` for every epoch's fix (with or without a position)
    /// at its paced moment, and returns what the reader counted.
    ///
    /// Throws ``LocationError`` for a file that cannot be read or holds no NMEA, `CancellationError`
    /// when the task is cancelled, and whatever `handle` throws.
    public func run(_ handle: (Fix) throws -> Void) async throws -> NMEAStatistics {
        let file = try ReplayFile(path: path, timesAsGpsd: timesAsGpsd)
        var pacer = Pacer(clock: clock, speed: speed)
        var pending: [Fix] = []
        var failure: (any Error)?
        var more = true
        while more {
            try Task.checkCancellation()
            if speed == .max {
                more = try file.readChunk { fix in
                    guard failure == nil else { return }
                    do { try handle(fix) } catch { failure = error }
                }
                if let failure { throw failure }
            } else {
                more = try file.readChunk { pending.append($0) }
                for fix in pending {
                    try await pacer.wait(for: fix)
                    try handle(fix)
                }
                pending.removeAll(keepingCapacity: true)
            }
        }
        return file.statistics
    }

    /// The track as location events, read as the consumer asks for them: at most one chunk's
    /// fixes are held, however slowly the events are taken.
    public func events() -> AsyncThrowingStream<LocationEvent, any Error> {
        let cursor = ReplayCursor(path: path, pacer: Pacer(clock: clock, speed: speed), timesAsGpsd: timesAsGpsd)
        return AsyncThrowingStream { try await cursor.next() }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// An open track file read a chunk at a time through the NMEA reader.
final class ReplayFile {
    let path: String
    private let fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private var reader: NMEAFixReader
    private var ended = false

    /// Opens `path`, or standard input for `-`.
    init(path: String, timesAsGpsd: Bool = false) throws {
        reader = NMEAFixReader(correctingWeekRollover: timesAsGpsd, asGpsd: timesAsGpsd)
        let fd = path == "-" ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LocationError.cannotOpenTrack(path: path, reason: ReplaySource.errorText(errno)) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            close(fd)
            throw LocationError.cannotOpenTrack(path: path, reason: "it is a folder; give an NMEA track file")
        }
        self.path = path
        self.fd = fd
        buffer = .allocate(byteCount: ReplaySource.chunkSize, alignment: 16)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    var statistics: NMEAStatistics { reader.statistics }

    /// Reads the next chunk, passing the fixes completed in it to `body`; false once the file has
    /// ended (its last fixes passed on). Throws when reading fails or the file held no NMEA.
    func readChunk(_ body: (Fix) -> Void) throws -> Bool {
        guard !ended else { return false }
        var n: Int
        repeat { n = read(fd, buffer.baseAddress, buffer.count) } while n < 0 && errno == EINTR
        if n < 0 { throw LocationError.cannotReadTrack(path: path, reason: ReplaySource.errorText(errno)) }
        if n > 0 {
            reader.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<n]), emit: body)
            return true
        }
        ended = true
        reader.finish(emit: body)
        guard reader.statistics.sentences > 0 else { throw LocationError.noNMEAInTrack(path: path) }
        return false
    }
}

/// Hands out a track's events one at a time, reading the file only when its fixes are used up.
/// Called by one consumer at a time (the stream's iterator), so its state needs no lock.
final class ReplayCursor: @unchecked Sendable {
    private let path: String
    private var file: ReplayFile?
    private var pacer: Pacer
    private var fixes: [Fix] = []
    private var nextFix = 0
    private var queued: [LocationEvent] = []
    private var hadPosition: Bool?
    private var done = false
    private let timesAsGpsd: Bool

    init(path: String, pacer: Pacer, timesAsGpsd: Bool = false) {
        self.path = path
        self.pacer = pacer
        self.timesAsGpsd = timesAsGpsd
    }

    func next() async throws -> LocationEvent? {
        if !queued.isEmpty { return queued.removeFirst() }
        while nextFix == fixes.count {
            if done { return nil }
            try Task.checkCancellation()
            if file == nil { file = try ReplayFile(path: path, timesAsGpsd: timesAsGpsd) }
            fixes.removeAll(keepingCapacity: true)
            nextFix = 0
            if try file?.readChunk({ fixes.append($0) }) != true {
                done = true
                file = nil
            }
        }
        let fix = fixes[nextFix]
        nextFix += 1
        try await pacer.wait(for: fix)
        if fix.hasPosition {
            hadPosition = true
        } else if hadPosition != false {
            // The first fix without a position: .noFix at the start of a track, .fixLost after one.
            queued.append(.fix(fix))
            let event: LocationEvent = hadPosition == nil ? .noFix : .fixLost
            hadPosition = false
            return event
        }
        return .fix(fix)
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
        let longest = Double(ReplaySource.longestWait.components.seconds)
        let wait = seconds < longest ? Duration.nanoseconds(Int64((seconds * 1e9).rounded())) : ReplaySource.longestWait
        try await clock.sleep(for: wait)
    }
}
