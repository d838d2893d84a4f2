import Foundation

/// A PostgreSQL 15 server of the benchmark's own, for `trees-bench sync` without `--url`.
///
/// `initdb` in a folder of its own, listening on 127.0.0.1 on a free port, trusting local
/// connections, fsync off (as the test harness runs it). PostgreSQL refuses to run as root: as root
/// the server runs as `nobody` through `setpriv`, and its folder belongs to that user.
final class ScratchPostgres {
    static let binaries = "/usr/lib/postgresql/15/bin"
    let folder: String
    let port: Int
    private let launcher: [String]
    private var running = false

    /// The database the benchmark syncs through.
    var url: String { "postgres://trees@127.0.0.1:\(port)/bench" }

    init(folder: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binaries + "/initdb") else {
            throw BenchError("trees-bench sync needs PostgreSQL 15 (\(Self.binaries)/initdb) or --url postgres://USER@HOST:PORT/DB")
        }
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        if getuid() == 0 {
            launcher = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
            guard chown(folder, 65534, 65534) == 0 else { throw BenchError("cannot give \(folder) to nobody: \(String(cString: strerror(errno)))") }
        } else {
            launcher = []
        }
        port = try Self.freePort()
        try control(Self.binaries + "/initdb", ["-D", folder + "/data", "-U", "trees", "--auth=trust", "-E", "UTF8", "--no-sync"])
        try control(Self.binaries + "/pg_ctl", ["-D", folder + "/data", "-o", "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off",
                                                "-l", folder + "/server.log", "-w", "-t", "60", "start"])
        running = true
        let created = try Harness.measure("/usr/bin/psql", ["-X", "-q", "-d", "postgres://trees@127.0.0.1:\(port)/postgres", "-c", "CREATE DATABASE bench"])
        guard created.status == 0 else { throw BenchError("psql could not create the database bench") }
    }

    deinit { stop() }

    /// Stops the server (`pg_ctl stop -m fast`); its folder is left to the caller.
    func stop() {
        guard running else { return }
        running = false
        try? control(Self.binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "-t", "60", "stop"])
    }

    /// Runs a server program as the server's user; its output goes to a file in the server's folder.
    private func control(_ program: String, _ arguments: [String]) throws {
        let command = launcher + [program] + arguments
        let m = try Harness.measure(command[0], Array(command.dropFirst()), stdoutPath: folder + "/control.out", environment: ["LC_ALL": "C.UTF-8", "TZ": "UTC"])
        guard m.status == 0 else {
            let output = (try? String(contentsOfFile: folder + "/control.out", encoding: .utf8)) ?? ""
            throw BenchError("\((program as NSString).lastPathComponent) exited \(m.status): \(output)")
        }
    }

    /// A loopback TCP port nothing listens on now (the kernel's choice for a socket bound to port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("cannot bind a loopback socket: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
