import GRDB

/// What a store keeps to sync with servers: its device id, a hybrid logical clock, the version of
/// every change, tombstones, the losing values of conflicts and the position reached with each remote.
///
/// Versions are recorded by triggers, so every write path (add, edit, rm, import, capture, photo,
/// collections, doctor) records them without knowing about sync. `TreeStore.write` ticks the clock
/// once per transaction; the triggers stamp what the transaction changes with that tick. While a
/// sync applies what it pulled, `syncState.applying` is 1 and the triggers stand aside: the sync
/// writes the versions it received.
///
/// A version is a hybrid logical clock reading: milliseconds since 1970 shifted left 16 bits, plus a
/// counter, never less than one more than any version this store has made or seen. Two versions
/// are ordered by that number, then by device id, the same way on every store and on the server.
enum SyncSchema {
    /// The groups of tree columns that are versioned together: a position is one value, not twelve.
    /// The fix quality (migration `v5-tree-fix-quality`) belongs to the position it describes.
    static let treeFieldGroups: [(name: String, columns: [String])] = [
        ("position", ["latitude", "longitude", "horizontalAccuracy", "accuracySource", "altitude", "ellipsoidHeight",
                      "fixTime", "fixMode", "satellites", "hdop", "averagedEpochs", "locationSource",
                      "fixStatus", "correctionAge", "verticalAccuracy", "verticalAccuracySource", "antennaHeight"]),
        ("species", ["species"]),
        ("variety", ["variety"]),
        ("rootstock", ["rootstock"]),
        ("notes", ["notes"]),
        ("collection", ["collectionId"]),
        ("updatedAt", ["updatedAt"]),
    ]

    /// The groups as migration `v3-sync-versions` compared them in its update trigger, frozen with it.
    private static let v3TreeFieldGroups: [(name: String, columns: [String])] = [
        ("position", ["latitude", "longitude", "horizontalAccuracy", "accuracySource", "altitude", "ellipsoidHeight",
                      "fixTime", "fixMode", "satellites", "hdop", "averagedEpochs", "locationSource"]),
        ("species", ["species"]),
        ("variety", ["variety"]),
        ("rootstock", ["rootstock"]),
        ("notes", ["notes"]),
        ("collection", ["collectionId"]),
        ("updatedAt", ["updatedAt"]),
    ]

    /// The names of the field groups an update of a tree changes, as a query (`field`), comparing `groups`.
    private static func changedGroups(_ groups: [(name: String, columns: [String])]) -> String {
        groups.map { group in
            "SELECT '\(group.name)' AS field WHERE " + group.columns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
        }.joined(separator: " UNION ALL ")
    }

    /// The trigger that versions the field groups an update of a tree changes, comparing `groups`.
    static func updateTrigger(groups: [(name: String, columns: [String])]) -> String {
        let changed = changedGroups(groups)
        return """
            CREATE TRIGGER tree_sync_update AFTER UPDATE ON tree WHEN (SELECT applying FROM syncState) = 0 BEGIN
                INSERT OR REPLACE INTO treeFieldVersion (treeId, field, version, device)
                    SELECT new.id, changed.field, s.hlc, s.deviceId FROM syncState s, (\(changed)) changed;
                UPDATE treeVersion SET seq = (SELECT seq FROM syncState) WHERE treeId = new.id;
            END
            """
    }

