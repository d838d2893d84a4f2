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
        let initdb = try control(Self.binaries + "/initdb", ["-D", dataFolder, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"])
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.output)") }
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
        let r = try control(Self.binaries + "/pg_ctl", ["-D", dataFolder, "-o", options, "-l", folder + "/server.log", "-w", "-t", "60", "start"])
        guard r.status == 0 else {
            let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(description: "pg_ctl start failed: \(r.output)\n\(log)")
        }
        running = true
    }

    /// Stops the server: `fast` rolls back open transactions and closes connections; `immediate`
    /// kills it as a power cut would.
    package func stop(mode: String = "fast") {
        guard running else { return }
        _ = try? control(Self.binaries + "/pg_ctl", ["-D", dataFolder, "-m", mode, "-w", "-t", "60", "stop"])
        running = false
    }

    /// Runs a server program as the server's user, its output to a file: the server it starts keeps
    /// what it inherits, so a pipe would never reach its end.
    private func control(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = folder + "/control.out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let command = launcher.isEmpty ? [program] + arguments : launcher + [program] + arguments
        let argv = command.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = Self.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, command[0], &actions, nil, argv, env)
        guard rc == 0 else { throw Failure(description: "cannot start \(program): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exit, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
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

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }
}
