import Foundation
import GRDB
import Testing
import TreesTestSupport
import TreesKit
@testable import TreesStore

/// A large import whose trees come out of time order drops the creation-time index and builds it
/// again, sorted, before the transaction commits (`BulkTreeWriter.considerDeferringIndex`). The
/// store it leaves is the one the index kept on the way would have left; rolled back, it is the
/// store as it was.
@Suite struct CreationIndexTests {
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777.125)
    static let indexSQL = #"CREATE INDEX "tree_createdAt_id" ON "tree"("createdAt", "id")"#
    /// More than the writer looks at before it decides, and as many as it drops the index for.
    static let count = BulkTreeWriter.deferIndexFrom + 1_000

    /// `count` trees whose creation times come in `order`: "increasing", "decreasing" (both at an
    /// edge of the index), "random", or "rows" (each row of 400 in time order, the rows interleaved).
    static func trees(_ order: String, count: Int = count, seed: UInt64 = 7) -> [Tree] {
        var generator = SplitMix64(seed: seed)
        var seconds = Array(0..<count)
        switch order {
        case "decreasing": seconds.reverse()
        case "random": seconds.shuffle(using: &generator)
        case "rows": seconds = seconds.map { ($0 % 400) * 1_000 + $0 / 400 }
        default: break
        }
        return seconds.enumerated().map { i, s in
            let at = t0 + Double(s)
            return Tree(coordinate: Coordinate(latitude: 47 + Double(i) * 1e-6, longitude: 8), species: "Malus domestica",
                        notes: "tree \(i)", createdAt: at, updatedAt: at)
        }
    }

    /// The index's statement, or nil when the store has none.
    static func indexStatement(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'tree_createdAt_id'")
    }

    @Test(arguments: ["random", "rows", "increasing", "decreasing"])
    func aLargeImportOutOfTimeOrderBuildsTheIndexOnceAtTheEnd(order: String) throws {
        let scratch = try TemporaryFolder("creation-index")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        let trees = Self.trees(order)
        var droppedOnTheWay = false
        try store.write(bulk: true) { w in
            let bulk = w.bulkTrees()
            bulk.expectedTrees = trees.count
            for t in trees { _ = try bulk.queueIfNew(t) }
            droppedOnTheWay = try Self.indexStatement(w.db) == nil
        }
        // Trees between the oldest and the newest so far land anywhere in the index; trees at its
        // edges do not, and the index is kept for them.
        #expect(droppedOnTheWay == (order == "random" || order == "rows"))
        try store.queue.read { (db: Database) throws in
            #expect(try Self.indexStatement(db) == Self.indexSQL)
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
            let byIndex = try String.fetchAll(db, sql: "SELECT id FROM tree INDEXED BY tree_createdAt_id ORDER BY createdAt, id")
            let expected = trees.sorted { ($0.createdAt, $0.id.storageKey) < ($1.createdAt, $1.id.storageKey) }.map(\.id.storageKey)
            #expect(byIndex == expected)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM treeVersion") == trees.count)
        }
    }

    /// A transaction that fails after the index was dropped leaves the store exactly as it was:
    /// its trees, its version rows and the index.
    @Test func aFailedImportLeavesTheIndexAsItWas() throws {
        let scratch = try TemporaryFolder("creation-index")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        try store.write { w in
            for t in Self.trees("random", count: 3, seed: 1) { try w.insert(t) }
        }
        let before = try RowMappingTests.wholeDump(store)
        struct Refused: Error {}
        var droppedOnTheWay = false
        #expect(throws: Refused.self) {
            try store.write(bulk: true) { w in
                let bulk = w.bulkTrees()
                bulk.expectedTrees = Self.count
                for t in Self.trees("random") { _ = try bulk.queueIfNew(t) }
                _ = try bulk.storeQueue()
                droppedOnTheWay = try Self.indexStatement(w.db) == nil
                throw Refused()
            }
        }
        #expect(droppedOnTheWay)
        #expect(try RowMappingTests.wholeDump(store) == before)
        try store.queue.read { (db: Database) throws in
            #expect(try Self.indexStatement(db) == Self.indexSQL)
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"])
        }
    }

    /// Into a store of many trees, rebuilding the whole index would cost more than it saves: it is
    /// kept, and a file of few trees never drops it.
    @Test(arguments: [(BulkTreeWriter.deferIndexUpTo + 1, count), (0, BulkTreeWriter.deferIndexFrom - 1)] as [(Int64, Int)])
    func theIndexIsKeptForALargeStoreOrASmallImport(stored: Int64, importing: Int) throws {
        let scratch = try TemporaryFolder("creation-index")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        if stored > 0 {
            try store.write(bulk: true) { w in
                let bulk = w.bulkTrees()
                for t in Self.trees("increasing", count: Int(stored), seed: 2) { _ = try bulk.queueIfNew(t) }
            }
        }
        var droppedOnTheWay = true
        try store.write(bulk: true) { w in
            let bulk = w.bulkTrees()
            bulk.expectedTrees = importing
            for t in Self.trees("random", count: importing, seed: 3) { _ = try bulk.queueIfNew(t) }
            droppedOnTheWay = try Self.indexStatement(w.db) == nil
        }
        #expect(!droppedOnTheWay)
        try store.queue.read { (db: Database) throws in
            #expect(try Self.indexStatement(db) == Self.indexSQL)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM tree") == Int(stored) + importing)
        }
    }
}
