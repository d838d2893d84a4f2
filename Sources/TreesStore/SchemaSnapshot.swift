/// The schema the migrations of `Schema.migrator` make, and the rows they put in it, as one script:
/// a new store is made from it in one statement.
///
/// Run one by one, the migrations took 7.6 of the 10 ms it took to make a store (GRDB reads the
/// schema and checks every foreign key again after each); a store's first import waits on that.
/// `StoreCreationTests` makes a store from this script and one through the migrations and compares
/// their schemas, rows and settings: a new migration fails that test until the script is written
/// again (the test prints it), and until then a store is made through the migrations
/// (`StoreCreation` uses the script only for exactly these migrations).
enum SchemaSnapshot {
    /// The migrations the script stands for, in the order they ran.
    static let migrations = [
        "v1-trees-collections-photos-preferences",
        "v2-tree-indexes",
        "v3-sync-versions",
        "v3-care-log",
        "v4-care-photos",
        "v5-tree-fix-quality",
        "v6-care-latest-by-kind",
        "v7-care-due",
    ]

    /// The statements, in the order the migrations left the schema's objects; the store's device id
    /// is made at random, as migration `v3-sync-versions` makes it.
    static let sql = #"""
        PRAGMA application_id = 1414677829;
        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
        CREATE TABLE "collection" ("id" TEXT PRIMARY KEY NOT NULL, "name" TEXT NOT NULL UNIQUE COLLATE NOCASE, "createdAt" DATETIME NOT NULL, "updatedAt" DATETIME NOT NULL);
        CREATE TABLE "tree" ("id" TEXT PRIMARY KEY NOT NULL, "latitude" DOUBLE NOT NULL, "longitude" DOUBLE NOT NULL, "horizontalAccuracy" DOUBLE, "accuracySource" TEXT, "altitude" DOUBLE, "ellipsoidHeight" DOUBLE, "species" TEXT NOT NULL, "variety" TEXT, "rootstock" TEXT, "notes" TEXT, "collectionId" TEXT REFERENCES "collection"("id") ON DELETE SET NULL, "createdAt" DATETIME NOT NULL, "updatedAt" DATETIME NOT NULL, "fixTime" DATETIME, "fixMode" INTEGER, "satellites" INTEGER, "hdop" DOUBLE, "averagedEpochs" INTEGER, "locationSource" TEXT, "fixStatus" TEXT, "correctionAge" DOUBLE CHECK ("correctionAge" >= 0), "verticalAccuracy" DOUBLE CHECK ("verticalAccuracy" >= 0), "verticalAccuracySource" TEXT, "antennaHeight" DOUBLE CHECK ("antennaHeight" >= 0));
        CREATE TABLE "photo" ("id" TEXT PRIMARY KEY NOT NULL, "treeId" TEXT NOT NULL REFERENCES "tree"("id") ON DELETE CASCADE, "sha256" TEXT NOT NULL, "format" TEXT NOT NULL, "byteCount" INTEGER NOT NULL, "capturedAt" DATETIME NOT NULL, "createdAt" DATETIME NOT NULL, careEventId TEXT REFERENCES careEvent(id) ON DELETE SET NULL);
        CREATE INDEX "photo_on_treeId" ON "photo"("treeId");
        CREATE INDEX "photo_on_sha256" ON "photo"("sha256");
        CREATE TABLE "preference" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
        CREATE TABLE "treeHistory" ("rowid" INTEGER PRIMARY KEY AUTOINCREMENT, "treeId" TEXT NOT NULL REFERENCES "tree"("id") ON DELETE CASCADE, "changedAt" DATETIME NOT NULL, "change" TEXT NOT NULL, "latitude" DOUBLE, "longitude" DOUBLE, "horizontalAccuracy" DOUBLE);
        CREATE INDEX "treeHistory_on_treeId" ON "treeHistory"("treeId");
        CREATE INDEX "tree_createdAt_id" ON "tree"("createdAt", "id");
        CREATE INDEX tree_collectionId ON tree(collectionId) WHERE collectionId IS NOT NULL;
        CREATE TABLE syncState (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            deviceId TEXT NOT NULL,
            hlc INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            applying INTEGER NOT NULL DEFAULT 0
        );
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
        CREATE TRIGGER tree_sync_insert AFTER INSERT ON tree WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO treeVersion (treeId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
        END;
        CREATE TRIGGER tree_sync_delete AFTER DELETE ON tree WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'tree', old.id, seq, hlc, deviceId FROM syncState;
            DELETE FROM treeVersion WHERE treeId = old.id;
            DELETE FROM treeFieldVersion WHERE treeId = old.id;
        END;
        CREATE TRIGGER collection_sync_insert AFTER INSERT ON collection WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO collectionVersion (collectionId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
        END;
        CREATE TRIGGER collection_sync_update AFTER UPDATE ON collection WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO collectionVersion (collectionId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
        END;
        CREATE TRIGGER collection_sync_delete AFTER DELETE ON collection WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'collection', old.id, seq, hlc, deviceId FROM syncState;
            DELETE FROM collectionVersion WHERE collectionId = old.id;
        END;
        CREATE TRIGGER photo_sync_insert AFTER INSERT ON photo WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO photoVersion (photoId, seq, version, device) SELECT new.id, seq, hlc, deviceId FROM syncState;
        END;
        CREATE TRIGGER photo_sync_delete AFTER DELETE ON photo WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO tombstone (kind, id, seq, version, device) SELECT 'photo', old.id, seq, hlc, deviceId FROM syncState;
            DELETE FROM photoVersion WHERE photoId = old.id;
        END;
        CREATE TABLE "careEvent" ("id" TEXT PRIMARY KEY NOT NULL, "treeId" TEXT NOT NULL REFERENCES "tree"("id") ON DELETE CASCADE, "kind" TEXT NOT NULL, "date" DATETIME NOT NULL, "notes" TEXT, "quantity" DOUBLE, "unit" TEXT, "health" TEXT, "who" TEXT, "createdAt" DATETIME NOT NULL, "updatedAt" DATETIME NOT NULL);
        CREATE INDEX "careEvent_treeId_date" ON "careEvent"("treeId", "date", "id");
        CREATE INDEX "careEvent_treeId_kind_date" ON "careEvent"("treeId", "kind", "date");
        CREATE INDEX "careEvent_kind_date" ON "careEvent"("kind", "date");
        CREATE TABLE careLatest (
            treeId TEXT NOT NULL REFERENCES tree(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            date DATETIME NOT NULL,
            PRIMARY KEY (treeId, kind)
        ) WITHOUT ROWID;
        CREATE TABLE "treeHealth" ("treeId" TEXT PRIMARY KEY NOT NULL REFERENCES "tree"("id") ON DELETE CASCADE, "status" TEXT NOT NULL, "date" DATETIME NOT NULL);
        CREATE TABLE careMonthly (
            month TEXT NOT NULL,
            kind TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (month, kind)
        ) WITHOUT ROWID;
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
        CREATE TABLE careHarvest (
            treeId TEXT NOT NULL REFERENCES tree(id) ON DELETE CASCADE,
            unit TEXT NOT NULL,
            total REAL NOT NULL,
            events INTEGER NOT NULL,
            PRIMARY KEY (treeId, unit)
        ) WITHOUT ROWID;
        CREATE TABLE "careSchedule" ("id" TEXT PRIMARY KEY NOT NULL, "treeId" TEXT REFERENCES "tree"("id") ON DELETE CASCADE, "collectionId" TEXT REFERENCES "collection"("id") ON DELETE CASCADE, "kind" TEXT NOT NULL, "everyDays" INTEGER NOT NULL CHECK ("everyDays" > 0), "fromDay" TEXT NOT NULL, "season" TEXT, "createdAt" DATETIME NOT NULL, "updatedAt" DATETIME NOT NULL, CHECK ((treeId IS NULL) <> (collectionId IS NULL)));
        CREATE UNIQUE INDEX careSchedule_tree_kind ON careSchedule(treeId, kind) WHERE treeId IS NOT NULL;
        CREATE UNIQUE INDEX careSchedule_collection_kind ON careSchedule(collectionId, kind) WHERE collectionId IS NOT NULL;
        CREATE INDEX photo_careEventId ON photo(careEventId) WHERE careEventId IS NOT NULL;
        CREATE TRIGGER tree_sync_update AFTER UPDATE ON tree WHEN (SELECT applying FROM syncState) = 0 BEGIN
            INSERT OR REPLACE INTO treeFieldVersion (treeId, field, version, device)
                SELECT new.id, changed.field, s.hlc, s.deviceId FROM syncState s, (SELECT 'position' AS field WHERE old.latitude IS NOT new.latitude OR old.longitude IS NOT new.longitude OR old.horizontalAccuracy IS NOT new.horizontalAccuracy OR old.accuracySource IS NOT new.accuracySource OR old.altitude IS NOT new.altitude OR old.ellipsoidHeight IS NOT new.ellipsoidHeight OR old.fixTime IS NOT new.fixTime OR old.fixMode IS NOT new.fixMode OR old.satellites IS NOT new.satellites OR old.hdop IS NOT new.hdop OR old.averagedEpochs IS NOT new.averagedEpochs OR old.locationSource IS NOT new.locationSource OR old.fixStatus IS NOT new.fixStatus OR old.correctionAge IS NOT new.correctionAge OR old.verticalAccuracy IS NOT new.verticalAccuracy OR old.verticalAccuracySource IS NOT new.verticalAccuracySource OR old.antennaHeight IS NOT new.antennaHeight UNION ALL SELECT 'species' AS field WHERE old.species IS NOT new.species UNION ALL SELECT 'variety' AS field WHERE old.variety IS NOT new.variety UNION ALL SELECT 'rootstock' AS field WHERE old.rootstock IS NOT new.rootstock UNION ALL SELECT 'notes' AS field WHERE old.notes IS NOT new.notes UNION ALL SELECT 'collection' AS field WHERE old.collectionId IS NOT new.collectionId UNION ALL SELECT 'updatedAt' AS field WHERE old.updatedAt IS NOT new.updatedAt) changed;
            UPDATE treeVersion SET seq = (SELECT seq FROM syncState) WHERE treeId = new.id;
        END;
        CREATE INDEX careLatest_kind ON careLatest(kind, treeId, date);
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
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.treeId, NEW.kind WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.treeId AND kind = NEW.kind);
        END;
        CREATE TRIGGER careDue_latest_update AFTER UPDATE ON careLatest BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT OLD.treeId, OLD.kind WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = OLD.treeId AND kind = OLD.kind) AND EXISTS (SELECT 1 FROM careDue WHERE treeId = OLD.treeId AND kind = OLD.kind);
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.treeId, NEW.kind WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.treeId AND kind = NEW.kind) AND EXISTS (SELECT 1 FROM careDue WHERE treeId = NEW.treeId AND kind = NEW.kind);
        END;
        CREATE TRIGGER careDue_latest_delete AFTER DELETE ON careLatest
        WHEN EXISTS (SELECT 1 FROM careDue WHERE treeId = OLD.treeId AND kind = OLD.kind) BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT OLD.treeId, OLD.kind WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = OLD.treeId AND kind = OLD.kind);
        END;
        CREATE TRIGGER careDue_schedule_insert AFTER INSERT ON careSchedule
        WHEN (SELECT zone FROM careDueState) IS NOT NULL BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.treeId, NEW.kind WHERE NEW.treeId IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.treeId AND kind = NEW.kind);
        INSERT INTO careDueStale (treeId, kind) SELECT t.id, NEW.kind FROM tree t WHERE t.collectionId = NEW.collectionId
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = t.id AND kind = NEW.kind);
        END;
        CREATE TRIGGER careDue_schedule_update AFTER UPDATE ON careSchedule
        WHEN (SELECT zone FROM careDueState) IS NOT NULL BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT OLD.treeId, OLD.kind WHERE OLD.treeId IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = OLD.treeId AND kind = OLD.kind);
        INSERT INTO careDueStale (treeId, kind) SELECT t.id, OLD.kind FROM tree t WHERE t.collectionId = OLD.collectionId
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = t.id AND kind = OLD.kind);
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.treeId, NEW.kind WHERE NEW.treeId IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.treeId AND kind = NEW.kind);
        INSERT INTO careDueStale (treeId, kind) SELECT t.id, NEW.kind FROM tree t WHERE t.collectionId = NEW.collectionId
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = t.id AND kind = NEW.kind);
        END;
        CREATE TRIGGER careDue_schedule_delete AFTER DELETE ON careSchedule
        WHEN (SELECT zone FROM careDueState) IS NOT NULL BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT OLD.treeId, OLD.kind WHERE OLD.treeId IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = OLD.treeId AND kind = OLD.kind);
        INSERT INTO careDueStale (treeId, kind) SELECT t.id, OLD.kind FROM tree t WHERE t.collectionId = OLD.collectionId
            AND NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = t.id AND kind = OLD.kind);
        END;
        CREATE TRIGGER careDue_tree_update AFTER UPDATE OF species, variety, collectionId ON tree
        WHEN (OLD.species IS NOT NEW.species OR OLD.variety IS NOT NEW.variety OR OLD.collectionId IS NOT NEW.collectionId)
            AND (EXISTS (SELECT 1 FROM careDue WHERE treeId = NEW.id)
                 OR ((SELECT zone FROM careDueState) IS NOT NULL
                     AND EXISTS (SELECT 1 FROM careSchedule WHERE collectionId = NEW.collectionId))) BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.id, '' WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.id AND kind = '');
        END;
        CREATE TRIGGER careDue_tree_insert AFTER INSERT ON tree
        WHEN (SELECT zone FROM careDueState) IS NOT NULL
            AND (EXISTS (SELECT 1 FROM careSchedule WHERE collectionId = NEW.collectionId)
                 OR EXISTS (SELECT 1 FROM careSchedule WHERE treeId = NEW.id)) BEGIN
            INSERT INTO careDueStale (treeId, kind) SELECT NEW.id, '' WHERE NOT EXISTS (SELECT 1 FROM careDueStale WHERE treeId = NEW.id AND kind = '');
        END;
        INSERT INTO grdb_migrations (identifier) VALUES ('v1-trees-collections-photos-preferences'), ('v2-tree-indexes'), ('v3-sync-versions'), ('v3-care-log'), ('v4-care-photos'), ('v5-tree-fix-quality'), ('v6-care-latest-by-kind'), ('v7-care-due');
        INSERT INTO syncState (id, deviceId, hlc, seq) VALUES (1, lower(hex(randomblob(16))), 0, 1);
        INSERT INTO careDueState (zone, rows) VALUES (NULL, 0);
        """#
}
