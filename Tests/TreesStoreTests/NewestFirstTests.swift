import Foundation
import GRDB
import Testing
import TreesTestSupport
import TreesKit
@testable import TreesStore

/// Every tree, newest first, is read in the table's own order when the trees' rowids run with
/// their creation order or against it (`StoreReader.rowIDsFollowCreation`), and through the
/// creation index otherwise. Either way the trees come in the same order: creation time, then id,
/// both descending.
@Suite struct NewestFirstTests {
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777.125)

    /// 300 trees a second apart, stored in `order`: "rising" (oldest first, as a survey comes),
    /// "falling" (newest first, as our own JSON comes), "shuffled", "tied" (rising, but two trees
    /// share a creation time and the one with the larger id is stored first), "one" or "none".
    static func stored(_ order: String) -> [Tree] {
        var generator = SplitMix64(seed: 11)
        var trees = (0..<300).map { i in
            let at = t0 + Double(i)
            return Tree(id: UUID(), coordinate: Coordinate(latitude: 47 + Double(i) * 1e-5, longitude: 8), species: "Malus domestica",
                        createdAt: at, updatedAt: at)
        }
        switch order {
        case "falling": trees.reverse()
        case "shuffled": trees.shuffle(using: &generator)
        case "tied":
            trees[101].createdAt = trees[100].createdAt
            if trees[100].id.storageKey < trees[101].id.storageKey { trees.swapAt(100, 101) }
        case "one": trees = [trees[0]]
        case "none": trees = []
        default: break
        }
        return trees
    }

    @Test(arguments: [("rising", true), ("falling", false), ("shuffled", nil), ("tied", nil), ("one", true), ("none", true)])
    func everyTreeNewestFirstComesInCreationOrder(order: String, follows: Bool?) throws {
        let scratch = try TemporaryFolder("newest-first")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        let trees = Self.stored(order)
        try store.write { w in for t in trees { try w.insert(t) } }
        let newestFirst = trees.sorted { ($0.createdAt, $0.id.storageKey) > ($1.createdAt, $1.id.storageKey) }.map(\.id)

        #expect(try store.read { try $0.rowIDsFollowCreation() } == follows)
        let read = try store.read { r in
            var ids: [UUID] = []
            try r.forEachTree(TreeFilter()) { ids.append($0.id) }
            return ids
        }
        #expect(read == newestFirst)
        // With a limit, through the creation index: the same trees first.
        #expect(try store.read { try $0.trees(TreeFilter(), limit: 10) }.map(\.id) == Array(newestFirst.prefix(10)))
        // And what SQLite's own ordering says, in case the two sorts above agree and are both wrong.
        let bySQL = try store.queue.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM tree ORDER BY createdAt DESC, id DESC")
        }
        #expect(bySQL == newestFirst.map(\.storageKey))
    }
}
