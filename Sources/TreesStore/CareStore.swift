import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// The care log's tables: events, the last day of each kind per tree, current health, monthly
/// counts, harvests per tree, schedules.
///
/// `careLatest` and `treeHealth` are kept by the store from `careEvent` on every write that touches
/// a tree's events, so that what is due and the health of every tree are read without scanning
/// the events (100,000 trees with 2,000,000 events answer in milliseconds). The history of health
/// statuses is the `inspect` events that set one, newest last.
enum CareSchema {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-care-log") { db in
            try db.create(table: "careEvent") { t in
                t.primaryKey("id", .text)
                t.column("treeId", .text).notNull().references("tree", onDelete: .cascade)
                t.column("kind", .text).notNull()
                t.column("date", .datetime).notNull()
                t.column("notes", .text)
                t.column("quantity", .double)
                t.column("unit", .text)
                t.column("health", .text)
                t.column("who", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            // A tree's log newest first, and the last event of a kind.
            try db.create(index: "careEvent_treeId_date", on: "careEvent", columns: ["treeId", "date", "id"])
            try db.create(index: "careEvent_treeId_kind_date", on: "careEvent", columns: ["treeId", "kind", "date"])
            // Statistics per kind and month walk this index without touching the rows.
            try db.create(index: "careEvent_kind_date", on: "careEvent", columns: ["kind", "date"])
            try db.execute(sql: """
                CREATE TABLE careLatest (
                    treeId TEXT NOT NULL REFERENCES tree(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    date DATETIME NOT NULL,
                    PRIMARY KEY (treeId, kind)
                ) WITHOUT ROWID
                """)
            try db.create(table: "treeHealth") { t in
                t.primaryKey("treeId", .text).references("tree", onDelete: .cascade)
                t.column("status", .text).notNull()
                t.column("date", .datetime).notNull()
            }
            // Events per calendar month (UTC) and kind, and each tree's harvest per unit, kept as
            // the log changes so that statistics read a few thousand rows, not the whole log.
            try db.execute(sql: """
                CREATE TABLE careMonthly (
                    month TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (month, kind)
                ) WITHOUT ROWID
                """)
            // Triggers keep the monthly counts, also when deleting a tree deletes its events.
            try db.execute(sql: """
                CREATE TRIGGER careEvent_counted AFTER INSERT ON careEvent BEGIN
                    INSERT INTO careMonthly (month, kind, count) VALUES (substr(NEW.date, 1, 7), NEW.kind, 1)
                    ON CONFLICT (month, kind) DO UPDATE SET count = count + 1;
                END;
                CREATE TRIGGER careEvent_uncounted AFTER DELETE ON careEvent BEGIN
                    UPDATE careMonthly SET count = count - 1 WHERE month = substr(OLD.date, 1, 7) AND kind = OLD.kind;
                END;
                CREATE TRIGGER careEvent_recounted AFTER UPDATE OF date, kind ON careEvent BEGIN
                    UPDATE careMonthly SET count = count - 1 WHERE month = substr(OLD.date, 1, 7) AND kind = OLD.kind;
                    INSERT INTO careMonthly (month, kind, count) VALUES (substr(NEW.date, 1, 7), NEW.kind, 1)
                    ON CONFLICT (month, kind) DO UPDATE SET count = count + 1;
                END;
                """)
            try db.execute(sql: """
                CREATE TABLE careHarvest (
                    treeId TEXT NOT NULL REFERENCES tree(id) ON DELETE CASCADE,
                    unit TEXT NOT NULL,
                    total REAL NOT NULL,
                    events INTEGER NOT NULL,
                    PRIMARY KEY (treeId, unit)
                ) WITHOUT ROWID
                """)
            try db.create(table: "careSchedule") { t in
                t.primaryKey("id", .text)
                t.column("treeId", .text).references("tree", onDelete: .cascade)
                t.column("collectionId", .text).references("collection", onDelete: .cascade)
                t.column("kind", .text).notNull()
                t.column("everyDays", .integer).notNull().check { $0 > 0 }
                t.column("fromDay", .text).notNull()
                t.column("season", .text)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.check(sql: "(treeId IS NULL) <> (collectionId IS NULL)")
            }
            try db.execute(sql: "CREATE UNIQUE INDEX careSchedule_tree_kind ON careSchedule(treeId, kind) WHERE treeId IS NOT NULL")
            try db.execute(sql: "CREATE UNIQUE INDEX careSchedule_collection_kind ON careSchedule(collectionId, kind) WHERE collectionId IS NOT NULL")
        }
        // Photos taken for a care event. Removing the event leaves its photos with the tree.
        migrator.registerMigration("v4-care-photos") { db in
            try db.execute(sql: """
                ALTER TABLE photo ADD COLUMN careEventId TEXT REFERENCES careEvent(id) ON DELETE SET NULL;
                CREATE INDEX photo_careEventId ON photo(careEventId) WHERE careEventId IS NOT NULL;
                """)
        }
    }
}

/// A care event with its tree's species, as listings show it.
public struct CareEntry: Sendable, Equatable {
    public var event: CareEvent
    public var species: String
    public var variety: String?
    public var collectionID: UUID?
    /// Number of photos taken for the event.
    public var photoCount = 0
}

/// What a care listing shows.
public struct CareFilter: Sendable, Equatable {
    public enum Scope: Sendable, Equatable { case all, tree(UUID), collection(UUID) }
    public var scope: Scope
    public var kind: CareKind?
    /// Only events on or after this moment.
    public var since: Date?
    public var limit: Int?

    public init(scope: Scope = .all, kind: CareKind? = nil, since: Date? = nil, limit: Int? = nil) {
        self.scope = scope; self.kind = kind; self.since = since; self.limit = limit
    }
}

/// A tree's current health: the status of its latest inspection that set one.
public struct HealthRecord: Sendable, Equatable {
    public var status: HealthStatus
    public var date: Date
}

extension CareEvent {
    static let columnList = "careEvent.rowid, careEvent.id, careEvent.treeId, careEvent.kind, careEvent.date, careEvent.notes, "
        + "careEvent.quantity, careEvent.unit, careEvent.health, careEvent.who, careEvent.createdAt, careEvent.updatedAt"

