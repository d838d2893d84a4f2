import CGPS
import Foundation
import Synchronization
import TreesKit

/// Fixes and status events from gpsd, through gpsd's client library libgps.
///
/// **libgps.** Written against gpsd 3.22 as packaged in Debian 12 (`libgps-dev`,
/// `GPSD_API_MAJOR_VERSION` 11, JSON protocol 3.14). It reads `gps_fix_t` fields that exist from
/// API 9 on (`altMSL`, `altHAE`, `geoid_sep`), the GST statistics and the VERSION report from the
/// anonymous union in `gps_data_t` (reached through small helpers in the CGPS shim), and DOPs and
/// satellites used from the SKY report (`gps_data_t.dop`, `satellites_used`). The shim refuses
/// to compile against an API older than 9.
///
/// **Threads.** libgps is blocking: each connection runs on a thread of its own (`gps_open`,
/// `gps_stream`, `gps_waiting` with a timeout, `gps_read`) and never on Swift's cooperative pool.
/// Events go out through an `AsyncThrowingStream`; cancelling the consumer stops the thread within
/// a quarter of a second.
///
/// **No receiver.** gpsd running without a receiver (none given, or the last one unplugged) is a
/// `.warning` saying so, repeated every 10 s while it lasts; the source goes on waiting for one.
///
/// **Accuracy.** See `GPSDAccuracyRule`: GST when the receiver sends it for the epoch, else the
/// DOP model for plain NMEA receivers, else gpsd's own `eph`.
///
/// **Reconnecting.** If gpsd cannot be reached at start, the stream throws
/// `LocationError.gpsdUnreachable` — unless `wait` is set, in which case it keeps trying with the
/// back-off below and reports `.reconnecting` events. Once connected, losing gpsd is an event:
/// `.sourceLost(reason:)`, then `.reconnecting(attempt:delay:)` before each attempt, with delays of
/// 1 s doubling up to 10 s (`ReconnectPolicy`), slept on the injected clock. After reconnecting
/// the stream goes on with `.connected` and fixes; a fix repeating one given out is dropped, so
/// fixes never repeat (`ReceiverTimeline`: a receiver time that steps well back starts over).
public struct GPSDSource: LocationSource {
    public var host: String
    public var port: Int
    /// Watch only this device (gpsd's device path), or all when nil.
    public var device: String?
    /// Keep trying when gpsd cannot be reached at start, instead of failing.
    public var wait: Bool
    public var reconnect: ReconnectPolicy
    let clock: any Clock<Duration>

    public init(
        host: String = "localhost", port: Int = 2947, device: String? = nil, wait: Bool = false,
        reconnect: ReconnectPolicy = .standard, clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.host = host; self.port = port; self.device = device; self.wait = wait
        self.reconnect = reconnect; self.clock = clock
    }

    /// `host:port` as used in messages.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public var description: String { "gpsd://\(address)" + (device ?? "") }

    public func events() -> AsyncThrowingStream<LocationEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationEvent, any Error>.makeStream()
        // The first connection starts now, on its own thread; the task takes over when it ends.
        let config = GPSDConnection.Config(host: host, port: port, device: device)
        let first = GPSDConnection.start(config: config, lastTime: nil, out: continuation)
        let task = Task { [self] in
            await self.run(continuation, first: first)
        }
        continuation.onTermination = { _ in
            first.cancel()
            task.cancel()
        }
        return stream
    }

    private func run(_ out: AsyncThrowingStream<LocationEvent, any Error>.Continuation, first: WorkThread<GPSDConnection.Result>) async {
        var lastTime: Date?
        var everConnected = false
        var attempt = 0
        var started: WorkThread<GPSDConnection.Result>? = first
        while !Task.isCancelled {
            let config = GPSDConnection.Config(host: host, port: port, device: device)
            let connection = started ?? GPSDConnection.start(config: config, lastTime: lastTime, out: out)
            started = nil
            let result = await connection.result()
            lastTime = result.lastTime
            switch result.end {
            case .cancelled:
                out.finish()
                return
            case let .unavailable(reason):
                out.finish(throwing: LocationError.libgpsUnavailable(reason: reason))
                return
            case let .failedToConnect(reason):
                if !everConnected && !wait {
                    out.finish(throwing: LocationError.gpsdUnreachable(address: address, reason: reason))
                    return
                }
            case let .lost(reason, connected):
                if connected {
                    everConnected = true
                    attempt = 0
                    out.yield(.sourceLost(reason: reason))
                } else if !everConnected && !wait {
                    out.finish(throwing: LocationError.gpsdRefused(address: address, reason: reason))
                    return
                }
            }
            attempt += 1
            let delay = reconnect.delay(attempt: attempt)
            out.yield(.reconnecting(attempt: attempt, delay: delay))
            do {
                try await clock.sleep(for: delay)
            } catch {
                out.finish()
                return
            }
        }
        out.finish()
    }
}

