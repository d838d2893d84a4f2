import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// One problem found in a store by `examine()`: a damaged value, a reference to a row that is gone,
/// or damage SQLite itself reports.
public struct StoreFinding: Sendable, Equatable {
    /// The table (`tree`, `collection`, `photo`, `treeHistory`, `preference`), or `database` for
    /// SQLite's own integrity check.
    public var table: String
    /// SQLite's row id, when the finding is about one row.
    public var row: Int64?
    /// The row's `id` text (or the preference key), when it has one.
    public var id: String?
    /// The column, when the finding is about one value.
    public var column: String?
    /// What is wrong.
    public var reason: String
    /// What `repair` does about it; nil when it cannot be mended (`repair(removingUnrepairable:)`
    /// can remove the row instead).
    public var remedy: String?
    /// The command that puts back by hand what repairing clears or removes, when there is one
    /// (`trees schedule set 5e5f9695 water --every DAYS` for a damaged schedule).
    public var command: String?
}

/// What `repair` did.
public struct StoreRepairReport: Sendable, Equatable {
    /// Everything found before repairing.
    public var findings: [StoreFinding]
    /// Findings mended.
    public var mended: Int
    /// Rows removed because they could not be mended (only when asked).
    public var removed: Int
    /// Findings left as they were.
    public var left: Int
}

extension TreeStore {
    /// Every damaged value and dangling reference in the store, and SQLite's own integrity
    /// findings, without changing anything.
    public func examine() throws -> [StoreFinding] {
        try read { reader in try StoreDoctor(db: reader.db, now: now()).scan().map(\.finding) }
    }

    /// Mends what can be mended, in one transaction: a damaged date takes its row's other date
    /// (or the current time), a damaged optional value is cleared, a blank species becomes
    /// "Unknown", a blank collection name gets a made-up unique name, a reference to a row that
    /// is gone is cleared (or, for a photo or history line, removed). Every mended tree gets a
    /// line in its history saying what was there. Rows that cannot be mended (a damaged id or
    /// position) are removed only when `removingUnrepairable` is true.
    public func repair(removingUnrepairable: Bool) throws -> StoreRepairReport {
        try write { w in
            let doctor = StoreDoctor(db: w.db, now: w.now)
            let found = try doctor.scan()
            var mended = 0, removed = 0, left = 0
            var removedRows = Set<String>()
            for item in found {
                let key = "\(item.finding.table)/\(item.finding.row ?? -1)"
                if removedRows.contains(key) { continue }
                if let action = item.action {
                    try doctor.apply(action, for: item.finding)
                    mended += 1
                } else if removingUnrepairable, let row = item.finding.row, item.finding.table != "database" {
                    try w.db.execute(sql: "DELETE FROM \(item.finding.table) WHERE rowid = ?", arguments: [row])
                    removedRows.insert(key)
                    removed += 1
                } else {
                    left += 1
                }
            }
            // The last event of each kind, health, monthly counts and harvests follow the mended log.
            let rebuild = found.contains { if case .rebuildCareSummaries? = $0.action { true } else { false } }
            if rebuild || found.contains(where: { $0.finding.table == "careEvent" && (mended + removed) > 0 }) {
                try w.rebuildCareSummaries()
            }
            // What is due follows them and the schedules: built again whole, or left for `due` to build.
            if found.contains(where: { if case .rebuildDueCare? = $0.action { true } else { false } }) || (rebuild && (mended + removed) > 0) {
                if let identifier = try w.reader.dueCareZone() {
                    if let zone = TimeZone(identifier: identifier) { try w.rebuildDueCare(zone: zone) } else { try w.resetDueCare() }
                }
            }
            return StoreRepairReport(findings: found.map(\.finding), mended: mended, removed: removed, left: left)
        }
    }
}

/// Scans and mends a store's rows with the same column checks every read uses.
struct StoreDoctor {
    let db: Database
    let now: Date

    enum Action {
        /// Set one column of one row, with a history line when the row is a tree.
        case set(table: String, row: Int64, column: String, value: DatabaseValue, note: String)
        case delete(table: String, row: Int64)
        /// Build the care log's summaries again from the log (done once, after the other mending).
        case rebuildCareSummaries
        /// Build the table of what is due again (after the summaries, from which it is worked out).
        case rebuildDueCare
    }

    struct Item {
        var finding: StoreFinding
        var action: Action?
    }

