import Foundation
import NMEA
import Synchronization
import TreesKit

/// Fetches a correction stream (RTCM3) from an NTRIP caster's mount point and hands its bytes to
/// whoever feeds the receiver.
///
/// **Protocol.** NTRIP 2.0 by default: `GET /MOUNT HTTP/1.1` with `Host`, `Ntrip-Version:
/// Ntrip/2.0`, `User-Agent: NTRIP trees/VERSION` and Basic credentials when the endpoint has a
/// user; the answer may be `HTTP/1.1 200` (chunked or not) or, from casters that only speak 1.0,
/// `ICY 200 OK`. NTRIP 1.0 (`?version=1`): `GET /MOUNT HTTP/1.0`, answered by `ICY 200 OK`.
///
/// **Position.** Network casters choose or compute corrections near the receiver, so the client
/// sends the latest GGA sentence it was given (`receiverPosition(_:)`, only sentences with a fix)
/// as soon as the caster accepts the request, and again every `positionInterval` (10 s).
///
/// **Failures.** Every problem ends the connection with a `.failed(reason:)` status whose reason
/// is one line (the `LocationError` description: wrong credentials, no such mount point, not a
/// caster, refused connection…), then the client tries again after 1 s, doubling to 30 s
/// (`backOff`), starting over once a connection has brought data. A caster that sends nothing
/// for `silence` (30 s) is dropped and connected to again. Nothing here throws or ends the
/// stream of fixes: corrections are an extra.
///
/// **Status.** `.connecting` before each attempt, `.streaming` when data first arrives and then at
/// most once a second while it flows (never per chunk), `.failed` when a connection ends.
public final class NTRIPClient: Sendable {
    /// 1 s doubling to 30 s.
    public static let backOff = ReconnectPolicy(initial: .seconds(1), maximum: .seconds(30))

    public let endpoint: NTRIPEndpoint
    let password: String?
    let userAgent: String
    public let reconnect: ReconnectPolicy
    /// A caster silent this long (no answer, or no data) is dropped and connected to again.
    public let silence: Duration
    /// How often the receiver's position is sent again.
    public let positionInterval: Duration
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    private let position = Mutex<String?>(nil)

    /// - Parameters:
    ///   - password: from `NTRIPPassword.lookup()`; sent only when `endpoint` has a user.
    ///   - userAgent: the product and version after `NTRIP ` in `User-Agent`, e.g. `trees/0.1.0`.
    ///   - clock: sleeps the back-off between attempts.
    ///   - now: the time stamped on the last data.
    public init(
        endpoint: NTRIPEndpoint, password: String?, userAgent: String = "trees", reconnect: ReconnectPolicy = backOff,
        silence: Duration = .seconds(30), positionInterval: Duration = .seconds(10),
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.endpoint = endpoint; self.password = password; self.userAgent = userAgent; self.reconnect = reconnect
        self.silence = silence; self.positionInterval = positionInterval; self.clock = clock; self.now = now
    }

    /// Records the receiver's latest position, a GGA sentence (`$GPGGA,…*hh`). A sentence without
    /// a fix (quality 0, no latitude) or with a bad checksum is ignored.
    public func receiverPosition(_ gga: String) {
        let line = gga.trimmingCharacters(in: .whitespacesAndNewlines)
        guard GGALines.isFix(Array(line.utf8)) else { return }
        position.withLock { $0 = line }
    }

    /// Records the receiver's latest position from a fix, for callers that see fixes rather than
    /// the receiver's sentences; a fix without a position is ignored.
    public func receiverPosition(_ fix: Fix) {
        guard let gga = GGALines.sentence(for: fix) else { return }
        position.withLock { $0 = gga }
    }

    /// The last GGA sentence with a fix, if any.
    public var latestPosition: String? { position.withLock { $0 } }

    /// Fetches corrections until the calling task is cancelled.
    ///
    /// - Parameters:
    ///   - forward: called with each piece of the stream, on the connection's thread; returns how
    ///     many bytes reached the receiver (0 when it is away), which is what the status counts.
    ///   - report: called with each status.
    public func run(
        forward: @escaping @Sendable ([UInt8]) -> Int, report: @escaping @Sendable (CorrectionStreamStatus) -> Void
    ) async {
        var tally = NTRIPSession.Tally()
        var attempt = 0
        while !Task.isCancelled {
            let start = tally
            let (end, after) = await onThread(named: "ntrip \(endpoint.caster)") { [self] stop in
                var t = start
                let end = NTRIPSession.run(self, tally: &t, stop: stop, forward: forward, report: report)
                return (end, t)
            }
            tally = after
            guard case let .failed(reason, streamed) = end else { return }
            report(CorrectionStreamStatus(caster: endpoint.description, state: .failed(reason: reason), bytes: tally.bytes,
                                          lastData: tally.lastData))
            attempt = streamed ? 1 : attempt + 1
            do { try await clock.sleep(for: reconnect.delay(attempt: attempt)) } catch { return }
        }
    }
}