/// How long to wait between attempts to reach a source again.
///
/// The delay starts at `initial` and doubles with each failed attempt up to `maximum`:
/// 1 s, 2 s, 4 s, 8 s, 10 s, 10 s, … by default. It starts over once a connection succeeds.
public struct ReconnectPolicy: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration

    public init(initial: Duration, maximum: Duration) {
        self.initial = initial; self.maximum = maximum
    }

    /// 1 s doubling to 10 s.
    public static let standard = ReconnectPolicy(initial: .seconds(1), maximum: .seconds(10))

    /// The wait before attempt `attempt` (counting from 1).
    public func delay(attempt: Int) -> Duration {
        var d = initial
        var n = 1
        while n < attempt && d < maximum {
            d *= 2
            n += 1
        }
        return min(d, maximum)
    }
}

/// A set-once flag shared between an async task and a connection thread.
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// One connection to gpsd, run to its end on a thread of its own.
struct GPSDConnection {
    struct Config: Sendable {
        var host: String
        var port: Int
        var device: String?
    }

    enum End: Sendable, Equatable {
        case cancelled
        case failedToConnect(reason: String)
        /// libgps cannot be opened: waiting does not help.
        case unavailable(reason: String)
        /// The connection dropped; `connected` says whether gpsd had answered first.
        case lost(reason: String, connected: Bool)
    }

    struct Result: Sendable {
        var end: End
        var lastTime: Date?
    }

    /// How long the reports of one receiver cycle may be apart; a longer silence ends the burst.
    static let burstGap: Int32 = 300_000
    /// How often a waiting thread looks at the stop flag.
    static let pollInterval: Int32 = 250_000
    /// How often it is said again that gpsd has no receiver, while that lasts.
    static let noReceiverReminder: Duration = .seconds(10)

    /// Starts a connection on a new thread; it runs until it ends or is cancelled.
    static func start(
        config: Config, lastTime: Date?, out: AsyncThrowingStream<LocationEvent, any Error>.Continuation
    ) -> WorkThread<Result> {
        WorkThread(named: "gpsd \(config.host):\(config.port)") { stop in
            GPSDConnection.session(config: config, lastTime: lastTime, stop: stop, out: out)
        }
    }

    /// The blocking part: connect, watch, read reports, hand out events.
    static func session(
        config: Config, lastTime: Date?, stop: StopFlag, out: AsyncThrowingStream<LocationEvent, any Error>.Continuation
    ) -> Result {
        let gps: trees_gps
        switch LibGPS.loaded {
        case .success(let functions): gps = functions
        case .failure(let failure):
            return Result(end: .unavailable(reason: failure.why), lastTime: lastTime)
        }
        guard let data = trees_gps_alloc() else {
            return Result(end: .failedToConnect(reason: "out of memory"), lastTime: lastTime)
        }
        defer { trees_gps_free(data) }
        trees_clear_errno()
        let opened = gps.gps_open(config.host, String(config.port), data)
        if opened != 0 {
            let code = trees_errno()
            let reason = probe(host: config.host, port: config.port) ?? libgpsReason(code, gps)
            return Result(end: .failedToConnect(reason: reason), lastTime: lastTime)
        }
        defer { _ = gps.gps_close(data) }
        let watched: Int32
        if let device = config.device {
            watched = device.withCString { path in
                gps.gps_stream(data, trees_gps_watch_flags(true), UnsafeMutableRawPointer(mutating: path))
            }
        } else {
            watched = gps.gps_stream(data, trees_gps_watch_flags(false), nil)
        }
        if watched != 0 {
            return Result(end: .lost(reason: "cannot send the watch request: \(libgpsReason(trees_errno(), gps))", connected: false), lastTime: lastTime)
        }

        let address = GPSDSource(host: config.host, port: config.port).address
        var reader = GPSDReportReader(assembler: GPSDCycleAssembler(lastTime: lastTime), address: address)
        var reminded: ContinuousClock.Instant?
        let capacity = 16_384
        let message = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
        defer { message.deallocate() }
        while !stop.isSet {
            if let since = reader.noReceiverSince {
                let now = ContinuousClock.now
                if now - (reminded ?? since) >= noReceiverReminder {
                    reminded = now
                    out.yield(.warning("gpsd at \(address) still has no receiver after \(Int((now - since).components.seconds)) s; waiting for one"))
                }
            } else {
                reminded = nil
            }
            let holding = reader.assembler.isHolding
            let waitMicros = holding ? burstGap : pollInterval
            guard gps.gps_waiting(data, waitMicros) else {
                if holding { for e in reader.assembler.quiet() { out.yield(e) } }
                continue
            }
            message[0] = 0
            trees_clear_errno()
            let n = gps.gps_read(data, message, Int32(capacity))
            if n < 0 {
                let err = trees_errno()
                let reason = err == 0 ? "gpsd closed the connection" : "connection to gpsd lost: \(libgpsReason(err, gps))"
                for e in reader.assembler.quiet() { out.yield(e) }
                return Result(end: .lost(reason: reason, connected: reader.answered), lastTime: reader.assembler.lastTime)
            }
            if n == 0 { continue }
            for e in reader.handle(data: data, message: message) { out.yield(e) }
        }
        _ = gps.gps_stream(data, trees_gps_unwatch_flags(), nil)
        return Result(end: .cancelled, lastTime: reader.assembler.lastTime)
    }

