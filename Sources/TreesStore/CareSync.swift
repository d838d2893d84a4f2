import Foundation
import GRDB
import TreesKit

/// A care event as sync moves it: the stored text of its columns and its version. A care event
/// is one value: the later version of the whole event wins, as a collection's does.
public struct SyncCareEventRow: Sendable, Equatable {
    public var id: String
    /// `treeId, kind, date, notes, quantity, unit, health, who, createdAt, updatedAt` as stored
    /// (dates as `yyyy-MM-dd HH:mm:ss.SSS` UTC, the quantity in its shortest exact text); nil is NULL.
    public var columns: [String?]
    public var version: SyncVersion

    public static let columnNames = ["treeId", "kind", "date", "notes", "quantity", "unit", "health", "who", "createdAt", "updatedAt"]

    public init(id: String, columns: [String?], version: SyncVersion) { self.id = id; self.columns = columns; self.version = version }

    public var treeId: String { columns[0] ?? "" }
}

/// Migration `v9-care-sync`: care events are versioned and their deletions kept as tombstones,
/// as trees are, so that sync carries the care log.
///
/// Events stored before the migration are versioned as of their last update and stamped with a
/// sequence number above every remote's pushed one, so the next sync pushes them.
enum CareSyncSchema {
    static func create(_ db: Database) throws {
        let active = "WHEN (SELECT applying FROM syncState) = 0"
        try db.execute(sql: """
            CREATE TABLE careEventVersion (
                eventId TEXT PRIMARY KEY NOT NULL,
                seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX careEventVersion_seq ON careEventVersion(seq);
            UPDATE syncState SET seq = seq + 1 WHERE EXISTS (SELECT 1 FROM careEvent);
            INSERT INTO careEventVersion (eventId, seq, version, device)
            SELECT e.id, s.seq, (CAST(strftime('%s', e.updatedAt) AS INTEGER) * 1000) << 16, s.deviceId FROM careEvent e, syncState s;
            CREATE TRIGGER careEvent_sync_insert AFTER INSERT ON careEvent \(active) BEGIN
                INSERT OR REPLACE INTO careEventVersion (eventId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
            END;
            CREATE TRIGGER careEvent_sync_update AFTER UPDATE ON careEvent \(active) BEGIN
                INSERT OR REPLACE INTO careEventVersion (eventId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
            END;
            CREATE TRIGGER careEvent_sync_delete AFTER DELETE ON careEvent \(active) BEGIN
                INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'careEvent', old.id, seq, hlc, deviceId FROM syncState;
                DELETE FROM careEventVersion WHERE eventId = old.id;
            END;
            """)
    }
}

extension StoreReader {
    /// Care events changed after sequence number `after` up to `through`, in (sequence number, id)
    /// order: a page of at most `limit`, after `resuming` (the last of the page before).
    public func changedCareEvents(after: Int64, resuming: (seq: Int64, id: String)?, through: Int64, limit: Int) throws -> [(seq: Int64, row: SyncCareEventRow)] {
        let columns = SyncCareEventRow.columnNames.map { "e.\($0)" }.joined(separator: ", ")
        // careEventVersion_seq holds (seq, eventId): each page is a seek, however many events
        // share one sequence number (an import stamps all of its own with one).
        let (start, arguments) = pageStart(["v.seq", "v.eventId"], resuming.map { [$0.seq, $0.id] }, after: after)
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT v.seq, e.id, \(columns), v.version, v.device FROM careEventVersion v JOIN careEvent e ON e.id = v.eventId
            WHERE \(start) AND v.seq <= ? ORDER BY v.seq, v.eventId LIMIT ?
            """), arguments: arguments + [through, limit])
        var out: [(Int64, SyncCareEventRow)] = []
        let n = SyncCareEventRow.columnNames.count
        while let row = try rows.next() {
            out.append((row[0], SyncCareEventRow(id: row[1], columns: (0..<n).map { SyncValue.text(row[$0 + 2]) },
                                                 version: SyncVersion(clock: row[n + 2], device: row[n + 3]))))
        }
        return out
    }
}

extension StoreWriter {
    /// Merges pulled care events: each is stored when its version is later than the store's (and
    /// it was not deleted here, and its tree is here); the trees' last care, health and harvest
    /// follow. Returns the number of events stored.
    func applyPulledCare(_ events: [SyncCareEventRow], seq: Int64) throws -> Int {
        guard !events.isEmpty else { return 0 }
        let localVersion = try db.cachedStatement(sql: "SELECT version, device FROM careEventVersion WHERE eventId = ?")
        let before = try db.cachedStatement(sql: "SELECT treeId, kind FROM careEvent WHERE id = ?")
        let names = SyncCareEventRow.columnNames
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO careEvent (id, \(names.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: names.count)))
            ON CONFLICT (id) DO UPDATE SET \(names.map { "\($0) = excluded.\($0)" }.joined(separator: ", "))
            """)
        let stamp = try db.cachedStatement(sql: "INSERT OR REPLACE INTO careEventVersion (eventId, seq, version, device) VALUES (?, ?, ?, ?)")
        try beginTouchingCare()
        let touch = try db.cachedStatement(sql: "INSERT OR IGNORE INTO temp.careTouched (treeId, kind) VALUES (?, ?)")
        var stored = 0
        for e in events {
            guard try tombstoneVersion(.careEvent, e.id) == nil else { continue }
            if let local = try Row.fetchOne(localVersion, arguments: [e.id]).map({ SyncVersion(clock: $0[0], device: $0[1]) }), local >= e.version { continue }
            guard let treeID = UUID(uuidString: e.treeId), try treeExists(treeID) else { continue }
            // An edit may move the event to another kind (or tree): the pair it leaves is touched too.
            if let old = try Row.fetchOne(before, arguments: [e.id]) { try touch.execute(arguments: [old[0], old[1]]) }
            var values: [(any DatabaseValueConvertible)?] = [e.id]
            for (name, value) in zip(names, e.columns) {
                values.append(name == "quantity" ? value.flatMap(Double.init) : value)
            }
            try upsert.execute(arguments: StatementArguments(values))
            try stamp.execute(arguments: [e.id, seq, e.version.clock, e.version.device])
            try touch.execute(arguments: [e.treeId, e.columns[1] ?? ""])
            stored += 1
        }
        try refreshTouchedCare()
        return stored
    }
}

