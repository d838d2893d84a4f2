import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// The day every scheduled care of every tree is next due, kept by the store for `due`.
///
/// Working out what is due reads every tree in scope and the last event of each scheduled kind
/// for each: about 0.2 s for an orchard of 100,000 trees, however little is due. `careDue` holds
/// the answer in due-day order, so `due` reads only the rows it lists. A next due day depends on
/// the calendar day of the last event, so the table is kept for one time zone (`careDueState`);
/// it is built the first time `due` runs in a zone (`TreeStore.keepDueCare(zone:)`), and until
/// then, or in another zone, `due` works the answer out as before.
///
/// Triggers mark the trees and kinds whose due day a change may move in `careDueStale`: a new last
/// event (`careLatest`), a schedule set or removed, a tree that joins or leaves a scheduled
/// collection or changes its species or variety. Before every write transaction commits, the
/// store works out those rows again (`StoreWriter.refreshDueCare()`), so the table always agrees
/// with the log and the schedules. Deleting a tree deletes its rows.
enum CareDueSchema {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-care-due") { db in
            try db.execute(sql: """
                CREATE TABLE careDue (
                    dueDay INTEGER NOT NULL,
                    treeId TEXT NOT NULL REFERENCES tree(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    lastDay INTEGER,
                    species TEXT NOT NULL,
                    variety TEXT,
                    collectionId TEXT,
                    PRIMARY KEY (dueDay, treeId, kind)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX careDue_tree ON careDue(treeId, kind);
                CREATE TABLE careDueState (zone TEXT, rows INTEGER NOT NULL);
                INSERT INTO careDueState (zone, rows) VALUES (NULL, 0);
                CREATE TRIGGER careDue_counted AFTER INSERT ON careDue BEGIN
                    UPDATE careDueState SET rows = rows + 1;
                END;
                CREATE TRIGGER careDue_uncounted AFTER DELETE ON careDue BEGIN
                    UPDATE careDueState SET rows = rows - 1;
                END;
                CREATE TABLE careDueStale (
                    treeId TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    PRIMARY KEY (treeId, kind)
                ) WITHOUT ROWID;
                CREATE TRIGGER careDue_latest_insert AFTER INSERT ON careLatest
                WHEN EXISTS (SELECT 1 FROM careDue WHERE treeId = NEW.treeId AND kind = NEW.kind) BEGIN
                    \(stale("NEW.treeId", "NEW.kind"));
                END;
                CREATE TRIGGER careDue_latest_update AFTER UPDATE ON careLatest BEGIN
                    \(stale("OLD.treeId", "OLD.kind")) AND EXISTS (SELECT 1 FROM careDue WHERE treeId = OLD.treeId AND kind = OLD.kind);
                    \(stale("NEW.treeId", "NEW.kind")) AND EXISTS (SELECT 1 FROM careDue WHERE treeId = NEW.treeId AND kind = NEW.kind);
                END;
                CREATE TRIGGER careDue_latest_delete AFTER DELETE ON careLatest
                WHEN EXISTS (SELECT 1 FROM careDue WHERE treeId = OLD.treeId AND kind = OLD.kind) BEGIN
                    \(stale("OLD.treeId", "OLD.kind"));
                END;
                CREATE TRIGGER careDue_schedule_insert AFTER INSERT ON careSchedule
                WHEN (SELECT zone FROM careDueState) IS NOT NULL BEGIN
                    \(staleTrees(of: "NEW"))
                END;
                CREATE TRIGGER careDue_schedule_update AFTER UPDATE ON careSchedule
                WHEN (SELECT zone FROM careDueState) IS NOT NULL BEGIN
                    \(staleTrees(of: "OLD"))
                    \(staleTrees(of: "NEW"))
                END;
                CREATE TRIGGER careDue_schedule_delete AFTER DELETE ON careSchedule
                WHEN (SELECT zone FROM careDueState) IS NOT NULL BEGIN
                    \(staleTrees(of: "OLD"))
                END;
                CREATE TRIGGER careDue_tree_update AFTER UPDATE OF species, variety, collectionId ON tree
                WHEN (OLD.species IS NOT NEW.species OR OLD.variety IS NOT NEW.variety OR OLD.collectionId IS NOT NEW.collectionId)
                    AND (EXISTS (SELECT 1 FROM careDue WHERE treeId = NEW.id)
                         OR ((SELECT zone FROM careDueState) IS NOT NULL
                             AND EXISTS (SELECT 1 FROM careSchedule WHERE collectionId = NEW.collectionId))) BEGIN
                    \(stale("NEW.id", "''"));
                END;
                """)
            try db.execute(sql: treeInsertTrigger)
        }
    }

    /// Marks one tree and kind (`''`: every kind of the tree) stale, once; a condition may follow
    /// with `AND`. (A conflict would take the policy of the statement that fired the trigger.)
    private static func stale(_ tree: String, _ kind: String) -> String {
        "INSERT INTO careDueStale (treeId, kind) SELECT \(tree), \(kind) "
            + "WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = \(tree) AND kind = \(kind))"
    }

    /// Marks the schedule's kind stale for its tree, or for every tree of its collection.
    private static func staleTrees(of row: String) -> String {
        """
        INSERT INTO careDueStale (treeId, kind) SELECT \(row).treeId, \(row).kind WHERE \(row).treeId IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = \(row).treeId AND kind = \(row).kind);
        INSERT INTO careDueStale (treeId, kind) SELECT t.id, \(row).kind FROM tree t WHERE t.collectionId = \(row).collectionId
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = t.id AND kind = \(row).kind);
        """
    }

    /// The trigger that marks a new tree stale when a schedule applies to it, as migration
    /// `v7-care-due` made it: `BulkTreeWriter` stands in for it while its triggers are off.
    static let treeInsertTrigger = """
        CREATE TRIGGER careDue_tree_insert AFTER INSERT ON tree
        WHEN (SELECT zone FROM careDueState) IS NOT NULL
            AND (EXISTS (SELECT 1 FROM careSchedule WHERE collectionId = NEW.collectionId)
                 OR EXISTS (SELECT 1 FROM careSchedule WHERE treeId = NEW.id)) BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.id, '' WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.id AND kind = '');
        END
        """

    /// What `treeInsertTrigger` does, for the trees stored after rowid `?1` (none unless the table
    /// is kept and a schedule exists, which is asked first so a large import pays nothing).
    static let staleInsertedTreesSQL = """
        INSERT INTO careDueStale (treeId, kind)
        SELECT t.id, '' FROM tree t
        WHERE t.rowid > ?1 AND (SELECT zone FROM careDueState) IS NOT NULL
            AND (EXISTS (SELECT 1 FROM careSchedule WHERE collectionId = t.collectionId)
                 OR EXISTS (SELECT 1 FROM careSchedule WHERE treeId = t.id))
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = t.id AND kind = '')
        """

    static let insertSQL = """
        INSERT INTO careDue (dueDay, treeId, kind, lastDay, species, variety, collectionId) VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    /// 1 when `staleInsertedTreesSQL` could mark anything.
    static let anyScheduleKeptSQL = "SELECT (SELECT zone FROM careDueState) IS NOT NULL AND EXISTS (SELECT 1 FROM careSchedule)"
}

extension StoreReader {
    /// The zone `careDue` is kept for; nil while it is not kept.
    func dueCareZone() throws -> String? {
        try String.fetchOne(db, sql: "SELECT zone FROM careDueState")
    }

    /// `dueCare` read from `careDue`, or nil when it is not kept for `zone`.
    func keptDueCare(today: Day, within: Int, zone: TimeZone, collection: UUID?) throws -> [DueCare]? {
        var items: [DueCare] = []
        // Room for every row of the table (it is kept with them): growing the list as it fills
        // would copy it again and again. Room never written to costs no memory.
        let rows = try Int.fetchOne(db, sql: "SELECT rows FROM careDueState") ?? 0
        items.reserveCapacity(max(0, min(rows, 1 << 24)))
        let kept = try forEachKeptDueCare(today: today, within: within, zone: zone, collection: collection) { items.append($0) }
        return kept ? items : nil
    }

    /// Hands `body` each care `keptDueCare` lists, in order; false (and nothing handed) when the
    /// table is not kept for `zone`.
    func forEachKeptDueCare(today: Day, within: Int, zone: TimeZone, collection: UUID?, _ body: (DueCare) throws -> Void) throws -> Bool {
        guard try dueCareZone() == zone.identifier else { return false }
        let limit = today.number.addingReportingOverflow(within)
        let statement = try db.makeStatement(sql: """
            SELECT treeId, species, variety, collectionId, dueDay, kind, lastDay FROM careDue WHERE dueDay <= ?
            """ + (collection == nil ? "" : " AND collectionId = ?"))
        try statement.setArguments([limit.overflow ? Int64.max : Int64(limit.partialValue)] + (collection.map { [$0.storageKey] } ?? []))
        // Species, kinds, varieties and collections are few: each distinct text is made once and
        // shared by its rows.
        var kinds = RecentTexts<CareKind>()
        var species = RecentTexts<String>()
        var varieties = RecentTexts<String>()
        var collections = RecentTexts<UUID>()
        // The cares of one tree due on one day, handed over together: rows come by day, tree id
        // and kind as SQLite orders text (bytes), and within a tree and day they are put in the
        // order `due` promises (`CareKind`'s), which may differ outside ASCII.
        var group: [DueCare] = []
        func handOver() throws {
            if group.count > 1 {
                for i in 1..<group.count {
                    var j = i
                    while j > 0 && group[j].kind < group[j - 1].kind { group.swapAt(j, j - 1); j -= 1 }
                }
            }
            for item in group { try body(item) }
            group.removeAll(keepingCapacity: true)
        }
        try eachRow(of: statement) { s in
            let row = DueRow(s)
            let treeID = try row.id(0, "treeId")
            let kind = try kinds.value(for: row.bytes(5)) { text in
                do { return try CareKind(text) } catch { throw row.damaged(5, "kind", .nonBlankText, table: "careDue") }
            }
            let variety = row.optionalBytes(2).map { varieties.value(for: $0) { $0 } }
            let collection = try row.optionalBytes(3).map { bytes in try collections.value(for: bytes) { _ in try row.id(3, "collectionId") } }
            let item = DueCare(treeID: treeID, species: species.value(for: row.bytes(1)) { $0 }, variety: variety,
                               collectionID: collection,
                               kind: kind, lastDone: try row.optionalDay(6, "lastDay"), due: Day(try row.day(4, "dueDay")), today: today)
            if let first = group.first, first.treeID != treeID || first.due != item.due { try handOver() }
            group.append(item)
        }
        try handOver()
        return true
    }

    /// `dueCare` handed to `body` one by one in its order, without a list of them all.
    public func forEachDueCare(today: Day, within: Int, zone: TimeZone, scope: CareFilter.Scope = .all,
                               _ body: (DueCare) throws -> Void) throws {
        switch scope {
        case .all: if try forEachKeptDueCare(today: today, within: within, zone: zone, collection: nil, body) { return }
        case .collection(let id): if try forEachKeptDueCare(today: today, within: within, zone: zone, collection: id, body) { return }
        case .tree: break
        }
        for item in try computedDueCare(today: today, within: within, zone: zone, scope: scope) { try body(item) }
    }
}

extension StoreWriter {
    /// Works out again the `careDue` rows of the trees and kinds marked stale in this transaction.
    ///
    /// Runs before every write transaction commits; one indexed look when nothing is marked.
    func refreshDueCare() throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM careDueStale)") == true else { return }
        guard let identifier = try reader.dueCareZone(), let zone = TimeZone(identifier: identifier) else {
            // Not kept (or kept for a zone this system does not know): built afresh by `due`.
            try resetDueCare()
            return
        }
        var own: [UUID: [CareSchedule]] = [:]
        var byCollection: [UUID: [CareSchedule]] = [:]
        for schedule in try reader.careSchedules() {
            switch schedule.target {
            case .tree(let id): own[id, default: []].append(schedule)
            case .collection(let id): byCollection[id, default: []].append(schedule)
            }
        }
        var days = DayReckoner(zone: zone)
        let treeRow = try db.cachedStatement(sql: "SELECT species, variety, collectionId FROM tree WHERE id = ?")
        let lastDate = try db.cachedStatement(sql: "SELECT date FROM careLatest WHERE treeId = ? AND kind = ?")
        let dropAll = try db.cachedStatement(sql: "DELETE FROM careDue WHERE treeId = ?")
        let dropOne = try db.cachedStatement(sql: "DELETE FROM careDue WHERE treeId = ? AND kind = ?")
        let insert = try db.cachedStatement(sql: CareDueSchema.insertSQL)
        let stale = try Row.fetchCursor(db, sql: "SELECT treeId, kind FROM careDueStale ORDER BY treeId, kind")
        var marked: [(tree: String, kind: String)] = []
        while let row = try stale.next() {
            guard let tree = StoredValue.text(row[0]), let kind = StoredValue.text(row[1]) else { continue }
            marked.append((tree, kind))
        }
        for (key, kindName) in marked {
            if kindName.isEmpty {
                try dropAll.execute(arguments: [key])
            } else {
                try dropOne.execute(arguments: [key, kindName])
            }
            guard let treeID = UUID(uuidString: key), let tree = try Row.fetchOne(treeRow, arguments: [key]) else { continue }
            let species = StoredValue.text(tree[0]) ?? ""
            let variety = StoredValue.text(tree[1])
            let collectionText = StoredValue.text(tree[2])
            let collection = collectionText.flatMap(UUID.init(uuidString:))
            // The tree's own schedules, and its collection's of kinds it has none of (as
            // `careSchedules(of:)` gives them); of the marked kind only, unless every kind is marked.
            let mine = own[treeID] ?? []
            let kinds = Set(mine.map(\.kind.name))
            let applying = mine + (collection.flatMap { byCollection[$0] } ?? []).filter { !kinds.contains($0.kind.name) }
            for schedule in applying where kindName.isEmpty || schedule.kind.name == kindName {
                var last: Day?
                if let value = try DatabaseValue.fetchOne(lastDate, arguments: [key, schedule.kind.name]) {
                    switch StoredValue.date(value) {
                    case .success(let date): last = days.day(date)
                    case .failure(let p): throw StoreError.damagedRow(table: "careLatest", row: 0, id: key, column: "date", reason: p.reason)
                    }
                }
                let next = schedule.nextDue(lastDone: last)
                try insert.execute(arguments: [next.number, key, schedule.kind.name, last?.number, species, variety, collectionText])
            }
        }
        try db.execute(sql: "DELETE FROM careDueStale")
    }

    /// Empties `careDue` and marks it not kept: `due` builds it again.
    public func resetDueCare() throws {
        try db.execute(sql: "DELETE FROM careDue; DELETE FROM careDueStale; UPDATE careDueState SET zone = NULL")
    }

    /// Builds `careDue` afresh for `zone` from every schedule and the last event of each kind.
    func rebuildDueCare(zone: TimeZone) throws {
        try db.execute(sql: "DELETE FROM careDue; DELETE FROM careDueStale")
        let all = try reader.computedDueCare(today: Day(0), within: nil, zone: zone)
        let insert = try db.cachedStatement(sql: CareDueSchema.insertSQL)
        for d in all {
            try insert.execute(arguments: [d.due.number, d.treeID.storageKey, d.kind.name, d.lastDone?.number, d.species, d.variety,
                                           d.collectionID?.storageKey])
        }
        try db.execute(sql: "UPDATE careDueState SET zone = ?", arguments: [zone.identifier])
    }
}

extension TreeStore {
    /// Makes `due` in `zone` read what is due from the store's `careDue` table, building it when it
    /// is not kept for that zone (once; every write keeps it after that). True when the table is
    /// kept for `zone` afterwards. A store this user cannot write is left as it is, and `due` works
    /// its answer out from the log.
    ///
    /// The build does not wait for another process's write: it fails with `SQLITE_BUSY` at once,
    /// since the answer can be worked out from the log without waiting.
    @discardableResult
    public func keepDueCare(zone: TimeZone) throws -> Bool {
        if try read({ try $0.dueCareZone() }) == zone.identifier { return true }
        if isReadOnly { return false }
        do {
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(busyTimeout * 1000))") }
                // A table derived from the log, not a change of it: no tick of the sync clock.
                try db.inTransaction(.immediate) {
                    let writer = StoreWriter(db: db, now: now())
                    if try writer.reader.dueCareZone() != zone.identifier { try writer.rebuildDueCare(zone: zone) }
                    return .commit
                }
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.sqlite(error)
        }
        return true
    }
}

/// Values made from texts that repeat from row to row, each made once: the last 32 distinct
/// texts are kept and compared byte for byte, which costs less than hashing each row's text.
private struct RecentTexts<Value> {
    private var texts: [[UInt8]] = []
    private var values: [Value] = []
    private var next = 0

    mutating func value(for bytes: UnsafeBufferPointer<UInt8>, _ make: (String) throws -> Value) rethrows -> Value {
        for (i, text) in texts.enumerated() where text.count == bytes.count {
            let same = text.withUnsafeBufferPointer { held in
                guard let a = held.baseAddress, let b = bytes.baseAddress else { return true }
                return memcmp(a, b, bytes.count) == 0
            }
            if same { return values[i] }
        }
        let value = try make(String(decoding: bytes, as: UTF8.self))
        if texts.count < 32 {
            texts.append(Array(bytes)); values.append(value)
        } else {
            texts[next] = Array(bytes); values[next] = value
            next = (next + 1) % 32
        }
        return value
    }
}

