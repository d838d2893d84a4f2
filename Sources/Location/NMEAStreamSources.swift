import Foundation
import NMEA
import TreesKit

/// NMEA straight from a serial receiver (`serial:/dev/ttyACM0[?baud=N]`), without gpsd.
///
/// The device is opened in raw mode (`cfmakeraw`, no echo, no line editing, `CLOCAL`). With a baud
/// rate given it is used as it is; without one the common rates are tried in turn
/// (`probeOrder`: 4800, 9600, 38400, 115200, …) until at least two sentences with good checksums
/// arrive within `probeWindow`. Bytes go through `NMEAFixReader`, so fixes and their accuracy are
/// exactly what a replay of the same bytes gives.
///
/// A receiver that goes away (USB unplugged: end of file, `EIO`, `ENXIO`, `ENODEV`) is an event,
/// `.sourceLost`, followed by attempts to open the path again with `ReconnectPolicy` back-off on
/// the injected clock. A device that cannot be opened at start throws, unless `wait` is set.
///
/// With `corrections`, an NTRIP client runs beside the reader for as long as the source does: it
/// writes the caster's RTCM stream to the same device (the receiver's correction input) while the
/// device is open, and gets the GGA sentences the receiver sends, for casters that need the
/// position. Its status comes out as `.corrections` events.
public struct SerialSource: LocationSource {
    /// Baud rates accepted in `?baud=`.
    public static let standardBauds = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800]
    /// The order in which baud rates are tried when none is given.
    public static let probeOrder = [4800, 9600, 38400, 115200, 19200, 57600, 230400]
    /// How long each baud rate is listened to while probing.
    public static let probeWindow: Duration = .milliseconds(2500)

    public var path: String
    public var baud: Int?
    public var wait: Bool
    public var reconnect: ReconnectPolicy
    /// The NTRIP client whose corrections go to the receiver, if any.
    public var corrections: NTRIPClient?
    /// Fixes as gpsd would report them (`NMEAFixReader.init(correctingWeekRollover:asGpsd:)`), for
    /// output that promises gpsd's values (`--jsonl`).
    public var asGpsd: Bool
    let clock: any Clock<Duration>

    public init(path: String, baud: Int? = nil, wait: Bool = false, reconnect: ReconnectPolicy = .standard,
                corrections: NTRIPClient? = nil, asGpsd: Bool = false, clock: any Clock<Duration> = ContinuousClock()) {
        self.path = path; self.baud = baud; self.wait = wait; self.reconnect = reconnect
        self.corrections = corrections; self.asGpsd = asGpsd; self.clock = clock
    }

    public var description: String { "serial:\(path)" + (baud.map { "?baud=\($0)" } ?? "") }

    public func events() -> AsyncThrowingStream<LocationEvent, any Error> {
        let (stream, out) = AsyncThrowingStream<LocationEvent, any Error>.makeStream()
        let task = Task { [self] in await self.run(out) }
        out.onTermination = { _ in task.cancel() }
        return stream
    }

    private func run(_ out: AsyncThrowingStream<LocationEvent, any Error>.Continuation) async {
        var gate = FixGate()
        var everOpened = false
        var attempt = 0
        let (path, baud, asGpsd) = (self.path, self.baud, self.asGpsd)
        var feeding: SerialSession.Corrections?
        var correctionTask: Task<Void, Never>?
        defer { correctionTask?.cancel() }
        if let client = corrections {
            let outlet = CorrectionOutlet()
            correctionTask = Task { await client.run(forward: outlet.write, report: { out.yield(.corrections($0)) }) }
            feeding = SerialSession.Corrections(outlet: outlet, client: client)
        }
        while !Task.isCancelled {
            let start = gate
            let (end, after) = await onThread(named: "serial \(path)") { [feeding] stop in
                var g = start
                let end = SerialSession.run(path: path, baud: baud, stop: stop, gate: &g, out: out, corrections: feeding, asGpsd: asGpsd)
                return (end, g)
            }
            gate = after
            switch end {
            case .cancelled, .endOfInput:
                out.finish()
                return
            case let .openFailed(reason):
                if !everOpened && !wait {
                    out.finish(throwing: LocationError.serialUnavailable(path: path, reason: reason))
                    return
                }
            case let .noNMEA(bauds):
                if !everOpened && !wait {
                    out.finish(throwing: LocationError.noNMEA(path: path, triedBauds: bauds))
                    return
                }
            case let .lost(reason):
                everOpened = true
                attempt = 0
                gate.connectionEnded()
                out.yield(.sourceLost(reason: reason))
            }
            attempt += 1
            let delay = reconnect.delay(attempt: attempt)
            out.yield(.reconnecting(attempt: attempt, delay: delay))
            do { try await clock.sleep(for: delay) } catch { out.finish(); return }
        }
        out.finish()
    }
}

