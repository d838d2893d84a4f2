import Foundation
import Testing
import TreesTestSupport

/// Remotes whose server wants a password and TLS, end to end: the password comes from
/// `PGPASSWORD`, a password file or a service file and from nowhere else; it never reaches the
/// store, the output or a command line; every connection is encrypted and, with
/// `sslmode=verify-full`, made only to a server whose certificate names the host.
@Suite(.tags(.postgres), .enabled(if: Tool.postgres.shouldRun && Tool.openssl.shouldRun), .serialized)
struct RemoteTests {
    static let password = "Kew-Blossom-7f3e9a"
    static let wrongPassword = "Kew-Bramble-41c0d2"
    static let refusedPassword = "the URL carries a password; remove it and give it through PGPASSWORD, ~/.pgpass or a service file"

    /// A server that wants the password over TLS, its certificate issued for `names`, with an
    /// empty database `team`; and that database's URL (`sslmode=verify-full` with the server's
    /// authority as `sslrootcert`).
    static func server(certificateNames names: [String] = ["localhost"]) throws -> (PostgresServer, String) {
        _ = try Tool.postgres.require()
        _ = try Tool.openssl.require()
        let server = try PostgresServer(login: .init(password: password, certificateNames: names))
        return (server, try server.createDatabase("team"))
    }

    /// A laptop whose environment holds no libpq setting (`PG…`) but those a test gives.
    static func laptop() throws -> TreesProcess {
        var laptop = try TreesProcess(now: nil)
        for key in laptop.environment.keys where key.hasPrefix("PG") { laptop.environment.removeValue(forKey: key) }
        return laptop
    }

