import Foundation
import GRDB
import TreesKit

/// The version of one change: a hybrid logical clock reading, then the device id that made it.
/// Ordered the same way on every store and on the server.
public struct SyncVersion: Sendable, Hashable, Comparable {
    /// Milliseconds since 1970 shifted left 16 bits, plus a counter.
    public var clock: Int64
    /// Id of the store that made the change (32 hexadecimal digits).
    public var device: String

    public init(clock: Int64, device: String) { self.clock = clock; self.device = device }

    public static func < (a: SyncVersion, b: SyncVersion) -> Bool { (a.clock, a.device) < (b.clock, b.device) }

    /// The clock of a wall time with a zero counter.
    public static func clock(at date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) << 16 }
}

/// A tree as sync moves it: the stored text of every column but the id, and the version of each field group.
public struct SyncTreeRow: Sendable, Equatable {
    /// Names of the tree columns carried in `columns`, in order (every column but `id`).
    public static let columnNames: [String] = Array(TreeColumn.allCases.dropFirst().map(\.name))
    /// The field groups that are versioned together, in the order of `versions`.
    public static let groups: [(name: String, columns: [String])] = SyncSchema.treeFieldGroups

    public var id: String
    /// Stored values as text (numbers in their shortest exact form, dates as `yyyy-MM-dd HH:mm:ss.SSS` UTC); nil is NULL.
    public var columns: [String?]
    public var versions: [SyncVersion]
    /// For each field group, whether the pushing store changed it since its last push (pulled rows: all unchanged).
    public var edits: [SyncEdit]

    public init(id: String, columns: [String?], versions: [SyncVersion], edits: [SyncEdit]? = nil) {
        self.id = id; self.columns = columns; self.versions = versions
        self.edits = edits ?? Array(repeating: .unchanged, count: versions.count)
    }

    /// The values of one group's columns, by column name.
    public func values(ofGroup index: Int) -> [String: String?] {
        var out: [String: String?] = [:]
        for c in Self.groups[index].columns {
            if let i = Self.columnNames.firstIndex(of: c) { out[c] = columns[i] }
        }
        return out
    }
}

/// Whether a store changed a field group of a tree since its last push, and over which version.
public enum SyncEdit: Sendable, Equatable {
    /// Not changed here since the last push: the value is a copy of one the server has had.
    case unchanged
    /// Changed here over `base`, the version the group had just before; nil when that is not
    /// known (the group was made here, or changed before the store kept bases).
    case edited(over: SyncVersion?)
}

/// A collection as sync moves it.
public struct SyncCollectionRow: Sendable, Equatable {
    public var id: String
    public var name: String
    public var createdAt: String
    public var updatedAt: String
    public var version: SyncVersion
    public init(id: String, name: String, createdAt: String, updatedAt: String, version: SyncVersion) {
        self.id = id; self.name = name; self.createdAt = createdAt; self.updatedAt = updatedAt; self.version = version
    }
}

/// A photo row as sync moves it (the file goes by its hash).
public struct SyncPhotoRow: Sendable, Equatable {
    public var id: String
    public var treeId: String
    public var sha256: String
    public var format: String
    public var byteCount: Int64
    public var capturedAt: String
    public var createdAt: String
    /// The care event the photo was taken for, if any.
    public var careEventId: String?
    public var version: SyncVersion
    public init(id: String, treeId: String, sha256: String, format: String, byteCount: Int64, capturedAt: String, createdAt: String,
                careEventId: String? = nil, version: SyncVersion) {
        self.id = id; self.treeId = treeId; self.sha256 = sha256; self.format = format; self.byteCount = byteCount
        self.capturedAt = capturedAt; self.createdAt = createdAt; self.careEventId = careEventId; self.version = version
    }
}

/// A deletion as sync moves it.
public struct SyncTombstone: Sendable, Equatable {
    public enum Kind: String, Sendable { case tree, collection, photo, careEvent }
    public var kind: Kind
    public var id: String
    public var version: SyncVersion
    public init(kind: Kind, id: String, version: SyncVersion) { self.kind = kind; self.id = id; self.version = version }
}

