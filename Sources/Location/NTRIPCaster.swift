import Foundation

/// An NTRIP caster and, for a correction stream, one of its mount points, as named by
/// `ntrip://[USER@]HOST[:PORT][/MOUNT][?version=1|2]`.
///
/// The port is 2101 unless given; `[::1]` names an IPv6 host. The user name may be
/// percent-encoded (`me%40example.org`). A password is never part of the URL: a URL with
/// `USER:PASSWORD@` is refused (it would show in `ps` and in the shell's history) and the password
/// comes from `NTRIPPassword` instead. NTRIP 2.0 (HTTP/1.1) is spoken unless `?version=1` asks for
/// NTRIP 1.0, which some older casters need.
public struct NTRIPEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// The NTRIP protocol version spoken to the caster.
    public enum Version: Int, Sendable {
        /// NTRIP 1.0: `GET /MOUNT HTTP/1.0`, answered by `ICY 200 OK`.
        case v1 = 1
        /// NTRIP 2.0: HTTP/1.1 with `Ntrip-Version: Ntrip/2.0`, chunked transfer encoding.
        case v2 = 2
    }

    public static let defaultPort = 2101

    public var host: String
    public var port: Int
    /// The mount point (stream) asked for; nil when only the caster is named (its source table).
    public var mount: String?
    /// The user name sent with the password, if the caster needs credentials.
    public var user: String?
    public var version: Version

    public init(host: String, port: Int = defaultPort, mount: String?, user: String? = nil, version: Version = .v2) {
        self.host = host; self.port = port; self.mount = mount; self.user = user; self.version = version
    }

    /// Parses an `ntrip://` URL; with `requiringMount` a URL without a mount point is refused.
    /// Errors never repeat a password found in the URL.
    public init(parsing text: String, requiringMount: Bool = true) throws(LocationError) {
        let shown = Self.withoutPassword(text)
        func bad(_ reason: String) -> LocationError { .badNTRIPURL(shown, reason: reason) }
        guard text.lowercased().hasPrefix("ntrip://") else {
            throw bad("it must start with ntrip://")
        }
        var rest = Substring(text.dropFirst("ntrip://".count))
        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        let path = rest[slash...].dropFirst()
        var user: String?
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            if info.contains(":") {
                throw bad("a password in the URL is refused (it would show in ps and in the shell's history); "
                    + "give it in the environment variable NTRIP_PASSWORD or in a file named by NTRIP_PASSWORD_FILE")
            }
            guard let decoded = String(info).removingPercentEncoding, !decoded.isEmpty else {
                throw bad("the user name before @ is empty or badly percent-encoded")
            }
            user = decoded
            authority = authority[authority.index(after: at)...]
        }
        var host: String
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("unclosed [ in the host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            authority = authority[authority.index(after: close)...]
        } else {
            let colon = authority.firstIndex(of: ":") ?? authority.endIndex
            host = String(authority[..<colon])
            authority = authority[colon...]
        }
        guard !host.isEmpty else { throw bad("no caster host, e.g. ntrip://caster.example.org:2101/MOUNT") }
        guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:_%".contains($0)) }) else {
            throw bad("'\(host)' is not a host name or address")
        }
        var port = Self.defaultPort
        if authority.hasPrefix(":") {
            let digits = authority.dropFirst()
            guard let p = Int(digits), (1...65535).contains(p) else {
                throw bad("the port '\(digits)' is not a number from 1 to 65535")
            }
            port = p
        } else if !authority.isEmpty {
            throw bad("unexpected '\(authority)' after the host")
        }
        var mount: String?
        if !path.isEmpty {
            guard path.allSatisfy({ $0.isASCII && $0 > " " && $0 != "/" && $0 != "\u{7F}" }) else {
                throw bad("the mount point '\(path)' has a space, a slash or a control character")
            }
            mount = String(path)
        }
        if requiringMount && mount == nil {
            throw bad("no mount point after the host; list the caster's mount points with "
                + "`trees ntrip list ntrip://\(host.contains(":") ? "[\(host)]" : host):\(port)`")
        }
        var version = Version.v2
        for part in query.split(separator: "&") {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard kv.count == 2, kv[0] == "version" else { throw bad("unknown option '\(part)'; only version=1 or version=2 is known") }
            guard let v = Int(kv[1]).flatMap(Version.init(rawValue:)) else { throw bad("version '\(kv[1])' is not 1 or 2") }
            version = v
        }
        self.init(host: host, port: port, mount: mount, user: user, version: version)
    }

    /// `HOST:PORT`, brackets around an IPv6 address.
    public var caster: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `HOST:PORT/MOUNT` (or `HOST:PORT`): never a user name or password.
    public var description: String { caster + (mount.map { "/\($0)" } ?? "") }

    /// The URL of the caster alone, as `trees ntrip list` takes it.
    public var casterURL: String { "ntrip://" + caster }

    /// `text` with anything between `//` and `@` that holds a colon replaced, so an error message
    /// never repeats a password.
    static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return text }
        let afterScheme = text[scheme.upperBound...]
        let end = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        guard let at = afterScheme[..<end].lastIndex(of: "@") else { return text }
        let info = afterScheme[..<at]
        guard let colon = info.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":…" + String(text[at...])
    }
}

