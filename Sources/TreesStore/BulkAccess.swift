import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite
import TreesKit

// Storing many trees (imports) through prepared statements, and decoding tree rows by column
// position (every read of trees). They store and read exactly what `insert(_:)` does: ids as
// lower-case text, dates as UTC `yyyy-MM-dd HH:mm:ss.SSS` text, rounded to the millisecond.

extension StoreWriter {
    /// The page cache of an import of a large file, in MiB (see `ImportWorkflow`): enough for the
    /// edges of every index, and for much of the id index of trees with ids made at random,
    /// within the 50 MB an import keeps under.
    public static let largeImportCacheMegabytes = 12

    /// Gives this connection a larger page cache for a bulk import, so the indexes of a large
    /// table are not spilled to disk mid-transaction. Costs up to `megabytes` of memory.
    public func reserveBulkCache(megabytes: Int) throws {
        try db.execute(sql: "PRAGMA cache_size = -\(max(1, megabytes) * 1024)")
    }

    /// Prepared statements for storing many trees in this transaction (an import). What it has
    /// queued is stored before the transaction commits, should the caller not have.
    public func bulkTrees() -> BulkTreeWriter {
        let writer = BulkTreeWriter(db: db, isDirect: isDirect)
        end.add(before: {
            _ = try writer.storeQueue()
            try writer.buildDeferredIndex()
        }, always: { writer.restoreTriggers() })
        return writer
    }
}

/// Work left for the end of a transaction: what must be written before it commits, and what
/// must be undone on the connection however it ends.
final class TransactionEnd {
    private var steps: [() throws -> Void] = []
    private var cleanups: [() -> Void] = []

    func add(before step: @escaping () throws -> Void, always cleanup: @escaping () -> Void) {
        steps.append(step)
        cleanups.append(cleanup)
    }

    /// The steps before the commit.
    func run() throws {
        let due = steps
        steps = []
        for step in due { try step() }
    }

    /// The cleanups, once the transaction is over (committed or rolled back, or about to be).
    func finish() {
        let due = cleanups
        cleanups = []
        steps = []
        for cleanup in due { cleanup() }
    }
}

extension StoreReader {
    /// Ids of the trees that have at least one photo.
    public func treeIDsWithPhotos() throws -> Set<UUID> {
        var ids = Set<UUID>()
        let cursor = try DatabaseValue.fetchCursor(db, sql: "SELECT DISTINCT treeId FROM photo")
        while let value = try cursor.next() {
            if let text = StoredValue.text(value), let id = UUID(uuidString: text) { ids.insert(id) }
        }
        return ids
    }

    /// Visits the position, species and rowid of every stored tree (for finding duplicates without ids).
    public func forEachPosition(_ body: (_ latitude: Double, _ longitude: Double, _ species: String, _ rowID: Int64) throws -> Void) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT latitude, longitude, species, rowid FROM tree")
        while let row = try cursor.next() {
            // Damaged rows are reported by every read of trees; here they only cannot be duplicates.
            guard let lat = StoredValue.number(row[0]), let lon = StoredValue.number(row[1]), let species = StoredValue.text(row[2]) else { continue }
            try body(lat, lon, species, row[3])
        }
    }

    /// The position and species of the tree stored at `rowID`, if there is one and it is readable.
    public func position(rowID: Int64) throws -> (latitude: Double, longitude: Double, species: String)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT latitude, longitude, species FROM tree WHERE rowid = ?"),
                                         arguments: [rowID]),
              let lat = StoredValue.number(row[0]), let lon = StoredValue.number(row[1]), let species = StoredValue.text(row[2])
        else { return nil }
        return (lat, lon, species)
    }
}