/// A value that lost: kept in the tree's history and never dropped.
public struct SyncConflict: Sendable, Equatable, Hashable {
    public var treeId: String
    /// The field group (`variety`, `position`, …), or `tree` for a whole tree that was deleted.
    public var field: String
    public var loser: SyncVersion
    /// The losing values, as a JSON object of column names to stored text.
    public var loserValue: String
    public var winner: SyncVersion
    /// `older` (a later version won) or `deleted` (the tree was deleted).
    public var reason: String
    public init(treeId: String, field: String, loser: SyncVersion, loserValue: String, winner: SyncVersion, reason: String) {
        self.treeId = treeId; self.field = field; self.loser = loser; self.loserValue = loserValue; self.winner = winner; self.reason = reason
    }
}

/// A remote as the store keeps it: a name, where it is (never a password) and how far sync got.
public struct SyncRemote: Sendable, Equatable {
    public var name: String
    public var target: String
    /// Local changes up to this sequence number are on the server.
    public var pushedSeq: Int64
    /// The server's changes up to this (transaction id, sequence number) are in the store.
    public var pulledXid: String
    public var pulledSeq: Int64
    public var lastSyncAt: String?
    /// The store's clock when it read what it pushed last: a version of its own later than this
    /// is an edit the server has not had yet.
    public var pushedClock: Int64 = 0
}

/// One page of what a server holds, to be merged into the store.
public struct PulledPage: Sendable {
    public var collections: [SyncCollectionRow] = []
    public var trees: [SyncTreeRow] = []
    public var photos: [SyncPhotoRow] = []
    public var careEvents: [SyncCareEventRow] = []
    public var careSchedules: [SyncCareScheduleRow] = []
    public var tombstones: [SyncTombstone] = []
    public var conflicts: [SyncConflict] = []
    public init() {}
}

/// What merging a pulled page changed in the store.
public struct AppliedPage: Sendable, Equatable {
    public var trees = 0
    public var collections = 0
    public var photos = 0
    public var careEvents = 0
    /// Care schedules set or removed.
    public var careSchedules = 0
    public var deletions = 0
    /// Local values that lost to pulled ones.
    public var conflicts: [SyncConflict] = []
    public init() {}
}

