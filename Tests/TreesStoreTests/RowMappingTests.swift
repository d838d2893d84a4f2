import Foundation
import GRDB
import Testing
import TreesTestSupport
import TreesKit
@testable import TreesStore

/// The tree row mapping: the single insert (through GRDB) and the bulk insert (prepared statements
/// of imports) store identical rows, and both read back as the tree that went in.
@Suite struct RowMappingTests {
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777.125)

    /// Trees that fill every column, leave every optional one empty, and sit at the edges of what
    /// a column holds (years 0000 and 9999, negative zero, poles, the antimeridian, text with quotes
    /// and control characters, non-ASCII names).
    static func trees(collection: UUID) -> [Tree] {
        let full = Tree(
            id: UUID(uuidString: "0F0E0D0C-0B0A-4908-8706-050403020100")!,
            coordinate: Coordinate(latitude: 50.123456789, longitude: -8.000000001), horizontalAccuracy: 3.25,
            accuracySource: .gst, altitude: 123.5, ellipsoidHeight: 171.25, species: "Malus domestica",
            variety: "Cox's \"Orange\" Pippin", rootstock: "M9", notes: "north side\nline two\ttab", collectionID: collection,
            createdAt: t0, updatedAt: t0 + 60.5,
            capture: CaptureInfo(fixTime: t0 - 1, fixMode: .threeD, satellites: 11, hdop: 0.8, averagedEpochs: 10,
                                 locationSource: "gpsd://localhost:2947", fixStatus: .rtkFixed, correctionAge: 0.6,
                                 verticalAccuracy: 0.031, verticalAccuracySource: .gst, antennaHeight: 2.0))
        let bare = Tree(id: UUID(), coordinate: Coordinate(latitude: -90, longitude: 180), species: "Ölbaum 橄榄",
                        createdAt: Date(timeIntervalSince1970: -62_167_219_200), updatedAt: Date(timeIntervalSince1970: 253_402_300_799.999))
        let zero = Tree(id: UUID(), coordinate: Coordinate(latitude: -0.0, longitude: -180), horizontalAccuracy: 0,
                        altitude: -0.0, species: "x", variety: "", notes: "", createdAt: t0, updatedAt: t0,
                        capture: CaptureInfo(fixMode: .noFix, satellites: 0, hdop: 99.99, averagedEpochs: 1, fixStatus: .unknown,
                                             correctionAge: 0, verticalAccuracy: 0, antennaHeight: 0))
        return [full, bare, zero]
    }

    static func dump(_ store: TreeStore) throws -> [[String]] {
        try store.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Tree.storageColumnList) FROM tree ORDER BY id").map { row in
                row.databaseValues.map { value in
                    switch value.storage {
                    case .null: "NULL"
                    case .int64(let i): "int \(i)"
                    case .double(let d): "real \(d.bitPattern)"
                    case .string(let s): "text \(s)"
                    case .blob(let b): "blob \(b.base64EncodedString())"
                    }
                }
            }
        }
    }

    @Test func bulkAndSingleInsertsStoreIdenticalRows() throws {
        let scratch = try TemporaryFolder("rows")
        let folder = scratch.path
        let collection = UUID()
        let trees = Self.trees(collection: collection)
        var dumps: [[[String]]] = []
        for way in ["single", "bulk insert", "bulk upsert", "bulk insertIfNew", "bulk queueIfNew"] {
            let store = try TreeStore(path: "\(folder)/\(way)/trees.sqlite", clock: .fixed(Self.t0))
            try store.write { w in
                try w.insert(TreeCollection(id: collection, name: "North", createdAt: Self.t0, updatedAt: Self.t0))
                let bulk = w.bulkTrees()
                for t in trees {
                    switch way {
                    case "single": try w.insert(t)
                    case "bulk insert": try bulk.insert(t)
                    case "bulk upsert": try bulk.upsert(t)
                    case "bulk insertIfNew": #expect(try bulk.insertIfNew(t))
                    default: #expect(try bulk.queueIfNew(t).isEmpty)
                    }
                }
                if way == "bulk queueIfNew" { #expect(try bulk.storeQueue() == [true, true, true]) }
            }
            dumps.append(try Self.dump(store))
            // Every way reads back as the trees that went in, to the millisecond.
            let back = try store.trees().sorted { $0.id.uuidString < $1.id.uuidString }
            #expect(back == trees.map(Self.normalised).sorted { $0.id.uuidString < $1.id.uuidString })
        }
        #expect(dumps[0].count == trees.count)
        for d in dumps.dropFirst() { #expect(d == dumps[0]) }
        // The stored form: lower-case ids, UTC dates to the millisecond, fix mode as its number.
        let full = try #require(dumps[0].first { $0[0] == "text 0f0e0d0c-0b0a-4908-8706-050403020100" })
        #expect(full[12] == "text 2026-05-03 03:09:37.125")
        #expect(full[13] == "text 2026-05-03 03:10:37.625")
        #expect(full[15] == "int 3")
        #expect(Array(full[20...]) == ["text rtk-fixed", "real \(0.6.bitPattern)", "real \(0.031.bitPattern)", "text gst", "real \(2.0.bitPattern)"])
    }

    /// A statement's parameters keep what was bound to them until they are bound again, and the
    /// bulk writer binds an empty column only where an earlier tree may have left a value: trees
    /// with every column filled and with none, taking turns at each place of the statement of
    /// many trees and at the statement of one, are each stored as they are.
    @Test func filledAndEmptyTreesTakingTurnsAreStoredAsTheyAre() throws {
        let scratch = try TemporaryFolder("rows-turns")
        let collection = UUID()
        let model = Self.trees(collection: collection)
        let n = BulkTreeWriter.chunkSize
        // Filled at the even places of the first chunk, the odd ones of the second, and so on;
        // then five trees one at a time, filled and empty in turn.
        let trees = (0..<(n * 3 + 5)).map { i in
            var t = (i / n + i) % 2 == 0 ? model[0] : model[1]
            t.id = UUID()
            t.coordinate = Coordinate(latitude: 10 + Double(i) * 1e-3, longitude: t.coordinate.longitude)
            return t
        }
        let store = try TreeStore(path: scratch.path + "/trees.sqlite", clock: .fixed(Self.t0))
        try store.write(bulk: true) { w in
            try w.insert(TreeCollection(id: collection, name: "North", createdAt: Self.t0, updatedAt: Self.t0))
            let bulk = w.bulkTrees()
            for (i, t) in trees.prefix(n * 3).enumerated() {
                #expect(try bulk.queueIfNew(t) == ((i + 1) % n == 0 ? Array(repeating: true, count: n) : []))
            }
            #expect(try bulk.storeQueue() == [])
            for t in trees.dropFirst(n * 3) { #expect(try bulk.insertIfNew(t)) }
        }
        let back = try store.trees()
        #expect(back.count == trees.count)
        for t in trees.map(Self.normalised) { #expect(back.first { $0.id == t.id } == t) }
        // Both kinds really took turns: the dump has filled and empty variety columns in each chunk.
        let varieties = try store.queue.read { db in
            try String?.fetchAll(db, sql: "SELECT variety FROM tree ORDER BY latitude")
        }
        #expect(varieties.count == trees.count)
        for chunk in 0..<3 {
            let slice = varieties[(chunk * n)..<((chunk + 1) * n)]
            #expect(slice.filter { $0 == nil }.count == n / 2 && slice.filter { $0 != nil }.count == n / 2)
        }
    }

    /// A change or fix time with the very text of the creation time is read back as that time
    /// without being read again; one a millisecond apart, or in another form of the same moment,
    /// as its own.
    @Test func timesEqualToTheCreationTimeReadBackAsThemselves() throws {
        let scratch = try TemporaryFolder("same-times")
        let store = try TreeStore(path: scratch.path + "/trees.sqlite", clock: .fixed(Self.t0))
        func tree(updated: Date, fix: Date?) -> Tree {
            Tree(coordinate: Coordinate(latitude: 47.3, longitude: 8.5), species: "Malus domestica", createdAt: Self.t0,
                 updatedAt: updated, capture: CaptureInfo(fixTime: fix))
        }
        let trees = [tree(updated: Self.t0, fix: Self.t0), tree(updated: Self.t0 + 0.001, fix: Self.t0 - 0.001),
                     tree(updated: Self.t0, fix: nil), tree(updated: Self.t0 + 86_400, fix: Self.t0 + 0.25)]
        try store.write { w in for t in trees { try w.insert(t) } }
        let back = try store.trees()
        for t in trees.map(Self.normalised) {
            let read = try #require(back.first { $0.id == t.id })
            #expect(read == t)
        }
        // The same moment written without its milliseconds: another text, the same time.
        let other = trees[2].id
        try store.queue.write { db in
            try db.execute(sql: "UPDATE tree SET fixTime = '2026-05-03 03:09:37.125', updatedAt = '2026-05-03 03:09:38' WHERE id = ?",
                           arguments: [other.storageKey])
        }
        let changed = try #require(try store.trees().first { $0.id == other })
        #expect(changed.capture.fixTime == Self.t0 && changed.updatedAt == Date(timeIntervalSince1970: 1_777_777_778))
    }

    /// Texts repeated from one row to the next are handed back from the row before only when
    /// their bytes are the same: a species, variety, rootstock and source that repeat, change,
    /// change only in case or length, or go to NULL and back read back as stored, row after row.
    @Test func textsRepeatedFromRowToRowReadBackAsStored() throws {
        let scratch = try TemporaryFolder("repeated-texts")
        let store = try TreeStore(path: scratch.path + "/trees.sqlite", clock: .fixed(Self.t0))
        let species = ["Malus domestica", "Malus domestica", "malus domestica", "Malus domestica 'Boskoop' on M9, row 4",
                       "Malus domestica 'Boskoop' on M9, row 4", "Malus domestica 'Boskoop' on M9, row 5", "Pyrus", "Pyrus", "Pyrus c"]
        let varieties: [String?] = ["Boskoop", "Boskoop", nil, nil, "Boskoop", "", "", "Gala", "Boskoop"]
        let rootstocks: [String?] = [nil, "M9", "M9", "M26", nil, "M9", "M9", "Ⅿ9", "M9"]
        let sources: [String?] = ["gpsd", "gpsd", "gpsd", nil, "replay", "replay", "gpsd", nil, nil]
        // One second apart: newest first, the rows come in this order reversed.
        let trees = species.indices.map { i in
            Tree(coordinate: Coordinate(latitude: 47.3, longitude: 8.5), species: species[i], variety: varieties[i],
                 rootstock: rootstocks[i], createdAt: Self.t0 + Double(i), capture: CaptureInfo(locationSource: sources[i]))
        }
        try store.write { w in for t in trees { try w.insert(t) } }
        let back = try store.trees()
        #expect(back.map(\.id) == trees.reversed().map(\.id))
        for (read, t) in zip(back, trees.reversed()) {
            #expect(read.species == t.species && read.variety == t.variety && read.rootstock == t.rootstock)
            #expect(read.capture.locationSource == t.capture.locationSource)
        }
    }

    /// Queued inserts, many trees a statement, store what inserting the same trees one by one
    /// stores, in every table (the sync versions included, and a version row left behind without
    /// its tree), and say the same of each tree: whole chunks of new trees, of stored ones, chunks
    /// of both, an id twice in one chunk, and a short last chunk; ids in the order of a file trees
    /// exported (decreasing), increasing, and in no order; version rows sorted in memory (a small
    /// import's) and read in the id index's order (a large one's); with the store's triggers
    /// switched off by the writer, and left on beside a trigger of another program.
    @Test(arguments: ["decreasing", "increasing", "random"])
    func queuedInsertsStoreWhatOneByOneInsertsStore(ids order: String) throws {
        let scratch = try TemporaryFolder("rows")
        let n = BulkTreeWriter.chunkSize
        let count = 4 * n + 5
        let collection = UUID()
        func id(_ i: Int) -> UUID {
            switch order {
            case "decreasing": UUID(uuidString: String(format: "01A20FF5-16AA-7724-A1D7-%012d", count - i))!
            case "increasing": UUID(uuidString: String(format: "01A20FF5-16AA-7724-A1D7-%012d", i))!
            default: UUID()
            }
        }
        var trees: [Tree] = []
        for i in 0..<count {
            let at = Self.t0 + Double(i)
            let latitude = 47 + Double(i) * 1e-5
            // Notes long enough to fill more than one block of bound text in a chunk, and one longer than a block's quarter.
            let notes = i % 2 == 0 ? String(repeating: "tree \(i) ", count: i == 14 ? 3_000 : 600) : "tree \(i)"
            trees.append(Tree(id: id(i), coordinate: Coordinate(latitude: latitude, longitude: 8), horizontalAccuracy: 2,
                              species: i % 3 == 0 ? "Pyrus communis" : "Malus domestica", notes: notes,
                              collectionID: i % 2 == 0 ? collection : nil, createdAt: at, updatedAt: at))
        }
        // The fourth chunk holds one id twice: the first is inserted, the second is not.
        trees[3 * n + 9].id = trees[3 * n + 2].id
        // Stored before: three trees of the second chunk, the whole third chunk, one of the last five.
        let stored = [n + 1, n + 7, 2 * n - 1] + Array((2 * n)..<(3 * n)) + [4 * n + 2]
        var dumps: [String] = []
        var outcomes: [[Bool]] = []
        for way in ["one by one", "queued", "queued, versions in id index order", "queued, beside another program's trigger"] {
            let store = try TreeStore(path: "\(scratch.path)/\(way)/trees.sqlite", clock: .fixed(Self.t0))
            try store.write { w in
                try w.insert(TreeCollection(id: collection, name: "North", createdAt: Self.t0, updatedAt: Self.t0))
                for i in stored { try w.insert(trees[i]) }
            }
            // Version rows of trees deleted while a sync applied what it pulled (no tombstone):
            // the trigger keeps them as they are, and so must the queued inserts.
            try store.queue.write { db in
                for i in [5, 3 * n + 20] {
                    try db.execute(sql: "INSERT INTO treeVersion (treeId, seq, version, device) VALUES (?, 0, 7, 'elsewhere')",
                                   arguments: [trees[i].id.storageKey])
                }
                // A trigger the bulk writer does not know keeps the store's triggers on: the sync
                // trigger writes the version rows, one by one.
                if way.hasSuffix("trigger") {
                    try db.execute(sql: "CREATE TRIGGER other_program AFTER INSERT ON tree BEGIN UPDATE syncState SET seq = seq WHERE 0; END")
                }
            }
            let said = try store.write(bulk: true) { w in
                let bulk = w.bulkTrees()
                let queued = way.hasPrefix("queued")
                // Version rows sorted in memory, or read through the id index as a large import's are.
                if way.hasSuffix("order") { bulk.versionsSortedAtMost = 0 }
                var said: [Bool] = []
                for t in trees {
                    if queued { said += try bulk.queueIfNew(t) } else { said.append(try bulk.insertIfNew(t)) }
                }
                if queued {
                    #expect(bulk.queuedCount == 5)
                    #expect(bulk.writesVersionsItself == !way.hasSuffix("trigger"))
                    said += try bulk.storeQueue()
                    #expect(bulk.queuedCount == 0)
                }
                return said
            }
            outcomes.append(said)
            dumps.append(try Self.wholeDump(store))
        }
        #expect(outcomes[0] == outcomes[1] && outcomes[1] == outcomes[2] && outcomes[2] == outcomes[3])
        #expect(outcomes[0].count(where: { $0 }) == trees.count - stored.count - 1)
        #expect(dumps[0].contains("treeVersion: "))
        #expect(dumps[0].contains("7 | \"elsewhere\""))
        #expect(dumps[0] == dumps[1])
        #expect(dumps[1] == dumps[2])
        #expect(dumps[2] == dumps[3])
    }

    /// Trees still queued when the transaction's body returns are stored before it commits, with
    /// their version rows, and the sync trigger is back.
    @Test func theTransactionStoresWhatIsStillQueued() throws {
        let scratch = try TemporaryFolder("rows")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        let count = BulkTreeWriter.chunkSize + 3
        try store.write(bulk: true) { w in
            let bulk = w.bulkTrees()
            for i in 0..<count {
                let at = Self.t0 + Double(i)
                _ = try bulk.queueIfNew(Tree(coordinate: Coordinate(latitude: 47, longitude: 8 + Double(i) * 1e-5), species: "Prunus avium",
                                             createdAt: at, updatedAt: at))
            }
            #expect(bulk.queuedCount == 3)
        }
        let counts = try store.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT (SELECT count(*) FROM tree), (SELECT count(*) FROM treeVersion), applying FROM syncState")
        }
        #expect(counts.map { [$0[0], $0[1], $0[2]] as [Int] } == [count, count, 0])
    }

    /// A store as the migrations leave it has only the triggers on trees the bulk writer stands in
    /// for: its trees' version rows are written sorted after them, not by a trigger per tree (which
    /// doubles the time of a million trees with ids made at random).
    @Test func theBulkWriterStandsInForTheTriggersOfANewStore() throws {
        let scratch = try TemporaryFolder("rows")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        var standsIn = false
        try store.write(bulk: true) { w in
            let bulk = w.bulkTrees()
            for i in 0..<(BulkTreeWriter.chunkSize + 5) {
                _ = try bulk.queueIfNew(Tree(coordinate: Coordinate(latitude: 47, longitude: 8 + Double(i) * 1e-5), species: "Prunus avium",
                                             createdAt: Self.t0, updatedAt: Self.t0))
            }
            standsIn = bulk.writesVersionsItself
        }
        #expect(standsIn)
        let versions = try store.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM treeVersion") }
        #expect(versions == BulkTreeWriter.chunkSize + 5)
    }

    /// A transaction that fails while the bulk writer has the connection's triggers off leaves
    /// nothing behind, and the next write on the same connection fires the sync trigger again.
    @Test func triggersAreBackAfterAFailedBulkTransaction() throws {
        let scratch = try TemporaryFolder("rows")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        func tree(_ i: Int, latitude: Double = 47) -> Tree {
            Tree(coordinate: Coordinate(latitude: latitude, longitude: 8 + Double(i) * 1e-5), species: "Prunus avium",
                 createdAt: Self.t0, updatedAt: Self.t0)
        }
        #expect(throws: StoreError.self) {
            try store.write(bulk: true) { w in
                let bulk = w.bulkTrees()
                for i in 0..<(BulkTreeWriter.chunkSize + 5) { _ = try bulk.queueIfNew(tree(i)) }
                _ = try bulk.queueIfNew(tree(99, latitude: 91))
            }
        }
        try store.write { w in try w.insert(tree(100)) }
        let counts = try store.queue.read { db in
            try Row.fetchOne(db, sql: "SELECT (SELECT count(*) FROM tree), (SELECT count(*) FROM treeVersion)")
        }
        #expect(counts.map { [$0[0], $0[1]] as [Int] } == [1, 1])
    }

    /// A bulk write checks foreign keys when it commits, not after each statement: a tree naming a
    /// collection the store does not hold, among many that are sound, refuses the whole write and
    /// leaves the store as it was, whether it was queued or inserted alone.
    @Test(arguments: [true, false])
    func aTreeInNoStoredCollectionRefusesTheWholeBulkWrite(queued: Bool) throws {
        let scratch = try TemporaryFolder("rows")
        let store = try TreeStore(path: "\(scratch.path)/trees.sqlite", clock: .fixed(Self.t0))
        let before = try Self.wholeDump(store)
        let error = #expect(throws: StoreError.self) {
            try store.write(bulk: true) { w in
                let bulk = w.bulkTrees()
                for i in 0..<(BulkTreeWriter.chunkSize * 2 + 3) {
                    let t = Tree(coordinate: Coordinate(latitude: 47, longitude: 8 + Double(i) * 1e-5), species: "Prunus avium",
                                 collectionID: i == 40 ? UUID() : nil, createdAt: Self.t0, updatedAt: Self.t0)
                    if queued { _ = try bulk.queueIfNew(t) } else { _ = try bulk.insertIfNew(t) }
                }
            }
        }
        #expect("\(String(describing: error))".contains("FOREIGN KEY"))
        #expect(try Self.wholeDump(store) == before)
    }

    /// Every row of every table, rowid tables in rowid order; the store's random device id replaced.
    static func wholeDump(_ store: TreeStore) throws -> String {
        try store.queue.read { db in
            let device = try String.fetchOne(db, sql: "SELECT deviceId FROM syncState") ?? ""
            var lines: [String] = []
            for table in try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
                let name: String = table[0], sql: String = table[1]
                let select = sql.uppercased().contains("WITHOUT ROWID") ? "SELECT * FROM \"\(name)\"" : "SELECT rowid, * FROM \"\(name)\" ORDER BY rowid"
                for row in try Row.fetchAll(db, sql: select) {
                    lines.append(name + ": " + row.databaseValues.map(\.description).joined(separator: " | "))
                }
            }
            return lines.joined(separator: "\n").replacingOccurrences(of: device, with: "DEVICE")
        }
    }

    @Test func everyColumnOfTheTableIsMapped() throws {
        let scratch = try TemporaryFolder("rows")
        let folder = scratch.path
        let store = try TreeStore(path: "\(folder)/trees.sqlite", clock: .fixed(Self.t0))
        let columns = try store.queue.read { db in try db.columns(in: "tree").map(\.name) }
        #expect(columns == TreeColumn.allCases.map(\.name))
        #expect(Tree.columnKinds.count == columns.count)
    }

    /// What the store keeps of a tree: dates rounded to the millisecond.
    static func normalised(_ t: Tree) -> Tree {
        var t = t
        t.createdAt = StoredDate.normalised(t.createdAt)
        t.updatedAt = StoredDate.normalised(t.updatedAt)
        t.capture.fixTime = t.capture.fixTime.map(StoredDate.normalised)
        return t
    }
}