    /// Column kinds, for reading back and for `trees doctor`.
    static let columns: [(String, ColumnKind)] = [
        ("id", .id), ("treeId", .id), ("kind", .nonBlankText), ("date", .date), ("notes", .optionalText), ("quantity", .optionalReal),
        ("unit", .optionalText), ("health", .optionalText), ("who", .optionalText), ("createdAt", .date), ("updatedAt", .date),
    ]

    /// What is wrong with a stored health text, or nil when it is a status.
    static func healthProblem(_ text: String) -> String? {
        HealthStatus(rawValue: text) == nil ? "'\(text.prefix(40))' is not a health status" : nil
    }

    /// Decodes a row; every value is checked, a damaged one is a `StoreError.damagedRow`.
    init(row: Row) throws {
        try self.init(checked: CheckedRow(table: "careEvent", row: row))
    }

    /// Where `columnList` puts each column.
    static let columnPositions: [String: Int32] = Dictionary(uniqueKeysWithValues: [
        "rowid", "id", "treeId", "kind", "date", "notes", "quantity", "unit", "health", "who", "createdAt", "updatedAt",
    ].enumerated().map { ($1, Int32($0)) })

    /// Decodes the row `statement` stands on, selected with `columnList` first, as `init(row:)` does.
    ///
    /// The usual row (texts without NUL, ids, dates in the store's own form, a stored kind) is read
    /// by position straight from SQLite's buffers; any other value is read again the checked way,
    /// which says what is wrong with it, or reads it as it always has. Looking every value up by
    /// name, checked, took 60% of `care list`'s time for each event.
    init(statement s: OpaquePointer) throws {
        if let fast = Self.usual(s) {
            self = fast
            return
        }
        try self.init(checked: CheckedRow(table: "careEvent", statement: s, columns: Self.columnPositions))
    }

    /// The event of the usual row, or nil for one the checked reading must look at.
    private static func usual(_ s: OpaquePointer) -> CareEvent? {
        let row = DueRow(s)
        func text(_ i: Int32) -> String?? {
            switch sqlite3_column_type(s, i) {
            case SQLITE_NULL: return .some(nil)
            case SQLITE_TEXT:
                let b = row.bytes(i)
                return StoredValue.hasNUL(b) ? nil : .some(String(decoding: b, as: UTF8.self))
            default: return nil
            }
        }
        func uuid(_ i: Int32) -> UUID? {
            sqlite3_column_type(s, i) == SQLITE_TEXT ? UUID(text: row.bytes(i)) : nil
        }
        func day(_ i: Int32) -> Date? {
            guard sqlite3_column_type(s, i) == SQLITE_TEXT, let d = BulkText.parseDate(row.bytes(i)), StorableDates.problem(d) == nil else { return nil }
            return StoredDate.normalised(d)
        }
        guard let id = uuid(1), let treeID = uuid(2), case .some(let kindText?) = text(3), let kind = CareKind(stored: kindText),
              let date = day(4), case .some(let notes) = text(5), case .some(let unit) = text(7), case .some(let healthText) = text(8),
              case .some(let who) = text(9), let created = day(10), let updated = day(11) else { return nil }
        var health: HealthStatus?
        if let healthText {
            guard let h = HealthStatus(rawValue: healthText) else { return nil }
            health = h
        }
        var quantity: CareQuantity?
        switch sqlite3_column_type(s, 6) {
        case SQLITE_NULL: break
        case SQLITE_FLOAT, SQLITE_INTEGER:
            let v = sqlite3_column_double(s, 6)
            guard v.isFinite else { return nil }
            quantity = CareQuantity(value: v, unit: unit)
        default: return nil
        }
        return CareEvent(id: id, treeID: treeID, kind: kind, date: date, notes: notes, quantity: quantity, health: health, who: who,
                         createdAt: created, updatedAt: updated)
    }

    private init(checked r: CheckedRow) throws {
        let kindText = try r.text("kind", .nonBlankText)
        var health: HealthStatus?
        if let healthText = try r.optionalText("health") {
            if let problem = Self.healthProblem(healthText) {
                throw StoreError.damagedRow(table: "careEvent", row: r.rowID, id: r.idText, column: "health", reason: problem)
            }
            health = HealthStatus(rawValue: healthText)
        }
        let unit = try r.optionalText("unit")
        self.init(id: try r.id("id"), treeID: try r.id("treeId"), kind: try CareKind(kindText), date: try r.date("date"),
                  notes: try r.optionalText("notes"), quantity: try r.optionalReal("quantity").map { CareQuantity(value: $0, unit: unit) },
                  health: health, who: try r.optionalText("who"), createdAt: try r.date("createdAt"), updatedAt: try r.date("updatedAt"))
    }
}

extension CareSchedule {
    /// Column kinds, for reading back and for `trees doctor`.
    static let columns: [(String, ColumnKind)] = [
        ("id", .id), ("treeId", .optionalID), ("collectionId", .optionalID), ("kind", .nonBlankText), ("everyDays", .integer),
        ("fromDay", .text), ("season", .optionalText), ("createdAt", .date), ("updatedAt", .date),
    ]

    /// What is wrong with a stored interval, or nil when it is 1 to `longestInterval` days.
    static func everyDaysProblem(_ n: Int64) -> String? {
        (1...Int64(longestInterval)).contains(n) ? nil : "\(n) is not a number of days from 1 to \(longestInterval)"
    }

    private static func everyDays(_ n: Int, _ r: CheckedRow) throws -> Int {
        if let problem = everyDaysProblem(Int64(n)) {
            throw StoreError.damagedRow(table: "careSchedule", row: r.rowID, id: r.idText, column: "everyDays", reason: problem)
        }
        return n
    }

    init(row: Row) throws {
        let r = CheckedRow(table: "careSchedule", row: row)
        let target: Target = try r.optionalID("treeId").map { .tree($0) } ?? .collection(try r.id("collectionId"))
        let seasonText = try r.optionalText("season")
        do {
            self.init(id: try r.id("id"), target: target, kind: try CareKind(try r.text("kind", .nonBlankText)),
                      everyDays: try Self.everyDays(try r.integer("everyDays"), r), from: try Day(parsing: try r.text("fromDay")),
                      season: try seasonText.map { text throws(CareInputError) in try Season(parsing: text) },
                      createdAt: try r.date("createdAt"), updatedAt: try r.date("updatedAt"))
        } catch let e as CareInputError {
            throw StoreError.damagedRow(table: "careSchedule", row: r.rowID, id: r.idText, column: "fromDay or season", reason: e.message)
        }
    }
}