enum SyncValue {
    /// A stored value as sync carries it: numbers in their shortest exact text.
    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: return nil
        case .int64(let i): return String(i)
        case .double(let d): return "\(d)"
        case .string(let s): return s
        case .blob(let b): return String(decoding: b, as: UTF8.self)
        }
    }

    static func parseVersions(_ text: String?) -> [String: SyncVersion] {
        var out: [String: SyncVersion] = [:]
        for item in (text ?? "").split(separator: ",") {
            let parts = item.split(separator: " ")
            if parts.count == 3, let v = Int64(parts[1]) { out[String(parts[0])] = SyncVersion(clock: v, device: String(parts[2])) }
        }
        return out
    }

    /// A JSON object of column names to text values, keys sorted.
    static func json(_ values: [String: String?]) -> String {
        let parts = values.keys.sorted().map { key -> String in
            let v = values[key] ?? nil
            return TextCodec.jsonString(key) + ":" + (v.map(TextCodec.jsonString) ?? "null")
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

extension StoreReader {
    /// This store's device id and the latest change sequence number.
    public func syncState() throws -> (deviceId: String, clock: Int64, seq: Int64) {
        guard let row = try Row.fetchOne(db, sql: "SELECT deviceId, hlc, seq FROM syncState") else { throw StoreError.database("the store has no sync state") }
        return (row[0], row[1], row[2])
    }

    public func remotes() throws -> [SyncRemote] {
        try Row.fetchAll(db, sql: "SELECT name, target, pushedSeq, pulledXid, pulledSeq, lastSyncAt, pushedClock FROM remote ORDER BY name").map {
            SyncRemote(name: $0[0], target: $0[1], pushedSeq: $0[2], pulledXid: $0[3], pulledSeq: $0[4], lastSyncAt: $0[5], pushedClock: $0[6])
        }
    }

    public func remote(named name: String) throws -> SyncRemote? { try remotes().first { $0.name.lowercased() == name.lowercased() } }

    /// Where a page of changes starts: after the last row of the page before (`resuming`, the
    /// values of the `key` columns, the sequence number first, in the order pages are read), or
    /// after sequence number `after`. Either is one seek in the sequence number's index, whose
    /// entries end with the table's key.
    func pageStart(_ key: [String], _ resuming: [any DatabaseValueConvertible]?, after: Int64) -> (String, StatementArguments) {
        guard let resuming else { return ("\(key[0]) > ?", [after]) }
        return ("(\(key.joined(separator: ", "))) > (\(key.map { _ in "?" }.joined(separator: ", ")))", StatementArguments(resuming))
    }

    /// Trees changed after sequence number `pushed` up to `through`, in (sequence number, id) order,
    /// a page of `limit` at a time: the first page with `resuming` nil, each next one after the
    /// (sequence number, id) of the last tree of the page before.
    ///
    /// `pushed` is a remote's `pushedSeq`: the trees stamped with it are on the server already, and
    /// there may be many (an import stamps all its trees with one number, a pull its whole page).
    /// A group whose version this store made after `pushedClock` (the remote's) is marked edited,
    /// over the base its first change since then recorded.
    public func changedTrees(after pushed: Int64, pushedClock: Int64 = 0, resuming: (seq: Int64, id: String)?, through: Int64, limit: Int) throws -> [(seq: Int64, row: SyncTreeRow)] {
        let device = try syncState().deviceId
        let columns = SyncTreeRow.columnNames.map { "t.\($0)" }.joined(separator: ", ")
        // Two statements, each a seek in treeVersion_seq: given both conditions, SQLite seeks on
        // the sequence number alone and steps over the trees of the pages before one by one.
        let (start, arguments) = pageStart(["v.seq", "v.treeId"], resuming.map { [$0.seq, $0.id] }, after: pushed)
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT v.seq, t.id, \(columns), v.version, v.device,
                   (SELECT group_concat(field || ' ' || version || ' ' || device, ',') FROM treeFieldVersion f WHERE f.treeId = t.id),
                   (SELECT group_concat(field || ' ' || version || ' ' || device, ',') FROM treeFieldBase b WHERE b.treeId = t.id)
            FROM treeVersion v JOIN tree t ON t.id = v.treeId
            WHERE \(start) AND v.seq <= ? ORDER BY v.seq, v.treeId LIMIT ?
            """), arguments: arguments + [through, limit])
        var out: [(Int64, SyncTreeRow)] = []
        let n = SyncTreeRow.columnNames.count
        while let row = try rows.next() {
            var values: [String?] = []
            values.reserveCapacity(n)
            for i in 0..<n { values.append(SyncValue.text(row[i + 2])) }
            let base = SyncVersion(clock: row[n + 2], device: row[n + 3])
            let fields = SyncValue.parseVersions(row[n + 4])
            let versions = SyncTreeRow.groups.map { g in max(base, fields[g.name] ?? base) }
            let bases = SyncValue.parseVersions(row[n + 5])
            let edits = zip(SyncTreeRow.groups, versions).map { g, v -> SyncEdit in
                v.device == device && v.clock > pushedClock ? .edited(over: bases[g.name]) : .unchanged
            }
            out.append((row[0], SyncTreeRow(id: row[1], columns: values, versions: versions, edits: edits)))
        }
        return out
    }

    public func changedCollections(after: Int64, through: Int64) throws -> [SyncCollectionRow] {
        try Row.fetchAll(db, sql: """
            SELECT c.id, c.name, c.createdAt, c.updatedAt, v.version, v.device FROM collectionVersion v JOIN collection c ON c.id = v.collectionId
            WHERE v.seq > ? AND v.seq <= ? ORDER BY v.seq, c.id
            """, arguments: [after, through]).map {
            SyncCollectionRow(id: $0[0], name: $0[1], createdAt: $0[2], updatedAt: $0[3], version: SyncVersion(clock: $0[4], device: $0[5]))
        }
    }

    /// Photos added after sequence number `after` up to `through`, in (sequence number, id) order:
    /// a page of at most `limit`, after `resuming` (the last of the page before).
    public func changedPhotos(after: Int64, resuming: (seq: Int64, id: String)?, through: Int64, limit: Int) throws -> [(seq: Int64, row: SyncPhotoRow)] {
        let (start, arguments) = pageStart(["v.seq", "v.photoId"], resuming.map { [$0.seq, $0.id] }, after: after)
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT v.seq, p.id, p.treeId, p.sha256, p.format, p.byteCount, p.capturedAt, p.createdAt, v.version, v.device, p.careEventId
            FROM photoVersion v JOIN photo p ON p.id = v.photoId WHERE \(start) AND v.seq <= ? ORDER BY v.seq, v.photoId LIMIT ?
            """), arguments: arguments + [through, limit]).map {
            ($0[0], SyncPhotoRow(id: $0[1], treeId: $0[2], sha256: $0[3], format: $0[4], byteCount: $0[5], capturedAt: $0[6], createdAt: $0[7],
                                 careEventId: $0[10], version: SyncVersion(clock: $0[8], device: $0[9])))
        }
    }

    /// Deletions made after sequence number `after` up to `through`, in (sequence number, kind, id)
    /// order: a page of at most `limit`, after `resuming` (the last of the page before).
    public func tombstones(after: Int64, resuming: (seq: Int64, kind: String, id: String)?, through: Int64, limit: Int) throws -> [(seq: Int64, tombstone: SyncTombstone)] {
        let (start, arguments) = pageStart(["seq", "kind", "id"], resuming.map { [$0.seq, $0.kind, $0.id] }, after: after)
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT seq, kind, id, version, device FROM tombstone WHERE \(start) AND seq <= ? ORDER BY seq, kind, id LIMIT ?
            """), arguments: arguments + [through, limit]).compactMap { row in
            guard let kind = SyncTombstone.Kind(rawValue: row[1]) else { return nil }
            return (row[0], SyncTombstone(kind: kind, id: row[2], version: SyncVersion(clock: row[3], device: row[4])))
        }
    }

    /// Number of local changes (trees, collections, photos, care events and schedules, deletions) after `seq`.
    public func changeCount(after seq: Int64) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT (SELECT COUNT(*) FROM treeVersion WHERE seq > ?1) + (SELECT COUNT(*) FROM collectionVersion WHERE seq > ?1)
                 + (SELECT COUNT(*) FROM photoVersion WHERE seq > ?1) + (SELECT COUNT(*) FROM tombstone WHERE seq > ?1)
                 + (SELECT COUNT(*) FROM careEventVersion WHERE seq > ?1) + (SELECT COUNT(*) FROM careScheduleVersion WHERE seq > ?1)
            """, arguments: [seq]) ?? 0
    }

    /// The losing values kept for a tree, oldest first.
    public func conflicts(of treeId: UUID) throws -> [SyncConflict] {
        try Row.fetchAll(db, sql: """
            SELECT treeId, field, loserVersion, loserDevice, loserValue, winnerVersion, winnerDevice, reason FROM treeConflict
            WHERE treeId = ? ORDER BY loserVersion, field, loserDevice
            """, arguments: [treeId.storageKey]).map(Self.conflict)
    }

    static func conflict(_ r: Row) -> SyncConflict {
        SyncConflict(treeId: r[0], field: r[1], loser: SyncVersion(clock: r[2], device: r[3]), loserValue: r[4],
                     winner: SyncVersion(clock: r[5], device: r[6]), reason: r[7])
    }

    /// Position changes recorded in the tree's history (`edited position`, repairs), oldest first.
    public func history(of treeId: UUID) throws -> [(changedAt: String, change: String, latitude: Double?, longitude: Double?, accuracy: Double?)] {
        try Row.fetchAll(db, sql: "SELECT changedAt, change, latitude, longitude, horizontalAccuracy FROM treeHistory WHERE treeId = ? ORDER BY rowid",
                         arguments: [treeId.storageKey]).map { ($0[0], $0[1], $0[2], $0[3], $0[4]) }
    }
}

