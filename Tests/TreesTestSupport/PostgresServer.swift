import Foundation

/// A PostgreSQL 15 server of the test's own: `initdb` in a fresh folder, listening on 127.0.0.1 on a
/// free port, with trust authentication for local connections. Stopped by `stop()` or once nothing
/// refers to it any more, also when a test fails.
///
/// PostgreSQL refuses to run as root; as root (CI) the server runs as `nobody` through `setpriv`,
/// and its folder belongs to that user.
package final class PostgresServer: @unchecked Sendable {
    package static let binaries = "/usr/lib/postgresql/15/bin"
    package let folder: String
    package let port: Int
    package let user = "trees"
    private let launcher: [String]
    private var running = false

    package var dataFolder: String { folder + "/data" }
    /// A URL for database `name` (no password: the server trusts local connections).
    package func url(_ name: String = "postgres", port: Int? = nil) -> String { "postgres://\(user)@127.0.0.1:\(port ?? self.port)/\(name)" }

    package init() throws {
        _ = try Tool.postgres.require()
        var template = Array((FileManager.default.temporaryDirectory.path + "/trees-pg-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure(description: "cannot make a temporary folder") }
        folder = String(cString: made)
        chmod(folder, 0o755)
        port = try Self.freePort()
        if getuid() == 0 {
            let setpriv = try Tool.setpriv.require()
            launcher = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
            chown(folder, 65534, 65534)
        } else {
            launcher = []
        }
        let initdb = try Program.run(Self.binaries + "/initdb", ["-D", dataFolder, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"],
                                     environment: Self.environment, launcher: launcher)
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb)") }
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    static var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["LC_ALL"] = "C.UTF-8"
        env["TZ"] = "UTC"
        return env
    }

    /// Starts the server and waits until it accepts connections (`pg_ctl -w`).
    package func start() throws {
        let options = "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60"
        let r = try Program.run(Self.binaries + "/pg_ctl", ["-D", dataFolder, "-o", options, "-l", folder + "/server.log", "-w", "-t", "60", "start"],
                                environment: Self.environment, launcher: launcher)
        guard r.status == 0 else {
            let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(description: "pg_ctl start failed: \(r)\n\(log)")
        }
        running = true
    }

    /// Stops the server: `fast` rolls back open transactions and closes connections; `immediate`
    /// kills it as a power cut would.
    package func stop(mode: String = "fast") {
        guard running else { return }
        _ = try? Program.run(Self.binaries + "/pg_ctl", ["-D", dataFolder, "-m", mode, "-w", "-t", "60", "stop"],
                             environment: Self.environment, launcher: launcher)
        running = false
    }

    /// Runs SQL through `psql` on database `name`; returns its unaligned, tuples-only output.
    @discardableResult
    package func psql(_ sql: String, database name: String = "postgres") throws -> String {
        let r = try Program.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url(name), "-c", sql], environment: Self.environment)
        guard r.status == 0 else { throw Failure(description: "psql failed: \(r)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Creates an empty database; returns its URL.
    package func createDatabase(_ name: String) throws -> String {
        try psql("CREATE DATABASE \"\(name)\"")
        return url(name)
    }

    /// A TCP port nothing listens on now.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw Failure(description: "bind failed") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    package struct Failure: Error, CustomStringConvertible { package var description: String }
}
