import Foundation

/// An NTRIP caster's source table: its streams (`STR`), the casters (`CAS`) and networks (`NET`)
/// it names, as NTRIP 2.0 lays them out (fields separated by `;`, ending with `ENDSOURCETABLE`).
///
/// Reading is lenient: a line that is not a well-formed record is skipped and counted in
/// `malformed`, never fatal, since casters in the field write all sorts.
public struct NTRIPSourceTable: Sendable, Equatable {
    /// A mount point (`STR` record).
    public struct Stream: Sendable, Equatable {
        public var mount: String
        /// Usually the place the base station stands.
        public var identifier: String
        /// `RTCM 3.2`, `RTCM3.1`, `RTCM 2.3`, `RAW`…
        public var format: String
        /// The messages and their rates, e.g. `1004(1),1005(10)`.
        public var formatDetails: String
        /// 0 no carrier phase, 1 L1, 2 L1 and L2.
        public var carrier: Int?
        /// `GPS+GLO+GAL+BDS`…
        public var navSystem: String
        public var network: String
        /// ISO 3166 country code (three letters).
        public var country: String
        /// Degrees north, of the station or the network's centre.
        public var latitude: Double?
        /// Degrees east.
        public var longitude: Double?
        /// The caster needs the client's position as NMEA GGA (network RTK, nearest station).
        public var needsNMEA: Bool
        /// 0 a single base station, 1 a network solution.
        public var solution: Int?
        public var generator: String
        public var compression: String
        /// `N` none, `B` Basic, `D` Digest.
        public var authentication: String
        /// `Y` when the stream costs money.
        public var fee: Bool
        /// Bits per second.
        public var bitrate: Int?
        public var misc: String
    }

    /// Another caster (`CAS` record).
    public struct Caster: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var identifier: String
        public var `operator`: String
        public var needsNMEA: Bool
        public var country: String
        public var latitude: Double?
        public var longitude: Double?
        public var fallbackHost: String
        public var fallbackPort: Int?
        public var misc: String
    }

    /// A network of streams (`NET` record).
    public struct Network: Sendable, Equatable {
        public var identifier: String
        public var `operator`: String
        public var authentication: String
        public var fee: Bool
        public var webNetwork: String
        public var webStream: String
        public var webRegistration: String
        public var misc: String
    }

    public var streams: [Stream] = []
    public var casters: [Caster] = []
    public var networks: [Network] = []
    /// Lines (counted from 1 after the answer's header) that are not a record and were skipped.
    public var malformedLines: [Int] = []
    /// `ENDSOURCETABLE` was seen: the table arrived whole.
    public var complete = false

    public init() {}

    /// Reads a source table's lines (the body of the caster's answer).
    public init(parsing text: String) {
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if line.hasPrefix("ENDSOURCETABLE") { complete = true; break }
            let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            let ok: Bool
            switch fields[0] {
            case "STR": ok = Self.stream(fields).map { streams.append($0) } != nil
            case "CAS": ok = Self.caster(fields).map { casters.append($0) } != nil
            case "NET": ok = Self.network(fields).map { networks.append($0) } != nil
            default: ok = false
            }
            if !ok { malformedLines.append(number) }
        }
    }

    /// `fields[i]`, or empty past the end.
    private static func field(_ fields: [String], _ i: Int) -> String { i < fields.count ? fields[i] : "" }

    /// The fields from `i` on, joined again: the last field (misc) may hold semicolons.
    private static func tail(_ fields: [String], _ i: Int) -> String {
        i < fields.count ? fields[i...].joined(separator: ";").trimmingCharacters(in: CharacterSet(charactersIn: ";")) : ""
    }

    /// A number when the field is one, nil when empty; `.none` (malformed) when it is something else.
    private static func number<T: LosslessStringConvertible>(_ text: String, _ type: T.Type) -> T?? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.isEmpty { return .some(nil) }
        guard let v = T(t) else { return nil }
        return .some(v)
    }

    private static func coordinate(_ text: String, limit: Double) -> Double?? {
        guard let v = number(text, Double.self) else { return nil }
        if let d = v, !(d.isFinite && abs(d) <= limit) { return nil }
        return .some(v)
    }

    private static func flag(_ text: String) -> Bool { text.trimmingCharacters(in: .whitespaces) == "1" || text.uppercased() == "Y" }

    private static func stream(_ f: [String]) -> Stream? {
        guard f.count >= 12, !f[1].isEmpty, !f[1].contains(" "),
              let carrier = number(f[5], Int.self),
              let lat = coordinate(f[9], limit: 90), let lon = coordinate(f[10], limit: 360),
              let solution = number(field(f, 12), Int.self),
              let bitrate = number(field(f, 17), Int.self)
        else { return nil }
        return Stream(mount: f[1], identifier: f[2], format: f[3], formatDetails: f[4], carrier: carrier, navSystem: f[6],
                      network: f[7], country: f[8], latitude: lat, longitude: lon.map { $0 > 180 ? $0 - 360 : $0 },
                      needsNMEA: flag(f[11]), solution: solution, generator: field(f, 13), compression: field(f, 14),
                      authentication: field(f, 15), fee: flag(field(f, 16)), bitrate: bitrate, misc: tail(f, 18))
    }

    private static func caster(_ f: [String]) -> Caster? {
        guard f.count >= 9, !f[1].isEmpty, let port = Int(f[2].trimmingCharacters(in: .whitespaces)), (1...65535).contains(port),
              let lat = coordinate(f[7], limit: 90), let lon = coordinate(f[8], limit: 360),
              let fallbackPort = number(field(f, 10), Int.self)
        else { return nil }
        return Caster(host: f[1], port: port, identifier: f[3], operator: f[4], needsNMEA: flag(f[5]), country: f[6],
                      latitude: lat, longitude: lon.map { $0 > 180 ? $0 - 360 : $0 }, fallbackHost: field(f, 9),
                      fallbackPort: fallbackPort, misc: tail(f, 11))
    }

    private static func network(_ f: [String]) -> Network? {
        guard f.count >= 5, !f[1].isEmpty else { return nil }
        return Network(identifier: f[1], operator: f[2], authentication: f[3], fee: flag(f[4]), webNetwork: field(f, 5),
                       webStream: field(f, 6), webRegistration: field(f, 7), misc: tail(f, 8))
    }
}