/// One connection to the caster, run to its end on a thread of its own.
enum NTRIPSession {
    /// What all connections together have brought.
    struct Tally: Sendable {
        var bytes = 0
        var lastData: Date?
    }

    enum End: Sendable, Equatable {
        case cancelled
        /// The connection ended; `streamed` when data had arrived on it.
        case failed(reason: String, streamed: Bool)
    }

    static func run(
        _ client: NTRIPClient, tally: inout Tally, stop: StopFlag,
        forward: ([UInt8]) -> Int, report: (CorrectionStreamStatus) -> Void
    ) -> End {
        let endpoint = client.endpoint
        func status(_ state: CorrectionStreamStatus.State) -> CorrectionStreamStatus {
            CorrectionStreamStatus(caster: endpoint.description, state: state, bytes: tally.bytes, lastData: tally.lastData)
        }
        func failed(_ error: LocationError, streamed: Bool = false) -> End {
            stop.isSet ? .cancelled : .failed(reason: error.description, streamed: streamed)
        }
        report(status(.connecting))
        let socket: NTRIPSocket
        switch NTRIPSocket.connect(host: endpoint.host, port: endpoint.port, timeout: client.silence, stop: stop) {
        case let .success(s): socket = s
        case let .failure(problem): return failed(.ntripUnreachable(caster: endpoint.caster, reason: problem.reason))
        }
        defer { socket.close() }
        let request = NTRIPRequest.bytes(endpoint, path: endpoint.mount ?? "", password: client.password, userAgent: client.userAgent)
        if let problem = socket.send(request) { return failed(.ntripLost(caster: endpoint.caster, reason: problem)) }

        var answer = NTRIPAnswerReader()
        var body: NTRIPBody?
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var data: [UInt8] = []
        var lastHeard = ContinuousClock.now
        var lastReport: ContinuousClock.Instant?
        var reportedBytes = tally.bytes
        var positionSent: ContinuousClock.Instant?
        var streamed = false
        while !stop.isSet {
            let now = ContinuousClock.now
            if body != nil, let gga = client.latestPosition,
               positionSent.map({ now - $0 >= client.positionInterval }) ?? true {
                if let problem = socket.send(Array((gga + "\r\n").utf8)) {
                    return failed(.ntripLost(caster: endpoint.caster, reason: problem), streamed: streamed)
                }
                positionSent = now
            }
            if streamed, tally.bytes != reportedBytes, lastReport.map({ now - $0 >= .seconds(1) }) ?? true {
                report(status(.streaming))
                lastReport = now
                reportedBytes = tally.bytes
            }
            switch socket.read(into: &buffer, waitMilliseconds: 250) {
            case .timedOut:
                if ContinuousClock.now - lastHeard >= client.silence {
                    return failed(.ntripSilent(caster: endpoint.description, seconds: Int(client.silence.components.seconds)),
                                  streamed: streamed)
                }
                continue
            case let .failed(reason):
                return failed(.ntripLost(caster: endpoint.caster, reason: reason), streamed: streamed)
            case .closed:
                if body == nil {
                    return failed(NTRIPFailure.error(for: answer.finish(), endpoint: endpoint, password: client.password))
                }
                return failed(.ntripLost(caster: endpoint.caster, reason: "the caster closed the connection"), streamed: streamed)
            case let .bytes(n):
                lastHeard = ContinuousClock.now
                var piece = Array(buffer[..<n])
                if body == nil {
                    guard let (decided, rest) = answer.feed(piece) else { continue }
                    guard case let .stream(framing) = decided else {
                        return failed(NTRIPFailure.error(for: decided, endpoint: endpoint, password: client.password))
                    }
                    body = NTRIPBody(framing)
                    piece = rest
                }
                data.removeAll(keepingCapacity: true)
                do { try body?.decode(piece, into: &data) } catch {
                    return failed(.ntripNotACaster(caster: endpoint.caster, sent: "a broken chunked stream"), streamed: streamed)
                }
                if body?.isFinished == true {
                    return failed(.ntripLost(caster: endpoint.caster, reason: "the caster ended the stream"), streamed: streamed)
                }
                guard !data.isEmpty else { continue }
                tally.bytes += forward(data)
                tally.lastData = client.now()
                if !streamed {
                    streamed = true
                    report(status(.streaming))
                    lastReport = ContinuousClock.now
                    reportedBytes = tally.bytes
                }
            }
        }
        return .cancelled
    }
}