/// Stores many trees through statements prepared once, binding texts, ids and dates from buffers
/// of its own: what `insert(_:)`, `upsert(_:)` store, at import speed. Valid inside the
/// transaction of the `StoreWriter` that made it.
public final class BulkTreeWriter {
    private let db: Database
    private var statements: [OpaquePointer?] = Array(repeating: nil, count: Kind.allCases.count)
    private let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
    /// The bytes of the texts bound to the chunk statement, and to the statements of one tree.
    private let chunkTexts = BoundTexts(), rowTexts = BoundTexts()
    /// The date written last and its text (`BulkText.write`), kept for the next date column: a
    /// tree's update time is mostly its creation time.
    @exclusivity(unchecked) private var lastDate: Date?
    private let lastDateText = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
    @exclusivity(unchecked) private var lastDateLength = 0
    /// Trees `queueIfNew` has checked and bound to the chunk statement, not yet stored.
    private var queue: [Tree] = []
    /// The columns each tree's place in the chunk statement has a value bound to (bit `rawValue`
    /// of `TreeColumn`), and the same for the statements of one tree, by `Kind`. A column whose bit
    /// is clear is NULL (as every parameter of a new statement is), so a tree with nothing there
    /// binds nothing: binding NULL to the dozen empty columns of a surveyed tree took 3% of the
    /// storing thread. A bit may be set while its column is NULL (a bind that failed), never the
    /// other way round.
    @exclusivity(unchecked) private var chunkBound = [UInt32](repeating: 0, count: chunkSize)
    @exclusivity(unchecked) private var rowBound = [UInt32](repeating: 0, count: Kind.allCases.count)
    /// The rowid of the last tree the queue's latest store inserted. The trees one store inserts
    /// get rowids one up from the largest, in queue order: the ones it inserted end at this one.
    public private(set) var lastQueuedRowID: Int64 = 0
    /// While set, the connection fires no triggers and every tree stored after this rowid gets
    /// its version row when the queue is next stored by `storeQueue()`.
    private var versionsAfter: Int64?
    /// True while the connection's triggers are off and this writer writes the version rows
    /// (false when the store has a trigger on trees it does not know, and the triggers do it).
    package var writesVersionsItself: Bool { versionsAfter != nil }
    /// The trees up to this rowid have their version rows already (see `writeVersions`).
    private var versionsWritten: Int64?
    /// True when the transaction writes a small file's trees into a store made unseen (`StoreWriter.isDirect`).
    private let isDirect: Bool

    /// How many queued trees one statement inserts.
    ///
    /// Each statement costs the same whatever it inserts: SQLite starts and ends it and opens its
    /// cursors, and the trees of a file land on the same few pages. 32 trees a statement took
    /// about 30% off the store's time per tree; 64 or 128 no more. (A bulk write checks foreign
    /// keys at its commit, so SQLite keeps no copy of the pages a statement changes: see
    /// `TreeStore.write`.)
    public static let chunkSize = 32

    private enum Kind: Int, CaseIterable {
        case insert, insertIfNew, upsert, exists, rowIDOf, insertIfNewChunk, savepoint, rollbackTo, release
        case syncTriggersOnly, lastRowID, versionsSorted, versionsByIDIndex, versionsInRowidOrder, anyScheduleKept, staleDueCare
    }

    init(db: Database, isDirect: Bool) {
        precondition(TreeColumn.allCases.count <= UInt32.bitWidth, "a tree's columns are bits of a UInt32 (chunkBound)")
        self.db = db
        self.isDirect = isDirect
    }

    deinit {
        restoreTriggers()
        for s in statements { sqlite3_finalize(s) }
        scratch.deallocate()
        lastDateText.deallocate()
    }

    /// The rowid of the tree this writer inserted last.
    public var lastRowID: Int64 { sqlite3_last_insert_rowid(db.sqliteConnection) }

    /// Inserts a new tree; fails when its id is stored.
    public func insert(_ tree: Tree) throws {
        try StoreWriter.check(tree)
        assert(queue.isEmpty && versionsAfter == nil, "trees are queued: storeQueue() first")
        _ = try run(.insert, tree)
    }

    /// Inserts or replaces the tree with the same id.
    public func upsert(_ tree: Tree) throws {
        try StoreWriter.check(tree)
        assert(queue.isEmpty && versionsAfter == nil, "trees are queued: storeQueue() first")
        _ = try run(.upsert, tree)
    }

    /// Inserts a new tree unless one with the same id is stored; true when it was inserted.
    public func insertIfNew(_ tree: Tree) throws -> Bool {
        try StoreWriter.check(tree)
        assert(queue.isEmpty && versionsAfter == nil, "trees are queued: storeQueue() first")
        return try run(.insertIfNew, tree)
    }

    /// True when a tree with this id is stored.
    /// The rowid of the stored tree `id`, or nil. Queued trees count once stored: call after the
    /// outcome of their `storeQueue()`.
    public func rowID(of id: UUID) throws -> Int64? {
        let s = try statement(.rowIDOf)
        sqlite3_reset(s)
        defer { sqlite3_reset(s) }
        bindUUID(id, 1, s)
        switch sqlite3_step(s) {
        case SQLITE_ROW: return sqlite3_column_int64(s, 0)
        case SQLITE_DONE: return nil
        default: throw failure()
        }
    }

    /// The largest rowid of the tree table (0 when it is empty): a tree with a larger one was
    /// stored after this was asked.
    public func largestRowID() throws -> Int64 { try value(.lastRowID) ?? 0 }

    public func exists(_ id: UUID) throws -> Bool {
        assert(queue.isEmpty && versionsAfter == nil, "trees are queued: storeQueue() first")
        let s = try statement(.exists)
        sqlite3_reset(s)
        bindUUID(id, 1, s)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_ROW || rc == SQLITE_DONE else { throw failure() }
        return rc == SQLITE_ROW
    }

