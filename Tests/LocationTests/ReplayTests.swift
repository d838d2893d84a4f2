import Foundation
import Location
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// A clock that never sleeps: each sleep moves its time forward at once and is recorded.
final class TestClock: Clock, @unchecked Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var recorded: [Duration] = []

    var now: Instant { lock.withLock { current } }
    var minimumResolution: Duration { .nanoseconds(1) }
    var sleeps: [Duration] { lock.withLock { recorded } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recorded.append(deadline.offset - current.offset)
            if deadline > current { current = deadline }
        }
    }
}

/// Writes a track: epochs at 10:15:00, :01, :03 (a gap), two without a fix, then a fix again.
private func writeTrack() throws -> String {
    var text = sentence("GPZDA,101500.00,15,03,2025,00,00")
    for (time, valid) in [("101500", true), ("101501", true), ("101503", true), ("101504", false), ("101505", false), ("101506", true)] {
        if valid {
            text += sentence("GPGGA,\(time).00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            text += sentence("GPRMC,\(time).00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
        } else {
            text += sentence("GPGGA,\(time).00,,,,,0,00,,,,,,,")
            text += sentence("GPRMC,\(time).00,V,,,,,,,150325,,,N")
        }
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).nmea")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
}

@Suite struct ReplayTests {
    @Test func pacesByRecordedTimesThroughTheClock() async throws {
        let path = try writeTrack()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = TestClock()
        var fixes: [Fix] = []
        let stats = try await ReplaySource(path: path, speed: .factor(1), clock: clock).run { fixes.append($0) }
        #expect(fixes.count == 6)
        #expect(stats.epochs == 6)
        #expect(fixes.filter(\.hasPosition).count == 4)
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(1), .seconds(1), .seconds(1)])
    }

    @Test func fasterSpeedsScaleTheWaitsAndMaxDoesNotWait() async throws {
        let path = try writeTrack()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = TestClock()
        _ = try await ReplaySource(path: path, speed: .factor(4), clock: clock).run { _ in }
        #expect(clock.sleeps == [.milliseconds(250), .milliseconds(500), .milliseconds(250), .milliseconds(250), .milliseconds(250)])
        let idle = TestClock()
        var count = 0
        _ = try await ReplaySource(path: path, speed: .max, clock: idle).run { _ in count += 1 }
        #expect(count == 6)
        #expect(idle.sleeps.isEmpty)
    }

    @Test func eventsReportFixesAndTransitions() async throws {
        let path = try writeTrack()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var kinds: [String] = []
        for try await event in ReplaySource(path: path, speed: .factor(1), clock: TestClock()).events() {
            switch event {
            case .fix(let fix): kinds.append(fix.hasPosition ? "fix" : "nofix-epoch")
            case .fixLost: kinds.append("lost")
            case .noFix: kinds.append("noFix")
            default: kinds.append("other")
            }
        }
        #expect(kinds == ["fix", "fix", "fix", "lost", "nofix-epoch", "nofix-epoch", "fix"])
    }

    /// Events are read as they are taken: while a consumer holds the stream after its first fix,
    /// the rest of a long track stays unread (the writer of a pipe is held back) instead of being
    /// buffered ahead of it.
    @Test func eventsReadOnlyAsFarAsTheConsumerTakes() async throws {
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).nmea").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        var block = sentence("GPZDA,101500.00,15,03,2025,00,00")
        for second in 0..<3600 {
            let time = String(format: "10%02d%02d.00", second / 60, second % 60)
            block += sentence("GPGGA,\(time),4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
        }
        let bytes = Array(block.utf8)
        let total = 8 << 20
        let written = Counter()
        let writer = Thread {
            // The reader closes its end once the stream is dropped: the write then fails (EPIPE)
            // rather than signalling the whole test process.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            while written.value < total {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                written.add(n)
            }
        }
        writer.start()
        var events = ReplaySource(path: fifo, speed: .max).events().makeAsyncIterator()
        while let event = try await events.next() {
            if case .fix = event { break }
        }
        // The consumer holds the stream but takes nothing more for a while.
        try await Task.sleep(for: .milliseconds(300))
        #expect(written.value < 3 << 20, "\(written.value) bytes were read ahead of a consumer that took one event")
        _ = events
    }

    @Test func aTrackStartingWithoutAFixSaysSoFirst() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).nmea")
        try (sentence("GPZDA,101500.00,15,03,2025,00,00") + sentence("GPGGA,101500.00,,,,,0,00,,,,,,,"))
            .write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        var events: [LocationEvent] = []
        for try await e in ReplaySource(path: url.path, speed: .max).events() { events.append(e) }
        #expect(events.first == .noFix)
        #expect(events.count == 2)
    }

    /// A speed so small that the wait between two fixes does not fit in a `Duration` waits the
    /// longest wait there is instead of stopping the program.
    @Test func aTinySpeedWaitsTheLongestWaitInsteadOfOverflowing() async throws {
        let path = try writeTrack()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = TestClock()
        _ = try await ReplaySource(path: path, speed: .factor(1e-300), clock: clock).run { _ in }
        #expect(clock.sleeps.count == 5)
        #expect(clock.sleeps.allSatisfy { $0 == ReplaySource.longestWait })
    }

    @Test func aMissingFileIsAClearError() async throws {
        let source = ReplaySource(path: "/nonexistent/track.nmea", speed: .max)
        await #expect(throws: LocationError.cannotOpenTrack(path: "/nonexistent/track.nmea", reason: "No such file or directory")) {
            _ = try await source.run { _ in }
        }
        var thrown: (any Error)?
        do { for try await _ in source.events() {} } catch { thrown = error }
        #expect(thrown.map { "\($0)" } == "cannot open /nonexistent/track.nmea: No such file or directory")
    }

    @Test func aFileWithoutNMEASaysSo() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("replay-\(UUID().uuidString).txt")
        try "just some text\nnothing here\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        await #expect(throws: LocationError.noNMEAInTrack(path: url.path)) {
            _ = try await ReplaySource(path: url.path, speed: .max).run { _ in }
        }
        #expect(LocationError.noNMEAInTrack(path: "x.nmea").description == "no NMEA sentences found in x.nmea")
    }

    @Test func aDirectoryIsAClearError() async throws {
        let dir = FileManager.default.temporaryDirectory.path
        await #expect(throws: LocationError.self) {
            _ = try await ReplaySource(path: dir, speed: .max).run { _ in }
        }
    }

    @Test func cancellingStopsTheReplay() async throws {
        let path = try writeTrack()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let task = Task {
            try await ReplaySource(path: path, speed: .factor(1), clock: ContinuousClock()).run { _ in }
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }
}

/// A byte count shared between a writer thread and the test.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ n: Int) { lock.withLock { count += n } }
}