/// NMEA on standard input (`-`), e.g. `gpspipe -r | trees gps --source -`; ends at end of file,
/// with `LocationError.noNMEAInTrack` when no NMEA sentence came.
public struct StdinSource: LocationSource {
    let fileDescriptor: Int32
    /// Fixes timed and reported as gpsd would (as `trees replay --jsonl` reads a file), for output
    /// that promises gpsd's values (`--jsonl`); else times as the receiver wrote them.
    let asGpsd: Bool

    /// Reads `fileDescriptor` (standard input unless a test gives another).
    public init(fileDescriptor: Int32 = STDIN_FILENO, asGpsd: Bool = false) {
        self.fileDescriptor = fileDescriptor
        self.asGpsd = asGpsd
    }

    public var description: String { "-" }

    public func events() -> AsyncThrowingStream<LocationEvent, any Error> {
        let (stream, out) = AsyncThrowingStream<LocationEvent, any Error>.makeStream()
        let (fd, asGpsd) = (fileDescriptor, self.asGpsd)
        let task = Task {
            let end = await onThread(named: "stdin") { stop -> (NMEAReadLoop.End, Int) in
                var gate = FixGate()
                var reader = NMEAFixReader(correctingWeekRollover: asGpsd, asGpsd: asGpsd)
                out.yield(.connected(version: nil, devices: [DeviceInfo(path: "-", driver: "NMEA0183", subtype: "standard input")]))
                let end = NMEAReadLoop.run(fd: fd, initial: [], reader: &reader, stop: stop) { fix in
                    for e in gate.pass(fix) { out.yield(e) }
                }
                if end != .cancelled {
                    reader.finish { fix in for e in gate.pass(fix) { out.yield(e) } }
                }
                return (end, reader.statistics.sentences)
            }
            switch end {
            case let (.failed(code), _) where code != EIO:
                out.finish(throwing: LocationError.stdinUnreadable(reason: String(cString: strerror(code))))
            case (.endOfFile, 0):
                out.finish(throwing: LocationError.noNMEAInTrack(path: "-"))
            default:
                out.finish()
            }
        }
        out.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Passes fixes in time order and reports the fix coming and going.
///
/// A repeated epoch (a device that comes back may resend its last ones) is dropped; a receiver
/// time that steps further back starts the times over (see `ReceiverTimeline`). `.noFix` is
/// reported once when the first epoch of a connection has no position, `.fixLost` when a position
/// is followed by an epoch without one.
struct FixGate: Sendable {
    private var timeline = ReceiverTimeline()
    private var hadPosition: Bool?

    var lastTime: Date? { timeline.last }

    mutating func pass(_ fix: Fix) -> [LocationEvent] {
        guard timeline.takes(fix.time) else { return [] }
        var out: [LocationEvent] = []
        switch (hadPosition, fix.hasPosition) {
        case (true?, false): out.append(.fixLost)
        case (nil, false): out.append(.noFix)
        default: break
        }
        hadPosition = fix.hasPosition
        out.append(.fix(fix))
        return out
    }

    /// Forgets the fix state (not the time) when the connection ends.
    mutating func connectionEnded() { hadPosition = nil }
}

/// Reads NMEA bytes from a descriptor into an `NMEAFixReader` until end of file, an error or stop.
enum NMEAReadLoop {
    enum End: Equatable, Sendable {
        case endOfFile
        case failed(Int32)
        case cancelled
    }

    /// `tap` sees every byte read, before the reader does.
    static func run(
        fd: Int32, initial: [UInt8], reader: inout NMEAFixReader, stop: StopFlag,
        tap: (UnsafeRawBufferPointer) -> Void = { _ in }, emit: (Fix) -> Void
    ) -> End {
        if !initial.isEmpty { reader.feed(initial, emit: emit) }
        let capacity = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        while !stop.isSet {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 250)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if ready == 0 { continue }
            let n = read(fd, buffer, capacity)
            if n > 0 {
                tap(UnsafeRawBufferPointer(start: buffer, count: n))
                reader.feed(UnsafeRawBufferPointer(start: buffer, count: n), emit: emit)
            } else if n == 0 {
                return .endOfFile
            } else {
                let code = errno
                if code == EINTR || code == EAGAIN { continue }
                return .failed(code)
            }
        }
        return .cancelled
    }
}

/// Counts NMEA sentences with good checksums, to tell the right baud rate from line noise.
enum NMEAProbe {
    static func validSentences(in bytes: [UInt8]) -> Int {
        var count = 0
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "$") else { i += 1; continue }
            var sum: UInt8 = 0
            var j = i + 1
            var ok = false
            while j < bytes.count && j - i < 100 {
                let b = bytes[j]
                if b == UInt8(ascii: "*") { ok = true; break }
                if b < 0x20 || b > 0x7E || b == UInt8(ascii: "$") { break }
                sum ^= b
                j += 1
            }
            if ok, j + 2 < bytes.count, let hi = hex(bytes[j + 1]), let lo = hex(bytes[j + 2]), hi << 4 | lo == sum, j - i > 6 {
                count += 1
                i = j + 3
            } else {
                i += 1
            }
        }
        return count
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// One opening of a serial device, run to its end on a thread of its own.
enum SerialSession {
    enum End: Sendable, Equatable {
        case cancelled
        case endOfInput
        case openFailed(reason: String)
        case noNMEA(triedBauds: [Int])
        case lost(reason: String)
    }