    // MARK: Queued inserts

    /// Queues a tree to be inserted unless one with the same id is stored by then, as
    /// `insertIfNew` does; it is checked now, and stored with the next `chunkSize` trees in one
    /// statement. Returns, when this tree filled the queue, whether each queued tree was inserted,
    /// in queue order; else nothing.
    ///
    /// Nothing else may read or write the store while trees are queued: `storeQueue()` first
    /// (the transaction does it before it commits).
    public func queueIfNew(_ tree: consuming Tree) throws -> [Bool] {
        try StoreWriter.check(tree)
        try noteQueued(tree)
        // Triggers go off with the first tree of a queue, which every store of the queue follows;
        // before the chunk statement is first prepared, not after it is bound: switching makes
        // SQLite prepare the statement of 800 parameters again.
        if queue.isEmpty, versionsAfter == nil { try switchTriggersOff() }
        let s = try statement(.insertIfNewChunk)
        try bind(tree, to: s, from: Int32(queue.count * TreeColumn.allCases.count), texts: chunkTexts, bound: &chunkBound[queue.count])
        queue.append(consume tree)
        guard queue.count == Self.chunkSize else { return [] }
        return try storeFullQueue(s)
    }

    /// Stores the queued trees, then the version rows of the trees stored while triggers were off
    /// (see `writeVersions`); whether each queued tree was inserted, in queue order.
    public func storeQueue() throws -> [Bool] {
        var outcomes: [Bool] = []
        if queue.count == Self.chunkSize {
            outcomes = try storeFullQueue(try statement(.insertIfNewChunk))
        } else if !queue.isEmpty {
            // Fewer than a chunk: one statement each, which binds them again.
            defer {
                queue.removeAll(keepingCapacity: true)
                chunkTexts.reset()
            }
            outcomes = try queue.map { try run(.insertIfNew, $0) }
        }
        lastQueuedRowID = lastRowID
        try writeVersions()
        return outcomes
    }

    /// How many trees are queued.
    public var queuedCount: Int { queue.count }

    /// One statement for a full queue. When it inserted some of the trees but not all (their ids
    /// are stored, or one id comes twice), which ones is not known: the statement is undone and the
    /// trees stored one by one, which says it of each.
    private func storeFullQueue(_ s: OpaquePointer) throws -> [Bool] {
        defer {
            queue.removeAll(keepingCapacity: true)
            // The next chunk binds every parameter again before the statement runs.
            chunkTexts.reset()
        }
        try step(.savepoint)
        var released = false
        defer { if !released { try? step(.rollbackTo); try? step(.release) } }
        sqlite3_reset(s)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else { throw failure() }
        let inserted = Int(sqlite3_changes(db.sqliteConnection))
        if inserted == queue.count || inserted == 0 {
            try step(.release)
            released = true
            lastQueuedRowID = lastRowID
            if inserted > 0 { try writeVersionsSoFar() }
            if !indexDecided { try considerDeferringIndex() }
            return Array(repeating: inserted > 0, count: queue.count)
        }
        try step(.rollbackTo)
        let outcomes = try queue.map { try run(.insertIfNew, $0) }
        try step(.release)
        released = true
        lastQueuedRowID = lastRowID
        return outcomes
    }

    // MARK: The creation-time index, built once after a large import

    // Every tree inserted lands in the index `tree_createdAt_id` at the place of its creation time.
    // A survey's trees come in time order and land at the index's right-hand edge (a file newest
    // first, at its left-hand edge), but a file sorted otherwise (by name, by row, a GIS export)
    // puts its trees all over the index, and once the index outgrows the import's small page cache
    // each such tree reads a page back and writes it out again: 1,000,000 surveyed trees in random
    // order took 19.2 s into a new store against 9.5 s in time order, 9 s of it in the kernel.
    // So when the trees queued so far are many and an eighth of them came between the oldest and the
    // newest queued before them, an import of many trees into a store of few drops the index and
    // builds it again, sorted, before the transaction commits (`buildDeferredIndex`): 9.3 s. Trees
    // at an edge keep it, as building it at the end costs more than that (7% at 1,000,000). The
    // transaction still commits all or nothing: rolled back, it leaves the index as it was. Into a
    // store of many trees the index is kept: building it again would cost more than the import
    // saves, and a bulk write keeps its statement journal in memory, which dropping an index of
    // many pages would fill with them.