    /// Migration `v8-sync-bases`: the version each field group had when this store first changed
    /// it after its last push (`treeFieldBase`), and the clock of that push (`remote.pushedClock`).
    ///
    /// A push tells the server, for every field group, whether this store changed it since its last
    /// push and over which version. The server then keeps a value as lost only when it truly was:
    /// an edit made over a value its author had seen replaces that value, and a group this store
    /// did not touch is only an older copy, never a lost value.
    ///
    /// The base is recorded by a trigger before the update, once per group until the next push
    /// (`INSERT OR IGNORE`); a push removes the bases of the trees it sent that have not changed
    /// since. Edits made before this migration have no base: they are judged as before, by version.
    static func addBases(_ db: Database) throws {
        let changed = changedGroups(treeFieldGroups)
        try db.execute(sql: """
            CREATE TABLE treeFieldBase (
                treeId TEXT NOT NULL,
                field TEXT NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL,
                PRIMARY KEY (treeId, field)
            ) WITHOUT ROWID;
            ALTER TABLE remote ADD COLUMN pushedClock INTEGER NOT NULL DEFAULT 0;
            CREATE TRIGGER tree_sync_base BEFORE UPDATE ON tree WHEN (SELECT applying FROM syncState) = 0 BEGIN
                INSERT OR IGNORE INTO treeFieldBase (treeId, field, version, device)
                    SELECT old.id, changed.field,
                           CASE WHEN f.version IS NOT NULL AND (f.version, f.device) > (v.version, v.device) THEN f.version ELSE v.version END,
                           CASE WHEN f.version IS NOT NULL AND (f.version, f.device) > (v.version, v.device) THEN f.device ELSE v.device END
                    FROM (\(changed)) changed JOIN treeVersion v ON v.treeId = old.id
                    LEFT JOIN treeFieldVersion f ON f.treeId = old.id AND f.field = changed.field;
            END;
            """)
    }

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE syncState (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                deviceId TEXT NOT NULL,
                hlc INTEGER NOT NULL,
                seq INTEGER NOT NULL,
                applying INTEGER NOT NULL DEFAULT 0
            );
            INSERT INTO syncState (id, deviceId, hlc, seq) VALUES (1, lower(hex(randomblob(16))), 0, 1);
            CREATE TABLE treeVersion (
                treeId TEXT PRIMARY KEY NOT NULL,
                seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX treeVersion_seq ON treeVersion(seq, treeId);
            CREATE TABLE treeFieldVersion (
                treeId TEXT NOT NULL,
                field TEXT NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL,
                PRIMARY KEY (treeId, field)
            ) WITHOUT ROWID;
            CREATE TABLE collectionVersion (
                collectionId TEXT PRIMARY KEY NOT NULL,
                seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX collectionVersion_seq ON collectionVersion(seq);
            CREATE TABLE photoVersion (
                photoId TEXT PRIMARY KEY NOT NULL,
                seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX photoVersion_seq ON photoVersion(seq);
            CREATE TABLE tombstone (
                kind TEXT NOT NULL,
                id TEXT NOT NULL,
                seq INTEGER NOT NULL,
                version INTEGER NOT NULL,
                device TEXT NOT NULL,
                PRIMARY KEY (kind, id)
            ) WITHOUT ROWID;
            CREATE INDEX tombstone_seq ON tombstone(seq);
            CREATE TABLE remote (
                name TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                target TEXT NOT NULL,
                pushedSeq INTEGER NOT NULL DEFAULT 0,
                pulledXid TEXT NOT NULL DEFAULT '0',
                pulledSeq INTEGER NOT NULL DEFAULT 0,
                lastSyncAt TEXT
            );
            CREATE TABLE treeConflict (
                treeId TEXT NOT NULL,
                field TEXT NOT NULL,
                loserVersion INTEGER NOT NULL,
                loserDevice TEXT NOT NULL,
                loserValue TEXT NOT NULL,
                winnerVersion INTEGER NOT NULL,
                winnerDevice TEXT NOT NULL,
                reason TEXT NOT NULL,
                PRIMARY KEY (treeId, field, loserVersion, loserDevice)
            ) WITHOUT ROWID;
            """)
        // Trees stored before this migration: versioned as of their last update, to be pushed.
        try db.execute(sql: """
            INSERT INTO treeVersion (treeId, seq, version, device)
            SELECT id, 1, (CAST(strftime('%s', updatedAt) AS INTEGER) * 1000) << 16, (SELECT deviceId FROM syncState) FROM tree;
            INSERT INTO collectionVersion (collectionId, seq, version, device)
            SELECT id, 1, (CAST(strftime('%s', updatedAt) AS INTEGER) * 1000) << 16, (SELECT deviceId FROM syncState) FROM collection;
            INSERT INTO photoVersion (photoId, seq, version, device)
            SELECT id, 1, (CAST(strftime('%s', createdAt) AS INTEGER) * 1000) << 16, (SELECT deviceId FROM syncState) FROM photo;
            """)
        let active = "WHEN (SELECT applying FROM syncState) = 0"
        try db.execute(sql: """
            CREATE TRIGGER tree_sync_insert AFTER INSERT ON tree \(active) BEGIN
                INSERT OR REPLACE INTO treeVersion (treeId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
            END;
            \(updateTrigger(groups: v3TreeFieldGroups));
            CREATE TRIGGER tree_sync_delete AFTER DELETE ON tree \(active) BEGIN
                INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'tree', old.id, seq, hlc, deviceId FROM syncState;
                DELETE FROM treeVersion WHERE treeId = old.id;
                DELETE FROM treeFieldVersion WHERE treeId = old.id;
            END;
            CREATE TRIGGER collection_sync_insert AFTER INSERT ON collection \(active) BEGIN
                INSERT OR REPLACE INTO collectionVersion (collectionId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
            END;
            CREATE TRIGGER collection_sync_update AFTER UPDATE ON collection \(active) BEGIN
                INSERT OR REPLACE INTO collectionVersion (collectionId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
            END;
            CREATE TRIGGER collection_sync_delete AFTER DELETE ON collection \(active) BEGIN
                INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'collection', old.id, seq, hlc, deviceId FROM syncState;
                DELETE FROM collectionVersion WHERE collectionId = old.id;
            END;
            CREATE TRIGGER photo_sync_insert AFTER INSERT ON photo \(active) BEGIN
                INSERT OR REPLACE INTO photoVersion (photoId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
            END;
            CREATE TRIGGER photo_sync_delete AFTER DELETE ON photo \(active) BEGIN
                INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'photo', old.id, seq, hlc, deviceId FROM syncState;
                DELETE FROM photoVersion WHERE photoId = old.id;
            END;
            """)
    }
}
