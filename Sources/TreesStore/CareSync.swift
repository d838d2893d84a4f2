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
        let (start, arguments): (String, StatementArguments) = if let resuming {
            ("(v.seq, v.eventId) > (?, ?)", [resuming.seq, resuming.id])
        } else {
            ("v.seq > ?", [after])
        }
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
        var touched: Set<[String]> = []
        var stored = 0
        for e in events {
            guard try tombstoneVersion(.careEvent, e.id) == nil else { continue }
            if let local = try Row.fetchOne(localVersion, arguments: [e.id]).map({ SyncVersion(clock: $0[0], device: $0[1]) }), local >= e.version { continue }
            guard let treeID = UUID(uuidString: e.treeId), try treeExists(treeID) else { continue }
            if let old = try Row.fetchOne(before, arguments: [e.id]) { touched.insert([old[0], old[1]]) }
            var values: [(any DatabaseValueConvertible)?] = [e.id]
            for (name, value) in zip(names, e.columns) {
                values.append(name == "quantity" ? value.flatMap(Double.init) : value)
            }
            try upsert.execute(arguments: StatementArguments(values))
            try stamp.execute(arguments: [e.id, seq, e.version.clock, e.version.device])
            touched.insert([e.treeId, e.columns[1] ?? ""])
            stored += 1
        }
        for pair in touched {
            guard let tree = UUID(uuidString: pair[0]), let kind = try? CareKind(pair[1]) else { continue }
            try refreshCare(of: tree, kind: kind)
        }
        return stored
    }
}
