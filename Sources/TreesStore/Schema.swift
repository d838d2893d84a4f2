import GRDB

/// The store's migrations. Each is frozen once shipped: change the schema only by adding a migration.
enum Schema {
    /// `PRAGMA application_id` of a trees database ("TREE").
    static let applicationID: Int32 = 0x5452_4545

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-trees-collections-photos-preferences") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.create(table: "collection") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull().unique().collate(.nocase)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
            }
            try db.create(table: "tree") { t in
                t.primaryKey("id", .text)
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("horizontalAccuracy", .double)
                t.column("accuracySource", .text)
                t.column("altitude", .double)
                t.column("ellipsoidHeight", .double)
                t.column("species", .text).notNull()
                t.column("variety", .text)
                t.column("rootstock", .text)
                t.column("notes", .text)
                t.column("collectionId", .text).references("collection", onDelete: .setNull)
                t.column("createdAt", .datetime).notNull()
                t.column("updatedAt", .datetime).notNull()
                t.column("fixTime", .datetime)
                t.column("fixMode", .integer)
                t.column("satellites", .integer)
                t.column("hdop", .double)
                t.column("averagedEpochs", .integer)
                t.column("locationSource", .text)
            }
            try db.create(index: "tree_createdAt", on: "tree", columns: ["createdAt"])
            try db.create(index: "tree_collectionId", on: "tree", columns: ["collectionId"])
            try db.create(index: "tree_species", on: "tree", columns: ["species"])
            try db.create(table: "photo") { t in
                t.primaryKey("id", .text)
                t.column("treeId", .text).notNull().indexed().references("tree", onDelete: .cascade)
                t.column("sha256", .text).notNull().indexed()
                t.column("format", .text).notNull()
                t.column("byteCount", .integer).notNull()
                t.column("capturedAt", .datetime).notNull()
                t.column("createdAt", .datetime).notNull()
            }
            try db.create(table: "preference") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            try db.create(table: "treeHistory") { t in
                t.autoIncrementedPrimaryKey("rowid")
                t.column("treeId", .text).notNull().indexed().references("tree", onDelete: .cascade)
                t.column("changedAt", .datetime).notNull()
                t.column("change", .text).notNull()
                t.column("latitude", .double)
                t.column("longitude", .double)
                t.column("horizontalAccuracy", .double)
            }
        }
        migrator.registerMigration("v2-tree-indexes") { db in
            // Lists and exports run in `createdAt DESC, id DESC` order: with the id in the index
            // SQLite walks it instead of sorting the rows of every same-time group.
            try db.drop(index: "tree_createdAt")
            try db.create(index: "tree_createdAt_id", on: "tree", columns: ["createdAt", "id"])
            // Species are always compared without case, which a BINARY index cannot serve: it only
            // cost time on every insert.
            try db.drop(index: "tree_species")
            // Trees without a collection are left out of the collection index (most imported trees
            // have none); `collectionId = ?` still uses it.
            try db.drop(index: "tree_collectionId")
            try db.execute(sql: "CREATE INDEX tree_collectionId ON tree(collectionId) WHERE collectionId IS NOT NULL")
        }
        migrator.registerMigration("v3-sync-versions") { db in
            try SyncSchema.create(db)
        }
        CareSchema.register(in: &migrator)
        // How good a captured tree's fix was. Status and source names are checked by every write
        // and by `trees doctor` rather than by a CHECK, which would freeze the list of names.
        migrator.registerMigration("v5-tree-fix-quality") { db in
            try db.alter(table: "tree") { t in
                t.add(column: "fixStatus", .text)
                t.add(column: "correctionAge", .double).check { $0 >= 0 }
                t.add(column: "verticalAccuracy", .double).check { $0 >= 0 }
                t.add(column: "verticalAccuracySource", .text)
                t.add(column: "antennaHeight", .double).check { $0 >= 0 }
            }
            // The position group now holds the fix quality: an edit of it versions the position.
            // (The groups as of this migration; one that changes them again freezes a copy here.)
            try db.execute(sql: "DROP TRIGGER tree_sync_update")
            try db.execute(sql: SyncSchema.updateTrigger(groups: SyncSchema.treeFieldGroups))
        }
        // The last day of one kind for every tree, in tree id order, without reading the other
        // kinds: what `due` reads for a schedule on a collection.
        migrator.registerMigration("v6-care-latest-by-kind") { db in
            try db.execute(sql: "CREATE INDEX careLatest_kind ON careLatest(kind, treeId, date)")
        }
        CareDueSchema.register(in: &migrator)
        migrator.registerMigration("v8-sync-bases") { db in
            try SyncSchema.addBases(db)
        }
        migrator.registerMigration("v9-care-sync") { db in
            try CareSyncSchema.create(db)
        }
        migrator.registerMigration("v10-care-schedule-sync") { db in
            try CareScheduleSyncSchema.create(db)
        }
        migrator.registerMigration("v11-care-deletions-with-their-tree") { db in
            try CareCascadeSchema.create(db)
        }
        return migrator
    }
}
