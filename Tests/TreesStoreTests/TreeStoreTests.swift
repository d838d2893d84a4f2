import Foundation
import GRDB
import Testing
import TreesKit
@testable import TreesStore
import TreesTestSupport

/// The store against real temporary SQLite files, in a folder of each test's own.
@Suite struct TreeStoreTests {
    let scratch: TemporaryFolder
    var folder: String { scratch.path }
    let path: String
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777)

    init() throws {
        scratch = try TemporaryFolder("store")
        path = scratch.path("nested/trees.sqlite")
    }

    func open() throws -> TreeStore { try TreeStore(path: path, clock: .fixed(Self.t0)) }

    func tree(_ species: String, lat: Double = 50, lon: Double = 8, at offset: TimeInterval = 0, id: UUID = UUID()) -> Tree {
        Tree(id: id, coordinate: Coordinate(latitude: lat, longitude: lon), species: species, createdAt: Self.t0 + offset)
    }

    @Test func migratesFromEmptyWithWALAndForeignKeys() throws {
        let store = try open()
        let (tables, journal, fk, appID) = try store.queue.read { db in
            (try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name"),
             try String.fetchOne(db, sql: "PRAGMA journal_mode"),
             try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
             try Int32.fetchOne(db, sql: "PRAGMA application_id"))
        }
        #expect(tables == ["careDue", "careDueStale", "careDueState", "careEvent", "careEventVersion", "careHarvest", "careLatest", "careMonthly", "careSchedule",
                           "careScheduleVersion", "collection", "collectionVersion", "photo", "photoVersion", "preference", "remote", "syncState", "tombstone",
                           "tree", "treeConflict", "treeFieldBase", "treeFieldVersion", "treeHealth", "treeHistory", "treeVersion"])
        #expect(journal == "wal")
        #expect(fk == 1)
        #expect(appID == Schema.applicationID)
        let columns = try store.queue.read { db in try db.columns(in: "tree").map(\.name) }
        #expect(columns == Tree.storageColumns)
        // Reopening applies nothing new and keeps the data.
        try store.write { try $0.insert(tree("Apple")) }
        let again = try open()
        #expect(try again.trees().map(\.species) == ["Apple"])
    }

    /// Makes the store at `path` as the migrations up to `migration` left it, with the rows `sql` writes.
    func makeOldStore(upTo migration: String, _ sql: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/nested", withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: migration)
        try old.write { db in try db.execute(sql: sql) }
    }

    /// A store made by the first schema gets the second one's indexes and keeps its trees; after
    /// that, opening it and reading leaves the file byte for byte as it was, with no WAL left behind.
    @Test func upgradesAVersion1StoreAndReadsWriteNothing() throws {
        try makeOldStore(upTo: "v1-trees-collections-photos-preferences", """
            INSERT INTO tree (id, latitude, longitude, species, createdAt, updatedAt)
            VALUES ('0f0e0d0c-0b0a-4908-8706-050403020100', 50.5, 8.25, 'Apple', '2026-05-01 10:00:00.000', '2026-05-01 10:00:00.000')
            """)
        do {
            let store = try open()
            let indexes = try store.queue.read { db in
                try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tree' AND sql IS NOT NULL ORDER BY name")
                    .map { "\($0["name"] as String): \($0["sql"] as String)" }
            }
            #expect(indexes == [
                "tree_collectionId: CREATE INDEX tree_collectionId ON tree(collectionId) WHERE collectionId IS NOT NULL",
                "tree_createdAt_id: CREATE INDEX \"tree_createdAt_id\" ON \"tree\"(\"createdAt\", \"id\")",
            ])
            #expect(try store.trees().map(\.id.uuidString) == ["0F0E0D0C-0B0A-4908-8706-050403020100"])
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let store = try open()
            #expect(try store.trees().count == 1)
            try store.read { r in try r.forEachTree(TreeFilter()) { #expect($0.species == "Apple") } }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func roundTripsEveryField() throws {
        let store = try open()
        let c = try store.write { try $0.createCollection(named: "North Block") }
        let original = Tree(
            coordinate: Coordinate(latitude: -33.8688197, longitude: 151.2092955), horizontalAccuracy: 3.25,
            accuracySource: .gst, altitude: 58.4, ellipsoidHeight: 80.1, species: "Apple", variety: "Gala",
            rootstock: "M9", notes: "north-east corner", collectionID: c.id, createdAt: Self.t0, updatedAt: Self.t0 + 5,
            capture: CaptureInfo(fixTime: Self.t0 - 1, fixMode: .threeD, satellites: 11, hdop: 0.8, averagedEpochs: 10,
                                 locationSource: "replay:SampleTracks/orchard-walk.nmea", fixStatus: .rtkFixed, correctionAge: 1.4,
                                 verticalAccuracy: 0.035, verticalAccuracySource: .gst, antennaHeight: 1.8))
        try store.write { try $0.insert(original) }
        #expect(try store.tree(matching: original.shortID) == original)
    }

    /// A store made before the fix quality was kept (every migration up to the care photos) gets
    /// its columns, empty, keeps its trees, and from then on an edit of the fix quality is an edit
    /// of the position, as sync versions it.
    @Test func upgradesAStoreFromBeforeTheFixQuality() throws {
        try makeOldStore(upTo: "v4-care-photos", """
            INSERT INTO tree (id, latitude, longitude, horizontalAccuracy, species, createdAt, updatedAt, fixMode, satellites)
            VALUES ('0f0e0d0c-0b0a-4908-8706-050403020100', 50.5, 8.25, 4.5, 'Apple', '2026-05-01 10:00:00.000',
                    '2026-05-01 10:00:00.000', 3, 9)
            """)
        let store = try open()
        let columns = try store.queue.read { db in try db.columns(in: "tree").map(\.name) }
        #expect(columns == Tree.storageColumns)
        var t = try #require(try store.trees().first)
        #expect(t.capture == CaptureInfo(fixMode: .threeD, satellites: 9))
        t.capture.fixStatus = .rtkFloat
        t.capture.correctionAge = 2
        t.capture.antennaHeight = 2.0
        try store.write { _ = try $0.update(t) }
        let back = try #require(try store.trees().first)
        #expect(back.capture.fixStatus == .rtkFloat && back.capture.correctionAge == 2 && back.capture.antennaHeight == 2)
        let fields = try store.queue.read { db in try String.fetchAll(db, sql: "SELECT field FROM treeFieldVersion ORDER BY field") }
        #expect(fields == ["position", "updatedAt"])
        // The schema refuses a negative age or height written past the store's own checks.
        #expect(throws: DatabaseError.self) {
            try store.queue.write { db in try db.execute(sql: "UPDATE tree SET antennaHeight = -1.5") }
        }
    }

    /// A store that synced before care schedules were versioned has them pushed by its next
    /// sync, and from then on setting, replacing and removing one is a change of (target, kind).
    @Test func upgradesAStoreThatSyncedBeforeCareSchedulesWereVersioned() throws {
        let tree = "0f0e0d0c-0b0a-4908-8706-050403020100"
        try makeOldStore(upTo: "v9-care-sync", """
            INSERT INTO tree (id, latitude, longitude, species, createdAt, updatedAt)
            VALUES ('\(tree)', 50.5, 8.25, 'Apple', '2026-05-01 10:00:00.000', '2026-05-01 10:00:00.000');
            INSERT INTO careSchedule (id, treeId, kind, everyDays, fromDay, createdAt, updatedAt)
            VALUES ('2b2b2b2b-0b0a-4908-8706-050403020100', '\(tree)', 'prune', 365, '2026-02-01',
                    '2026-05-02 08:00:00.000', '2026-05-02 08:00:00.000');
            UPDATE syncState SET seq = 7;
            INSERT INTO remote (name, target, pushedSeq) VALUES ('office', 'postgres://office', 7);
            """)
        let store = try open()
        let remote = try #require(try store.read { try $0.remote(named: "office") })
        func changed() throws -> [SyncCareScheduleRow] {
            try store.read { r in try r.changedCareSchedules(after: remote.pushedSeq, resuming: nil, through: try r.syncState().seq, limit: 10) }.map(\.row)
        }
        let before = try changed()
        #expect(before.map(\.targetId) == [tree] && before.map(\.kind) == ["prune"])
        #expect(before.first?.columns?[0] == "tree" && before.first?.columns?[1] == "365" && before.first?.columns?[2] == "2026-02-01")
        #expect(before.first?.version.clock == SyncVersion.clock(at: Date(timeIntervalSince1970: 1_777_708_800)))
        // Replacing it is one change of the pair; removing it is a change without values.
        let id = try #require(UUID(uuidString: tree))
        try store.write { w in
            try w.setSchedule(CareSchedule(target: .tree(id), kind: try CareKind("prune"), everyDays: 180, from: Day(year: 2026, month: 2, day: 1), createdAt: w.now))
        }
        #expect(try changed().map { $0.columns?[1] } == ["180"])
        _ = try store.write { w in try w.removeSchedule(.tree(id), kind: try CareKind("prune")) }
        let removed = try changed()
        #expect(removed.count == 1 && removed[0].columns == nil && removed[0].version > before[0].version)
        #expect(try store.read { try $0.changeCount(after: remote.pushedSeq) } == 1)
    }

    /// A store made before deletions of a tree's care events went with the tree's own: deleting a
    /// tree there now records one tombstone, the tree's, and deleting an event alone still records it.
    @Test func upgradedStoreDeletesATreeWithOneTombstone() throws {
        let tree = "0f0e0d0c-0b0a-4908-8706-050403020100", other = "1f0e0d0c-0b0a-4908-8706-050403020100"
        var events = ""
        for (i, t) in [tree, tree, tree, other].enumerated() {
            events += """
                INSERT INTO careEvent (id, treeId, kind, date, createdAt, updatedAt)
                VALUES ('3c3c3c3\(i)-0b0a-4908-8706-050403020100', '\(t)', 'water', '2026-05-0\(i + 1) 08:00:00.000',
                        '2026-05-02 08:00:00.000', '2026-05-02 08:00:00.000');

                """
        }
        try makeOldStore(upTo: "v10-care-schedule-sync", """
            INSERT INTO tree (id, latitude, longitude, species, createdAt, updatedAt)
            VALUES ('\(tree)', 50.5, 8.25, 'Apple', '2026-05-01 10:00:00.000', '2026-05-01 10:00:00.000'),
                   ('\(other)', 50.6, 8.25, 'Pear', '2026-05-01 10:00:00.000', '2026-05-01 10:00:00.000');
            \(events)
            """)
        let store = try open()
        func tombstones() throws -> [String] {
            try store.read { r in try r.tombstones(after: 0, resuming: nil, through: try r.syncState().seq, limit: 100) }
                .map { "\($0.tombstone.kind.rawValue) \($0.tombstone.id)" }
        }
        _ = try store.write { w in try w.deleteTrees([try #require(UUID(uuidString: tree))]) }
        #expect(try tombstones() == ["tree \(tree)"])
        #expect(try store.read { r in try Int.fetchOne(r.db, sql: "SELECT count(*) FROM careEventVersion") } == 1)
        _ = try store.write { w in try w.deleteCareEvent(try #require(UUID(uuidString: "3c3c3c33-0b0a-4908-8706-050403020100"))) }
        #expect(try tombstones() == ["tree \(tree)", "careEvent 3c3c3c33-0b0a-4908-8706-050403020100"])
    }

    /// A store that synced before care events were versioned has them pushed by its next sync:
    /// the migration stamps them after everything its remotes were sent. From then on an edit of
    /// a tree records the version it was made over, and a push lets go of it.
    @Test func upgradesAStoreThatSyncedBeforeCareEventsWereVersioned() throws {
        let tree = "0f0e0d0c-0b0a-4908-8706-050403020100"
        try makeOldStore(upTo: "v7-care-due", """
            INSERT INTO tree (id, latitude, longitude, species, createdAt, updatedAt)
            VALUES ('\(tree)', 50.5, 8.25, 'Apple', '2026-05-01 10:00:00.000', '2026-05-01 10:00:00.000');
            INSERT INTO careEvent (id, treeId, kind, date, createdAt, updatedAt)
            VALUES ('1a1a1a1a-0b0a-4908-8706-050403020100', '\(tree)', 'water', '2026-05-02 08:00:00.000',
                    '2026-05-02 08:00:00.000', '2026-05-02 08:00:00.000');
            UPDATE syncState SET seq = 7;
            INSERT INTO remote (name, target, pushedSeq) VALUES ('office', 'postgres://office', 7);
            """)
        let store = try open()
        let remote = try #require(try store.read { try $0.remote(named: "office") })
        let through = try store.read { try $0.syncState().seq }
        let events = try store.read { try $0.changedCareEvents(after: remote.pushedSeq, resuming: nil, through: through, limit: 10) }.map(\.row)
        #expect(events.map(\.id) == ["1a1a1a1a-0b0a-4908-8706-050403020100"])
        #expect(events.first?.columns[1] == "water" && events.first?.treeId == tree)
        #expect(remote.pushedClock == 0)
        // An edit records the version it was made over; a push through it lets go of it.
        var t = try #require(try store.trees().first)
        t.species = "Pear"
        try store.write { _ = try $0.update(t) }
        let bases = try store.queue.read { db in try String.fetchAll(db, sql: "SELECT field FROM treeFieldBase ORDER BY field") }
        #expect(bases == ["species", "updatedAt"])
        let pushed = try store.read { try $0.changedTrees(after: remote.pushedSeq, pushedClock: 0, resuming: nil, through: try $0.syncState().seq, limit: 10) }
        let species = try #require(SyncTreeRow.groups.firstIndex { $0.name == "species" })
        let position = try #require(SyncTreeRow.groups.firstIndex { $0.name == "position" })
        #expect(pushed.first?.row.edits[species] == .edited(over: pushed.first?.row.versions[position]))
        try store.write { w in try w.setPushed(remote: "office", seq: try w.reader.syncState().seq, clock: try w.reader.syncState().clock) }
        #expect(try store.queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM treeFieldBase") } == 0)
    }

    /// Values of the fix quality no store keeps are refused by every write, by name.
    @Test func fixQualityOutsideItsRangeIsRefused() throws {
        let store = try open()
        var t = tree("Apple")
        t.capture.correctionAge = -1
        #expect(throws: StoreError.invalidTree("correction age -1.0 is negative; expected seconds, 0 or more")) {
            try store.write { try $0.insert(t) }
        }
        t.capture.correctionAge = nil
        t.capture.antennaHeight = -0.25
        #expect(throws: StoreError.invalidTree("antenna height -0.25 is negative; expected metres, 0 or more")) {
            try store.write { try $0.bulkTrees().insert(t) }
        }
        t.capture.antennaHeight = nil
        t.capture.verticalAccuracy = .infinity
        #expect(throws: StoreError.invalidTree("vertical accuracy inf is not a finite number")) {
            try store.write { try $0.insert(t) }
        }
        #expect(try store.read { try $0.count() } == 0)
    }

    /// Text with a NUL character is refused by every write, single or bulk, by name: it would not
    /// read back whole.
    @Test func textWithANULCharacterIsRefused() throws {
        let store = try open()
        var t = tree("Apple")
        t.notes = "fire\u{0}blight"
        #expect(throws: StoreError.invalidTree("notes contains a NUL character (U+0000), which no text may hold")) {
            try store.write { try $0.insert(t) }
        }
        t.notes = nil
        t.variety = "\u{0}"
        #expect(throws: StoreError.invalidTree("variety contains a NUL character (U+0000), which no text may hold")) {
            try store.write { try $0.insert(t) }
        }
        #expect(throws: StoreError.invalidCollectionName("No\u{0}rth")) { try store.write { _ = try $0.createCollection(named: "No\u{0}rth") } }
        #expect(try store.read { try $0.count() } == 0)
    }

    @Test func collectionNamesAreUniqueIgnoringCase() throws {
        let store = try open()
        _ = try store.write { try $0.createCollection(named: "Äpfel Nord") }
        #expect(throws: StoreError.duplicateCollection("North")) {
            _ = try store.write { w in _ = try w.createCollection(named: "North"); return try w.createCollection(named: "north") }
        }
        // The failed transaction left nothing behind, not even the first of its two collections.
        #expect(try store.collections().map(\.collection.name) == ["Äpfel Nord"])
        #expect(throws: StoreError.invalidCollectionName(" ")) { _ = try store.write { try $0.createCollection(named: " ") } }
        _ = try store.write { try $0.createCollection(named: "West") }
        #expect(throws: StoreError.duplicateCollection("West")) { _ = try store.write { try $0.renameCollection("Äpfel Nord", to: "WEST") } }
        // Renaming to a different case of its own name is allowed.
        #expect(try store.write { try $0.renameCollection("west", to: "WEST") }.name == "WEST")
    }

    /// Beyond ASCII too: a name that is another collection's but for case, in any script, or for
    /// how its accents are composed, is refused, and finds that collection.
    @Test(arguments: [("Äpfel Süd", "äpfel süd"), ("Äpfel Süd", "A\u{308}PFEL SU\u{308}D"), ("Lange Straße", "LANGE STRASSE"), ("Οδος", "ΟΔΟΣ"), ("Вишня", "вишня")])
    func collectionNamesAreUniqueIgnoringCaseInEveryScript(name: String, other: String) throws {
        let store = try open()
        let c = try store.write { try $0.createCollection(named: name) }
        #expect(throws: StoreError.duplicateCollection(name)) { _ = try store.write { try $0.createCollection(named: other) } }
        #expect(throws: StoreError.duplicateCollection(name)) {
            try store.write { try $0.insert(TreeCollection(name: other, createdAt: Self.t0)) }
        }
        #expect(try store.read { try $0.collection(named: other) } == c)
        #expect(try store.write { try $0.collection(namedOrNew: other) } == c)
        let west = try store.write { try $0.createCollection(named: "West") }
        #expect(throws: StoreError.duplicateCollection(name)) { _ = try store.write { try $0.renameCollection("West", to: other) } }
        // Its own name in another case is a rename.
        #expect(try store.write { try $0.renameCollection(name, to: other) }.name == other)
        #expect(Set(try store.collections().map(\.collection.id)) == [c.id, west.id])
        #expect(Set(try store.collections().map(\.collection.name)) == [other, "West"])
    }

    /// A store from before names were compared beyond ASCII may hold "Straße" and "STRASSE": each
    /// is found by its own spelling, a third spelling of both is ambiguous, and the doctor renames
    /// the younger, after which the third spelling finds the older.
    @Test func twoCollectionsOfOneNameFromAnOlderStore() throws {
        let store = try open()
        let older = UUID(uuidString: "0a2c7c3e-1d6b-4f0a-9d2e-3b1f5c8a7e21")!, younger = UUID(uuidString: "f3b9e2d1-5c4a-4b8e-a1f2-6d7c8e9f0a1b")!
        try store.write { w in
            for (id, name, at) in [(older, "Straße", "2026-01-01 08:00:00.000"), (younger, "STRASSE", "2026-02-01 08:00:00.000")] {
                try w.db.execute(sql: "INSERT INTO collection (id, name, createdAt, updatedAt) VALUES (?, ?, ?, ?)", arguments: [id.storageKey, name, at, at])
            }
        }
        #expect(try store.read { try $0.collection(named: "Straße") }.id == older)
        #expect(try store.read { try $0.collection(named: "strasse") }.id == younger)
        #expect(throws: StoreError.ambiguousCollection("STRAẞE", candidates: ["STRASSE", "Straße"])) { try store.read { try $0.collection(named: "STRAẞE") } }
        #expect(throws: StoreError.duplicateCollection("Straße")) { _ = try store.write { try $0.createCollection(named: "straẞe") } }

        let expected = StoreFinding(table: "collection", row: 2, id: younger.storageKey, column: "name",
                                    reason: "collection 'STRASSE' has the name of collection 'Straße', ignoring case", remedy: "renamed 'STRASSE (f3b9e2d1)'")
        #expect(try store.examine() == [expected])
        let versionBefore = try store.read { try Int.fetchOne($0.db, sql: "SELECT seq FROM collectionVersion WHERE collectionId = ?", arguments: [younger.storageKey]) }
        let report = try store.repair(removingUnrepairable: false)
        #expect(report == StoreRepairReport(findings: [expected], mended: 1, removed: 0, left: 0))
        #expect(try store.examine().isEmpty)
        #expect(try store.read { try $0.collection(named: "STRAẞE") }.id == older)
        #expect(try store.read { try $0.collection(id: younger) }?.name == "STRASSE (f3b9e2d1)")
        // The new name is a change a sync sends: the collection's change number moved on.
        let versionAfter = try store.read { try Int.fetchOne($0.db, sql: "SELECT seq FROM collectionVersion WHERE collectionId = ?", arguments: [younger.storageKey]) }
        #expect((versionAfter ?? 0) > (versionBefore ?? Int.max))
    }

    @Test func deletingACollectionKeepsItsTrees() throws {
        let store = try open()
        let c = try store.write { try $0.createCollection(named: "Block A") }
        var a = tree("Apple"); a.collectionID = c.id
        var b = tree("Pear", at: 1); b.collectionID = c.id
        try store.write { w in try w.insert(a); try w.insert(b); try w.setPreference(.lastCollection, c.id.uuidString.lowercased()) }
        #expect(try store.collections().first?.treeCount == 2)
        #expect(try store.write { try $0.deleteCollection(named: "block a") } == 2)
        let trees = try store.trees()
        #expect(trees.map(\.species) == ["Pear", "Apple"])
        #expect(trees.allSatisfy { $0.collectionID == nil })
        #expect(try store.preference(.lastCollection) == nil)
    }

    @Test func prefixLookup() throws {
        let store = try open()
        let ids = ["abcdef01-0000-4000-8000-000000000001", "abcdef01-0000-4000-8000-000000000002", "abc00000-0000-4000-8000-000000000003"]
            .compactMap(UUID.init(uuidString:))
        try store.write { w in for (i, id) in ids.enumerated() { try w.insert(tree("Oak \(i)", id: id)) } }
        #expect(try store.tree(matching: "ABC0").id == ids[2])
        #expect(try store.tree(matching: "abcdef0100004000800000000000000 2".replacingOccurrences(of: " ", with: "")).id == ids[1])
        #expect(try store.tree(matching: "abcdef01-0000-4000-8000-000000000001").id == ids[0])
        #expect(throws: StoreError.ambiguousTree(prefix: "abcdef", candidates: [
            "abcdef01-0000-4000-8000-000000000001 (Oak 0)", "abcdef01-0000-4000-8000-000000000002 (Oak 1)",
        ])) { try store.tree(matching: "abcdef") }
        #expect(throws: StoreError.unknownTree("abd")) { try store.tree(matching: "abd") }
        #expect(throws: StoreError.invalidID("g1")) { try store.tree(matching: "g1") }
    }

    /// Imported trees get time-ordered ids whose first digits are all the same; each tree's short
    /// id (the end of its id) still finds it, and so do its care events', while the start finds none.
    @Test func shortIdsOfTimeOrderedIdsFindTheirTree() throws {
        let store = try open()
        var ids = TimeOrderedIDs()
        let trees = (0..<300).map { i in tree("Apple \(i)", id: ids.next(at: Self.t0)) }
        let events = try trees.prefix(20).map { t in
            CareEvent(id: ids.next(at: Self.t0), treeID: t.id, kind: try CareKind("water"), date: Self.t0, createdAt: Self.t0)
        }
        try store.write { w in
            for t in trees { try w.insert(t) }
            for e in events { try w.insert(e) }
        }
        let shorts = trees.map(\.shortID)
        let shared = Dictionary(grouping: shorts, by: { $0 }).filter { $0.value.count > 1 }
        #expect(shared.count <= 1)  // 32 random bits each: a repeat among 300 is a 1-in-100,000 event
        var found = 0
        for t in trees where shared[t.shortID] == nil {
            #expect(try store.tree(matching: t.shortID).id == t.id)
            #expect(try store.tree(matching: t.shortID.uppercased()).id == t.id)
            found += 1
        }
        #expect(found >= 298)
        let last12 = String(trees[7].id.uuidString.suffix(14))  // "-" and the last group
        #expect(try store.tree(matching: last12).id == trees[7].id)
        #expect(try store.tree(matching: trees[7].id.uuidString).id == trees[7].id)
        #expect(throws: StoreError.unknownTree(String(trees[7].shortID.dropFirst()))) {
            try store.tree(matching: String(trees[7].shortID.dropFirst()))  // a tail shorter than a short id is no id
        }
        let start = String(trees[0].id.uuidString.lowercased().prefix(8))
        do {
            _ = try store.tree(matching: start)
            Issue.record("\(start) matched one tree")
        } catch StoreError.ambiguousTree(_, let candidates) {
            #expect(candidates.count == 11)
            #expect(candidates.last == "and more")
            #expect(candidates.first == "\(trees[0].shortID) (Apple 0)")
        }
        for e in events { #expect(try store.read { try $0.careEvent(matching: ShortID.of(e.id)) } == e) }
    }

    @Test func twoConnectionsWriteConcurrently() async throws {
        let first = try open()
        let second = try open()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, store) in [first, second].enumerated() {
                group.addTask {
                    for i in 0..<100 {
                        try store.write { try $0.insert(Tree(coordinate: Coordinate(latitude: 1, longitude: 2), species: "S\(n)-\(i)", createdAt: Self.t0)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try first.read { try $0.count() } == 200)
    }

    @Test func refusesOtherFilesWithoutTouchingThem() throws {
        let text = folder + "/text.sqlite"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: StoreError.notATreesDatabase(path: text, reason: "file is not a database")) { try TreeStore(path: text) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: text)) == Data("hello".utf8))
    }

    @Test func nearbyTreesOfTheSameSpecies() throws {
        let store = try open()
        let origin = Coordinate(latitude: 47.1, longitude: 8.2)
        let close = Geodesy.coordinate(east: 3, north: 4, from: origin)       // 5 m away
        let far = Geodesy.coordinate(east: 30, north: 40, from: origin)       // 50 m away
        try store.write { w in
            try w.insert(tree("Apple", lat: close.latitude, lon: close.longitude))
            try w.insert(tree("apple", lat: far.latitude, lon: far.longitude))
            try w.insert(tree("Pear", lat: close.latitude, lon: close.longitude))
        }
        let found = try store.read { try $0.trees(species: "APPLE", near: origin, within: 6) }
        #expect(found.map(\.species) == ["Apple"])
        #expect(try store.read { try $0.trees(species: "Apple", near: origin, within: 4.9) }.isEmpty)
    }
}
