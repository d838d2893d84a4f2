import Foundation
import Testing
@testable import TreesSync
import TreesKit
import TreesStore
import TreesTestSupport

/// The change feed against a real PostgreSQL: a push that commits after a later-numbered one is
/// never skipped by a pull that ran in between.
@Suite(.tags(.postgres), .enabled(if: Tool.postgres.shouldRun), .serialized)
struct ChangeFeedTests {
    static func store(_ folder: TemporaryFolder, _ name: String, url: String) throws -> TreeStore {
        let store = try TreeStore(path: folder.path(name + ".sqlite"))
        try store.write { try $0.addRemote(name: "office", target: url) }
        return store
    }

    static func addTree(_ store: TreeStore, species: String) throws -> UUID {
        try store.write { w in
            let tree = Tree(coordinate: Coordinate(latitude: 51.5, longitude: -0.1), species: species, createdAt: w.now)
            try w.insert(tree)
            return tree.id
        }
    }

    @Test func aPushCommittedOutOfOrderIsPulledLater() throws {
        _ = try Tool.postgres.require()
        let server = try PostgresServer()
        let url = try server.createDatabase("feed")
        let folder = try TemporaryFolder("trees-feed")
        let a = try Self.store(folder, "a", url: url), b = try Self.store(folder, "b", url: url), c = try Self.store(folder, "c", url: url)
        _ = try Synchronizer.initServer(RemoteTarget(parsing: url))
        let x = try Self.addTree(a, species: "Apple")
        let y = try Self.addTree(c, species: "Cherry")

        // Laptop a's push takes its transaction id first and stays open…
        let slow = try PostgresConnection(target: RemoteTarget(parsing: url))
        let rows = try a.read { r in try r.changedTrees(after: 0, resuming: nil, through: try r.syncState().seq, limit: 10) }.map(\.row)
        let device = try a.read { try $0.syncState().deviceId }
        try slow.execute("BEGIN")
        _ = try ServerWriter.pushTrees(rows, device: device, slow)
        // …while laptop c pushes and commits a later transaction, and laptop b pulls.
        _ = try Synchronizer().sync(c, remote: "office")
        let early = try Synchronizer().sync(b, remote: "office")
        #expect(early.pulled.trees == 0, "nothing may be pulled past a transaction still running")
        #expect(try b.read { try $0.tree(id: y) } == nil)
        try slow.execute("COMMIT")

        let late = try Synchronizer().sync(b, remote: "office")
        #expect(late.pulled.trees == 2)
        #expect(try b.read { try $0.tree(id: x) }?.species == "Apple")
        #expect(try b.read { try $0.tree(id: y) }?.species == "Cherry")
        #expect(try server.psql("SELECT count(*) FROM change", database: "feed") == "2")
    }

    @Test func pagesFollowTransactionIdsAcrossAPowerOfTen() throws {
        _ = try Tool.postgres.require()
        let server = try PostgresServer()
        let url = try server.createDatabase("digits")
        let folder = try TemporaryFolder("trees-feed")
        let a = try Self.store(folder, "a", url: url), b = try Self.store(folder, "b", url: url)
        _ = try Synchronizer.initServer(RemoteTarget(parsing: url))
        let first = try Self.addTree(a, species: "Apple")
        _ = try Synchronizer().sync(a, remote: "office")
        // Spend transaction ids until the next push's id has one digit more than the first one's.
        let before = try server.psql("SELECT max(xid)::text FROM change", database: "digits")
        let target = Int(pow(10.0, Double(before.count)))
        let current = Int(try server.psql("SELECT pg_current_xact_id()::text")) ?? 0
        let burn = (0..<max(0, target - current + 1)).map { _ in "SELECT pg_current_xact_id();" }.joined(separator: "\n")
        try Data(burn.utf8).write(to: folder.url("burn.sql"))
        let burnt = try Program.run("/usr/bin/psql", ["-X", "-q", "-d", server.url(), "-f", folder.path("burn.sql")])
        #expect(burnt.status == 0)
        let second = try Self.addTree(a, species: "Birch")
        _ = try Synchronizer().sync(a, remote: "office")
        let after = try server.psql("SELECT max(xid)::text FROM change", database: "digits")
        #expect(after.count == before.count + 1, "\(before) → \(after)")
        // One change a page: the second page must come after the first in transaction order, not in text order.
        let report = try Synchronizer(pageSize: 1).sync(b, remote: "office")
        #expect(report.pulled.trees == 2)
        #expect(try b.read { try $0.tree(id: first) } != nil)
        #expect(try b.read { try $0.tree(id: second) } != nil)
    }

    @Test func aURLWithAPasswordIsRefusedAndAServiceNameIsKept() throws {
        #expect(throws: SyncError.self) { try RemoteTarget(parsing: "postgres://crew:secret@db.example.org/trees") }
        #expect(throws: SyncError.self) { try RemoteTarget(parsing: "postgresql://crew@db.example.org/trees?password=secret") }
        #expect(throws: SyncError.self) { try RemoteTarget(parsing: "host=db password=x") }
        // A client key's passphrase is a password too; no message repeats what was typed.
        let carries = SyncError.badRemote("the URL carries a password; remove it and give it through PGPASSWORD, ~/.pgpass or a service file")
        #expect(throws: carries) { try RemoteTarget(parsing: "postgres://crew@db.example.org/trees?sslmode=verify-full&sslpassword=secret") }
        #expect(throws: carries) { try RemoteTarget(parsing: "postgres://crew@db.example.org/trees?PassWord=secret") }
        #expect(throws: SyncError.badRemote("the URL is malformed")) { try RemoteTarget(parsing: "postgres://db example.org/trees?password=secret") }
        #expect(throws: SyncError.badRemote("key=value connection strings are not taken; give a postgres:// URL (no password) or a service name")) {
            try RemoteTarget(parsing: "host=db password=secret")
        }
        #expect(throws: SyncError.badRemote("the remote is neither a postgres:// URL nor a service name (letters, digits, '_', '.', '-')")) {
            try RemoteTarget(parsing: "crew:secret@db.example.org/trees")
        }
        #expect(try RemoteTarget(parsing: "orchard-office") == .service("orchard-office"))
        let url = "postgres://crew@db.example.org:5433/trees?sslmode=verify-full"
        #expect(try RemoteTarget(parsing: url) == .url(url))
        #expect(try RemoteTarget(stored: RemoteTarget(parsing: "orchard-office").stored) == .service("orchard-office"))
    }

    @Test func copyRowsEscapeWhatCOPYTextFormatReads() {
        var rows = CopyRows()
        rows.append(["a\tb", nil, "back\\slash\nnew\rline", "\\N"])
        #expect(rows.pendingText == "a\\tb\t\\N\tback\\\\slash\\nnew\\rline\t\\\\N\n")
    }
}