    /// Why a TCP connection to `host:port` fails, in the system's words ("Connection refused"),
    /// or nil if it succeeds. libgps reports only its own "can't connect to host/port pair".
    static func probe(host: String, port: Int) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        if status != 0 {
            return "cannot resolve \(host): " + String(cString: gai_strerror(status))
        }
        defer { freeaddrinfo(list) }
        var lastError: Int32 = 0
        var entry = list
        while let info = entry {
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                defer { close(fd) }
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return nil }
                lastError = errno
            }
            entry = info.pointee.ai_next
        }
        return lastError == 0 ? nil : String(cString: strerror(lastError))
    }

    /// Text for an errno value or one of libgps' own negative codes.
    static func libgpsReason(_ code: Int32, _ gps: trees_gps) -> String {
        if code == 0 { return "unknown error" }
        if code > 0, let text = strerror(code) { return String(cString: text) }
        if let text = gps.gps_errstr(code) { return String(cString: text) }
        return "error \(code)"
    }
}

/// libgps, opened when the first gpsd connection is made (see the CGPS module).
enum LibGPS {
    static let loaded = LoadedLibrary.load { trees_gps_load($0) }
}

/// Reads the report libgps has just unpacked into `gps_data_t` and turns it into events.
struct GPSDReportReader {
    var assembler: GPSDCycleAssembler
    /// gpsd has said who it is (VERSION).
    private(set) var answered = false
    private var version: String?
    private var devices: [DeviceInfo] = []
    private var announced = false
    /// gpsd at this address, for messages.
    let address: String
    /// Since when gpsd has named no receiver (none configured, or the last one unplugged).
    private(set) var noReceiverSince: ContinuousClock.Instant?

    init(assembler: GPSDCycleAssembler, address: String = "") {
        self.assembler = assembler
        self.address = address
    }

    /// A warning when gpsd's last receiver is gone or it never had one; nothing while it has one.
    private mutating func receiverCheck() -> [LocationEvent] {
        guard devices.isEmpty else {
            noReceiverSince = nil
            return []
        }
        guard noReceiverSince == nil else { return [] }
        noReceiverSince = ContinuousClock.now
        return [.warning("gpsd at \(address) has no receiver: plug one in, or check the device gpsd is started with "
            + "(DEVICES in /etc/default/gpsd); waiting for one")]
    }