/// Picks the GGA sentences out of a receiver's NMEA byte stream, for the caster.
public struct GGALines: Sendable {
    private var line: [UInt8] = []
    private var inSentence = false

    public init() {}

    /// Feeds bytes as they come from the receiver; `found` gets each GGA sentence with a fix.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, found: (String) -> Void) {
        for b in bytes {
            if b == UInt8(ascii: "$") {
                line = [b]
                inSentence = true
            } else if inSentence {
                if b == 0x0D || b == 0x0A {
                    if Self.isFix(line) { found(String(decoding: line, as: UTF8.self)) }
                    inSentence = false
                } else if line.count < NMEAFixReader.maximumSentenceLength {
                    line.append(b)
                } else {
                    inSentence = false
                }
            }
        }
    }

    /// A `$GPGGA` sentence for `fix` (time, position, quality, satellites, HDOP, altitude, geoid
    /// separation, correction age and station), nil without a position.
    public static func sentence(for fix: Fix) -> String? {
        guard fix.hasPosition, let c = fix.coordinate else { return nil }
        func angle(_ degrees: Double, _ width: Int, _ positive: String, _ negative: String) -> String {
            let a = abs(degrees)
            var whole = Int(a)
            var minutes = ((a - Double(whole)) * 60 * 100_000).rounded() / 100_000
            if minutes >= 60 { whole += 1; minutes -= 60 }
            let m = String(format: "%08.5f", minutes)
            return String(format: "%0\(width)d", whole) + m + "," + (degrees < 0 ? negative : positive)
        }
        var time = ""
        if let t = fix.time {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
            let p = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: t)
            let hundredths = min(99, Int((Double(p.nanosecond ?? 0) / 1e7).rounded(.down)))
            time = String(format: "%02d%02d%02d.%02d", p.hour ?? 0, p.minute ?? 0, p.second ?? 0, hundredths)
        }
        let quality: Int = switch fix.status {
        case .dgps: 2
        case .rtkFixed: 4
        case .rtkFloat: 5
        case .deadReckoning, .gnssDeadReckoning: 6
        case .simulated: 8
        default: 1
        }
        func number(_ v: Double?, _ digits: Int) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "" }
        let fields = [
            "GPGGA", time, angle(c.latitude, 2, "N", "S"), angle(c.longitude, 3, "E", "W"), String(quality),
            fix.satellitesUsed.map { String(format: "%02d", $0) } ?? "", number(fix.hdop, 1),
            number(fix.altitudeMSL, 1), fix.altitudeMSL == nil ? "" : "M",
            number(fix.geoidSeparation, 1), fix.geoidSeparation == nil ? "" : "M",
            number(fix.correctionAge, 1), fix.correctionStation.map { String(format: "%04d", $0) } ?? "",
        ]
        let body = fields.joined(separator: ",")
        let sum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + String(format: "%02X", sum)
    }

    /// A GGA sentence (`$xxGGA,`) with a good checksum, a latitude and a fix quality other than 0.
    static func isFix(_ s: [UInt8]) -> Bool {
        guard s.count > 16, s[0] == UInt8(ascii: "$"), s[3...6].elementsEqual("GGA,".utf8),
              let star = s.lastIndex(of: UInt8(ascii: "*")), star + 3 == s.count,
              let check = UInt8(String(decoding: s[(star + 1)...], as: UTF8.self), radix: 16)
        else { return false }
        guard s[1..<star].reduce(0, ^) == check else { return false }
        let fields = s[..<star].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count > 6, !fields[2].isEmpty, !fields[6].isEmpty else { return false }
        return !fields[6].elementsEqual("0".utf8)
    }
}

/// The serial device the correction stream is written to, while it is open.
///
/// The serial session attaches its descriptor when the device is open and detaches it before
/// closing; the NTRIP thread writes under the same lock, so it never writes to a closed or reused
/// descriptor. Corrections that arrive while no device is attached are dropped.
final class CorrectionOutlet: Sendable {
    private let device = Mutex<Int32?>(nil)

    func attach(_ fd: Int32) { device.withLock { $0 = fd } }
    func detach() { device.withLock { $0 = nil } }

    /// Writes `bytes` to the device; how many were written (a stuck device gets 2 s).
    func write(_ bytes: [UInt8]) -> Int {
        device.withLock { fd -> Int in
            guard let fd else { return 0 }
            var offset = 0
            let deadline = ContinuousClock.now + .seconds(2)
            while offset < bytes.count && ContinuousClock.now < deadline {
                let n = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
                if n > 0 { offset += n; continue }
                if n < 0 && errno != EAGAIN && errno != EINTR { break }
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 100)
            }
            return offset
        }
    }
}