extension NTRIPSourceTable {
    /// Asks `endpoint`'s caster for its source table (`GET /`) and reads it whole.
    ///
    /// Throws `LocationError` for a caster that cannot be reached, refuses the credentials,
    /// answers with something other than a source table, or sends nothing for `timeout`.
    public static func fetch(
        from endpoint: NTRIPEndpoint, password: String?, userAgent: String = "trees", timeout: Duration = .seconds(30)
    ) async throws(LocationError) -> NTRIPSourceTable {
        let result = await onThread(named: "ntrip \(endpoint.caster)") { stop -> Result<NTRIPSourceTable, LocationError> in
            Result { () throws(LocationError) in try read(endpoint, password: password, userAgent: userAgent, timeout: timeout, stop: stop) }
        }
        return try result.get()
    }

    private static func read(
        _ endpoint: NTRIPEndpoint, password: String?, userAgent: String, timeout: Duration, stop: StopFlag
    ) throws(LocationError) -> NTRIPSourceTable {
        var caster = endpoint
        caster.mount = nil
        let socket: NTRIPSocket
        switch NTRIPSocket.connect(host: endpoint.host, port: endpoint.port, timeout: timeout, stop: stop) {
        case let .success(s): socket = s
        case let .failure(problem): throw .ntripUnreachable(caster: endpoint.caster, reason: problem.reason)
        }
        defer { socket.close() }
        if let problem = socket.send(NTRIPRequest.bytes(caster, path: "", password: password, userAgent: userAgent)) {
            throw .ntripLost(caster: endpoint.caster, reason: problem)
        }
        var answer = NTRIPAnswerReader()
        var body: NTRIPBody?
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var lastData = ContinuousClock.now
        while !stop.isSet {
            switch socket.read(into: &buffer, waitMilliseconds: 250) {
            case .timedOut:
                if ContinuousClock.now - lastData > timeout {
                    throw .ntripSilent(caster: endpoint.caster, seconds: Int(timeout.components.seconds))
                }
                continue
            case let .failed(reason):
                throw .ntripLost(caster: endpoint.caster, reason: reason)
            case .closed:
                if body == nil { throw NTRIPFailure.error(for: answer.finish(), endpoint: caster, password: password) }
                return NTRIPSourceTable(parsing: String(decoding: text, as: UTF8.self))
            case let .bytes(n):
                lastData = ContinuousClock.now
                var data = Array(buffer[..<n])
                if body == nil {
                    guard let (decided, rest) = answer.feed(data) else { continue }
                    guard case let .sourceTable(framing) = decided else {
                        throw NTRIPFailure.error(for: decided, endpoint: caster, password: password)
                    }
                    body = NTRIPBody(framing)
                    data = rest
                }
                do { try body?.decode(data, into: &text) } catch {
                    throw .ntripNotACaster(caster: endpoint.caster, sent: "a broken chunked answer")
                }
                if body?.isFinished == true || Self.hasEnd(text) {
                    return NTRIPSourceTable(parsing: String(decoding: text, as: UTF8.self))
                }
            }
        }
        return NTRIPSourceTable()
    }

    /// True once `ENDSOURCETABLE` has arrived at the start of a line.
    private static func hasEnd(_ text: [UInt8]) -> Bool {
        let marker = Array("ENDSOURCETABLE".utf8)
        guard text.count >= marker.count else { return false }
        // Only the last few hundred bytes can hold a marker that has just arrived.
        let from = max(0, text.count - 512)
        var i = from
        while i + marker.count <= text.count {
            if (i == 0 || text[i - 1] == 0x0A) && text[i..<i + marker.count].elementsEqual(marker) { return true }
            i += 1
        }
        return false
    }
}