    mutating func handle(data: UnsafeMutablePointer<gps_data_t>, message: UnsafePointer<CChar>) -> [LocationEvent] {
        let text = String(cString: message)
        switch Self.reportClass(text) {
        case "VERSION":
            answered = true
            let v = trees_gps_version(data).pointee
            version = cString(v.release)
            return []
        case "DEVICES":
            devices = []
            let count = Int(data.pointee.devices.ndevices)
            for i in 0..<count {
                guard let d = trees_gps_device_at(data, Int32(i)) else { continue }
                let info = deviceInfo(d.pointee)
                devices.append(info)
                if let driver = info.driver { assembler.drivers[info.path] = driver }
            }
            if announced { return receiverCheck() }
            announced = true
            return [.connected(version: version, devices: devices)] + receiverCheck()
        case "DEVICE":
            let dev = data.pointee.dev
            let info = deviceInfo(dev)
            if info.path.isEmpty { return [] }
            if dev.activated.tv_sec == 0 && dev.activated.tv_nsec == 0 && !text.contains("\"driver\"") {
                let known = devices.first { $0.path == info.path } ?? info
                devices.removeAll { $0.path == info.path }
                // The device's last epoch is complete: give it out while its driver is still known.
                let held = assembler.quiet()
                assembler.drivers[info.path] = nil
                return held + [.deviceRemoved(known)] + receiverCheck()
            }
            if let driver = info.driver { assembler.drivers[info.path] = driver }
            if let i = devices.firstIndex(where: { $0.path == info.path }) {
                var merged = devices[i]
                merged.driver = info.driver ?? merged.driver
                merged.subtype = info.subtype ?? merged.subtype
                if merged == devices[i] { return [] }
                devices[i] = merged
                return [.deviceAdded(merged)]
            }
            devices.append(info)
            return [.deviceAdded(info)] + receiverCheck()
        case "TPV":
            return assembler.tpv(Self.fix(from: data.pointee.fix), device: Self.stringValue(of: "device", in: text))
        case "SKY":
            let dop = data.pointee.dop
            let used = Int(data.pointee.satellites_used)
            let t = trees_timespec_seconds(data.pointee.skyview_time)
            return assembler.sky(GPSDSky(
                hdop: finite(dop.hdop), vdop: finite(dop.vdop), pdop: finite(dop.pdop),
                satellitesUsed: used > 0 || text.contains("\"uSat\"") ? used : nil,
                time: t.isFinite ? Date(timeIntervalSince1970: t) : nil))
        case "GST":
            let g = trees_gps_gst(data).pointee
            let t = trees_timespec_seconds(g.utctime)
            return assembler.gst(GPSDGST(
                time: t.isFinite ? Date(timeIntervalSince1970: t) : nil,
                sigmaLatitude: g.lat_err_deviation, sigmaLongitude: g.lon_err_deviation,
                sigmaAltitude: finite(g.alt_err_deviation)))
        case "ERROR":
            return [.warning("gpsd: " + String(cString: trees_gps_error(data)))]
        default:
            return []
        }
    }

    /// The `class` of a JSON report, from its text (libgps does not say which report it unpacked).
    static func reportClass(_ text: String) -> String? { stringValue(of: "class", in: text) }

    /// The string value of a top-level key in a one-line JSON report.
    static func stringValue(of key: String, in text: String) -> String? {
        guard let r = text.range(of: "\"\(key)\":\"") else { return nil }
        let rest = text[r.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// A fix from gpsd's TPV values; DOPs and accuracy are filled in when the epoch is complete.
    static func fix(from f: gps_fix_t) -> Fix {
        let seconds = trees_timespec_seconds(f.time)
        let mode = FixMode(rawValue: Int(f.mode)) ?? .notSeen
        var fix = Fix(
            time: seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil,
            mode: mode,
            status: FixStatus(rawValue: Int(f.status)) ?? .unknown)
        // gpsd leaves `status` out of a TPV for a plain GPS fix, which libgps reads as 0.
        if fix.status == .unknown && mode.hasPosition { fix.status = .gps }
        if mode.hasPosition, f.latitude.isFinite, f.longitude.isFinite {
            fix.coordinate = Coordinate(latitude: f.latitude, longitude: f.longitude)
        }
        fix.altitudeMSL = finite(f.altMSL)
        fix.ellipsoidHeight = finite(f.altHAE)
        fix.geoidSeparation = finite(f.geoid_sep)
        fix.speed = finite(f.speed)
        fix.track = finite(f.track)
        fix.eph = finite(f.eph)
        fix.epx = finite(f.epx)
        fix.epy = finite(f.epy)
        fix.epv = finite(f.epv)
        if fix.status.isDifferential {
            // gpsd gives the age in seconds (-1 or NaN when unknown) and the station as -1 when unknown.
            fix.correctionAge = finite(f.dgps_age).flatMap { $0 >= 0 ? $0 : nil }
            fix.correctionStation = f.dgps_station >= 0 ? Int(f.dgps_station) : nil
        }
        return fix
    }

    private func deviceInfo(_ d: devconfig_t) -> DeviceInfo {
        DeviceInfo(path: cString(d.path), driver: nonEmpty(cString(d.driver)), subtype: nonEmpty(cString(d.subtype)))
    }
}

private func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
private func nonEmpty(_ s: String) -> String? { s.isEmpty ? nil : s }

/// A NUL-terminated C character array (imported as a tuple) as a String.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