    /// About how many trees the import stores (from its file's size).
    public var expectedTrees = 0
    /// The largest rowid when the first tree was queued: at least as many trees as the store held.
    private var rowIDBeforeQueue: Int64?
    /// Trees queued so far.
    private var queuedTrees = 0
    /// True once `considerDeferringIndex` has decided.
    private var indexDecided = false
    /// The index's CREATE statement while it is dropped, and the folder its sorter writes in.
    private var deferredIndexSQL: (String, String)?
    static let createdAtIndex = "tree_createdAt_id"
    /// The index is dropped for an import of at least this many trees (queued, or expected from the
    /// file's size)…
    package static let deferIndexFrom = 32_768
    /// …into a store of at most this many.
    package static let deferIndexUpTo: Int64 = 16_384
    /// The trees queued before it decides: by then the pages of the index it drops are few.
    static let deferIndexAfter = 8_192

    /// The newest and oldest creation times queued so far, and how many trees came between them.
    private var newestCreated = -Double.infinity, oldestCreated = Double.infinity
    private var createdBetween = 0

    private func noteQueued(_ tree: Tree) throws {
        // Once decided, what it was decided on is no longer needed.
        guard !indexDecided else { return }
        if rowIDBeforeQueue == nil { rowIDBeforeQueue = try value(.lastRowID) ?? 0 }
        queuedTrees += 1
        let created = tree.createdAt.timeIntervalSinceReferenceDate
        if created >= newestCreated {
            newestCreated = created
            if created < oldestCreated { oldestCreated = created }
        } else if created <= oldestCreated {
            oldestCreated = created
        } else {
            createdBetween += 1
        }
    }