/// Where the password for an NTRIP caster comes from: the environment variable `NTRIP_PASSWORD`,
/// else the first line of the file named by `NTRIP_PASSWORD_FILE`; never the URL or a command line.
public enum NTRIPPassword {
    public static let variable = "NTRIP_PASSWORD"
    public static let fileVariable = "NTRIP_PASSWORD_FILE"

    /// The password, or nil when neither variable is set (or both are empty).
    public static func lookup(in environment: [String: String] = ProcessInfo.processInfo.environment) throws(LocationError) -> String? {
        if let value = environment[variable], !value.isEmpty { return value }
        guard let path = environment[fileVariable], !path.isEmpty else { return nil }
        let data = try firstBytes(of: path)
        guard let text = String(bytes: data, encoding: .utf8) else {
            throw LocationError.ntripPasswordUnreadable(path: path, reason: "not UTF-8 text")
        }
        let line = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !line.isEmpty else { throw LocationError.ntripPasswordUnreadable(path: path, reason: "its first line is empty") }
        return line
    }

    /// The first 4 KiB of the file at `path` (a password is one short line), or why not in the
    /// system's words.
    private static func firstBytes(of path: String) throws(LocationError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .ntripPasswordUnreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        var count = 0
        while count < bytes.count {
            let n = bytes[count...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw .ntripPasswordUnreadable(path: path, reason: String(cString: strerror(errno)))
            }
            count += n
        }
        return Array(bytes[..<count])
    }
}

/// The request an NTRIP client sends: one write, ending with an empty line.
enum NTRIPRequest {
    /// `GET /PATH` for `endpoint`'s version, with Basic credentials when there is a user.
    static func bytes(_ endpoint: NTRIPEndpoint, path: String, password: String?, userAgent: String) -> [UInt8] {
        var lines: [String] = []
        switch endpoint.version {
        case .v2:
            lines.append("GET /\(path) HTTP/1.1")
            lines.append("Host: \(endpoint.caster)")
            lines.append("Ntrip-Version: Ntrip/2.0")
            lines.append("User-Agent: NTRIP \(userAgent)")
        case .v1:
            lines.append("GET /\(path) HTTP/1.0")
            lines.append("User-Agent: NTRIP \(userAgent)")
            lines.append("Accept: */*")
        }
        if let user = endpoint.user {
            let token = Data((user + ":" + (password ?? "")).utf8).base64EncodedString()
            lines.append("Authorization: Basic \(token)")
        }
        lines.append("Connection: close")
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}