extension StoreReader {
    // MARK: Care events

    /// Care events matching `filter`, newest first.
    public func careEntries(_ filter: CareFilter) throws -> [CareEntry] {
        var entries: [CareEntry] = []
        try forEachCareEntry(filter) { entries.append($0) }
        return entries
    }

    /// Visits the care events matching `filter`, newest first, without holding them all in memory.
    public func forEachCareEntry(_ filter: CareFilter, _ body: (CareEntry) throws -> Void) throws {
        var clauses: [String] = []
        var arguments = StatementArguments()
        switch filter.scope {
        case .all: break
        case .tree(let id):
            clauses.append("careEvent.treeId = ?"); _ = arguments.append(contentsOf: [id.storageKey])
        case .collection(let id):
            clauses.append("tree.collectionId = ?"); _ = arguments.append(contentsOf: [id.storageKey])
        }
        if let kind = filter.kind { clauses.append("careEvent.kind = ?"); _ = arguments.append(contentsOf: [kind.name]) }
        if let since = filter.since { clauses.append("careEvent.date >= ?"); _ = arguments.append(contentsOf: [StoredDate.text(since)]) }
        var sql = "SELECT \(CareEvent.columnList), tree.species AS species, tree.variety AS variety, tree.collectionId AS collectionId, "
            + "(SELECT COUNT(*) FROM photo WHERE photo.careEventId = careEvent.id) AS photoCount "
            + "FROM careEvent JOIN tree ON tree.id = careEvent.treeId"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        sql += " ORDER BY careEvent.date DESC, careEvent.id DESC"
        if let limit = filter.limit { sql += " LIMIT \(max(0, limit))" }
        // Read straight from SQLite's statement, as trees are: a log may hold millions of events.
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        let n = Int32(CareEvent.columnPositions.count)
        try eachRow(of: statement) { s in
            let row = DueRow(s)
            try body(CareEntry(event: try CareEvent(statement: s), species: row.text(n) ?? "", variety: row.text(n + 1),
                               collectionID: sqlite3_column_type(s, n + 2) == SQLITE_TEXT ? UUID(text: row.bytes(n + 2)) : nil,
                               photoCount: Int(sqlite3_column_int64(s, n + 3))))
        }
    }

    /// The care event a typed id means: its whole id, a prefix of it, or its short id.
    public func careEvent(matching typed: String) throws -> CareEvent {
        let ids = try IDPrefix.ids(in: "careEvent", matching: typed, db)
        // With each text's NUL check (`StoredValue.selection`), as a listing reads them.
        let rows = ids.isEmpty ? [] : try Row.fetchAll(db, sql: """
            SELECT \(StoredValue.selection("careEvent", CareEvent.columns)) FROM careEvent WHERE id IN (\(IDPrefix.placeholders(ids.count))) ORDER BY id
            """, arguments: StatementArguments(ids))
        switch rows.count {
        case 0: throw StoreError.unknownCareEvent(typed)
        case 1: return try CareEvent(row: rows[0])
        default:
            let events = try rows.prefix(10).map { try CareEvent(row: $0).id }
            throw StoreError.ambiguousCareEvent(prefix: typed, candidates: ShortID.distinct(events))
        }
    }

    /// The latest event of each kind for one tree, by kind.
    public func lastCare(of treeID: UUID) throws -> [CareEvent] {
        try Row.fetchAll(db, sql: """
            SELECT \(CareEvent.columnList) FROM careLatest
            JOIN careEvent ON careEvent.treeId = careLatest.treeId AND careEvent.kind = careLatest.kind AND careEvent.date = careLatest.date
            WHERE careLatest.treeId = ? ORDER BY careLatest.kind, careEvent.id DESC
            """, arguments: [treeID.storageKey]).map(CareEvent.init(row:))
            .reduce(into: [CareEvent]()) { out, e in if out.last?.kind != e.kind { out.append(e) } }
    }