    /// Drops the creation-time index for `buildDeferredIndex` to build, if the import is large and
    /// the store was small; decides once.
    private func considerDeferringIndex() throws {
        guard !indexDecided, queuedTrees >= Self.deferIndexAfter, max(queuedTrees, expectedTrees) >= Self.deferIndexFrom else { return }
        indexDecided = true
        guard createdBetween >= queuedTrees / 8 else { return }
        // Whatever keeps the index from being dropped, the import goes on with it.
        guard let before = rowIDBeforeQueue, before <= Self.deferIndexUpTo, let folder = storeFolder(),
              let sql = try? String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?",
                                             arguments: [Self.createdAtIndex])
        else { return }
        // SQLite's sorter builds the index, and keeps all it sorts in memory while temporary data is
        // kept there (as in a bulk write): it is switched to files then. Once the connection has
        // temporary tables it cannot be switched within a transaction, and the index is kept.
        do {
            try db.execute(sql: "PRAGMA temp_store = FILE")
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            try db.execute(sql: "DROP INDEX \"\(Self.createdAtIndex)\"")
        } catch {
            return
        }
        deferredIndexSQL = (sql, folder)
    }

    /// Builds the creation-time index again, sorted, if `considerDeferringIndex` dropped it.
    ///
    /// The sorter's files go in the store's own folder: a failure to write them (a read-only or
    /// full /tmp) would roll the whole transaction back, and the store's disk has room for them if
    /// it has room for the index they make. The folder is a setting of the whole process, put back
    /// once the index is built; nothing else in `trees` uses SQLite meanwhile.
    func buildDeferredIndex() throws {
        guard let (sql, folder) = deferredIndexSQL else { return }
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        let previous = (try? String.fetchOne(db, sql: "PRAGMA temp_store_directory")) ?? nil
        // Refused only if the folder can no longer be written: SQLite then chooses one as it would.
        try? db.execute(sql: "PRAGMA temp_store_directory = \(literal(folder))")
        defer { try? db.execute(sql: "PRAGMA temp_store_directory = \(literal(previous ?? ""))") }
        // Checked when the index was dropped; should the connection have temporary tables by now,
        // the index is still built, in memory.
        try? db.execute(sql: "PRAGMA temp_store = FILE")
        defer { try? db.execute(sql: "PRAGMA temp_store = MEMORY") }
        try db.execute(sql: sql)
        deferredIndexSQL = nil
    }

    /// The folder of the store's file when this process may write in it, else nil.
    private func storeFolder() -> String? {
        guard let file = try? String.fetchOne(db, sql: "SELECT file FROM pragma_database_list WHERE name = 'main'"), !file.isEmpty else {
            return nil
        }
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        return access(folder, W_OK | X_OK) == 0 ? folder : nil
    }

    // MARK: Version rows in one statement

    // For every tree inserted, the trigger `tree_sync_insert` writes the tree's version row with
    // the transaction's tick (see `SyncSchema`): a trigger program run per tree (about a fifth of
    // SQLite's time per tree even when it stands aside), and rows written in the order of the
    // file. The version table is keyed by tree id, so in file order its rows land wherever their
    // ids fall: at the left edge for a file trees exported (newest first, ids growing with time),
    // where SQLite leaves the pages it splits half full, and anywhere at all for ids made at
    // random (the Tree Tracker app's), where a million trees' rows outgrow the page cache and
    // every row reads and rewrites a page: that alone took 1,000,000 such trees from 11 to 22 s.
    // While queued trees are stored the connection fires no triggers (the tree table has no other
    // insert trigger but `careDue_tree_insert`, which is checked), and `writeVersions` then writes
    // the same rows for every tree stored meanwhile, sorted by id, and marks the ones a care
    // schedule applies to as `careDue_tree_insert` would (see `CareDueSchema`). The trigger's
    // INSERT OR REPLACE takes the INSERT OR IGNORE of the statement that fired it, so the rows are
    // written INSERT OR IGNORE here too. When the sync flag `applying` is set the trigger would
    // stand aside: nothing changes then. A few trees are found by rowid (`NOT INDEXED`) and
    // sorted; many are read in the id index's order (see `versionsSortedAtMost`).
    //
    // Triggers are switched off before the first tree, not after it: version pages the trigger
    // changed once and SQLite then wrote out of its cache (into the WAL) would be changed again by
    // `writeVersions`, and a page written twice in one transaction makes SQLite read back and
    // rewrite the header of every WAL frame after the first such page when it commits. Switching
    // makes SQLite prepare every statement of the connection again at its next use; the
    // transaction switches them back on however it ends (`TransactionEnd`).

    /// The trigger `writeVersions` does the work of, as migration `v3-sync-versions` made it.
    static let versionTrigger = """
        CREATE TRIGGER tree_sync_insert AFTER INSERT ON tree WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO treeVersion (treeId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
        END
        """

    /// Switches the connection's triggers off from the next tree on, unless they already are or
    /// the tree table has triggers this writer does not know.
    private func switchTriggersOff() throws {
        // Past this rowid SQLite might choose rowids at random rather than the next one up, and
        // `rowid > versionsAfter` would no longer name the trees stored since.
        let last = try value(.lastRowID) ?? 0
        guard try value(.syncTriggersOnly) == 1, last < Int64.max - (1 << 40) else { return }
        guard setTriggers(on: false) == 0 else {
            // SQLite refused: the trigger writes the rows, as it always did.
            _ = setTriggers(on: true)
            return
        }
        versionsAfter = last
    }

    /// Switches triggers back on and does for the trees stored while they were off what the
    /// insert triggers would have done.
    private func writeVersions() throws {
        guard let after = versionsAfter else { return }
        let written = versionsWritten ?? after
        restoreTriggers()
        guard let last = try value(.lastRowID), last > after else { return }
        if last > written { try stepVersions(after: written, last: last) }
        if try value(.anyScheduleKept) == 1 { try step(.staleDueCare, after) }
    }

    /// In a new store's first import, writes the version rows of the trees stored so far, a
    /// statement's trees at a time: the work is done while the file is still being read (the
    /// store waits on the reading for a fifth of a small file's import), not after it. The store
    /// is small and all in the cache then, so their order does not matter.
    private func writeVersionsSoFar() throws {
        guard isDirect, let after = versionsAfter else { return }
        let last = lastRowID
        try step(.versionsInRowidOrder, versionsWritten ?? after)
        versionsWritten = last
    }

    /// Most trees whose version rows are sorted by id in memory; more are read in the order of
    /// the id index.
    ///
    /// The sort is kept in memory (bulk writes keep temporary data there) and takes about 130
    /// bytes a tree: a million trees' rows sorted at once took a survey's import from 40 MB to
    /// 165 MB. The id index gives every stored tree's id in order, so reading it costs the whole
    /// table (about 0.15 s a million trees) however few are new: for a few trees imported into
    /// a large store, sorting them is what pays.
    package var versionsSortedAtMost: Int64 = 32_768

    /// Writes the version rows of the trees stored after rowid `after`, up to `last`, in id order.
    private func stepVersions(after: Int64, last: Int64) throws {
        try step(last - after <= versionsSortedAtMost ? .versionsSorted : .versionsByIDIndex, after)
    }

    /// Switches the connection's triggers on or off; the setting then in force (1 on, 0 off, -1 refused).
    private func setTriggers(on: Bool) -> Int32 {
        trees_sqlite_enable_triggers(db.sqliteConnection.map { UnsafeMutableRawPointer($0) }, on ? 1 : 0)
    }

    /// Switches the connection's triggers back on if this writer switched them off.
    func restoreTriggers() {
        guard versionsAfter != nil else { return }
        versionsAfter = nil
        versionsWritten = nil
        _ = setTriggers(on: true)
    }

    // MARK: Statements

    /// Runs a statement that returns no rows, with `rowID` as its parameter when given.
    private func step(_ kind: Kind, _ rowID: Int64? = nil) throws {
        let s = try statement(kind)
        sqlite3_reset(s)
        if let rowID { sqlite3_bind_int64(s, 1, rowID) }
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else { throw failure() }
    }

    /// The integer a one-value query returns (nil for NULL or no row), with `rowID` as its parameter when given.
    private func value(_ kind: Kind, _ rowID: Int64? = nil) throws -> Int64? {
        let s = try statement(kind)
        sqlite3_reset(s)
        defer { sqlite3_reset(s) }
        if let rowID { sqlite3_bind_int64(s, 1, rowID) }
        switch sqlite3_step(s) {
        case SQLITE_ROW: return sqlite3_column_type(s, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(s, 0)
        case SQLITE_DONE: return nil
        default: throw failure()
        }
    }

    private func statement(_ kind: Kind) throws -> OpaquePointer {
        if let s = statements[kind.rawValue] { return s }
        let sql = switch kind {
        case .insert: Tree.insertSQL
        case .insertIfNew: Tree.insertIfNewSQL
        case .upsert: Tree.replaceSQL
        case .exists: "SELECT 1 FROM tree WHERE id = ?"
        case .rowIDOf: "SELECT rowid FROM tree WHERE id = ?"
        case .insertIfNewChunk: Tree.insertIfNewSQL(rows: Self.chunkSize)
        case .savepoint: "SAVEPOINT bulkTrees"
        case .rollbackTo: "ROLLBACK TO bulkTrees"
        case .release: "RELEASE bulkTrees"
        case .syncTriggersOnly:
            // 1 when the sync trigger would write version rows, the triggers on a tree's insert
            // are the ones `writeVersions` stands in for, and no other trigger fires on it.
            """
            SELECT (SELECT applying = 0 FROM syncState)
                AND NOT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'tree'
                                AND name NOT IN ('tree_sync_insert', 'tree_sync_update', 'tree_sync_base', 'tree_sync_delete',
                                                 'careDue_tree_insert', 'careDue_tree_update'))
                AND (SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'tree_sync_insert')
                    = '\(Self.versionTrigger.replacingOccurrences(of: "'", with: "''"))'
                AND (SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'careDue_tree_insert')
                    = '\(CareDueSchema.treeInsertTrigger.replacingOccurrences(of: "'", with: "''"))'
            """
        case .lastRowID: "SELECT max(rowid) FROM tree"
        case .versionsSorted:
            """
            INSERT OR IGNORE INTO treeVersion (treeId, seq, version, device)
            SELECT t.id, s.seq, s.hlc, s.deviceId FROM tree t NOT INDEXED, syncState s WHERE t.rowid > ?1 ORDER BY t.id
            """
        case .versionsInRowidOrder:
            // No sort: a statement's few rows land in pages all in the cache (see `writeVersionsSoFar`).
            """
            INSERT OR IGNORE INTO treeVersion (treeId, seq, version, device)
            SELECT t.id, s.seq, s.hlc, s.deviceId FROM tree t NOT INDEXED, syncState s WHERE t.rowid > ?1
            """
        case .versionsByIDIndex:
            """
            INSERT OR IGNORE INTO treeVersion (treeId, seq, version, device)
            SELECT t.id, s.seq, s.hlc, s.deviceId FROM tree t INDEXED BY sqlite_autoindex_tree_1, syncState s
            WHERE t.rowid > ?1 ORDER BY t.id
            """
        case .anyScheduleKept: CareDueSchema.anyScheduleKeptSQL
        case .staleDueCare: CareDueSchema.staleInsertedTreesSQL
        }
        var s: OpaquePointer?
        guard sqlite3_prepare_v3(db.sqliteConnection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &s, nil) == SQLITE_OK, let s else {
            throw failure()
        }
        statements[kind.rawValue] = s
        return s
    }

    private func failure() -> StoreError {
        StoreError.sqlite(connection: db.sqliteConnection)
    }

    private func run(_ kind: Kind, _ tree: Tree) throws -> Bool {
        let s = try statement(kind)
        sqlite3_reset(s)
        defer { rowTexts.reset() }
        try bind(tree, to: s, from: 0, texts: rowTexts, bound: &rowBound[kind.rawValue])
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else { throw failure() }
        return sqlite3_changes(db.sqliteConnection) > 0
    }

    /// Binds the tree's columns to parameters `first + 1`… of `s`, in `TreeColumn` order. Texts
    /// are bound from copies in `texts`, which must keep them until the statement has run.
    /// `bound` has the bits of the columns that may hold a value from an earlier tree (see
    /// `chunkBound`): an empty column is bound NULL only then.
    private func bind(_ tree: Tree, to s: OpaquePointer, from first: Int32, texts: BoundTexts, bound: inout UInt32) throws {
        // A parameter's column, as a bit of `bound`.
        @inline(__always) func bit(_ index: Int32) -> UInt32 { 1 << UInt32(truncatingIfNeeded: index &- first &- 1) }
        @inline(__always) func null(_ index: Int32) {
            let b = bit(index)
            guard bound & b != 0 else { return }
            sqlite3_bind_null(s, index)
            bound &= ~b
        }
        // Each helper is given its parameter's index: a counter the helpers shared was checked for
        // exclusive access at run time on every column.
        func bytes(_ count: Int, _ index: Int32, _ fill: (UnsafeMutablePointer<UInt8>) throws -> Void) rethrows {
            bound |= bit(index)
            let p = texts.reserve(count)
            try fill(p)
            p.withMemoryRebound(to: CChar.self, capacity: count) { _ = sqlite3_bind_text(s, index, $0, Int32(count), bulkStatic) }
        }
        func text(_ value: String?, _ index: Int32) {
            guard var v = value else { null(index); return }
            v.withUTF8 { u in
                bytes(u.count, index) { p in if let base = u.baseAddress { p.update(from: base, count: u.count) } }
            }
        }
        func double(_ value: Double?, _ index: Int32) {
            guard let value else { null(index); return }
            bound |= bit(index)
            sqlite3_bind_double(s, index, value)
        }
        func int(_ value: Int?, _ index: Int32) {
            guard let value else { null(index); return }
            bound |= bit(index)
            sqlite3_bind_int64(s, index, Int64(value))
        }
        func uuid(_ value: UUID?, _ index: Int32) {
            guard let value else { null(index); return }
            bytes(36, index) { value.writeText(into: $0) }
        }
        func date(_ value: Date?, _ index: Int32) throws {
            guard let value else { null(index); return }
            if value != lastDate {
                lastDateLength = try BulkText.write(date: value, into: lastDateText)
                lastDate = value
            }
            let length = lastDateLength, text = lastDateText
            bytes(length, index) { $0.update(from: text, count: length) }
        }
        // Each value bound straight from the tree, as `TreeColumn.field(of:)` maps it: going through
        // that mapping made an enum of every value (10.8 M of the 316.7 M instructions the storing
        // thread took for 10,000 surveyed trees). The switch is exhaustive, so a new column is
        // pointed at here too; `RowMappingTests` checks both store the same rows, every column
        // filled or empty.
        for column in TreeColumn.allCases {
            // Parameters count from 1; the columns' raw values are their places from 0.
            let i = first + column.rawValue + 1
            switch column {
            case .id: uuid(tree.id, i)
            case .latitude: double(tree.latitude, i)
            case .longitude: double(tree.longitude, i)
            case .horizontalAccuracy: double(tree.horizontalAccuracy, i)
            case .accuracySource: text(tree.accuracySource?.rawValue, i)
            case .altitude: double(tree.altitude, i)
            case .ellipsoidHeight: double(tree.ellipsoidHeight, i)
            case .species: text(tree.species, i)
            case .variety: text(tree.variety, i)
            case .rootstock: text(tree.rootstock, i)
            case .notes: text(tree.notes, i)
            case .collectionId: uuid(tree.collectionID, i)
            case .createdAt: try date(tree.createdAt, i)
            case .updatedAt: try date(tree.updatedAt, i)
            case .fixTime: try date(tree.capture.fixTime, i)
            case .fixMode: int(tree.capture.fixMode?.rawValue, i)
            case .satellites: int(tree.capture.satellites, i)
            case .hdop: double(tree.capture.hdop, i)
            case .averagedEpochs: int(tree.capture.averagedEpochs, i)
            case .locationSource: text(tree.capture.locationSource, i)
            case .fixStatus: text(tree.capture.fixStatus?.name, i)
            case .correctionAge: double(tree.capture.correctionAge, i)
            case .verticalAccuracy: double(tree.capture.verticalAccuracy, i)
            case .verticalAccuracySource: text(tree.capture.verticalAccuracySource?.rawValue, i)
            case .antennaHeight: double(tree.capture.antennaHeight, i)
            }
        }
    }

    private func bindUUID(_ id: UUID, _ index: Int32, _ s: OpaquePointer) {
        id.writeText(into: scratch)
        scratch.withMemoryRebound(to: CChar.self, capacity: 36) { _ = sqlite3_bind_text(s, index, $0, 36, bulkTransient) }
    }
}