    /// Adds remote `name` for `target` and checks what `trees remote add` says.
    static func addRemote(_ laptop: TreesProcess, _ name: String, _ target: String, shown: String? = nil) throws {
        let r = try laptop.run(["remote", "add", name, target])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "added remote '\(name)' → \(shown ?? target)\n")
        #expect(r.stderr == "")
    }

    /// Adds one tree; returns its id.
    @discardableResult
    static func addTree(_ laptop: TreesProcess, species: String = "Apple") throws -> String {
        let r = try laptop.run(["add", "--json", "--lat", "51.4787", "--lon", "-0.2956", "--accuracy", "3", "--species", species])
        #expect(r.status == 0, "\(r)")
        let tree = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        return try #require(tree?["id"] as? String)
    }

    /// `trees server init REMOTE` then `trees sync REMOTE --json` over one new tree, both succeeding;
    /// what the sync pushed.
    static func initAndSync(_ laptop: TreesProcess, _ remote: String, shown: String, environment: [String: String] = [:]) throws -> [String: Any] {
        let initialised = try laptop.run(["server", "init", remote], environment: environment)
        #expect(initialised.status == 0, "\(initialised)")
        #expect(initialised.stdout.hasPrefix("\(shown): schema version 0 → "), "\(initialised)")
        #expect(initialised.stdout.hasSuffix("; QGIS layer: trees_layer\n"), "\(initialised)")
        #expect(initialised.stderr == "")
        try addTree(laptop)
        let synced = try laptop.run(["sync", remote, "--json"], environment: environment)
        #expect(synced.status == 0, "\(synced)")
        #expect(synced.stderr == "")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(synced.stdout.utf8)) as? [String: Any], "\(synced)")
        return try #require(report["pushed"] as? [String: Any])
    }

    /// The server's log lines of the connections `trees` made to database `team`.
    static func treesConnections(_ server: PostgresServer, name: String = "trees") -> [String] {
        server.log.split(separator: "\n").map(String.init)
            .filter { $0.contains("connection authorized: user=trees database=team application_name=\(name)") }
    }

    /// True when each of `lines` says its connection was encrypted.
    static func encrypted(_ lines: [String]) -> Bool {
        !lines.isEmpty && lines.allSatisfy { $0.contains(" SSL enabled (protocol=TLSv1.3, ") }
    }

    /// What `trees` says when it cannot sign in, from libpq's message about the last address tried.
    static func refusal(_ r: ProgramOutput, target: String, port: Int, reason: String) {
        #expect(r.status == 69, "\(r)")
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("trees: cannot connect to \(target): connection to server at \"localhost\""), "\(r.stderr)")
        #expect(r.stderr.hasSuffix(", port \(port) failed: \(reason)\n"), "\(r.stderr)")
        #expect(r.stderr.filter { $0 == "\n" }.count == 1, "one line: \(r.stderr)")
    }

    @Test func thePasswordInPGPASSWORDSignsInOverTLSWithTheCertificateChecked() throws {
        let (server, url) = try Self.server()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        let env = ["PGPASSWORD": Self.password]
        try Self.addRemote(laptop, "team", url)
        let pushed = try Self.initAndSync(laptop, "team", shown: url, environment: env)
        #expect(pushed["trees"] as? Int == 1)
        #expect(try server.psql("SELECT species FROM tree", database: "team") == "Apple")

        // Both connections, server init's and sync's, were encrypted.
        let connections = Self.treesConnections(server)
        #expect(connections.count == 2, "\(connections)")
        #expect(Self.encrypted(connections), "\(connections)")
        // The server says so of a session opened with the same URL and password.
        let psql = try Program.run("/usr/bin/psql", ["-X", "-A", "-t", "-d", url, "-c", "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"],
                                   environment: laptop.environment.merging(env) { $1 })
        #expect(psql.status == 0, "\(psql)")
        #expect(psql.stdout == "t\n")
        // A remote that does not ask for TLS gets nowhere: the server takes no TCP connection without it.
        let plain = url.replacingOccurrences(of: "sslmode=verify-full", with: "sslmode=disable")
        try Self.addRemote(laptop, "plain", plain)
        let refused = try laptop.run(["sync", "plain"], environment: env)
        Self.refusal(refused, target: plain, port: server.port,
                     reason: "FATAL:  no pg_hba.conf entry for host \"127.0.0.1\", user \"trees\", database \"team\", no encryption")
        #expect(try server.psql("SELECT count(*) FROM change", database: "team") == "1")
    }

    /// In the home folder the authority's certificate is found too: `~/.postgresql/root.crt`.
    @Test(arguments: ["~/.pgpass", "PGPASSFILE"])
    func aPasswordOnlyInAPasswordFileIsFound(place: String) throws {
        let (server, serverURL) = try Self.server()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        // HOME is the laptop's scratch folder.
        let inHome = place == "~/.pgpass"
        let file = try laptop.scratch.write(inHome ? ".pgpass" : "team.pgpass", "localhost:\(server.port):team:trees:\(Self.password)\n")
        // libpq ignores a password file that others may read.
        #expect(chmod(file, 0o600) == 0)
        let env = inHome ? [:] : ["PGPASSFILE": file]
        var url = serverURL
        if inHome {
            try FileManager.default.createDirectory(at: laptop.scratch.url(".postgresql"), withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: server.certificateAuthority, toPath: laptop.scratch.path(".postgresql/root.crt"))
            url = "postgres://trees@localhost:\(server.port)/team?sslmode=verify-full"
        }
        try Self.addRemote(laptop, "team", url)
        let pushed = try Self.initAndSync(laptop, "team", shown: url, environment: env)
        #expect(pushed["trees"] as? Int == 1)
        #expect(try server.psql("SELECT species FROM tree", database: "team") == "Apple")
        #expect(Self.encrypted(Self.treesConnections(server)))
    }

    @Test func aServiceNamedAsTheRemoteGivesHostTLSAndPassword() throws {
        let (server, _) = try Self.server()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        let services = try laptop.scratch.write("pg_service.conf", """
            [team]
            host=localhost
            port=\(server.port)
            dbname=team
            user=trees
            sslmode=verify-full
            sslrootcert=\(server.certificateAuthority)
            password=\(Self.password)

            """)
        #expect(chmod(services, 0o600) == 0)
        let env = ["PGSERVICEFILE": services]
        try Self.addRemote(laptop, "team", "team", shown: "service=team")
        let pushed = try Self.initAndSync(laptop, "team", shown: "service=team", environment: env)
        #expect(pushed["trees"] as? Int == 1)
        #expect(try server.psql("SELECT species FROM tree", database: "team") == "Apple")
        #expect(Self.encrypted(Self.treesConnections(server)))
        let listed = try laptop.run(["remote", "list", "--json"])
        #expect(listed.status == 0)
        let remotes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(remotes.map { $0["target"] as? String } == ["service=team"])
    }

    @Test func aWrongOrMissingPasswordFailsClearlyAndLeavesTheStoreAsItWas() throws {
        let (server, url) = try Self.server()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        try Self.addRemote(laptop, "team", url)
        _ = try Self.initAndSync(laptop, "team", shown: url, environment: ["PGPASSWORD": Self.password])
        try Self.addTree(laptop, species: "Pear")
        let before = laptop.snapshot()
        let attempts: [(env: [String: String], reason: String)] = [
            (["PGPASSWORD": Self.wrongPassword], "FATAL:  password authentication failed for user \"trees\""),
            ([:], "fe_sendauth: no password supplied"),
        ]
        for attempt in attempts {
            for arguments in [["sync", "team"], ["sync", "team", "--json"], ["sync", "team", "--dry-run"], ["server", "init", "team"]] {
                let r = try laptop.run(arguments, environment: attempt.env)
                Self.refusal(r, target: url, port: server.port, reason: attempt.reason)
            }
        }
        #expect(laptop.snapshot() == before, "a sync that could not sign in changed the store")
        #expect(try server.psql("SELECT count(*) FROM tree", database: "team") == "1")
        // With the right password the waiting tree goes up.
        let synced = try laptop.run(["sync", "team", "--json"], environment: ["PGPASSWORD": Self.password])
        #expect(synced.status == 0, "\(synced)")
        #expect(try server.psql("SELECT species FROM tree ORDER BY species", database: "team") == "Apple\nPear")
    }

    @Test func thePasswordIsNeverStoredPrintedOrTakenFromACommandLine() throws {
        let (server, url) = try Self.server()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        let env = ["PGPASSWORD": Self.password]
        var outputs: [ProgramOutput] = []
        try Self.addRemote(laptop, "team", url)
        outputs.append(try laptop.run(["server", "init", "team"], environment: env))
        try Self.addTree(laptop)
        for arguments in [["sync", "team"], ["sync", "team", "--json"], ["sync", "team", "--dry-run"], ["remote", "list"], ["remote", "list", "--json"]] {
            let r = try laptop.run(arguments, environment: env)
            #expect(r.status == 0, "\(r)")
            outputs.append(r)
        }
        for wrong in [["PGPASSWORD": Self.wrongPassword], ["PGPASSWORD": ""]] {
            let r = try laptop.run(["sync", "team"], environment: wrong)
            #expect(r.status == 69, "\(r)")
            outputs.append(r)
        }

        // A password typed into the remote, in any form, is refused and not repeated.
        let before = laptop.snapshot()
        let query = "sslmode=verify-full&sslrootcert=\(server.certificateAuthority)"
        let typed: [(target: String, message: String)] = [
            ("postgres://trees:\(Self.password)@localhost:\(server.port)/team?\(query)", Self.refusedPassword),
            ("postgresql://trees:\(Self.password)@localhost:\(server.port)/team", Self.refusedPassword),
            ("\(url)&password=\(Self.password)", Self.refusedPassword),
            ("\(url)&sslpassword=\(Self.password)", Self.refusedPassword),
            ("postgres://trees@local host:\(server.port)/team?password=\(Self.password)", "the URL is malformed"),
            ("host=localhost port=\(server.port) dbname=team user=trees password=\(Self.password)",
             "key=value connection strings are not taken; give a postgres:// URL (no password) or a service name"),
            ("trees:\(Self.password)@localhost/team", "the remote is neither a postgres:// URL nor a service name (letters, digits, '_', '.', '-')"),
        ]
        for (target, message) in typed {
            for arguments in [["remote", "add", "typed", target], ["server", "init", target]] {
                let r = try laptop.run(arguments, environment: env)
                #expect(r.status == 64, "\(arguments): \(r)")
                #expect(r.stdout == "")
                #expect(r.stderr == "trees: bad remote: \(message)\n", "\(arguments)")
                outputs.append(r)
            }
        }
        #expect(laptop.snapshot() == before)
        let listed = try laptop.run(["remote", "list", "--json"])
        let remotes = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(remotes.map { $0["target"] as? String } == [url])

        for secret in [Self.password, Self.wrongPassword] {
            for r in outputs {
                #expect(!r.stdout.contains(secret) && !r.stderr.contains(secret), "\(r)")
            }
            for suffix in ["", "-wal", "-journal"] {
                guard let bytes = FileManager.default.contents(atPath: laptop.database + suffix) else { continue }
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "the password is in trees.sqlite\(suffix)")
            }
        }
        #expect(FileManager.default.fileExists(atPath: laptop.database))
    }

    /// A socket on 127.0.0.1 that takes connections and never answers: a client that reaches it
    /// waits for the server's first word. Returns the socket and its port.
    static func silentListener() throws -> (socket: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PostgresServer.Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw PostgresServer.Failure(description: "cannot listen on 127.0.0.1")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// The command lines (what `ps` shows) of process `pid` and of every process it started.
    static func commandLines(of pid: Int32) -> [String] {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let children = processes.compactMap(Int32.init).filter { candidate in
            // /proc/PID/stat: "PID (NAME) STATE PPID …"; NAME may hold spaces, so read after its ')'.
            guard let stat = ProcFile.text("/proc/\(candidate)/stat"),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first == Substring("\(pid)")
        }
        return ([pid] + children).compactMap { p in
            ProcFile.data("/proc/\(p)/cmdline").map { String(decoding: $0, as: UTF8.self).replacingOccurrences(of: "\0", with: " ") }
        }
    }

    @Test func aSyncWaitingOnItsServerShowsNoPasswordToPs() throws {
        let listener = try Self.silentListener()
        defer { close(listener.socket) }
        var laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        try Self.addRemote(laptop, "team", "postgres://trees@127.0.0.1:\(listener.port)/team?sslmode=verify-full&connect_timeout=60")
        laptop.environment["PGPASSWORD"] = Self.password
        let sync = try laptop.start(["sync", "team"])
        // The sync connects and, asked for TLS, sends its 8-byte SSLRequest (length 8, code
        // 80877103), then waits for an answer that never comes.
        var connection: Int32 = -1
        defer { if connection >= 0 { close(connection) } }
        var request = [UInt8]()
        let waiting = SyncTests.wait(seconds: 60) {
            guard sync.isRunning else { return true }
            if connection < 0 {
                var ready = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
                if poll(&ready, 1, 50) == 1 { connection = acceptClosingOnExec(listener.socket) }
                return false
            }
            var ready = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, 50) == 1 {
                var buffer = [UInt8](repeating: 0, count: 8 - request.count)
                let got = read(connection, &buffer, buffer.count)
                if got <= 0 { return true }
                request += buffer.prefix(got)
            }
            return request.count == 8
        }
        #expect(waiting && sync.isRunning, "the sync never reached the listener")
        #expect(request == [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F], "\(request)")
        let lines = Self.commandLines(of: sync.processIdentifier)
        sync.send(SIGKILL)
        _ = sync.wait()
        #expect(lines.first?.hasSuffix("trees sync team ") == true, "\(lines)")
        #expect(lines.count == 1, "trees started another program: \(lines)")
        #expect(!lines.contains { $0.contains(Self.password) }, "\(lines)")
    }

    @Test(.enabled(if: Tool.sqlite3.shouldRun))
    func aPasswordAStoreHoldsFromAnOlderTreesIsMaskedAndItsRemoteRefused() throws {
        let sqlite3 = try Tool.sqlite3.require()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        let url = "postgres://trees@db.example.org/team?sslmode=verify-full"
        try Self.addRemote(laptop, "team", url)
        let held = [("old", "\(url)&sslpassword=\(Self.password)"), ("older", "postgres://trees:\(Self.password)@db.example.org/team")]
        for (name, target) in held {
            let inserted = try Program.run(sqlite3, [laptop.database, "INSERT INTO remote (name, target) VALUES ('\(name)', '\(target)')"])
            #expect(inserted.status == 0, "\(inserted)")
        }
        let masked = ["\(url)&sslpassword=****", "postgres://trees:****@db.example.org/team", url]
        let json = try laptop.run(["remote", "list", "--json"])
        #expect(json.status == 0, "\(json)")
        let remotes = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(remotes.map { $0["target"] as? String } == masked)
        let table = try laptop.run(["remote", "list"])
        #expect(table.status == 0, "\(table)")
        #expect(masked.allSatisfy { table.stdout.contains($0) }, "\(table.stdout)")
        var outputs = [json, table]
        for (name, _) in held {
            for arguments in [["sync", name], ["server", "init", name]] {
                let r = try laptop.run(arguments, environment: ["PGPASSWORD": Self.password])
                #expect(r.status == 64, "\(r)")
                #expect(r.stdout == "")
                #expect(r.stderr == "trees: bad remote: \(Self.refusedPassword)\n")
                outputs.append(r)
            }
        }
        for r in outputs { #expect(!r.stdout.contains(Self.password) && !r.stderr.contains(Self.password), "\(r)") }
    }

    @Test func verifyFullRefusesACertificateForAnotherHostWhereRequireStillEncrypts() throws {
        let (server, url) = try Self.server(certificateNames: ["db.example.org"])
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        let env = ["PGPASSWORD": Self.password]
        try Self.addRemote(laptop, "team", url)
        try Self.addTree(laptop)
        let before = laptop.snapshot()
        for arguments in [["server", "init", "team"], ["sync", "team"]] {
            let r = try laptop.run(arguments, environment: env)
            Self.refusal(r, target: url, port: server.port, reason: "server certificate for \"db.example.org\" does not match host name \"localhost\"")
        }
        #expect(laptop.snapshot() == before)
        #expect(try server.psql("SELECT to_regclass('tree') IS NULL", database: "team") == "t")
        #expect(Self.treesConnections(server).isEmpty)

        // sslmode=require encrypts without checking whom the certificate names.
        let loose = "postgres://trees@localhost:\(server.port)/team?sslmode=require"
        try Self.addRemote(laptop, "loose", loose)
        let pushed = try Self.initAndSync(laptop, "loose", shown: loose, environment: env)
        #expect(pushed["trees"] as? Int == 2)
        let connections = Self.treesConnections(server)
        #expect(connections.count == 2, "\(connections)")
        #expect(Self.encrypted(connections), "\(connections)")
    }

    @Test func whatTheURLSetsWinsOverTreesOwnDefaults() throws {
        let (server, url) = try Self.server()
        let laptop = try Self.laptop()
        defer { laptop.cleanUp() }
        let named = url + "&application_name=north-crew&connect_timeout=20"
        try Self.addRemote(laptop, "team", named)
        let pushed = try Self.initAndSync(laptop, "team", shown: named, environment: ["PGPASSWORD": Self.password])
        #expect(pushed["trees"] as? Int == 1)
        #expect(Self.treesConnections(server).isEmpty)
        let connections = Self.treesConnections(server, name: "north-crew")
        #expect(connections.count == 2, "\(server.log)")
        #expect(Self.encrypted(connections))
    }
}