    /// Where corrections go while the device is open, and who gets the receiver's GGA.
    struct Corrections: Sendable {
        let outlet: CorrectionOutlet
        let client: NTRIPClient
    }

    static func run(
        path: String, baud: Int?, stop: StopFlag, gate: inout FixGate,
        out: AsyncThrowingStream<LocationEvent, any Error>.Continuation, corrections: Corrections? = nil, asGpsd: Bool = false
    ) -> End {
        let fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 { return .openFailed(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var chosen = baud
        var initial: [UInt8] = []
        if let baud {
            if let problem = configure(fd: fd, baud: baud) { return .openFailed(reason: problem) }
        } else {
            for candidate in SerialSource.probeOrder {
                if stop.isSet { return .cancelled }
                if let problem = configure(fd: fd, baud: candidate) { return .openFailed(reason: problem) }
                switch listen(fd: fd, stop: stop) {
                case let .bytes(bytes) where NMEAProbe.validSentences(in: bytes) >= 2:
                    chosen = candidate
                    initial = bytes
                case .bytes:
                    continue
                case let .gone(reason):
                    return .lost(reason: reason)
                }
                if chosen != nil { break }
            }
            if chosen == nil { return stop.isSet ? .cancelled : .noNMEA(triedBauds: SerialSource.probeOrder) }
        }
        out.yield(.connected(version: nil, devices: [
            DeviceInfo(path: path, driver: "NMEA0183", subtype: chosen.map { "\($0) baud" }),
        ]))
        // A live receiver: a time before 2017 is its GPS week count rolled over, as gpsd takes it.
        var reader = NMEAFixReader(correctingWeekRollover: true, asGpsd: asGpsd)
        var positions = GGALines()
        corrections?.outlet.attach(fd)
        defer { corrections?.outlet.detach() }
        let end = NMEAReadLoop.run(fd: fd, initial: initial, reader: &reader, stop: stop, tap: { bytes in
            guard let client = corrections?.client else { return }
            positions.feed(bytes) { client.receiverPosition($0) }
        }) { fix in
            for e in gate.pass(fix) { out.yield(e) }
        }
        switch end {
        case .cancelled:
            return .cancelled
        case .endOfFile:
            reader.finish { fix in for e in gate.pass(fix) { out.yield(e) } }
            return .lost(reason: "\(path) closed (device unplugged?)")
        case let .failed(code):
            reader.finish { fix in for e in gate.pass(fix) { out.yield(e) } }
            return .lost(reason: "\(path): \(String(cString: strerror(code)))")
        }
    }

    private enum Heard { case bytes([UInt8]), gone(String) }

    /// Collects what the device sends during the probe window (or until enough NMEA is seen).
    private static func listen(fd: Int32, stop: StopFlag) -> Heard {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + SerialSource.probeWindow
        var buffer = [UInt8](repeating: 0, count: 1024)
        while ContinuousClock.now < deadline && !stop.isSet {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, 100)
            if ready <= 0 { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: buffer[0..<n])
                if NMEAProbe.validSentences(in: bytes) >= 2 { return .bytes(bytes) }
                if bytes.count > 16_384 { return .bytes(bytes) }
            } else if n == 0 {
                return .gone("device closed")
            } else if errno != EAGAIN && errno != EINTR {
                return .gone(String(cString: strerror(errno)))
            }
        }
        return .bytes(bytes)
    }