/// SQLite's "copy the bytes now" destructor.
private let bulkTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// SQLite's "the bytes stay put until the statement has run" destructor.
private let bulkStatic: sqlite3_destructor_type? = nil

/// Room for the bytes of texts bound to statements without SQLite copying them (SQLITE_STATIC):
/// they stay where they are until `reset()`, called once the statements bound from them have run
/// (or will have every parameter bound again before they run).
///
/// SQLite copies a text bound the usual way into memory of its own, allocated for it and freed
/// when the parameter is bound again: two calls of malloc and free a column, which took a tenth of
/// the store's time per tree. Blocks are kept from one use to the next.
final class BoundTexts {
    private static let blockSize = 64 << 10
    // Used by the storing thread alone, several times a column: accesses go unchecked at run time
    // (each checked one cost about 60 instructions).
    @exclusivity(unchecked) private var blocks: [UnsafeMutablePointer<UInt8>] = []
    /// Blocks for texts larger than a block, freed at the next reset.
    @exclusivity(unchecked) private var large: [UnsafeMutablePointer<UInt8>] = []
    @exclusivity(unchecked) private var block = 0
    @exclusivity(unchecked) private var used = 0

    /// `count` bytes that stay where they are until the next reset.
    func reserve(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if count > Self.blockSize / 4 {
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count))
            large.append(p)
            return p
        }
        if blocks.isEmpty || used + count > Self.blockSize {
            if !blocks.isEmpty { block += 1 }
            if block == blocks.count { blocks.append(.allocate(capacity: Self.blockSize)) }
            used = 0
        }
        defer { used += count }
        return blocks[block] + used
    }

    func reset() {
        for p in large { p.deallocate() }
        large.removeAll(keepingCapacity: true)
        block = 0
        used = 0
    }

    deinit {
        for p in blocks + large { p.deallocate() }
    }
}