/// Migration `v11-care-deletions-with-their-tree`: the care events a tree's deletion takes along
/// (the foreign key's cascade) get no tombstones of their own; the tree's says it everywhere, on
/// the server and on every laptop that pulls it. A mass deletion pushed one for each event. An
/// event deleted on its own still gets one.
enum CareCascadeSchema {
    static func create(_ db: Database) throws {
        // The cascade runs after the tree's row has gone: its event's tree is no longer there.
        try db.execute(sql: """
            DROP TRIGGER careEvent_sync_delete;
            CREATE TRIGGER careEvent_sync_delete AFTER DELETE ON careEvent WHEN (SELECT applying FROM syncState) = 0 BEGIN
                INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device)
                    SELECT 'careEvent', old.id, seq, hlc, deviceId FROM syncState WHERE EXISTS (SELECT 1 FROM tree WHERE id = old.treeId);
                DELETE FROM careEventVersion WHERE eventId = old.id;
            END;
            """)
    }
}

/// A care schedule as sync moves it. A tree or collection has at most one schedule of a kind,
/// so a schedule travels by that pair (its local id is the store's own); `columns` nil means the
/// schedule was removed, so that a removal travels as a value with its version.
public struct SyncCareScheduleRow: Sendable, Equatable {
    /// The tree or collection the schedule is for.
    public var targetId: String
    public var kind: String
    /// `target` (`tree` or `collection`), `everyDays, fromDay, season, createdAt, updatedAt` as
    /// stored; nil when the schedule was removed.
    public var columns: [String?]?
    public var version: SyncVersion

    public static let columnNames = ["target", "everyDays", "fromDay", "season", "createdAt", "updatedAt"]

    public init(targetId: String, kind: String, columns: [String?]?, version: SyncVersion) {
        self.targetId = targetId; self.kind = kind; self.columns = columns; self.version = version
    }
}

/// Migration `v10-care-schedule-sync`: care schedules are versioned by (tree or collection, kind),
/// setting and removing alike, so that sync carries them.
///
/// Schedules stored before the migration are versioned as of their last update and stamped with
/// a sequence number above every remote's pushed one, so the next sync pushes them.
enum CareScheduleSyncSchema {
    static func create(_ db: Database) throws {
        let active = "WHEN (SELECT applying FROM syncState) = 0"
        let stamp = { (row: String) in
            """
            INSERT OR REPLACE INTO careScheduleVersion (targetId, kind, seq, version, device)
                SELECT coalesce(\(row).treeId, \(row).collectionId), \(row).kind, seq, hlc, deviceId FROM syncState;
            """
        }
        try db.execute(sql: """
            CREATE TABLE careScheduleVersion (
                targetId TEXT NOT NULL,
                kind TEXT NOT NULL,
                seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL,
                PRIMARY KEY (targetId, kind)
            ) WITHOUT ROWID;
            CREATE INDEX careScheduleVersion_seq ON careScheduleVersion(seq);
            UPDATE syncState SET seq = seq + 1 WHERE EXISTS (SELECT 1 FROM careSchedule);
            INSERT INTO careScheduleVersion (targetId, kind, seq, version, device)
            SELECT coalesce(c.treeId, c.collectionId), c.kind, s.seq, (CAST(strftime('%s', c.updatedAt) AS INTEGER) * 1000) << 16, s.deviceId
            FROM careSchedule c, syncState s;
            CREATE TRIGGER careSchedule_sync_insert AFTER INSERT ON careSchedule \(active) BEGIN
                \(stamp("new"))
            END;
            CREATE TRIGGER careSchedule_sync_update AFTER UPDATE ON careSchedule \(active) BEGIN
                \(stamp("old"))
                \(stamp("new"))
            END;
            CREATE TRIGGER careSchedule_sync_delete AFTER DELETE ON careSchedule \(active) BEGIN
                \(stamp("old"))
            END;
            """)
    }
}

