import Foundation

/// A PostgreSQL 15 server of the test's own: `initdb` in a fresh folder, listening on 127.0.0.1 on a
/// free port, with trust authentication for local connections, or with a `Login` that TCP clients
/// must pass. Stopped by `stop()` or once nothing refers to it any more, also when a test fails.
///
/// PostgreSQL refuses to run as root; as root (CI) the server runs as `nobody` through `setpriv`,
/// and its folder belongs to that user.
package final class PostgresServer: @unchecked Sendable {
    package static let binaries = "/usr/lib/postgresql/15/bin"
    package let folder: String
    package let port: Int
    package let user = "trees"
    /// What TCP clients must pass; nil when the server trusts them.
    package let login: Login?
    private let launcher: [String]
    private var running = false

    /// A server that takes TCP connections only over TLS and only with the role's password
    /// (SCRAM-SHA-256); connections on its Unix socket, which the harness uses, are trusted.
    ///
    /// The server's certificate is issued for `certificateNames` by a certificate authority made
    /// for this server alone, whose certificate is `certificateAuthority`.
    package struct Login: Sendable {
        /// The password of the role `trees`.
        package var password: String
        /// The host names the server's certificate is issued for (its subject alternative names).
        package var certificateNames: [String]

        package init(password: String, certificateNames: [String] = ["localhost"]) {
            self.password = password
            self.certificateNames = certificateNames
        }
    }

    package var dataFolder: String { folder + "/data" }
    /// The certificate of the authority that issued the server's certificate (with a `Login`).
    package var certificateAuthority: String { folder + "/tls/ca.crt" }
    /// A URL for database `name`, without a password. With a `Login` it names the host `localhost`
    /// and asks for TLS with the server's certificate checked against `certificateAuthority`.
    package func url(_ name: String = "postgres", port: Int? = nil) -> String {
        guard login != nil else { return "postgres://\(user)@127.0.0.1:\(port ?? self.port)/\(name)" }
        return "postgres://\(user)@localhost:\(port ?? self.port)/\(name)?sslmode=verify-full&sslrootcert=\(certificateAuthority)"
    }

    /// What the server logged so far (with a `Login`, every connection and whether it used TLS).
    package var log: String { (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? "" }

    package init(login: Login? = nil) throws {
        _ = try Tool.postgres.require()
        if login != nil { _ = try Tool.openssl.require() }
        self.login = login
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
        if let login {
            try initialise(login)
        } else {
            let initdb = try control(Self.binaries + "/initdb", ["-D", dataFolder, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync"])
            guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.output)") }
        }
        try start()
    }

    /// Makes the data folder of a server with a `Login`: the role's password, TLS only over TCP,
    /// every connection logged.
    private func initialise(_ login: Login) throws {
        let passwordFile = try serverFile("password", login.password + "\n")
        let initdb = try control(Self.binaries + "/initdb", ["-D", dataFolder, "-U", user, "--auth-local=trust", "--auth-host=scram-sha-256",
                                                             "--pwfile=" + passwordFile, "-E", "UTF8", "--no-sync"])
        try? FileManager.default.removeItem(atPath: passwordFile)
        guard initdb.status == 0 else { throw Failure(description: "initdb failed: \(initdb.output)") }
        let (certificate, key) = try makeCertificates(for: login.certificateNames)
        // No `host` lines: a TCP connection without TLS finds no entry and is refused.
        try serverFile("data/pg_hba.conf", """
            local all all trust
            hostssl all all 127.0.0.1/32 scram-sha-256
            hostssl all all ::1/128 scram-sha-256

            """)
        let settings = """

            ssl = on
            ssl_cert_file = '\(certificate)'
            ssl_key_file = '\(key)'
            log_connections = on

            """
        let conf = try FileHandle(forWritingTo: URL(fileURLWithPath: dataFolder + "/postgresql.conf"))
        defer { try? conf.close() }
        try conf.seekToEnd()
        try conf.write(contentsOf: Data(settings.utf8))
    }

    /// A throwaway certificate authority in `tls/` and a server certificate it issues for `names`
    /// (DNS names, or IP addresses written as digits); returns the paths of the server's
    /// certificate and private key, which belong to the server's user and only it may read.
    private func makeCertificates(for names: [String]) throws -> (certificate: String, key: String) {
        let openssl = try Tool.openssl.require()
        let tls = folder + "/tls"
        try FileManager.default.createDirectory(atPath: tls, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let alternatives = names.map { $0.allSatisfy { $0.isNumber || $0 == "." } ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        try Data("""
            subjectAltName = \(alternatives)
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth

            """.utf8).write(to: URL(fileURLWithPath: tls + "/server.ext"))
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + curve + ["-keyout", tls + "/ca.key", "-out", tls + "/ca.crt", "-days", "2", "-subj", "/CN=trees test authority",
                                        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req", "-new"] + curve + ["-keyout", tls + "/server.key", "-out", tls + "/server.csr", "-subj", "/CN=\(names.first ?? "localhost")"],
            ["x509", "-req", "-in", tls + "/server.csr", "-CA", tls + "/ca.crt", "-CAkey", tls + "/ca.key", "-set_serial", "2", "-days", "2",
             "-extfile", tls + "/server.ext", "-out", tls + "/server.crt"],
        ]
        for step in steps {
            let r = try Program.run(openssl, step, environment: Self.environment)
            guard r.status == 0 else { throw Failure(description: "openssl \(step[0]) failed: \(r)") }
        }
        for file in ["server.crt", "server.key"] { try own(tls + "/" + file) }
        chmod(tls + "/server.key", 0o600)
        return (tls + "/server.crt", tls + "/server.key")
    }

    /// Writes `text` to `name` in the server's folder, owned by the server's user; returns its path.
    @discardableResult
    private func serverFile(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
        try own(path)
        return path
    }

    /// Gives `path` to the server's user (when the server runs as `nobody`).
    private func own(_ path: String) throws {
        guard !launcher.isEmpty else { return }
        guard chown(path, 65534, 65534) == 0 else { throw Failure(description: "cannot give \(path) to nobody: \(String(cString: strerror(errno)))") }
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
        SpawnedDescriptors.closeInherited(&actions)
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

    /// Runs SQL through `psql` on database `name`; returns its unaligned, tuples-only output. With
    /// a `Login` it connects through the server's Unix socket, which needs no password.
    @discardableResult
    package func psql(_ sql: String, database name: String = "postgres") throws -> String {
        let target = login == nil ? ["-d", url(name)] : ["-h", folder, "-p", "\(port)", "-U", user, "-d", name]
        let r = try Program.run("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + target + ["-c", sql], environment: Self.environment)
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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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
