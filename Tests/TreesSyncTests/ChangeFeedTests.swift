import Foundation
import Testing
@testable import TreesSync
import TreesKit
@testable import TreesStore
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

    /// A care log and a list of deletions longer than a page go up page by page (one COPY and one
    /// merge a page): every event and every deletion reaches the server and the other laptop, a
    /// deleted tree takes its events along and keeps its last values in the history, and a page
    /// sent twice changes nothing.
    @Test func careEventsAndDeletionsLongerThanAPageGoPageByPage() throws {
        _ = try Tool.postgres.require()
        let server = try PostgresServer()
        let url = try server.createDatabase("pages")
        let folder = try TemporaryFolder("trees-feed")
        let a = try Self.store(folder, "a", url: url), b = try Self.store(folder, "b", url: url)
        _ = try Synchronizer.initServer(RemoteTarget(parsing: url))
        let trees = try (0..<6).map { i in try Self.addTree(a, species: "Apple \(i)") }
        let block = try a.write { w in try w.createCollection(named: "Block 1") }
        _ = try a.write { w in try w.assign(Array(trees[0..<3]), to: block.id) }
        let start = Date(timeIntervalSince1970: 1_780_000_000)
        let water = try CareKind("water"), harvest = try CareKind("harvest")
        var events: [CareEvent] = []
        for (i, tree) in trees.enumerated() {
            for k in 0..<3 {
                let quantity = CareQuantity(value: 12.5 + Double(k), unit: k == 2 ? "kg" : "L")
                events.append(CareEvent(treeID: tree, kind: k == 2 ? harvest : water, date: start.addingTimeInterval(Double(86_400 * k)),
                                        notes: "row \(i)\tcheck\nthe \\ drip", quantity: quantity, who: "crew \(i)", createdAt: start))
            }
        }
        _ = try a.write { w in try w.insert(careEvents: events) }

        func careLog(_ store: TreeStore) throws -> [String] {
            try store.queue.read { db in
                try String.fetchAll(db, sql: """
                    SELECT id || '|' || treeId || '|' || kind || '|' || date || '|' || notes || '|' || quantity || '|' || unit || '|' || who FROM careEvent ORDER BY id
                    """)
            }
        }
        let up = try Synchronizer(pageSize: 4).sync(a, remote: "office")
        #expect(up.pushed.careEvents == 18 && up.pushed.trees == 6)
        #expect(try server.psql("SELECT count(*) FROM care_event", database: "pages") == "18")
        #expect(try server.psql("SELECT notes FROM care_event ORDER BY notes LIMIT 1", database: "pages") == "row 0\tcheck\nthe \\ drip")
        let down = try Synchronizer(pageSize: 5).sync(b, remote: "office")
        #expect(down.pulled.careEvents == 18)
        #expect(try careLog(b) == careLog(a) && careLog(a).count == 18)

        // A page sent again (a push cut before the store recorded it) adds no event and no change.
        let changes = try server.psql("SELECT count(*) FROM change", database: "pages")
        let page = try a.read { r in try r.changedCareEvents(after: 0, resuming: nil, through: try r.syncState().seq, limit: 4) }.map(\.row)
        let again = try PostgresConnection(target: RemoteTarget(parsing: url))
        let device = try a.read { try $0.syncState().deviceId }
        try again.transaction { () throws(SyncError) in try ServerWriter.pushCareEvents(page, device: device, again) }
        #expect(page.count == 4)
        #expect(try server.psql("SELECT count(*) FROM change", database: "pages") == changes)

        // Three trees, one event of another and the collection deleted on a: more deletions than a page.
        let pushedSeq = try #require(try a.read { try $0.remote(named: "office") }).pushedSeq
        _ = try a.write { w in try w.deleteTrees(Array(trees[0..<3])) }
        let lone = try #require(events.first { $0.treeID == trees[3] })
        _ = try a.write { w in try w.deleteCareEvent(lone.id) }
        _ = try a.write { w in try w.deleteCollection(named: "Block 1") }
        let deletions = try a.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM tombstone WHERE seq > ?", arguments: [pushedSeq]) ?? 0 }
        #expect(deletions >= 5)
        let gone = try Synchronizer(pageSize: 2).sync(a, remote: "office")
        #expect(gone.pushed.deletions == deletions)
        #expect(Set(gone.conflicts.filter { $0.reason == "deleted" }.map(\.treeId)) == Set(trees[0..<3].map(\.uuidString).map { $0.lowercased() }))
        #expect(try server.psql("SELECT count(*) FROM care_event", database: "pages") == "8")
        #expect(try server.psql("SELECT count(*) FROM tree WHERE deleted_version IS NOT NULL", database: "pages") == "3")
        #expect(try server.psql("SELECT count(*) FROM collection", database: "pages") == "0")
        let after = try Synchronizer(pageSize: 3).sync(b, remote: "office")
        #expect(after.pulled.deletions == deletions)
        #expect(try careLog(b) == careLog(a) && careLog(a).count == 8)
        #expect(try b.read { try $0.collections() }.isEmpty)
        #expect(try b.read { try $0.tree(id: trees[0]) } == nil && b.read { try $0.tree(id: trees[3]) } != nil)
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