    /// Raw mode at `baud`; nil on success, else why not.
    static func configure(fd: Int32, baud: Int) -> String? {
        var t = termios()
        if tcgetattr(fd, &t) != 0 { return "not a terminal device (\(String(cString: strerror(errno))))" }
        cfmakeraw(&t)
        t.c_cflag |= tcflag_t(CLOCAL | CREAD)
        guard let speed = speedConstant(baud) else { return "unsupported baud rate \(baud)" }
        cfsetispeed(&t, speed)
        cfsetospeed(&t, speed)
        if tcsetattr(fd, TCSANOW, &t) != 0 { return "cannot set \(baud) baud (\(String(cString: strerror(errno))))" }
        tcflush(fd, TCIFLUSH)
        return nil
    }

    static func speedConstant(_ baud: Int) -> speed_t? {
        switch baud {
        case 1200: speed_t(B1200)
        case 2400: speed_t(B2400)
        case 4800: speed_t(B4800)
        case 9600: speed_t(B9600)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        case 460800: speed_t(B460800)
        default: nil
        }
    }
}

/// Runs blocking work on a new thread (never on the cooperative pool); cancelling the calling
/// task sets the `StopFlag` the work polls.
func onThread<T: Sendable>(named name: String, _ body: @escaping @Sendable (StopFlag) -> T) async -> T {
    await WorkThread(named: name, body).result()
}

/// Blocking work started on a new thread at once, whose result a task awaits later.
///
/// A source's first connection starts this way as soon as its events are asked for: a task of its
/// own would first wait for a thread of the cooperative pool, and a busy process may hold every one.
final class WorkThread<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T?
    private var waiter: CheckedContinuation<T, Never>?
    private let stop = StopFlag()

    init(named name: String, _ body: @escaping @Sendable (StopFlag) -> T) {
        let stop = self.stop
        let thread = Thread { [self] in finish(body(stop)) }
        thread.name = name
        thread.start()
    }

    /// Asks the work to stop (it polls the flag).
    func cancel() { stop.set() }

    /// The work's result, once it ends; cancelling the calling task asks the work to stop.
    func result() async -> T {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
                lock.lock()
                if let value {
                    lock.unlock()
                    done.resume(returning: value)
                } else {
                    waiter = done
                    lock.unlock()
                }
            }
        } onCancel: {
            stop.set()
        }
    }

    private func finish(_ result: T) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: result)
        } else {
            value = result
            lock.unlock()
        }
    }
}