extension StoreReader {
    /// Care schedules set or removed after sequence number `after` up to `through`, in (sequence
    /// number, target, kind) order: a page of at most `limit`, after `resuming`.
    public func changedCareSchedules(after: Int64, resuming: (seq: Int64, targetId: String, kind: String)?, through: Int64,
                                     limit: Int) throws -> [(seq: Int64, row: SyncCareScheduleRow)] {
        let (start, arguments) = pageStart(["v.seq", "v.targetId", "v.kind"], resuming.map { [$0.seq, $0.targetId, $0.kind] }, after: after)
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT v.seq, v.targetId, v.kind, v.version, v.device, coalesce(t.id, c.id) IS NOT NULL, CASE WHEN t.id IS NULL THEN 'collection' ELSE 'tree' END,
                   coalesce(t.everyDays, c.everyDays), coalesce(t.fromDay, c.fromDay), coalesce(t.season, c.season),
                   coalesce(t.createdAt, c.createdAt), coalesce(t.updatedAt, c.updatedAt)
            FROM careScheduleVersion v
            LEFT JOIN careSchedule t ON t.treeId = v.targetId AND t.kind = v.kind
            LEFT JOIN careSchedule c ON c.collectionId = v.targetId AND c.kind = v.kind
            WHERE \(start) AND v.seq <= ? ORDER BY v.seq, v.targetId, v.kind LIMIT ?
            """), arguments: arguments + [through, limit])
        var out: [(Int64, SyncCareScheduleRow)] = []
        while let row = try rows.next() {
            let present: Bool = row[5]
            let columns: [String?]? = present ? (6..<12).map { SyncValue.text(row[$0]) } : nil
            out.append((row[0], SyncCareScheduleRow(targetId: row[1], kind: row[2], columns: columns, version: SyncVersion(clock: row[3], device: row[4]))))
        }
        return out
    }
}

extension StoreWriter {
    /// Merges pulled care schedules: each is set (or removed) when its version is later than the
    /// store's for that tree or collection and kind, and its tree or collection is here. Returns
    /// the number set or removed.
    func applyPulledSchedules(_ schedules: [SyncCareScheduleRow], seq: Int64) throws -> Int {
        guard !schedules.isEmpty else { return 0 }
        let localVersion = try db.cachedStatement(sql: "SELECT version, device FROM careScheduleVersion WHERE targetId = ? AND kind = ?")
        let remove = try db.cachedStatement(sql: "DELETE FROM careSchedule WHERE kind = ?2 AND (treeId = ?1 OR collectionId = ?1)")
        let insert = try db.cachedStatement(sql: """
            INSERT INTO careSchedule (id, treeId, collectionId, kind, everyDays, fromDay, season, createdAt, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let stamp = try db.cachedStatement(sql: "INSERT OR REPLACE INTO careScheduleVersion (targetId, kind, seq, version, device) VALUES (?, ?, ?, ?, ?)")
        var applied = 0
        for s in schedules {
            if let local = try Row.fetchOne(localVersion, arguments: [s.targetId, s.kind]).map({ SyncVersion(clock: $0[0], device: $0[1]) }),
               local >= s.version { continue }
            if let c = s.columns {
                guard let target = UUID(uuidString: s.targetId) else { continue }
                let isTree = c[0] == "tree"
                let exists = isTree ? try treeExists(target)
                    : try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM collection WHERE id = ?)", arguments: [s.targetId]) ?? false
                guard exists else { continue }
                try remove.execute(arguments: [s.targetId, s.kind])
                try insert.execute(arguments: [UUID.random().storageKey, isTree ? s.targetId : nil, isTree ? nil : s.targetId, s.kind,
                                               c[1].flatMap { Int64($0) }, c[2], c[3], c[4], c[5]])
            } else {
                try remove.execute(arguments: [s.targetId, s.kind])
            }
            try stamp.execute(arguments: [s.targetId, s.kind, seq, s.version.clock, s.version.device])
            applied += 1
        }
        return applied
    }
}