/// Dates to and from their stored text, on bytes.
enum BulkText {
    /// Writes `yyyy-MM-dd HH:mm:ss.SSS` in UTC, rounded to the millisecond, at `out`; returns the
    /// length (23). `date` must lie within `StorableDates` (every write checks it first): any other
    /// date is refused rather than written as another value.
    static func write(date: Date, into out: UnsafeMutablePointer<UInt8>) throws -> Int {
        guard StorableDates.contains(date), let f = UTCFields(date) else {
            throw StoreError.unstorable(StorableDates.problem(date) ?? "a time outside \(StorableDates.span)")
        }
        var n = 0
        func put(_ v: Int, _ width: Int) {
            var x = abs(v)
            var i = n + width - 1
            while i >= n { out[i] = UInt8(ascii: "0") + UInt8(x % 10); x /= 10; i -= 1 }
            n += width
        }
        func sep(_ c: UInt8) { out[n] = c; n += 1 }
        put(f.year, 4); sep(UInt8(ascii: "-")); put(f.month, 2); sep(UInt8(ascii: "-")); put(f.day, 2); sep(UInt8(ascii: " "))
        put(f.hour, 2); sep(UInt8(ascii: ":")); put(f.minute, 2); sep(UInt8(ascii: ":"))
        put(f.second, 2); sep(UInt8(ascii: ".")); put(f.millisecond, 3)
        return n
    }

