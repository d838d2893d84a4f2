import Foundation
@testable import Location
import NMEA
import Synchronization
import Testing
import TreesKit
import TreesTestSupport

/// What the NMEA reader makes of a whole file.
func readerFixes(_ path: String) throws -> [Fix] {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    var reader = NMEAFixReader()
    var fixes: [Fix] = []
    reader.feed(bytes) { fixes.append($0) }
    reader.finish { fixes.append($0) }
    return fixes
}

/// A pseudo-terminal pair made by socat: `device` is what the source opens, `feed` the receiver's end.
final class SocatPair: @unchecked Sendable {
    /// Where the two ends are; a pair made in the same folder plugs in at the same device path.
    let folder: TemporaryFolder
    let device: String
    let feed: String
    private let process: RunningProgram

    init(in folder: TemporaryFolder? = nil) throws {
        self.folder = try folder ?? TemporaryFolder("trees-serial")
        device = self.folder.path("gps")
        feed = self.folder.path("feed")
        process = try Program.start("/usr/bin/socat", ["pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feed)"])
        for _ in 0..<200 where !(FileManager.default.fileExists(atPath: device) && FileManager.default.fileExists(atPath: feed)) {
            usleep(20_000)
        }
    }

    /// Pulls the plug: the device end sees a hang-up.
    func kill() {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        _ = process.wait()
    }

    deinit { kill() }

    /// Writes `path` into the receiver's end at `baud`, a few lines at a time.
    func write(file path: String, baud: Int, linesPerChunk: Int = 6, pause: useconds_t = 20_000) throws {
        let fd = open(feed, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw GPSFakeError(message: "cannot open \(feed)") }
        defer { close(fd) }
        _ = SerialSession.configure(fd: fd, baud: baud)
        // Lines are split on the byte: a String would keep "\r\n" as one character.
        let lines = try Data(contentsOf: URL(fileURLWithPath: path)).split(separator: 0x0A, omittingEmptySubsequences: false)
        var i = 0
        while i < lines.count {
            let bytes = Array(lines[i..<min(i + linesPerChunk, lines.count)].joined(separator: [0x0A])) + (i + linesPerChunk < lines.count ? [0x0A] : [])
            if bytes.withUnsafeBytes({ Foundation.write(fd, $0.baseAddress, $0.count) }) < 0 { return }
            i += linesPerChunk
            usleep(pause)
        }
    }
}