extension StoreWriter {
    public func addRemote(name: String, target: String) throws {
        if try reader.remote(named: name) != nil { throw StoreError.duplicateRemote(name) }
        try db.execute(sql: "INSERT INTO remote (name, target) VALUES (?, ?)", arguments: [name, target])
    }

    public func removeRemote(named name: String) throws {
        try db.execute(sql: "DELETE FROM remote WHERE name = ?", arguments: [name])
        if db.changesCount == 0 { throw StoreError.unknownRemote(name, known: try reader.remotes().map(\.name)) }
    }

    /// Records that local changes up to `seq`, made up to the clock reading `clock`, are on the
    /// server, and lets go of the bases of trees not changed since (and of trees gone).
    public func setPushed(remote: String, seq: Int64, clock: Int64) throws {
        try db.execute(sql: "UPDATE remote SET pushedSeq = max(pushedSeq, ?), pushedClock = max(pushedClock, ?) WHERE name = ?",
                       arguments: [seq, clock, remote])
        try db.execute(sql: """
            DELETE FROM treeFieldBase WHERE NOT EXISTS (SELECT 1 FROM treeVersion v WHERE v.treeId = treeFieldBase.treeId AND v.seq > ?)
            """, arguments: [seq])
    }

    /// Keeps losing values reported by the server (already resolved there); returns the ones the
    /// store did not hold yet (a value lost once is reported once, however often it is pulled again).
    @discardableResult
    public func recordConflicts(_ conflicts: [SyncConflict]) throws -> [SyncConflict] {
        let statement = try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO treeConflict (treeId, field, loserVersion, loserDevice, loserValue, winnerVersion, winnerDevice, reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        var added: [SyncConflict] = []
        for c in conflicts {
            try statement.execute(arguments: [c.treeId, c.field, c.loser.clock, c.loser.device, c.loserValue, c.winner.clock, c.winner.device, c.reason])
            if db.changesCount > 0 { added.append(c) }
        }
        return added
    }

    /// Merges a page pulled from `remote` into the store and moves its pull position to `cursor`,
    /// in this one transaction. Every field group keeps the later version; a deleted tree stays deleted.
    public func applyPulled(_ page: PulledPage, remote: String, cursor: (xid: String, seq: Int64)) throws -> AppliedPage {
        var applied = AppliedPage()
        let state = try reader.syncState()
        let ourSeq = state.seq
        let pushedRow = try Row.fetchOne(db, sql: "SELECT pushedSeq, pushedClock FROM remote WHERE name = ?", arguments: [remote])
        let pushed: Int64 = pushedRow?[0] ?? 0
        let pushedClock: Int64 = pushedRow?[1] ?? 0
        let nothingWaiting = try reader.changeCount(after: pushed) == 0
        var seen = state.clock
        try db.execute(sql: "UPDATE syncState SET applying = 1")
        // Pulled trees land all over the id index: a larger page cache keeps it off the disk.
        try db.execute(sql: "PRAGMA cache_size = -32768")
        for c in page.collections {
            seen = max(seen, c.version.clock)
            if try tombstoneVersion(.collection, c.id) != nil { continue }
            let local = try Row.fetchOne(db, sql: "SELECT version, device FROM collectionVersion WHERE collectionId = ?", arguments: [c.id])
                .map { SyncVersion(clock: $0[0], device: $0[1]) }
            if let local, local >= c.version { continue }
            let name = try uniqueCollectionName(c.name, id: c.id)
            try db.execute(sql: """
                INSERT INTO collection (id, name, createdAt, updatedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, createdAt = excluded.createdAt, updatedAt = excluded.updatedAt
                """, arguments: [c.id, name, c.createdAt, c.updatedAt])
            try db.execute(sql: "INSERT OR REPLACE INTO collectionVersion (collectionId, seq, version, device) VALUES (?, ?, ?, ?)",
                           arguments: [c.id, ourSeq, c.version.clock, c.version.device])
            applied.collections += 1
        }
        for t in page.trees {
            for v in t.versions { seen = max(seen, v.clock) }
            if let merged = try merge(t, seq: ourSeq, device: state.deviceId, pushedClock: pushedClock, conflicts: &applied.conflicts) {
                if merged { applied.trees += 1 }
            }
        }
        for e in page.careEvents { seen = max(seen, e.version.clock) }
        applied.careEvents = try applyPulledCare(page.careEvents, seq: ourSeq)
        for p in page.photos {
            seen = max(seen, p.version.clock)
            if try tombstoneVersion(.photo, p.id) != nil { continue }
            guard let treeID = UUID(uuidString: p.treeId), try treeExists(treeID) else { continue }
            // Its care event keeps it when the event is here (events come first, in the push and
            // here); one deleted meanwhile leaves the photo the tree's, as a local deletion does.
            try db.execute(sql: """
                INSERT OR IGNORE INTO photo (id, treeId, sha256, format, byteCount, capturedAt, createdAt, careEventId)
                VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT id FROM careEvent WHERE id = ? AND treeId = ?))
                """, arguments: [p.id, p.treeId, p.sha256, p.format, p.byteCount, p.capturedAt, p.createdAt, p.careEventId, p.treeId])
            if db.changesCount > 0 {
                try db.execute(sql: "INSERT OR REPLACE INTO photoVersion (photoId, seq, version, device) VALUES (?, ?, ?, ?)",
                               arguments: [p.id, ourSeq, p.version.clock, p.version.device])
                applied.photos += 1
            }
        }
        for s in page.careSchedules { seen = max(seen, s.version.clock) }
        applied.careSchedules = try applyPulledSchedules(page.careSchedules, seq: ourSeq)
        // A deleted care event's tree and kind are brought up to date once, after the page.
        try beginTouchingCare()
        let touch = try db.cachedStatement(sql: "INSERT OR IGNORE INTO temp.careTouched (treeId, kind) SELECT treeId, kind FROM careEvent WHERE id = ?")
        for d in page.tombstones {
            seen = max(seen, d.version.clock)
            if try tombstoneVersion(d.kind, d.id) != nil { continue }
            try db.execute(sql: "INSERT INTO tombstone (kind, id, seq, version, device) VALUES (?, ?, ?, ?, ?)",
                           arguments: [d.kind.rawValue, d.id, ourSeq, d.version.clock, d.version.device])
            switch d.kind {
            case .tree:
                if let losing = try wholeTree(d.id) {
                    applied.conflicts.append(SyncConflict(treeId: d.id, field: "tree", loser: losing.version, loserValue: losing.json,
                                                          winner: d.version, reason: "deleted"))
                }
                // Its care events go with it (no tombstones of their own travel), their versions too.
                try db.execute(sql: "DELETE FROM careEventVersion WHERE eventId IN (SELECT id FROM careEvent WHERE treeId = ?)", arguments: [d.id])
                try db.execute(sql: "DELETE FROM tree WHERE id = ?", arguments: [d.id])
                if db.changesCount > 0 { applied.deletions += 1 }
                try db.execute(sql: "DELETE FROM treeVersion WHERE treeId = ?", arguments: [d.id])
                try db.execute(sql: "DELETE FROM treeFieldVersion WHERE treeId = ?", arguments: [d.id])
                try db.execute(sql: "DELETE FROM careScheduleVersion WHERE targetId = ?", arguments: [d.id])
            case .collection:
                // Its trees keep their place in no collection, as a local deletion leaves them.
                try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [d.id])
                if db.changesCount > 0 { applied.deletions += 1 }
                try db.execute(sql: "DELETE FROM collectionVersion WHERE collectionId = ?", arguments: [d.id])
                try db.execute(sql: "DELETE FROM careScheduleVersion WHERE targetId = ?", arguments: [d.id])
            case .photo:
                try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [d.id])
                if db.changesCount > 0 { applied.deletions += 1 }
                try db.execute(sql: "DELETE FROM photoVersion WHERE photoId = ?", arguments: [d.id])
            case .careEvent:
                try touch.execute(arguments: [d.id])
                try db.execute(sql: "DELETE FROM careEvent WHERE id = ?", arguments: [d.id])
                if db.changesCount > 0 { applied.deletions += 1 }
                try db.execute(sql: "DELETE FROM careEventVersion WHERE eventId = ?", arguments: [d.id])
            }
        }
        try refreshTouchedCare()
        // The server lists every value lost on a pulled tree, earlier ones too: only those new here are reported.
        applied.conflicts = try recordConflicts(applied.conflicts) + recordConflicts(page.conflicts)
        try db.execute(sql: "UPDATE syncState SET applying = 0, hlc = max(hlc, ?)", arguments: [seen])
        try db.execute(sql: "UPDATE remote SET pulledXid = ?, pulledSeq = ? WHERE name = ?", arguments: [cursor.xid, cursor.seq, remote])
        // What was pulled is on the server already: when nothing else was waiting to be pushed, it need not go back.
        // Its versions are another store's, or this one's from before the clock reading now.
        if nothingWaiting {
            try db.execute(sql: "UPDATE remote SET pushedSeq = ?, pushedClock = max(pushedClock, ?) WHERE name = ?",
                           arguments: [ourSeq, max(state.clock, seen), remote])
        }
        return applied
    }

    /// Moves the pull position of `remote` (a page with nothing to merge).
    public func setPulled(remote: String, cursor: (xid: String, seq: Int64)) throws {
        try db.execute(sql: "UPDATE remote SET pulledXid = ?, pulledSeq = ? WHERE name = ?", arguments: [cursor.xid, cursor.seq, remote])
    }

    public func markSynced(remote: String) throws {
        try db.execute(sql: "UPDATE remote SET lastSyncAt = ? WHERE name = ?", arguments: [StoredDate.text(now), remote])
    }

    func tombstoneVersion(_ kind: SyncTombstone.Kind, _ id: String) throws -> SyncVersion? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT version, device FROM tombstone WHERE kind = ? AND id = ?"), arguments: [kind.rawValue, id])
            .map { SyncVersion(clock: $0[0], device: $0[1]) }
    }

    /// A collection name not used by another collection: names are unique here, ignoring case
    /// (`TreeCollection.sameName`), but two stores may each create the same name. The one with the
    /// greater id is shown with its short id, the same way on every store; each keeps its own spelling.
    private func uniqueCollectionName(_ name: String, id: String) throws -> String {
        guard let other = try reader.collection(sameNameAs: name, other: UUID(uuidString: id)) else {
            return name
        }
        let otherID = other.id.storageKey, otherName = other.name
        if otherID < id { return "\(name) (\(ShortID.of(storageKey: id)))" }
        try db.execute(sql: "UPDATE collection SET name = ? WHERE id = ?", arguments: ["\(otherName) (\(ShortID.of(storageKey: otherID)))", otherID])
        return name
    }

    /// The local tree as one JSON object, with its latest version (for the history of a deletion).
    private func wholeTree(_ id: String) throws -> (json: String, version: SyncVersion)? {
        guard let local = try localTree(id) else { return nil }
        var values: [String: String?] = [:]
        for (i, name) in SyncTreeRow.columnNames.enumerated() { values[name] = local.columns[i] }
        return (SyncValue.json(values), local.versions.max() ?? SyncVersion(clock: 0, device: ""))
    }

    private func localTree(_ id: String) throws -> SyncTreeRow? {
        let columns = SyncTreeRow.columnNames.joined(separator: ", ")
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT \(columns), v.version, v.device, (SELECT group_concat(field || ' ' || version || ' ' || device, ',') FROM treeFieldVersion f WHERE f.treeId = t.id)
            FROM tree t JOIN treeVersion v ON v.treeId = t.id WHERE t.id = ?
            """), arguments: [id]) else { return nil }
        let n = SyncTreeRow.columnNames.count
        let base = SyncVersion(clock: row[n], device: row[n + 1])
        let fields = SyncValue.parseVersions(row[n + 2])
        return SyncTreeRow(id: id, columns: (0..<n).map { SyncValue.text(row[$0]) },
                           versions: SyncTreeRow.groups.map { max(base, fields[$0.name] ?? base) })
    }

    /// Merges one pulled tree; true when the store changed. A local value that loses is reported
    /// only when this store changed it after its last push (`device`, `pushedClock`): otherwise it
    /// is an older copy of a value the server has had.
    private func merge(_ remote: SyncTreeRow, seq: Int64, device: String, pushedClock: Int64, conflicts: inout [SyncConflict]) throws -> Bool? {
        if try tombstoneVersion(.tree, remote.id) != nil { return false }
        let names = SyncTreeRow.columnNames
        guard let local = try localTree(remote.id) else {
            try insertRaw(remote)
            let base = remote.versions.min() ?? SyncVersion(clock: 0, device: "")
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO treeVersion (treeId, seq, version, device) VALUES (?, ?, ?, ?)")
                .execute(arguments: [remote.id, seq, base.clock, base.device])
            // A group at the base version needs no row of its own (most new trees have none).
            try writeFieldVersions(remote.id, remote.versions, except: base)
            return true
        }
        var merged = local
        var changed = false
        for (g, group) in SyncTreeRow.groups.enumerated() where remote.versions[g] > local.versions[g] {
            let localValues = local.values(ofGroup: g), remoteValues = remote.values(ofGroup: g)
            let editedHere = local.versions[g].device == device && local.versions[g].clock > pushedClock
            if localValues != remoteValues && group.name != "updatedAt" && editedHere {
                conflicts.append(SyncConflict(treeId: remote.id, field: group.name, loser: local.versions[g], loserValue: SyncValue.json(localValues),
                                              winner: remote.versions[g], reason: "older"))
            }
            for c in group.columns { if let i = names.firstIndex(of: c) { merged.columns[i] = remote.columns[i] } }
            merged.versions[g] = remote.versions[g]
            changed = true
            // The group is the server's now: an edit made here later is made over its version.
            try db.cachedStatement(sql: "DELETE FROM treeFieldBase WHERE treeId = ? AND field = ?").execute(arguments: [remote.id, group.name])
        }
        guard changed else { return false }
        if let i = names.firstIndex(of: "collectionId"), let c = merged.columns[i],
           try !(Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM collection WHERE id = ?)"), arguments: [c]) ?? false) {
            merged.columns[i] = nil
        }
        try db.cachedStatement(sql: "UPDATE tree SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?")
            .execute(arguments: StatementArguments(merged.columns + [merged.id]))
        try db.cachedStatement(sql: "UPDATE treeVersion SET seq = ? WHERE treeId = ?").execute(arguments: [seq, remote.id])
        try writeFieldVersions(remote.id, merged.versions)
        return true
    }

    private func insertRaw(_ t: SyncTreeRow) throws {
        var columns = t.columns
        if let i = SyncTreeRow.columnNames.firstIndex(of: "collectionId"), let c = columns[i],
           try !(Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM collection WHERE id = ?)"), arguments: [c]) ?? false) {
            columns[i] = nil
        }
        let typed = zip(TreeColumn.allCases.dropFirst(), columns).map { column, value -> (any DatabaseValueConvertible)? in
            guard let value else { return nil }
            switch column.kind {
            case .latitude, .longitude, .accuracy, .optionalReal, .nonNegativeReal: return Double(value)
            case .optionalInteger: return Int64(value)
            default: return value
            }
        }
        try db.cachedStatement(sql: "INSERT INTO tree (id, \(SyncTreeRow.columnNames.joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: columns.count)))")
            .execute(arguments: StatementArguments([t.id] + typed))
    }

    private func writeFieldVersions(_ id: String, _ versions: [SyncVersion], except base: SyncVersion? = nil) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO treeFieldVersion (treeId, field, version, device) VALUES (?, ?, ?, ?)")
        for (g, group) in SyncTreeRow.groups.enumerated() where versions[g] != base {
            try statement.execute(arguments: [id, group.name, versions[g].clock, versions[g].device])
        }
    }
}

extension StoreReader {
    /// The photo files the store's rows refer to: hash and format (the file's extension).
    public func photoFiles() throws -> [(sha256: String, format: String)] {
        try Row.fetchAll(db, sql: "SELECT sha256, min(format) FROM photo GROUP BY sha256 ORDER BY sha256").map { ($0[0], $0[1]) }
    }
}