    /// Parses `yyyy-MM-dd HH:mm:ss(.SSS)` (UTC); nil for any other shape. Every tree read back
    /// has two or three of these, so the digits are read in line, not by a loop a field.
    static func parseDate(_ p: UnsafeBufferPointer<UInt8>) -> Date? {
        guard p.count == 19 || p.count == 23, let b = p.baseAddress else { return nil }
        // Each digit's value; a byte that is not a digit gives 10 or more, caught once at the end.
        var notDigit: UInt8 = 0
        @inline(__always) func digit(_ i: Int) -> Int {
            let d = b[i] &- UInt8(ascii: "0")
            notDigit |= d > 9 ? 1 : 0
            return Int(d)
        }
        let y = digit(0) &* 1000 &+ digit(1) &* 100 &+ digit(2) &* 10 &+ digit(3)
        let mo = digit(5) * 10 + digit(6), d = digit(8) * 10 + digit(9)
        let h = digit(11) * 10 + digit(12), mi = digit(14) * 10 + digit(15), s = digit(17) * 10 + digit(18)
        var ms = 0
        if p.count == 23 {
            guard b[19] == UInt8(ascii: ".") else { return nil }
            ms = digit(20) * 100 + digit(21) * 10 + digit(22)
        }
        guard notDigit == 0, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: " ") || b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              (1...12).contains(mo), d >= 1, d <= 28 || d <= CivilDate.daysIn(month: mo, year: y), h <= 23, mi <= 59, s <= 59
        else { return nil }
        let days = CivilDate.days(year: y, month: mo, day: d)
        let total = Int64(days) * 86_400_000 + Int64(h * 3_600_000 + mi * 60_000 + s * 1000 + ms)
        return Date(timeIntervalSince1970: Double(total) / 1000)
    }
}