    static let tables: [(name: String, columns: [(String, ColumnKind)])] = [
        ("collection", TreeCollection.columns),
        ("tree", Array(zip(Tree.storageColumns, Tree.columnKinds))),
        ("photo", Photo.columns),
        ("treeHistory", [("treeId", .id), ("changedAt", .date), ("change", .text)]),
        ("preference", [("key", .text), ("value", .text)]),
        ("careEvent", CareEvent.columns),
        ("careSchedule", CareSchedule.columns),
    ]

    func scan() throws -> [Item] {
        var items: [Item] = []
        // The tree table's CHECKs (a correction age, vertical accuracy or antenna height of 0 or
        // more) are a part of its column checks below, which name the row and column and mend the
        // value: SQLite's line saying one failed adds nothing to them.
        let check = try DatabaseValue.fetchAll(db, sql: "PRAGMA quick_check").compactMap(StoredValue.text)
            .filter { $0 != "CHECK constraint failed in tree" }
        if !check.isEmpty && check != ["ok"] {
            for line in check.prefix(100) {
                items.append(Item(finding: StoreFinding(table: "database", reason: "SQLite integrity check: \(line)", remedy: nil)))
            }
        }
        for (table, columns) in Self.tables {
            // Values straight from SQLite's statement, by position; a row with a damaged value is
            // then copied for the findings, which read it by name.
            let statement = try db.makeStatement(sql: "SELECT \(StoredValue.selection(table, columns)) FROM \(table) ORDER BY rowid")
            let names = statement.columnNames
            let layout = RowLayout(names, columns: columns)
            let s = statement.sqliteStatement
            defer { sqlite3_reset(s) }
            while true {
                let rc = sqlite3_step(s)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw StoreError.sqlite(connection: db.sqliteConnection) }
                items += examine(value: { DatabaseValue(sqliteStatement: s, index: CInt($0)) }, table: table, columns: columns, layout: layout) {
                    Row(Dictionary(names.enumerated().map { ($1, DatabaseValue(sqliteStatement: s, index: CInt($0)) as (any DatabaseValueConvertible)?) },
                                   uniquingKeysWith: { first, _ in first }))
                }
            }
        }
        items += try danglingReferences()
        items += try collectionsOfOneName(besides: items)
        // Summaries over damaged events would disagree with them trivially; mending those rebuilds them anyway.
        if !items.contains(where: { $0.finding.table == "careEvent" }) { items += try careSummaryDisagreements() }
        // What is due is worked out from the schedules and the summaries: only once they are sound.
        if !items.contains(where: { ["careEvent", "careSchedule", "careLatest", "tree"].contains($0.finding.table) }) {
            items += try dueCareDisagreements()
        }
        return items
    }

    /// The rows of the table of what is due (`careDue`, kept for one time zone once `due` has run
    /// in it) that disagree with what the schedules and the last care of each kind make due: kept
    /// by every write, but a store written by hand or by a faulty program can leave them behind,
    /// and `due` would list them as they are. Repairing builds the table again.
    func dueCareDisagreements() throws -> [Item] {
        guard let identifier = try String.fetchOne(db, sql: "SELECT zone FROM careDueState") else { return [] }
        guard let zone = TimeZone(identifier: identifier) else {
            return [Item(finding: StoreFinding(table: "careDue", reason: "what is due is kept for the time zone '\(identifier)', which this system does not know",
                                               remedy: "emptied ('trees due' builds it again)"),
                         action: .rebuildDueCare)]
        }
        struct Due: Equatable { var due: Int64?; var last: Int64?; var species: String?; var variety: String?; var collection: String? }
        var expected: [String: Due] = [:]
        for d in try StoreReader(db: db).computedDueCare(today: Day(0), within: nil, zone: zone) {
            expected[d.treeID.storageKey + " " + d.kind.name] = Due(due: Int64(d.due.number), last: d.lastDone.map { Int64($0.number) }, species: d.species,
                                                                     variety: d.variety, collection: d.collectionID?.storageKey)
        }
        var differing = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT treeId, kind, dueDay, lastDay, species, variety, collectionId FROM careDue")
        while let r = try rows.next() {
            let key = (StoredValue.text(r[0]) ?? "") + " " + (StoredValue.text(r[1]) ?? "")
            let kept = Due(due: (r[2] as DatabaseValue).storage.int64Value, last: (r[3] as DatabaseValue).storage.int64Value,
                           species: StoredValue.text(r[4]), variety: StoredValue.text(r[5]), collection: StoredValue.text(r[6]))
            if expected.removeValue(forKey: key) != kept { differing += 1 }
        }
        // Marks left by a write that did not finish its work, and rows missing from the table.
        let stale = try Int.fetchOne(db, sql: "SELECT count(*) FROM careDueStale") ?? 0
        let n = differing + expected.count + stale
        guard n > 0 else { return [] }
        return [Item(finding: StoreFinding(table: "careDue", reason: "\(n) row\(n == 1 ? "" : "s") of what is due disagree\(n == 1 ? "s" : "") with the schedules and the care log",
                                           remedy: "built again from them"),
                     action: .rebuildDueCare)]
    }

    /// The care log's summaries that no longer agree with it, as a count of what differs (a tree
    /// and kind, a tree, a month and kind, a tree and unit). They are kept beside the log by
    /// every change to it (for `show`, `due`, `stats` and listings); a store written by hand or
    /// by a faulty program can leave them behind. Repairing builds them again from the log.
    func careSummaryDisagreements() throws -> [Item] {
        // Each count walks the log's indexes (2,000,000 events: about 7 s in all), not the table.
        let monthly = """
            SELECT (SELECT count(*) FROM (SELECT substr(date, 1, 7) AS month, kind, COUNT(*) AS n FROM careEvent GROUP BY 1, 2) l
                    LEFT JOIN careMonthly m ON m.month = l.month AND m.kind = l.kind WHERE m.count IS NOT l.n)
                 + (SELECT count(*) FROM careMonthly m WHERE m.count <> 0 AND NOT EXISTS (
                    SELECT 1 FROM careEvent e WHERE e.kind = m.kind AND substr(e.date, 1, 7) = m.month))
            """
        let checks: [(table: String, what: String, count: String)] = [
            ("careLatest", "each tree's last care of each kind", """
                SELECT (SELECT count(*) FROM (SELECT treeId, kind, MAX(date) AS d FROM careEvent GROUP BY treeId, kind) l
                        LEFT JOIN careLatest c ON c.treeId = l.treeId AND c.kind = l.kind WHERE c.date IS NOT l.d)
                     + (SELECT count(*) FROM careLatest c WHERE NOT EXISTS (SELECT 1 FROM careEvent e WHERE e.treeId = c.treeId AND e.kind = c.kind))
                """),
            ("treeHealth", "each tree's health, from its last inspection", """
                SELECT (SELECT count(*) FROM treeHealth h
                        WHERE (SELECT x.health || ' ' || x.date FROM careEvent x WHERE x.treeId = h.treeId AND x.health IS NOT NULL
                               ORDER BY x.date DESC, x.id DESC LIMIT 1) IS NOT h.status || ' ' || h.date)
                     + (SELECT count(*) FROM tree t WHERE NOT EXISTS (SELECT 1 FROM treeHealth h WHERE h.treeId = t.id)
                        AND EXISTS (SELECT 1 FROM careEvent x WHERE x.treeId = t.id AND x.health IS NOT NULL))
                """),
            // Each month's count against its range of the (kind, date) index, and the total: when
            // both agree every month does; otherwise the rows that differ are counted.
            ("careMonthly", "the care counted each month", """
                SELECT CASE WHEN (SELECT total(count) FROM careMonthly) = (SELECT count(*) FROM careEvent)
                    AND NOT EXISTS (SELECT 1 FROM careMonthly m WHERE length(m.month) <> 7 OR m.count <> (
                        SELECT count(*) FROM careEvent e WHERE e.kind = m.kind AND e.date >= m.month AND e.date < m.month || '~'))
                    THEN 0 ELSE (\(monthly)) END
                """),
            // Totals are sums of decimals: the same sum in another order may differ in its last bits.
            ("careHarvest", "each tree's harvest totals", """
                WITH l AS (SELECT treeId, COALESCE(unit, '') AS unit, SUM(quantity) AS total, COUNT(*) AS events
                           FROM careEvent WHERE kind = 'harvest' AND quantity IS NOT NULL GROUP BY 1, 2)
                SELECT (SELECT count(*) FROM careHarvest h WHERE NOT EXISTS (
                            SELECT 1 FROM l WHERE l.treeId = h.treeId AND l.unit = h.unit AND l.events = h.events
                            AND abs(l.total - h.total) <= 1e-9 * max(1, abs(h.total))))
                     + (SELECT count(*) FROM l WHERE NOT EXISTS (SELECT 1 FROM careHarvest h WHERE h.treeId = l.treeId AND h.unit = l.unit))
                """),
        ]
        return try checks.compactMap { check in
            let n = try Int.fetchOne(db, sql: check.count) ?? 0
            guard n > 0 else { return nil }
            return Item(finding: StoreFinding(table: check.table, reason: "\(n) row\(n == 1 ? "" : "s") of \(check.what) disagree\(n == 1 ? "s" : "") with the care log",
                                              remedy: "built again from the care log"),
                        action: .rebuildCareSummaries)
        }
    }

    /// Where `StoredValue.selection`'s columns are in a row of it, found once a table: looking each
    /// value up by name (as GRDB's `Row` does, folding case and hashing the name) took most of the
    /// time `doctor` spent on a million trees.
    struct RowLayout {
        struct Column {
            var name: String
            var kind: ColumnKind
            /// Nil when the row has no such column (its value is read as NULL, as by name).
            var index: Int?
            /// The index of its `nul:COLUMN` (text columns).
            var nul: Int?
        }

        var columns: [Column]
        /// The indexes of the columns the care log reads further (health, fromDay, season, everyDays).
        var named: [String: Int]

        init(_ names: [String], columns: [(String, ColumnKind)]) {
            var first: [String: Int] = [:]
            for (i, name) in names.enumerated() where first[name.lowercased()] == nil { first[name.lowercased()] = i }
            self.columns = columns.map { name, kind in
                Column(name: name, kind: kind, index: first[name.lowercased()], nul: first["nul:\(name)".lowercased()])
            }
            named = first
        }

        init(_ row: Row, columns: [(String, ColumnKind)]) {
            self.init(Array(row.columnNames), columns: columns)
        }
    }

    func examine(row: Row, table: String, columns: [(String, ColumnKind)]) -> [Item] {
        examine(value: { row[$0] as DatabaseValue }, table: table, columns: columns, layout: RowLayout(row, columns: columns)) { row }
    }

    /// The findings of one row, whose values `value` gives by position (as `layout` finds them);
    /// `copy` gives the whole row when one is damaged.
    func examine(value: (Int) -> DatabaseValue, table: String, columns: [(String, ColumnKind)], layout: RowLayout,
                 copy: () -> Row) -> [Item] {
        var problems: [String: String] = [:]
        for c in layout.columns {
            let stored = c.index.map(value) ?? .null
            if c.kind.holdsText, c.nul.map({ !value($0).isNull }) ?? false {
                problems[c.name] = StoredValue.nulReason
            } else if c.kind.holdsText, case .blob(let d) = stored.storage, d.contains(0) {
                problems[c.name] = StoredValue.nulReason
            } else if case .failure(let p) = StoredValue.check(stored, as: c.kind) {
                problems[c.name] = p.reason
            }
        }
        func text(_ column: String) -> String? {
            layout.named[column.lowercased()].flatMap { StoredValue.text(value($0)) }
        }
        // Text the care log reads as a status, a day or a season.
        if table == "careEvent", problems["health"] == nil, let h = text("health"), let p = CareEvent.healthProblem(h) {
            problems["health"] = p
        }
        if table == "careSchedule" {
            if problems["fromDay"] == nil, let d = text("fromDay"), (try? Day(parsing: d)) == nil {
                problems["fromDay"] = "'\(d.prefix(40))' is not a YYYY-MM-DD day"
            }
            if problems["season"] == nil, let s = text("season"), (try? Season(parsing: s)) == nil {
                problems["season"] = "'\(s.prefix(40))' is not a MM-DD..MM-DD season"
            }
            if problems["everyDays"] == nil, let i = layout.named["everydays"], let n = value(i).storage.int64Value,
               let p = CareSchedule.everyDaysProblem(n) {
                problems["everyDays"] = p
            }
        }
        guard !problems.isEmpty else { return [] }
        // A damaged row: what follows reads its values by name.
        let row = copy()
        let rowID = (row["rowid"] as DatabaseValue).storage.int64Value ?? 0
        let id = table == "preference" ? StoredValue.text(row["key"]) : (row.hasColumn("id") ? StoredValue.text(row["id"]) : nil)
        let good = { (column: String) -> Bool in problems[column] == nil }
        let command = careCommand(row: row, table: table, problems: problems)
        var items: [Item] = []
        for (column, kind) in columns {
            guard let reason = problems[column] else { continue }
            let value = row[column] as DatabaseValue
            let shown = StoredValue.shown(value)
            var action: Action?
            var remedy: String?
            func set(_ v: DatabaseValue, _ what: String) {
                action = .set(table: table, row: rowID, column: column, value: v, note: "\(column) was \(shown)")
                remedy = what
            }
            if reason == StoredValue.nulReason, kind.isText, let bytes = StoredValue.bytesWithNUL(row, column) {
                let kept = String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
                if kind != .nonBlankText || !StoredValue.isBlank(kept) {
                    set(kept.databaseValue, "NUL characters removed")
                    items.append(Item(finding: StoreFinding(table: table, row: rowID, id: id, column: column, reason: reason, remedy: remedy),
                                      action: action))
                    continue
                }
            }
            switch (table, column, kind) {
            case (_, _, .date):
                let siblings = table == "tree" ? ["updatedAt", "createdAt", "fixTime"]
                    : table == "photo" ? ["createdAt", "capturedAt"] : ["updatedAt", "createdAt"]
                if let other = siblings.first(where: { $0 != column && good($0) && !(row[$0] as DatabaseValue).isNull }) {
                    set(row[other], "set to its \(other)")
                } else if table == "treeHistory" {
                    action = .delete(table: table, row: rowID); remedy = "history line removed"
                } else {
                    set(now.databaseValue, "set to the current time")
                }
            case (_, _, .optionalText):
                if case .blob(let d) = value.storage {
                    set(String(decoding: d, as: UTF8.self).databaseValue, "kept as text, invalid UTF-8 replaced")
                } else {
                    set(.null, "cleared")
                }
            case (_, _, .optionalID), (_, _, .optionalDate), (_, _, .optionalReal), (_, _, .optionalInteger), (_, _, .accuracy),
                 (_, _, .nonNegativeReal), (_, _, .fixStatus), (_, _, .accuracySource):
                set(.null, "cleared")
            case ("tree", "species", _):
                set("Unknown".databaseValue, "set to Unknown")
            case ("collection", "name", _):
                set("Collection \(rowID)".databaseValue, "renamed Collection \(rowID)")
            case ("photo", "byteCount", _):
                remedy = nil
            case ("careEvent", "health", _):
                set(.null, "cleared")
            case ("treeHistory", _, _), ("preference", _, _):
                action = .delete(table: table, row: rowID)
                remedy = table == "preference" ? "preference removed" : "history line removed"
            default:
                remedy = nil
            }
            // A care event's command sets its health alone; a schedule's sets the whole row again.
            let fits = table != "careEvent" || column == "health"
            items.append(Item(finding: StoreFinding(table: table, row: rowID, id: id, column: column, reason: reason, remedy: remedy,
                                                    command: fits ? command : nil),
                              action: action))
        }
        // A row with a part that cannot be mended is not half mended: it is left (or removed) whole.
        if items.contains(where: { $0.action == nil }) {
            return items.map { item in
                var i = item
                if i.action != nil {
                    i.action = nil
                    i.finding.remedy = nil
                }
                return i
            }
        }
        return items
    }

    /// For a damaged care event's health or a damaged schedule, the command that sets it again,
    /// with the values of the row that can still be read.
    private func careCommand(row: Row, table: String, problems: [String: String]) -> String? {
        func readable(_ column: String) -> String? {
            problems[column] == nil ? StoredValue.text(row[column] as DatabaseValue) : nil
        }
        switch table {
        case "careEvent" where problems["health"] != nil && problems["id"] == nil:
            guard let id = readable("id") else { return nil }
            return "trees care edit \(ShortID.of(storageKey: id)) --health STATUS"
        case "careSchedule" where problems["id"] == nil:
            let target: String
            if let tree = readable("treeId") {
                target = ShortID.of(storageKey: tree)
            } else if let collection = readable("collectionId"),
                      let name = try? String.fetchOne(db, sql: "SELECT name FROM collection WHERE id = ?", arguments: [collection]) {
                target = "--collection " + Self.quoted(name)
            } else {
                return nil
            }
            guard let kind = readable("kind"), !StoredValue.isBlank(kind) else { return nil }
            let every = problems["everyDays"] == nil ? (row["everyDays"] as DatabaseValue).storage.int64Value.map { "\($0)d" } : nil
            var command = "trees schedule set \(target) \(Self.quoted(kind)) --every \(every ?? "DAYS")"
            command += " --from " + (readable("fromDay") ?? "YYYY-MM-DD")
            if problems["season"] != nil {
                command += " --season MM-DD..MM-DD"
            } else if let season = readable("season") {
                command += " --season " + season
            }
            return command
        default:
            return nil
        }
    }

    /// A word as a shell takes it: as it is when plain, else in single quotes.
    private static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_./".unicodeScalars.contains($0))
        }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Collections whose names are the same but for case (`TreeCollection.sameName`), which a
    /// store from before names were compared beyond ASCII letters may hold ("Äpfel" and "äpfel").
    /// The oldest keeps its name; repairing gives each of the others its short id after it, as a
    /// sync does to two stores' collections of one name. A name already found damaged is left to
    /// its own finding.
    private func collectionsOfOneName(besides found: [Item]) throws -> [Item] {
        let damaged = Set(found.filter { $0.finding.table == "collection" }.compactMap(\.finding.row))
        var kept: [String: String] = [:]
        var items: [Item] = []
        for r in try Row.fetchAll(db, sql: "SELECT rowid, id, name FROM collection ORDER BY createdAt, id") {
            guard let rowID = (r[0] as DatabaseValue).storage.int64Value, !damaged.contains(rowID),
                  let id = StoredValue.text(r[1]), let name = StoredValue.text(r[2]) else { continue }
            let key = TreeCollection.nameKey(name)
            guard let first = kept[key] else {
                kept[key] = name
                continue
            }
            let renamed = "\(name) (\(ShortID.of(storageKey: id)))"
            items.append(Item(
                finding: StoreFinding(table: "collection", row: rowID, id: id, column: "name",
                                      reason: "collection '\(name)' has the name of collection '\(first)', ignoring case",
                                      remedy: "renamed '\(renamed)'"),
                action: .set(table: "collection", row: rowID, column: "name", value: renamed.databaseValue, note: "name was \(name)")))
        }
        return items
    }

    private func danglingReferences() throws -> [Item] {
        var items: [Item] = []
        let rows = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        for r in rows {
            guard let table = StoredValue.text(r[0]), let rowID = (r[1] as DatabaseValue).storage.int64Value,
                  let parent = StoredValue.text(r[2]) else { continue }
            // Not every table has an id column (treeHealth is keyed by its tree).
            let id = (try? DatabaseValue.fetchOne(db, sql: "SELECT id FROM \(table) WHERE rowid = ?", arguments: [rowID]))?
                .flatMap(StoredValue.text)
            switch (table, parent) {
            case ("photo", "careEvent"):
                items.append(Item(
                    finding: StoreFinding(table: table, row: rowID, id: id, column: "careEventId",
                                          reason: "it refers to a care event that does not exist", remedy: "cleared (the photo stays with its tree)"),
                    action: .set(table: table, row: rowID, column: "careEventId", value: .null, note: "careEventId referred to a missing event")))
            case ("careSchedule", "collection"):
                items.append(Item(
                    finding: StoreFinding(table: table, row: rowID, id: id, column: "collectionId",
                                          reason: "it refers to a collection that does not exist", remedy: "row removed"),
                    action: .delete(table: table, row: rowID)))
            case ("tree", _):
                items.append(Item(
                    finding: StoreFinding(table: table, row: rowID, id: id, column: "collectionId",
                                          reason: "it refers to a \(parent) that does not exist", remedy: "cleared (no collection)"),
                    action: .set(table: table, row: rowID, column: "collectionId", value: .null, note: "collectionId referred to a missing collection")))
            default:
                items.append(Item(
                    finding: StoreFinding(table: table, row: rowID, id: id, column: "treeId",
                                          reason: "it refers to a \(parent) that does not exist", remedy: "row removed"),
                    action: .delete(table: table, row: rowID)))
            }
        }
        return items
    }

    func apply(_ action: Action, for finding: StoreFinding) throws {
        switch action {
        case .set(let table, let row, let column, let value, let note):
            try db.execute(sql: "UPDATE \(table) SET \(column) = ? WHERE rowid = ?", arguments: [value, row])
            if table == "tree", let id = finding.id {
                try db.execute(sql: """
                    INSERT INTO treeHistory (treeId, changedAt, change, latitude, longitude, horizontalAccuracy)
                    SELECT id, ?, ?, latitude, longitude, horizontalAccuracy FROM tree WHERE id = ? AND rowid = ?
                    """, arguments: [StoredDate.text(now), "repaired: \(note)", id, row])
            }
        case .delete(let table, let row):
            try db.execute(sql: "DELETE FROM \(table) WHERE rowid = ?", arguments: [row])
        case .rebuildCareSummaries, .rebuildDueCare:
            break  // `repair` rebuilds them once, after everything else
        }
    }
}