@Suite(.serialized) struct NMEAStreamSourceTests {
    @Test func stdinThroughAPipeGivesWhatTheReaderGivesAndEndsAtEOF() async throws {
        let log = GPSFake.fixture("orchard-dop.nmea")
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: log)))
        let writer = Thread {
            // An odd size of piece, so sentences are split across reads.
            for piece in ChunkingVerifier.Chunking.pieces(size: 97).split(bytes) {
                _ = piece.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        let events = try await collect(StdinSource(fileDescriptor: readEnd), timeout: .seconds(400)) { _ in false }
        let expected = try readerFixes(log)
        #expect(events.fixes == expected)
        #expect(expected.count == 30)
        #expect(events.first == .connected(version: nil, devices: [DeviceInfo(path: "-", driver: "NMEA0183", subtype: "standard input")]))
        #expect(events.filter { $0 == .fixLost }.count == 1)
    }

    @Test func probeTellsNMEAFromNoise() {
        let good = Array("$GPGGA,090000.00,5128.87404,N,00036.20744,W,1,05,2.40,48.3,M,47.0,M,,*79\r\n$GPGSA,A,3,02,05,07,09,13,,,,,,,,3.84,2.40,3.12*00\r\n".utf8)
        #expect(NMEAProbe.validSentences(in: good) == 2)
        var noisy = good
        noisy[20] ^= 0x01
        #expect(NMEAProbe.validSentences(in: noisy) == 1)
        let garbage: [UInt8] = (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        #expect(NMEAProbe.validSentences(in: garbage) == 0)
    }

    @Test(.enabled(if: Tool.socat.shouldRun), .tags(.gpsd)) func serialDeviceThroughAPseudoTerminalAtASetBaud() async throws {
        _ = try Tool.socat.require()
        let pair = try SocatPair()
        let log = GPSFake.fixture("orchard-gst.nmea")
        let source = SerialSource(path: pair.device, baud: 9600)
        // The receiver starts sending once the source has the device open and configured.
        let opened = DispatchSemaphore(value: 0)
        Thread {
            // As long as the test waits: written before the source has the device open and
            // configured, the log would be flushed unread.
            _ = opened.wait(timeout: .now() + 400)
            try? pair.write(file: log, baud: 9600)
        }.start()
        let expected = try readerFixes(log)
        // The reader gives out an epoch when the next one starts: all but the last arrive live.
        let events = try await collect(source, timeout: .seconds(400)) { events in
            if events.count == 1 { opened.signal() }
            return events.fixes.count >= expected.count - 1
        }
        #expect(events.first == .connected(version: nil, devices: [DeviceInfo(path: pair.device, driver: "NMEA0183", subtype: "9600 baud")]))
        #expect(events.fixes == Array(expected.prefix(events.fixes.count)))
        #expect(events.fixes.count == expected.count - 1)
    }

    @Test(.enabled(if: Tool.socat.shouldRun), .tags(.gpsd)) func withoutABaudRateTheSourceFindsNMEA() async throws {
        _ = try Tool.socat.require()
        let pair = try SocatPair()
        let log = GPSFake.fixture("orchard-gst.nmea")
        // The receiver repeats its first epoch until the probe has found it (the probe may start
        // listening late), then sends the whole log once: its times only go forward, so the
        // source drops none of them as repeats.
        let bait = pair.folder.path("first-epoch.nmea")
        let lines = try Data(contentsOf: URL(fileURLWithPath: log)).split(separator: 0x0A)
        try Data(lines.prefix(6).joined(separator: [0x0A]) + [0x0A]).write(to: URL(fileURLWithPath: bait))
        let found = Mutex(false)
        Thread {
            while !found.withLock({ $0 }) { try? pair.write(file: bait, baud: 4800, pause: 40_000) }
            try? pair.write(file: log, baud: 4800, pause: 40_000)
        }.start()
        defer { found.withLock { $0 = true } }
        let expected = try readerFixes(log)
        // The reader gives out an epoch when the next one starts: all but the last arrive live.
        let events = try await collect(SerialSource(path: pair.device), timeout: .seconds(400)) { events in
            if !events.isEmpty { found.withLock { $0 = true } }
            return events.fixes.count >= expected.count - 1
        }
        #expect(events.first == .connected(version: nil, devices: [DeviceInfo(path: pair.device, driver: "NMEA0183", subtype: "4800 baud")]))
        // The first fix may merge the repeated first epoch with the part of it heard before;
        // every later one is the reader's fix of the same time.
        #expect(events.fixes.count == expected.count - 1)
        #expect(events.fixes.first?.time == expected.first?.time)
        #expect(Array(events.fixes.dropFirst()) == Array(expected.dropFirst().prefix(expected.count - 2)))
    }

    @Test(.enabled(if: Tool.socat.shouldRun), .tags(.gpsd)) func unpluggedDeviceIsReportedAndReopened() async throws {
        _ = try Tool.socat.require()
        let first = try SocatPair()
        let second = Mutex<SocatPair?>(nil)
        let clock = RecordingClock()
        let source = SerialSource(path: first.device, baud: 9600, clock: clock)
        let firstLog = GPSFake.fixture("orchard-first.nmea")
        let resumeLog = GPSFake.fixture("orchard-resume.nmea")
        let opened = DispatchSemaphore(value: 0)
        Thread {
            _ = opened.wait(timeout: .now() + 60)
            try? first.write(file: firstLog, baud: 9600)
            usleep(300_000)
            first.kill()
        }.start()
        let reopened = DispatchSemaphore(value: 0)
        let resumeLast = try readerFixes(resumeLog).dropLast().last!.time
        let events = try await collect(source, timeout: .seconds(400)) { events in
            if case .connected? = events.last {
                if events.count == 1 { opened.signal() } else { reopened.signal() }
            }
            if case .reconnecting(1, _)? = events.last {
                second.withLock { pair in
                    guard pair == nil, let p = try? SocatPair(in: first.folder) else { return }
                    pair = p
                    Thread {
                        _ = reopened.wait(timeout: .now() + 60)
                        try? p.write(file: resumeLog, baud: 9600)
                    }.start()
                }
            }
            return events.fixes.last?.time == resumeLast
        }
        second.withLock { $0?.kill() }
        let lost = try #require(events.firstIndex { if case .sourceLost = $0 { true } else { false } })
        #expect(events[..<lost].fixes.count == 12, "every epoch of the first log, the last one at the hang-up")
        #expect(events[lost...].contains(.reconnecting(attempt: 1, delay: .seconds(1))))
        let times = events.fixes.compactMap(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "no repeats across the reconnection")
        #expect(events.fixes.last?.time == resumeLast)
    }
}