    /// The tree's current health, if an inspection ever set one.
    public func health(of treeID: UUID) throws -> HealthRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT status, date FROM treeHealth WHERE treeId = ?", arguments: [treeID.storageKey]),
              let status = HealthStatus(rawValue: row["status"] ?? "") else { return nil }
        return HealthRecord(status: status, date: try CheckedRow(table: "treeHealth", row: row).date("date"))
    }

    /// Every tree's current health, for listings.
    public func healthByTree() throws -> [UUID: HealthStatus] {
        var out: [UUID: HealthStatus] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT treeId, status FROM treeHealth")
        while let row = try rows.next() {
            guard var text: String = row[0], let status = HealthStatus(rawValue: row[1] ?? "") else { continue }
            if let id = text.withUTF8({ UUID(text: $0) }) { out[id] = status }
        }
        return out
    }

    /// The current health of those of `treeIDs` that have one: looked up tree by tree for a short
    /// listing (`list --limit 20` of a whole orchard), read whole for a long one.
    public func health(ofTrees treeIDs: [UUID]) throws -> [UUID: HealthStatus] {
        guard treeIDs.count <= 2_000 else { return try healthByTree() }
        var out: [UUID: HealthStatus] = [:]
        let statement = try db.cachedStatement(sql: "SELECT status FROM treeHealth WHERE treeId = ?")
        for id in treeIDs {
            if let status = try String.fetchOne(statement, arguments: [id.storageKey]).flatMap(HealthStatus.init(rawValue:)) { out[id] = status }
        }
        return out
    }

    /// True when an inspection ever set the health of any tree (listings then have a health column).
    public func hasHealthStatus() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM treeHealth)") ?? false
    }

    /// Visits the trees `forEachTree` visits, a thousand at a time, with the health of each that
    /// has one (an indexed look a tree, none when no tree has a status): for listings of a whole
    /// store, which hold one batch at a time.
    public func forEachTreeBatch(_ filter: TreeFilter, limit: Int? = nil, _ body: ([Tree], [UUID: HealthStatus]) throws -> Void) throws {
        let anyHealth = try hasHealthStatus()
        var batch: [Tree] = []
        func handOver() throws {
            guard !batch.isEmpty else { return }
            try body(batch, anyHealth ? try health(ofTrees: batch.map(\.id)) : [:])
            batch.removeAll(keepingCapacity: true)
        }
        try forEachTree(filter, limit: limit) { t in
            batch.append(t)
            if batch.count == 1_000 { try handOver() }
        }
        try handOver()
    }

    /// The statuses inspections set on the tree, oldest first.
    public func healthHistory(of treeID: UUID) throws -> [CareEvent] {
        try Row.fetchAll(db, sql: "SELECT \(CareEvent.columnList) FROM careEvent WHERE treeId = ? AND health IS NOT NULL ORDER BY date, id",
                         arguments: [treeID.storageKey]).map(CareEvent.init(row:))
    }

    // MARK: Schedules and what is due

    /// Every schedule, trees' own first, then collections'; by kind.
    public func careSchedules() throws -> [CareSchedule] {
        try Row.fetchAll(db, sql: "SELECT rowid, * FROM careSchedule ORDER BY treeId IS NULL, kind, treeId, collectionId")
            .map(CareSchedule.init(row:))
    }

    /// The schedules set for exactly this tree or collection (not inherited ones), by kind.
    public func careSchedules(for target: CareSchedule.Target) throws -> [CareSchedule] {
        let (column, id): (String, UUID) = switch target {
        case .tree(let id): ("treeId", id)
        case .collection(let id): ("collectionId", id)
        }
        return try Row.fetchAll(db, sql: "SELECT rowid, * FROM careSchedule WHERE \(column) = ? ORDER BY kind", arguments: [id.storageKey])
            .map(CareSchedule.init(row:))
    }

    /// True when the store holds any care event or schedule.
    public func hasCareLog() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM careEvent) OR EXISTS (SELECT 1 FROM careSchedule)") ?? false
    }

    /// The schedules that apply to one tree: its own, and its collection's for kinds it has none of.
    public func careSchedules(of tree: Tree) throws -> [CareSchedule] {
        let own = try Row.fetchAll(db, sql: "SELECT rowid, * FROM careSchedule WHERE treeId = ? ORDER BY kind", arguments: [tree.id.storageKey])
            .map(CareSchedule.init(row:))
        guard let collection = tree.collectionID else { return own }
        let kinds = Set(own.map(\.kind))
        let inherited = try Row.fetchAll(db, sql: "SELECT rowid, * FROM careSchedule WHERE collectionId = ? ORDER BY kind",
                                         arguments: [collection.storageKey]).map(CareSchedule.init(row:))
        return (own + inherited.filter { !kinds.contains($0.kind) }).sorted { $0.kind < $1.kind }
    }

    /// Cares due by `today + within` days (overdue ones included), `zone` giving calendar days;
    /// a tree's own schedule of a kind stands in for its collection's.
    ///
    /// Kinds scheduled on collections are answered in one pass over the trees in scope, in the
    /// table's own order, beside the last day of each such kind for every tree, read beforehand in
    /// one pass of `careLatest`'s by-kind index: looking either up tree by tree costs a random seek
    /// per tree, several times slower on a whole orchard. Kinds scheduled only on single trees are
    /// looked up per tree. Values are read straight from SQLite's buffers.
    ///
    /// The whole orchard or a collection is read from the store's `careDue` table when it is kept
    /// for `zone` (see `CareDueSchema`), in the same order.
    public func dueCare(today: Day, within: Int, zone: TimeZone, scope: CareFilter.Scope = .all) throws -> [DueCare] {
        switch scope {
        case .all: if let kept = try keptDueCare(today: today, within: within, zone: zone, collection: nil) { return kept }
        case .collection(let id): if let kept = try keptDueCare(today: today, within: within, zone: zone, collection: id) { return kept }
        case .tree: break
        }
        return try computedDueCare(today: today, within: within, zone: zone, scope: scope)
    }

    /// `dueCare` worked out from the trees, their schedules and the last event of each kind;
    /// `within` nil for every scheduled care, however far off.
    package func computedDueCare(today: Day, within: Int?, zone: TimeZone, scope: CareFilter.Scope = .all) throws -> [DueCare] {
        let schedules = try careSchedules()
        guard !schedules.isEmpty else { return [] }
        var own: [OwnSchedule: CareSchedule] = [:]
        var sweptKinds: [String] = []
        // For each swept kind, the schedule of each collection that has one.
        var byCollection: [[UUID: CareSchedule]] = []
        for schedule in schedules {
            switch schedule.target {
            case .tree(let id): own[OwnSchedule(id: id, kind: schedule.kind.name)] = schedule
            case .collection(let id):
                if let k = sweptKinds.firstIndex(of: schedule.kind.name) {
                    byCollection[k][id] = schedule
                } else {
                    sweptKinds.append(schedule.kind.name)
                    byCollection.append([id: schedule])
                }
            }
        }
        var scopeSQL = ""
        var scopeArguments: StatementArguments = []
        switch scope {
        case .all: break
        case .tree(let id): scopeSQL = " WHERE tree.id = ?"; scopeArguments = [id.storageKey]
        case .collection(let id): scopeSQL = " WHERE tree.collectionId = ?"; scopeArguments = [id.storageKey]
        }
        var days = DayReckoner(zone: zone)
        func due(_ schedule: CareSchedule, _ treeID: UUID, _ species: String, _ variety: String?, _ collection: UUID?, _ last: Day?) -> DueCare? {
            guard let within else {
                return DueCare(treeID: treeID, species: species, variety: variety, collectionID: collection, kind: schedule.kind,
                               lastDone: last, due: schedule.nextDue(lastDone: last), today: today)
            }
            return DueCalendar.due(schedule: schedule, treeID: treeID, species: species, variety: variety, collectionID: collection,
                                   lastDone: last, today: today, within: within)
        }
        // Cares of swept kinds, in tree id order and, within a tree, kind order.
        var swept: [DueCare] = []
        if !sweptKinds.isEmpty {
            let byName = sweptKinds.indices.sorted { sweptKinds[$0] < sweptKinds[$1] }
            sweptKinds = byName.map { sweptKinds[$0] }
            byCollection = byName.map { byCollection[$0] }
            let kindCount = sweptKinds.count
            // The trees in scope, in the table's order; trees of one collection mostly come one
            // after another, so each tree's collection is looked up as a small number once per run.
            var trees: [SweptTree] = []
            var slotSchedules: [[CareSchedule?]] = [sweptKinds.map { _ in nil }]
            var slotOf: [UUID: Int32] = [:]
            var lastCollection: UUID?
            var lastSlot: Int32 = 0
            let statement = try db.makeStatement(sql: "SELECT tree.id, tree.species, tree.variety, tree.collectionId, tree.rowid FROM tree" + scopeSQL)
            try statement.setArguments(scopeArguments)
            try step(statement) { row in
                let treeID = try row.treeID()
                let collection = try row.collectionID()
                if collection != lastCollection {
                    lastCollection = collection
                    if let collection {
                        if let known = slotOf[collection] {
                            lastSlot = known
                        } else {
                            lastSlot = Int32(slotSchedules.count)
                            slotOf[collection] = lastSlot
                            slotSchedules.append(byCollection.map { $0[collection] })
                        }
                    } else {
                        lastSlot = 0
                    }
                }
                trees.append(SweptTree(id: treeID, key: TreeIDKey(treeID), species: row.text(1) ?? "", variety: row.text(2),
                                       collection: collection, slot: lastSlot))
            }
            // Put in id order, the order of `careLatest`'s by-kind index.
            let order = trees.indices.map { (key: trees[$0].key, index: Int32($0)) }.sorted { $0.key < $1.key }
            // The last day of each swept kind for the tree at each position, merged from the
            // index in one pass per kind. A tree id that is not one (damage the tree itself would
            // show) matches no tree and is passed over; an id out of order is searched for.
            var lastDays = [Int](repeating: .min, count: order.count * kindCount)
            let lasts = try db.makeStatement(sql: "SELECT treeId, date FROM careLatest WHERE kind = ?")
            for k in 0..<kindCount {
                try lasts.setArguments([sweptKinds[k]])
                var p = 0
                var previous: TreeIDKey?
                try step(lasts) { row in
                    guard sqlite3_column_type(row.s, 0) == SQLITE_TEXT, let id = UUID(text: row.bytes(0)) else { return }
                    let key = TreeIDKey(id)
                    if let previous, key < previous {
                        p = Self.firstPosition(notBefore: key, in: order)
                    } else {
                        while p < order.count && order[p].key < key { p += 1 }
                    }
                    previous = key
                    guard p < order.count, order[p].key == key, let date = try row.lastDone(column: 1) else { return }
                    lastDays[p * kindCount + k] = days.day(date).number
                }
            }
            let ownSwept = own.filter { sweptKinds.contains($0.key.kind) }
            for (p, entry) in order.enumerated() {
                let tree = trees[Int(entry.index)]
                for k in 0..<kindCount {
                    guard let schedule = (ownSwept.isEmpty ? nil : ownSwept[OwnSchedule(id: tree.id, kind: sweptKinds[k])])
                            ?? slotSchedules[Int(tree.slot)][k] else { continue }
                    let last = lastDays[p * kindCount + k]
                    if let d = due(schedule, tree.id, tree.species, tree.variety, tree.collection, last == .min ? nil : Day(last)) {
                        swept.append(d)
                    }
                }
            }
        }
        // Trees' own schedules of kinds no collection has.
        var single: [DueCare] = []
        let statement = try db.makeStatement(sql: "SELECT tree.id, tree.species, tree.variety, tree.collectionId, tree.rowid, "
            + "(SELECT date FROM careLatest WHERE treeId = tree.id AND kind = ?) FROM tree WHERE tree.id = ?"
            + scopeSQL.replacingOccurrences(of: " WHERE", with: " AND"))
        for (key, schedule) in own where !sweptKinds.contains(key.kind) {
            try statement.setArguments([key.kind, key.id.storageKey] + scopeArguments)
            try step(statement) { row in
                let last = try row.lastDone(column: 5).map { days.day($0) }
                if let d = due(schedule, try row.treeID(), row.text(1) ?? "", row.text(2), try row.collectionID(), last) { single.append(d) }
            }
        }
        return DueCalendar.byDay(DueCalendar.merged(swept, DueCalendar.byTree(single)))
    }

    /// The first position in `order` whose key is not before `key`.
    private static func firstPosition(notBefore key: TreeIDKey, in order: [(key: TreeIDKey, index: Int32)]) -> Int {
        var low = 0, high = order.count
        while low < high {
            let mid = (low + high) / 2
            if order[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Steps `statement` to its end, handing each row to `body`.
    private func step(_ statement: Statement, _ body: (DueRow) throws -> Void) throws {
        try eachRow(of: statement) { try body(DueRow($0)) }
    }

    // MARK: Statistics

    /// Number of events per kind and calendar month (`2026-05`) in `zone`, by month then kind.
    ///
    /// The store counts events per month in UTC (`careMonthly`); a month in `zone` differs from it
    /// only for events within a day of a month's first moment, so those are read through the
    /// by-kind index around each such moment and moved to the month they fall in, there.
    public func careCountsByMonth(zone: TimeZone = .gmt, collection: UUID? = nil) throws -> [(month: String, kind: String, count: Int)] {
        let rows: [Row]
        let join = collection == nil ? "" : " JOIN tree ON tree.id = careEvent.treeId AND tree.collectionId = ?"
        let scope: [any DatabaseValueConvertible] = collection.map { [$0.storageKey] } ?? []
        if collection != nil {
            rows = try Row.fetchAll(db, sql: """
                SELECT substr(careEvent.date, 1, 7) AS month, careEvent.kind AS kind, COUNT(*) AS n FROM careEvent\(join)
                GROUP BY month, kind
                """, arguments: StatementArguments(scope))
        } else {
            rows = try Row.fetchAll(db, sql: "SELECT month, kind, count AS n FROM careMonthly WHERE count > 0")
        }
        struct Key: Hashable { var month: String; var kind: String }
        var counts: [Key: Int] = [:]
        var monthsOfKind: [String: Set<String>] = [:]
        for row in rows {
            let key = Key(month: row["month"] ?? "", kind: row["kind"] ?? "")
            counts[key, default: 0] += row["n"] ?? 0
            monthsOfKind[key.kind, default: []].insert(key.month)
        }
        if !["GMT", "UTC", "Etc/UTC", "Etc/GMT"].contains(zone.identifier) {
            var days = DayReckoner(zone: zone)
            let near = try db.makeStatement(sql: """
                SELECT careEvent.date FROM careEvent\(join) WHERE careEvent.kind = ? AND careEvent.date >= ? AND careEvent.date <= ?
                """)
            // No zone is more than 26 hours from UTC.
            let reach = 27.0 * 3_600
            let (earliest, latest) = (Double(StorableDates.earliestMilliseconds) / 1000, Double(StorableDates.latestMilliseconds) / 1000)
            for (kind, months) in monthsOfKind {
                var firsts = Set<Int>()
                for month in months {
                    guard let (year, number) = Self.monthFields(month) else { continue }
                    firsts.insert(CivilDate.days(year: year, month: number, day: 1))
                    firsts.insert(number == 12 ? CivilDate.days(year: year + 1, month: 1, day: 1) : CivilDate.days(year: year, month: number + 1, day: 1))
                }
                for first in firsts.sorted() {
                    let moment = Double(first) * 86_400
                    let low = max(moment - reach, earliest), high = min(moment + reach, latest)
                    guard low <= high else { continue }
                    try near.setArguments(StatementArguments(scope + [kind, StoredDate.text(Date(timeIntervalSince1970: low)),
                                                                      StoredDate.text(Date(timeIntervalSince1970: high))]))
                    let cursor = try DatabaseValue.fetchCursor(near)
                    while let value = try cursor.next() {
                        guard case .success(let date) = StoredValue.date(value), let text = StoredValue.text(value) else { continue }
                        let f = days.day(date).fields
                        let local = Self.monthText(year: f.year, month: f.month)
                        let utc = String(text.prefix(7))
                        guard local != utc else { continue }
                        counts[Key(month: utc, kind: kind), default: 0] -= 1
                        counts[Key(month: local, kind: kind), default: 0] += 1
                    }
                }
            }
        }
        return counts.filter { $0.value > 0 }
            .map { (month: $0.key.month, kind: $0.key.kind, count: $0.value) }
            .sorted { Self.monthOrder($0.month, $1.month) ?? ($0.kind < $1.kind) }
    }

    /// `2026-05` as its year and month; nil for anything else.
    private static func monthFields(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let y = Int(parts[0]), let m = Int(parts[1]), (1...12).contains(m)
        else { return nil }
        return (y, m)
    }

    /// `2026-05`; a year before 0000 as `-0001-12`.
    private static func monthText(year: Int, month: Int) -> String {
        let digits = String(abs(year))
        return (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + (month < 10 ? "-0" : "-") + String(month)
    }

    /// True when month `a` comes before `b`, false when after, nil when they are the same month;
    /// years as numbers, so `-0001-12` and `10000-01` (local months of the first and last stored
    /// moments) take their places.
    private static func monthOrder(_ a: String, _ b: String) -> Bool? {
        guard a != b else { return nil }
        func key(_ m: String) -> (Int, Int)? {
            let negative = m.hasPrefix("-")
            let parts = m.dropFirst(negative ? 1 : 0).split(separator: "-")
            guard parts.count == 2, let y = Int(parts[0]), let n = Int(parts[1]) else { return nil }
            return (negative ? -y : y, n)
        }
        guard let x = key(a), let y = key(b) else { return a < b }
        return x < y
    }

    /// Harvest totals per unit, grouped by variety or by collection: (group, unit, total, events).
    public func harvestTotals(byCollection: Bool, collection: UUID? = nil) throws -> [(group: String?, unit: String?, total: Double, events: Int)] {
        let group = byCollection ? "collection.name" : "tree.variety"
        let rows = try Row.fetchAll(db, sql: """
            SELECT \(group) AS g, careHarvest.unit AS unit, SUM(careHarvest.total) AS total, SUM(careHarvest.events) AS n
            FROM careHarvest JOIN tree ON tree.id = careHarvest.treeId
            LEFT JOIN collection ON collection.id = tree.collectionId
            \(collection == nil ? "" : "WHERE tree.collectionId = ?")
            GROUP BY g, unit ORDER BY g IS NULL, g COLLATE NOCASE, unit
            """, arguments: StatementArguments(collection.map { [$0.storageKey] } ?? []))
        return rows.map { row in
            let unit: String = row["unit"] ?? ""
            return (group: row["g"], unit: unit.isEmpty ? nil : unit, total: row["total"] ?? 0, events: row["n"] ?? 0)
        }
    }

    /// Trees per current health status.
    public func healthCounts(collection: UUID? = nil) throws -> [(status: HealthStatus, count: Int)] {
        let rows = try collection.map { c in
            try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM treeHealth JOIN tree ON tree.id = treeHealth.treeId WHERE tree.collectionId = ? GROUP BY status",
                             arguments: [c.storageKey])
        } ?? Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM treeHealth GROUP BY status")
        let counts = Dictionary(uniqueKeysWithValues: rows.compactMap { r -> (HealthStatus, Int)? in
            guard let s = HealthStatus(rawValue: r["status"] ?? "") else { return nil }
            return (s, r["n"] ?? 0)
        })
        return HealthStatus.allCases.compactMap { s in counts[s].map { (status: s, count: $0) } }
    }
}

extension StoreWriter {
    // MARK: Care events

    /// Records a care event for a tree that exists.
    public func insert(_ event: CareEvent) throws {
        try Self.check(event)
        guard try treeExists(event.treeID) else { throw StoreError.unknownTree(event.treeID.storageKey) }
        try db.cachedStatement(sql: Self.insertCareSQL).execute(arguments: StatementArguments(Self.values(event)))
        try refreshCare(of: event.treeID, kind: event.kind)
    }

    /// Records many care events (imports, generated stores); each tree must exist.
    ///
    /// The last event of each kind and the health are brought up to date once at the end, for the
    /// trees and kinds the batch touched, each through the indexes (not by a pass over the log).
    /// With `skippingExisting`, an event whose id is already stored is left as it is. Returns the
    /// number of events stored.
    @discardableResult
    public func insert(careEvents events: [CareEvent], skippingExisting: Bool = false) throws -> Int {
        let insert = try db.cachedStatement(sql: skippingExisting ? Self.insertCareSQL.replacingOccurrences(of: "INSERT", with: "INSERT OR IGNORE")
                                                                  : Self.insertCareSQL)
        try beginTouchingCare()
        let touch = try db.cachedStatement(sql: "INSERT OR IGNORE INTO temp.careTouched (treeId, kind) VALUES (?, ?)")
        var stored = 0
        for event in events {
            try Self.check(event)
            guard try treeExists(event.treeID) else { throw StoreError.unknownTree(event.treeID.storageKey) }
            try insert.execute(arguments: StatementArguments(Self.values(event)))
            guard db.changesCount > 0 else { continue }
            stored += 1
            try touch.execute(arguments: [event.treeID.storageKey, event.kind.name])
        }
        try refreshTouchedCare()
        return stored
    }

    /// Starts a batch of care changes: the (tree, kind) pairs it touches go into `temp.careTouched`.
    func beginTouchingCare() throws {
        try db.execute(sql: """
            CREATE TEMP TABLE IF NOT EXISTS careTouched (treeId TEXT NOT NULL, kind TEXT NOT NULL, PRIMARY KEY (treeId, kind)) WITHOUT ROWID;
            DELETE FROM temp.careTouched;
            """)
    }

    /// Brings the last care of each kind, the health and the harvest totals up to date for the
    /// pairs in `temp.careTouched`, each through the indexes (not by a pass over the log), and
    /// empties it.
    func refreshTouchedCare() throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO careLatest (treeId, kind, date)
            SELECT t.treeId, t.kind, (SELECT MAX(e.date) FROM careEvent e WHERE e.treeId = t.treeId AND e.kind = t.kind)
            FROM temp.careTouched t WHERE EXISTS (SELECT 1 FROM careEvent e WHERE e.treeId = t.treeId AND e.kind = t.kind);
            DELETE FROM careLatest WHERE (treeId, kind) IN (SELECT t.treeId, t.kind FROM temp.careTouched t)
                AND NOT EXISTS (SELECT 1 FROM careEvent e WHERE e.treeId = careLatest.treeId AND e.kind = careLatest.kind);
            DELETE FROM treeHealth WHERE treeId IN (SELECT treeId FROM temp.careTouched);
            INSERT INTO treeHealth (treeId, status, date)
            SELECT e.treeId, e.health, e.date FROM (SELECT DISTINCT treeId FROM temp.careTouched) t
            JOIN careEvent e ON e.id = (SELECT x.id FROM careEvent x WHERE x.treeId = t.treeId AND x.health IS NOT NULL
                                        ORDER BY x.date DESC, x.id DESC LIMIT 1);
            DELETE FROM careHarvest WHERE treeId IN (SELECT treeId FROM temp.careTouched WHERE kind = 'harvest');
            INSERT INTO careHarvest (treeId, unit, total, events)
            SELECT e.treeId, COALESCE(e.unit, ''), SUM(e.quantity), COUNT(*) FROM temp.careTouched t
            JOIN careEvent e ON e.treeId = t.treeId AND e.kind = 'harvest'
            WHERE t.kind = 'harvest' AND e.quantity IS NOT NULL GROUP BY e.treeId, COALESCE(e.unit, '');
            DELETE FROM temp.careTouched;
            """)
    }

    /// Rebuilds `careLatest` and `treeHealth` from the whole log.
    public func rebuildCareSummaries() throws {
        // What is due is built again from these by the next `due` (emptied first, so that no
        // trigger marks its rows stale one by one).
        try resetDueCare()
        try db.execute(sql: """
            DELETE FROM careLatest;
            INSERT INTO careLatest (treeId, kind, date) SELECT treeId, kind, MAX(date) FROM careEvent GROUP BY treeId, kind;
            DELETE FROM treeHealth;
            INSERT INTO treeHealth (treeId, status, date)
            SELECT treeId, health, date FROM (
                SELECT treeId, health, date, ROW_NUMBER() OVER (PARTITION BY treeId ORDER BY date DESC, id DESC) AS n
                FROM careEvent WHERE health IS NOT NULL
            ) WHERE n = 1;
            DELETE FROM careMonthly;
            INSERT INTO careMonthly (month, kind, count) SELECT substr(date, 1, 7), kind, COUNT(*) FROM careEvent GROUP BY 1, 2;
            DELETE FROM careHarvest;
            INSERT INTO careHarvest (treeId, unit, total, events)
            SELECT treeId, COALESCE(unit, ''), SUM(quantity), COUNT(*) FROM careEvent
            WHERE kind = 'harvest' AND quantity IS NOT NULL GROUP BY treeId, COALESCE(unit, '');
            """)
    }

    static let insertCareSQL = """
        INSERT INTO careEvent (id, treeId, kind, date, notes, quantity, unit, health, who, createdAt, updatedAt)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Replaces a stored event (same id) with `event`, stamping its update time.
    @discardableResult
    public func update(_ event: CareEvent) throws -> CareEvent {
        var e = event
        e.updatedAt = now
        try Self.check(e)
        let before = try reader.careEvent(matching: e.id.storageKey)
        try db.execute(sql: """
            UPDATE careEvent SET treeId = ?, kind = ?, date = ?, notes = ?, quantity = ?, unit = ?, health = ?, who = ?,
            createdAt = ?, updatedAt = ? WHERE id = ?
            """, arguments: StatementArguments(Array(Self.values(e).dropFirst()) + [e.id.storageKey]))
        try refreshCare(of: before.treeID, kind: before.kind)
        if before.kind != e.kind || before.treeID != e.treeID { try refreshCare(of: e.treeID, kind: e.kind) }
        return e
    }

    /// Deletes a care event; returns it.
    @discardableResult
    public func deleteCareEvent(_ id: UUID) throws -> CareEvent {
        let event = try reader.careEvent(matching: id.storageKey)
        try db.execute(sql: "DELETE FROM careEvent WHERE id = ?", arguments: [id.storageKey])
        try refreshCare(of: event.treeID, kind: event.kind)
        return event
    }

    /// Sets (or replaces) the schedule of `schedule.kind` for its tree or collection.
    public func setSchedule(_ schedule: CareSchedule) throws {
        let (tree, collection): (String?, String?) = switch schedule.target {
        case .tree(let id): (id.storageKey, nil)
        case .collection(let id): (nil, id.storageKey)
        }
        if let problem = CareSchedule.everyDaysProblem(Int64(schedule.everyDays)) {
            throw StoreError.unstorable("the schedule's interval: \(problem)")
        }
        // The same schedule again (an import of the same file) leaves the row as it is.
        if try reader.careSchedules(for: schedule.target).contains(schedule) { return }
        try db.execute(sql: "DELETE FROM careSchedule WHERE kind = ? AND (treeId = ? OR collectionId = ?)",
                       arguments: [schedule.kind.name, tree, collection])
        try db.execute(sql: """
            INSERT INTO careSchedule (id, treeId, collectionId, kind, everyDays, fromDay, season, createdAt, updatedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [schedule.id.storageKey, tree, collection, schedule.kind.name, schedule.everyDays,
                             schedule.from.description, schedule.season?.description,
                             StoredDate.text(schedule.createdAt), StoredDate.text(schedule.updatedAt)])
    }

    /// Removes the schedule of `kind` for a tree or collection; false when there was none.
    public func removeSchedule(_ target: CareSchedule.Target, kind: CareKind) throws -> Bool {
        let (column, id): (String, UUID) = switch target {
        case .tree(let id): ("treeId", id)
        case .collection(let id): ("collectionId", id)
        }
        try db.execute(sql: "DELETE FROM careSchedule WHERE \(column) = ? AND kind = ?", arguments: [id.storageKey, kind.name])
        return db.changesCount > 0
    }

    /// Brings the last care, health and harvest totals up to date for one tree and kind: the batch
    /// refresh over one pair, so that both are one definition.
    func refreshCare(of treeID: UUID, kind: CareKind) throws {
        try beginTouchingCare()
        try db.execute(sql: "INSERT INTO temp.careTouched (treeId, kind) VALUES (?, ?)", arguments: [treeID.storageKey, kind.name])
        try refreshTouchedCare()
    }

    static func values(_ e: CareEvent) -> [(any DatabaseValueConvertible)?] {
        [e.id.storageKey, e.treeID.storageKey, e.kind.name, StoredDate.text(e.date), e.notes, e.quantity?.value,
         e.quantity?.unit, e.health?.rawValue, e.who, StoredDate.text(e.createdAt), StoredDate.text(e.updatedAt)]
    }

    static func check(_ e: CareEvent) throws {
        try checkDate(e.date, "the care event's date")
        try checkDate(e.createdAt, "the care event's creation time")
        try checkDate(e.updatedAt, "the care event's update time")
        if let q = e.quantity, !q.value.isFinite { throw StoreError.unstorable("quantity \(q.value): not a finite number") }
    }
}

/// A row read straight from SQLite's buffers: of the due query (tree id, species, variety,
/// collection id, rowid, then the last day of each kind asked for) or of `careDue`. A damaged value
/// is reported as the checked reading says.
struct DueRow {
    let s: OpaquePointer
    init(_ s: OpaquePointer) { self.s = s }

    func bytes(_ i: Int32) -> UnsafeBufferPointer<UInt8> {
        let p = sqlite3_column_text(s, i)
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(s, i)))
    }

    /// The value's bytes as text; nil for NULL. (Asking the text first saves asking the type.)
    func optionalBytes(_ i: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let p = sqlite3_column_text(s, i) else { return nil }
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(s, i)))
    }

    func text(_ i: Int32) -> String? {
        sqlite3_column_type(s, i) == SQLITE_TEXT ? String(decoding: bytes(i), as: UTF8.self) : nil
    }

    func treeID() throws -> UUID {
        if sqlite3_column_type(s, 0) == SQLITE_TEXT, let id = UUID(text: bytes(0)) { return id }
        throw damaged(0, "id", .id, table: "tree", row: sqlite3_column_int64(s, 4))
    }

    func collectionID() throws -> UUID? {
        switch sqlite3_column_type(s, 3) {
        case SQLITE_NULL: return nil
        case SQLITE_TEXT: if let id = UUID(text: bytes(3)) { return id }
        default: break
        }
        throw damaged(3, "collectionId", .optionalID, table: "tree", row: sqlite3_column_int64(s, 4))
    }

    func lastDone(column i: Int32) throws -> Date? {
        switch sqlite3_column_type(s, i) {
        case SQLITE_NULL: return nil
        case SQLITE_TEXT: if let d = BulkText.parseDate(bytes(i)) { return d }
        default: break
        }
        switch StoredValue.date(DatabaseValue(sqliteStatement: s, index: i)) {
        case .success(let d): return d
        case .failure(let p):
            throw StoreError.damagedRow(table: "careLatest", row: 0, id: text(0), column: "date", reason: p.reason)
        }
    }

    /// An id of `careDue` (a table without rowids).
    func id(_ i: Int32, _ column: String) throws -> UUID {
        // Only a text of 36 bytes reads as an id, so the type need not be asked first.
        if let bytes = optionalBytes(i), let id = UUID(text: bytes) { return id }
        throw damaged(i, column, .id, table: "careDue")
    }

    /// The day numbers `careDue` can hold: the local day of any date a store keeps, in any time
    /// zone (a day either side of the span in UTC), and a due day up to the longest interval and a
    /// year's wait for a season after the last of them.
    static let dayNumbers: ClosedRange<Int64> = {
        let first = StorableDates.earliestMilliseconds / 86_400_000 - 2
        let last = StorableDates.latestMilliseconds / 86_400_000 + 2 + Int64(CareSchedule.longestInterval) + 366
        return first...last
    }()

    /// A day number of `careDue`.
    func day(_ i: Int32, _ column: String) throws -> Int {
        guard sqlite3_column_type(s, i) == SQLITE_INTEGER else { throw damaged(i, column, .integer, table: "careDue") }
        let n = sqlite3_column_int64(s, i)
        guard Self.dayNumbers.contains(n) else {
            throw StoreError.damagedRow(table: "careDue", row: 0, id: text(0), column: column, reason: "day number \(n) is out of range")
        }
        return Int(n)
    }

    func optionalDay(_ i: Int32, _ column: String) throws -> Day? {
        sqlite3_column_type(s, i) == SQLITE_NULL ? nil : Day(try day(i, column))
    }

    func damaged(_ i: Int32, _ column: String, _ kind: ColumnKind, table: String, row: Int64 = 0) -> StoreError {
        let reason: String
        if case .failure(let p) = StoredValue.check(DatabaseValue(sqliteStatement: s, index: i), as: kind) { reason = p.reason } else { reason = "unreadable value" }
        return .damagedRow(table: table, row: row, id: text(0), column: column, reason: reason)
    }
}

/// A tree met by `dueCare`'s sweep.
private struct SweptTree {
    var id: UUID
    var key: TreeIDKey
    var species: String
    var variety: String?
    var collection: UUID?
    /// Which collection's schedules apply: 0 for none.
    var slot: Int32
}

/// A schedule's target (a tree or a collection) and kind.
private struct OwnSchedule: Hashable {
    var id: UUID
    var kind: String
}
