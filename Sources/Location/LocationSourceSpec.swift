import Foundation

/// A location source as named on the command line (`--source`).
///
/// - `gpsd://HOST[:PORT][/DEVICE]` — gpsd (default `gpsd://localhost:2947`); `[::1]` for IPv6;
///   a device path after the port watches that device only.
/// - `serial:/dev/PATH[?baud=N]` — NMEA straight from a serial receiver, no gpsd; without a baud
///   rate the common ones are tried until valid NMEA appears.
/// - `replay:PATH[?speed=N|max]` — a recorded NMEA file, paced by its time stamps.
/// - `-` — NMEA on standard input (`gpspipe -r | trees gps --source -`).
public enum LocationSourceSpec: Sendable, Equatable, CustomStringConvertible {
    case gpsd(host: String, port: Int, device: String?)
    case serial(path: String, baud: Int?)
    case replay(path: String, speed: ReplaySpeed)
    case stdin

    public static let defaultGPSDPort = 2947
    /// The source used when none is named.
    public static let `default` = LocationSourceSpec.gpsd(host: "localhost", port: defaultGPSDPort, device: nil)

    /// Parses a source URI; the error says what is wrong and what the forms are.
    public init(parsing text: String) throws(LocationError) {
        func bad(_ reason: String) -> LocationError { .badSourceURI(text, reason: reason) }
        if text == "-" { self = .stdin; return }
        if text.hasPrefix("gpsd://") {
            var rest = Substring(text.dropFirst("gpsd://".count))
            var device: String?
            var host: String
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw bad("unclosed [ in the host") }
                host = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex { $0 == ":" || $0 == "/" } ?? rest.endIndex
                host = String(rest[..<end])
                rest = rest[end...]
            }
            if host.isEmpty { host = "localhost" }
            var port = Self.defaultGPSDPort
            if rest.hasPrefix(":") {
                let digits = rest.dropFirst().prefix { $0 != "/" }
                guard let p = Int(digits), (1...65535).contains(p) else {
                    throw bad("the port '\(digits)' is not a number from 1 to 65535")
                }
                port = p
                rest = rest.dropFirst(1 + digits.count)
            }
            if rest.hasPrefix("/") {
                if rest.count > 1 { device = String(rest) }
            } else if !rest.isEmpty {
                throw bad("unexpected '\(rest)' after the host")
            }
            self = .gpsd(host: host, port: port, device: device)
            return
        }
        if text.hasPrefix("serial:") {
            let (path, query) = try Self.split(String(text.dropFirst("serial:".count)), text)
            guard path.hasPrefix("/") else { throw bad("the device path must be absolute, e.g. serial:/dev/ttyACM0") }
            var baud: Int?
            for (key, value) in query {
                guard key == "baud" else { throw bad("unknown option '\(key)'; only baud=N is known") }
                guard let b = Int(value), SerialSource.standardBauds.contains(b) else {
                    throw bad("baud '\(value)' is not one of \(SerialSource.standardBauds.map(String.init).joined(separator: ", "))")
                }
                baud = b
            }
            self = .serial(path: path, baud: baud)
            return
        }
        if text.hasPrefix("replay:") {
            let (path, query) = try Self.split(String(text.dropFirst("replay:".count)), text)
            guard !path.isEmpty else { throw bad("no file named, e.g. replay:SampleTracks/orchard-walk.nmea") }
            var speed = ReplaySpeed.factor(1)
            for (key, value) in query {
                guard key == "speed" else { throw bad("unknown option '\(key)'; only speed=N|max is known") }
                guard let s = ReplaySpeed(value) else { throw bad("speed '\(value)' is not a positive number or max") }
                speed = s
            }
            self = .replay(path: path, speed: speed)
            return
        }
        if text.hasPrefix("/dev/") { throw bad("a device needs the serial: prefix (serial:\(text)) or gpsd") }
        if text.hasPrefix("gpsd:") { throw bad("gpsd sources start with gpsd://") }
        if text.hasSuffix(".nmea") || text.hasSuffix(".log") || text.hasSuffix(".txt") {
            throw bad("a recorded file needs the replay: prefix (replay:\(text))")
        }
        throw bad("unknown kind of source")
    }

    /// Splits `PATH?k=v&k=v`.
    private static func split(_ s: String, _ whole: String) throws(LocationError) -> (String, [(String, String)]) {
        guard let q = s.firstIndex(of: "?") else { return (s, []) }
        var pairs: [(String, String)] = []
        for part in s[s.index(after: q)...].split(separator: "&") {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, !kv[0].isEmpty else {
                throw LocationError.badSourceURI(whole, reason: "'\(part)' is not KEY=VALUE")
            }
            pairs.append((String(kv[0]), String(kv[1])))
        }
        return (String(s[..<q]), pairs)
    }

    /// The URI form, e.g. `gpsd://localhost:2947`.
    public var description: String {
        switch self {
        case let .gpsd(host, port, device):
            (host.contains(":") ? "gpsd://[\(host)]:\(port)" : "gpsd://\(host):\(port)") + (device ?? "")
        case let .serial(path, baud):
            "serial:\(path)" + (baud.map { "?baud=\($0)" } ?? "")
        case let .replay(path, speed):
            switch speed {
            case .max: "replay:\(path)?speed=max"
            case let .factor(f) where f == 1: "replay:\(path)"
            case let .factor(f): "replay:\(path)?speed=\(f)"
            }
        case .stdin: "-"
        }
    }

    /// Only a serial receiver is given corrections by `trees` itself; gpsd takes an NTRIP caster
    /// as a source of its own and forwards its corrections to the receiver.
    public var takesCorrections: Bool { if case .serial = self { true } else { false } }

    /// The source this names. `wait` keeps gpsd and serial sources trying when they cannot be
    /// reached at start; `clock` paces replays and back-off; `corrections` feeds a serial
    /// receiver an NTRIP stream (see `takesCorrections`; other sources ignore it); `asGpsd` has
    /// the NMEA sources report fixes as gpsd would (gpsd itself always does), for `--jsonl`.
    public func makeSource(
        wait: Bool = false, corrections: NTRIPClient? = nil, asGpsd: Bool = false, clock: any Clock<Duration> = ContinuousClock()
    ) -> any LocationSource {
        switch self {
        case let .gpsd(host, port, device):
            GPSDSource(host: host, port: port, device: device, wait: wait, clock: clock)
        case let .serial(path, baud):
            SerialSource(path: path, baud: baud, wait: wait, corrections: corrections, asGpsd: asGpsd, clock: clock)
        case let .replay(path, speed):
            ReplaySource(path: path, speed: speed, clock: clock, timesAsGpsd: asGpsd)
        case .stdin:
            StdinSource(asGpsd: asGpsd)
        }
    }
}
