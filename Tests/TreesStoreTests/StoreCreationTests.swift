import Foundation
import GRDB
import Synchronization
import Testing
import TreesKit
@testable import TreesStore
import TreesTestSupport

/// New stores, built beside their path and linked into place, against real files in a folder of
/// each test's own: the schema of a store migrated in place, one store however many processes make
/// it at once, and no file left behind by a build that fails.
@Suite struct StoreCreationTests {
    let scratch: TemporaryFolder
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777)

    init() throws {
        scratch = try TemporaryFolder("store-creation")
    }

    /// What a database holds apart from its rows: every schema object with its SQL, the migrations
    /// recorded in the order they ran, and the settings kept in the file's header.
    struct Description: Equatable {
        var schema: [String]
        var migrations: [String]
        var settings: [String: DatabaseValue]

        init(_ db: Database) throws {
            schema = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").map { row in
                "\(row["type"] as String) \(row["name"] as String) on \(row["tbl_name"] as String): \(row["sql"] as String? ?? "(automatic)")"
            }
            migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
            settings = [:]
            for pragma in ["application_id", "user_version", "page_size", "auto_vacuum", "encoding"] {
                settings[pragma] = try DatabaseValue.fetchOne(db, sql: "PRAGMA \(pragma)")
            }
        }
    }

    /// A folder in the scratch folder, made empty.
    func folder(_ name: String) throws -> String {
        let path = scratch.path(name)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The names in `folder`, sorted.
    static func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// The names in `folder` other than the store `trees.sqlite` and the files SQLite keeps beside it.
    static func strayNames(in folder: String) throws -> [String] {
        try names(in: folder).filter { !["trees.sqlite", "trees.sqlite-wal", "trees.sqlite-shm"].contains($0) }
    }

    static func permissions(_ path: String) -> mode_t? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o7777 : nil
    }

    /// Runs `body` on `count` threads let go at the same moment; returns their results in order.
    static func atOnce<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[Int: T]>([:])
        let gate = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for i in 0..<count {
            finished.enter()
            Thread {
                gate.wait()
                let result = body(i)
                results.withLock { $0[i] = result }
                finished.leave()
            }.start()
        }
        for _ in 0..<count { gate.signal() }
        finished.wait()
        return results.withLock { all in (0..<count).compactMap { all[$0] } }
    }

    static func tree(_ species: String, _ i: Int = 0) -> Tree {
        Tree(coordinate: Coordinate(latitude: 47 + Double(i) / 1e4, longitude: 8), species: species, createdAt: t0)
    }

    /// A store made unseen for an import is filled under a name of its own: nothing is at its path
    /// until it is published, whole, in WAL mode, with no other file beside it.
    @Test func anUnseenStoreIsFilledThenPublishedWhole() throws {
        let folder = try folder("unseen")
        let path = folder + "/trees.sqlite"
        let store = try TreeStore(path: path, clock: .fixed(Self.t0), unseenWhenNew: true)
        let unseen = try #require(store.unseenPath)
        #expect(store.isNew)
        #expect(URL(fileURLWithPath: unseen).deletingLastPathComponent().path == folder)
        try store.write(bulk: true) { w in for i in 0..<300 { try w.insert(Self.tree(i % 2 == 0 ? "Apple" : "Pear", i)) } }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try store.publish())
        #expect(try Self.strayNames(in: folder) == [])

        let opened = try TreeStore(path: path, unseenWhenNew: true)
        #expect(opened.unseenPath == nil && !opened.isNew)
        #expect(try opened.trees().count == 300)
        let (mode, integrity, versions, danglingKeys) = try opened.queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM treeVersion"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count)
        }
        #expect(mode == "wal" && integrity == "ok" && versions == 300 && danglingKeys == 0)
        let migrated = try DatabaseQueue(path: scratch.path("unseen-migrated.sqlite"))
        try Schema.migrator.migrate(migrated)
        #expect(try opened.queue.read { try Description($0) } == (try migrated.read { try Description($0) }))
        #expect(Self.permissions(path) == Self.permissions(scratch.path("unseen-migrated.sqlite")))
    }

    /// A direct write (a small file's import into a new store) keeps 8 MiB of pages at most: a
    /// store that outgrows them has the rest written out as they leave the cache, and is whole.
    @Test func aDirectWriteKeepsAtMostEightMiBOfPagesAndStoresWhatOutgrowsThem() throws {
        let folder = try folder("direct")
        let path = folder + "/trees.sqlite"
        let store = try TreeStore(path: path, clock: .fixed(Self.t0), unseenWhenNew: true)
        let count = 30_000
        try store.write(bulk: true, direct: true) { w in
            #expect(try Int.fetchOne(w.db, sql: "PRAGMA cache_size") == -8192)
            let bulk = w.bulkTrees()
            for i in 0..<count { _ = try bulk.queueIfNew(Self.tree(["Apple", "Pear", "Plum"][i % 3], i)) }
        }
        #expect(try store.publish())
        let opened = try TreeStore(path: path)
        let (trees, versions, integrity) = try opened.queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM tree"), try Int.fetchOne(db, sql: "SELECT count(*) FROM treeVersion"),
             try String.fetchOne(db, sql: "PRAGMA integrity_check"))
        }
        #expect(trees == count && versions == count && integrity == "ok")
        // The store is larger than the pages kept: some were written before the commit.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 8 << 20)
    }

    /// A store another process made while an unseen one was filled is kept as it is: publishing
    /// says so and removes the unseen one.
    @Test func anUnseenStoreGivesWayToOneMadeMeanwhile() throws {
        let folder = try folder("unseen-taken")
        let path = folder + "/trees.sqlite"
        let unseen = try TreeStore(path: path, clock: .fixed(Self.t0), unseenWhenNew: true)
        try unseen.write(bulk: true) { w in try w.insert(Self.tree("Pear")) }
        let other = try TreeStore(path: path, clock: .fixed(Self.t0))
        try other.write { w in try w.insert(Self.tree("Apple")) }
        #expect(try unseen.publish() == false)
        #expect(try other.trees().map(\.species) == ["Apple"])
        #expect(try Self.strayNames(in: folder) == [])
    }

    /// What a long bulk write into an unseen store runs beside it: writeback requests for the file at
    /// the pace asked for, until `stop`, which ends them; a file that cannot be opened gives none.
    @Test func writebackIsRequestedUntilStopped() throws {
        let folder = try folder("writeback")
        let path = folder + "/trees.sqlite"
        try Data(repeating: 7, count: 1 << 20).write(to: URL(fileURLWithPath: path))
        let writeback = try #require(BackgroundWriteback(path: path, every: 0.001))
        let deadline = Date().addingTimeInterval(60)
        while writeback.requestCount < 3, Date() < deadline { usleep(1_000) }
        #expect(writeback.requestCount >= 3)
        writeback.stop()
        let stopped = writeback.requestCount
        #expect(stopped >= 3)
        // `stop` returns once the thread has ended: the count stays as it was.
        #expect(writeback.requestCount == stopped)
        #expect(BackgroundWriteback(path: folder + "/missing/trees.sqlite") == nil)
    }

    /// An unseen store thrown away (an import that failed to publish) leaves nothing behind.
    @Test func aDiscardedUnseenStoreLeavesNoFile() throws {
        let folder = try folder("unseen-discarded")
        let unseen = try TreeStore(path: folder + "/trees.sqlite", unseenWhenNew: true)
        try unseen.write(bulk: true) { w in try w.insert(Self.tree("Pear")) }
        unseen.discardUnseen()
        #expect(try Self.names(in: folder) == [])
    }

    /// The id of a process that has ended (`/bin/true`, waited for).
    static func endedProcessID() throws -> pid_t {
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        return ended.processIdentifier
    }

    /// The files of an unseen store whose process was killed are removed when a store is next made
    /// in its folder; those of a process that still runs are not.
    @Test func filesOfAbandonedUnseenStoresAreRemoved() throws {
        let folder = try folder("abandoned")
        let ended = try Self.endedProcessID()
        let dead = ".trees.sqlite.new-\(ended)-1a2b"
        let running = ".trees.sqlite.new-\(getppid())-3c4d"
        for name in [dead, dead + "-journal", running, ".other.sqlite.new-\(ended)-5e6f"] {
            #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data([1])))
        }
        _ = try TreeStore(path: folder + "/trees.sqlite")
        #expect(try Self.strayNames(in: folder) == [".other.sqlite.new-\(ended)-5e6f", running])
    }

    /// An unseen store whose process seems gone but whose file a connection still holds a lock on
    /// (a process in another PID namespace sharing the folder; here another process holding
    /// SQLite's reserved byte) is kept; once the lock is gone, it is removed.
    @Test(.enabled(if: Tool.python3.shouldRun)) func aLockedUnseenStoreIsNotAbandoned() throws {
        let folder = try folder("locked")
        let name = ".trees.sqlite.new-\(try Self.endedProcessID())-7a8b"
        #expect(FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(count: 4096)))
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: try Tool.python3.require())
        holder.arguments = ["-c", """
            import fcntl, os, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            fcntl.lockf(fd, fcntl.LOCK_EX, 1, 0x40000001)
            print("locked", flush=True)
            sys.stdin.read()
            """, folder + "/" + name]
        let said = Pipe()
        let input = Pipe()
        holder.standardOutput = said
        holder.standardInput = input
        try holder.run()
        // The lock is held once the child says so: waited for, not slept on.
        let line = String(decoding: said.fileHandleForReading.readData(ofLength: 7), as: UTF8.self)
        try #require(line == "locked\n", "the child did not take the lock: \(line)")

        _ = try TreeStore(path: folder + "/trees.sqlite")
        #expect(try Self.strayNames(in: folder) == [name])

        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        for suffix in ["", "-wal", "-shm"] { unlink(folder + "/trees.sqlite" + suffix) }
        _ = try TreeStore(path: folder + "/trees.sqlite")
        #expect(try Self.strayNames(in: folder) == [])
    }

    @Test func aNewStoreHasTheSchemaOfOneMigratedInPlace() throws {
        let folder = try folder("new")
        let path = folder + "/trees.sqlite"
        let store = try TreeStore(path: path)
        let oldPath = scratch.path("old.sqlite")
        let old = try DatabaseQueue(path: oldPath)
        try Schema.migrator.migrate(old)

        let made = try store.queue.read { try Description($0) }
        let migrated = try old.read { try Description($0) }
        #expect(made.schema == migrated.schema)
        #expect(made.schema.contains { $0.hasPrefix("trigger tree_sync_update on tree: ") })
        #expect(made.schema.contains { $0.hasPrefix("index careLatest_kind on careLatest: ") })
        #expect(made.migrations == migrated.migrations)
        #expect(made.migrations == Schema.migrator.migrations)
        #expect(made.settings == migrated.settings)
        #expect(made.settings["application_id"] == Schema.applicationID.databaseValue)
        #expect(try store.queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        #expect(Self.permissions(path) == Self.permissions(oldPath))
        #expect(try Self.strayNames(in: folder) == [])
    }

    /// Every row of every table, the store's random device id left out: what a new store holds.
    static func rows(_ db: Database) throws -> [String] {
        var all: [String] = []
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"") {
                let cells = row.columnNames.map { column in
                    table == "syncState" && column == "deviceId" ? "\(column)=(device)" : "\(column)=\(row[column] as DatabaseValue)"
                }
                all.append("\(table): \(cells.joined(separator: ", "))")
            }
        }
        return all
    }

    /// The script a migrated database stands for: its objects' SQL in the order they were made, then
    /// the rows the migrations put in. Run on an empty file, it makes the store image.
    static func script(of db: Database) throws -> String {
        var lines = ["PRAGMA application_id = \(try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0);"]
        lines += try String.fetchAll(db, sql: """
            SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> 'sqlite_sequence' ORDER BY rowid
            """).map { $0 + ";" }
        let migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
        lines.append("INSERT INTO grdb_migrations (identifier) VALUES " + migrations.map { "('\($0)')" }.joined(separator: ", ") + ";")
        lines.append("INSERT INTO syncState (id, deviceId, hlc, seq) VALUES (1, lower(hex(randomblob(16))), 0, 1);")
        lines.append("INSERT INTO careDueState (zone, rows) VALUES (NULL, 0);")
        return lines.joined(separator: "\n")
    }

    /// The bytes of an empty store made by `script`: a file without free pages, in rollback-journal
    /// mode, as a new store is before it is switched to WAL.
    static func image(from script: String, at path: String) throws -> [UInt8] {
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = MEMORY") }
        let queue = try DatabaseQueue(path: path, configuration: config)
        try queue.write { db in try db.execute(sql: script) }
        try queue.close()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `StoreImageData.swift` for an image of the store `migrations` make.
    static func imageSource(_ bytes: [UInt8], migrations: [String]) -> String {
        let lines = StoreImage.encode(bytes).split(separator: "\n").map { "        " + $0 }.joined(separator: "\n")
        let names = migrations.map { "        \"\($0)\"," }.joined(separator: "\n")
        return #"""
            // Written by `StoreCreationTests.theStoreImageIsWhatTheMigrationsMake` from the migrations of
            // `Schema.migrator`: an empty store, in `StoreImage.decode`'s form. Not edited by hand.

            extension StoreImage {
                /// The migrations the image stands for, in the order they ran.
                static let migrations = [
            \#(names)
                ]

                /// The image, in `decode`'s form.
                static let encoded = """
            \#(lines)
                    """
            }

            """#
    }

    /// A new store is written from an image rather than made through the migrations: the image is
    /// what they make, and the two stores hold the same schema, rows and settings; only the device
    /// id differs, made at random for each. When they differ (a migration was added), the test
    /// writes `StoreImageData.swift` again from the migrations and names where.
    @Test func theStoreImageIsWhatTheMigrationsMake() throws {
        let migrated = try DatabaseQueue(path: scratch.path("migrated.sqlite"))
        try Schema.migrator.migrate(migrated)
        let (described, migratedRows, migratedDevice) = try migrated.read { db in
            (try Description(db), try Self.rows(db), try String.fetchOne(db, sql: "SELECT deviceId FROM syncState"))
        }

        let folder = try folder("imaged")
        #expect(try StoreCreation.create(at: folder + "/trees.sqlite", folder: folder) == .created)
        let made = try DatabaseQueue(path: folder + "/trees.sqlite")
        let (madeDescription, madeRows, madeDevice) = try made.read { db in
            (try Description(db), try Self.rows(db), try String.fetchOne(db, sql: "SELECT deviceId FROM syncState"))
        }
        let same = StoreImage.migrations == Schema.migrator.migrations && madeDescription == described && madeRows == migratedRows
        if !same {
            let bytes = try Self.image(from: try migrated.read { try Self.script(of: $0) }, at: scratch.path("image.sqlite"))
            let written = FileManager.default.temporaryDirectory.appendingPathComponent("StoreImageData.swift").path
            try Self.imageSource(bytes, migrations: Schema.migrator.migrations).write(toFile: written, atomically: true, encoding: .utf8)
            Issue.record("the store image is no longer what the migrations make: copy \(written) to Sources/TreesStore/StoreImageData.swift")
        }
        #expect(madeDescription == described)
        #expect(madeRows == migratedRows)
        #expect(madeRows.contains("careDueState: zone=NULL, rows=0"))
        #expect(madeRows.filter { $0.hasPrefix("grdb_migrations: ") }.count == Schema.migrator.migrations.count)
        #expect(madeDevice?.count == 32 && madeDevice?.allSatisfy(\.isHexDigit) == true && madeDevice == madeDevice?.lowercased())
        #expect(madeDevice != migratedDevice)
        // Foreign keys hold and the file is sound, with no page to spare, as after the script.
        #expect(try made.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }.isEmpty)
        #expect(try made.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
        #expect(try made.read { db in try Int.fetchOne(db, sql: "PRAGMA freelist_count") } == 0)
    }

    /// Two stores written from the image get device ids of their own.
    @Test func storesWrittenFromTheImageHaveTheirOwnDevice() throws {
        var devices: Set<String> = []
        for name in ["one", "two", "three"] {
            let folder = try folder(name)
            #expect(try StoreCreation.create(at: folder + "/trees.sqlite", folder: folder) == .created)
            let device = try DatabaseQueue(path: folder + "/trees.sqlite").read { db in try String.fetchOne(db, sql: "SELECT deviceId FROM syncState") }
            devices.insert(try #require(device))
        }
        #expect(devices.count == 3)
    }

    /// The image's form keeps any bytes as they were, zeros in runs of any length included, and a
    /// text that is not in that form is no image.
    @Test func theImageFormKeepsEveryByte() throws {
        var generator = SplitMix64(seed: 17)
        var bytes: [UInt8] = []
        for _ in 0..<300 {
            let run = Int(generator.next() % 300)
            bytes += (0..<run).map { _ in generator.next() % 3 == 0 ? 0 : UInt8(truncatingIfNeeded: generator.next()) }
            bytes += repeatElement(0, count: Int(generator.next() % 5000))
        }
        #expect(StoreImage.decode(StoreImage.encode(bytes)) == bytes)
        #expect(StoreImage.decode(StoreImage.encode([])) == [])
        #expect(StoreImage.decode(StoreImage.encode([0, 0, 0, 0, 1])) == [0, 0, 0, 0, 1])
        #expect(StoreImage.decode("not base64 at all!") == nil)
        // A count that runs past the end: 200 bytes announced, 1 given.
        #expect(StoreImage.decode(Data([0xC8, 0x01, 0x41]).base64EncodedString()) == nil)
        // No bytes, then 2^34 zeros: far more than any store image.
        #expect(StoreImage.decode(Data([0x00, 0x80, 0x80, 0x80, 0x80, 0x40]).base64EncodedString()) == nil)
        let image = try #require(StoreImage.bytes())
        #expect(image.count % 4096 == 0 && image.starts(with: Array("SQLite format 3\0".utf8)))
    }

    /// The file is complete and in WAL mode before it has its name, so opening it migrates nothing
    /// and switches nothing: a read leaves its bytes as they were.
    @Test func theStoreIsPlacedWholeInWALMode() throws {
        let folder = try folder("placed")
        let path = folder + "/trees.sqlite"
        #expect(try StoreCreation.create(at: path, folder: folder) == .created)
        #expect(try Self.names(in: folder) == ["trees.sqlite"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.prefix(16) == Data("SQLite format 3\0".utf8))
        // The file format numbers for writing and reading: 2 is WAL.
        #expect(bytes[18] == 2 && bytes[19] == 2)
        do {
            let store = try TreeStore(path: path)
            #expect(try store.trees().isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try Self.names(in: folder) == ["trees.sqlite"])
    }

    /// However many make the store at the same moment, one file is linked into place and the others
    /// find it there; their own files are gone.
    @Test func oneOfManyBuildsAtOnceIsPlaced() throws {
        let folder = try folder("race")
        let path = folder + "/trees.sqlite"
        let outcomes = Self.atOnce(6) { _ in Result { () throws(StoreError) in try StoreCreation.create(at: path, folder: folder) } }
        #expect(outcomes.filter { $0 == .success(.created) }.count == 1)
        #expect(outcomes.filter { $0 == .success(.taken) }.count == 5)
        #expect(try Self.names(in: folder) == ["trees.sqlite"])
        let store = try TreeStore(path: path)
        #expect(try store.queue.read { try Description($0) }.migrations == Schema.migrator.migrations)
    }

    /// Stores opened at once where none was share one file: one device id, every tree written through
    /// any of them.
    @Test func storesOpenedAtOnceAreOne() throws {
        let folder = try folder("shared")
        let path = folder + "/trees.sqlite"
        let opened = Self.atOnce(6) { i in
            Result { () throws -> String in
                let store = try TreeStore(path: path)
                try store.write { try $0.insert(Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Tree \(i)", createdAt: Self.t0)) }
                return try store.queue.read { db in try String.fetchOne(db, sql: "SELECT deviceId FROM syncState") ?? "" }
            }
        }
        let devices = try opened.map { try $0.get() }
        #expect(devices.count == 6)
        #expect(Set(devices).count == 1)
        let store = try TreeStore(path: path)
        #expect(try store.trees().map(\.species).sorted() == (0..<6).map { "Tree \($0)" })
        #expect(try Self.strayNames(in: folder) == [])
    }

    /// A migration that fails mid-way, after others have written the file: the error of the failed
    /// statement, and neither the store nor the file it was built in.
    @Test func aFailedBuildLeavesNoFile() throws {
        let folder = try folder("failed")
        var migrator = DatabaseMigrator()
        migrator.registerMigration("first") { db in try db.execute(sql: "CREATE TABLE first (id INTEGER PRIMARY KEY)") }
        migrator.registerMigration("second") { db in try db.execute(sql: "INSERT INTO nowhere VALUES (1)") }
        #expect(throws: StoreError.database("no such table: nowhere")) {
            try StoreCreation.create(at: folder + "/trees.sqlite", folder: folder, migrator: migrator)
        }
        #expect(try Self.names(in: folder) == [])
    }

    /// Migrations run on a connection with the store's own SQL functions, as they would in place.
    @Test func aMigrationHasTheStoresFunctions() throws {
        let folder = try folder("functions")
        var migrator = DatabaseMigrator()
        migrator.registerMigration("search") { db in
            try db.execute(sql: "CREATE TABLE found AS SELECT trees_contains('Äpfel am Hang', 'ÄPFEL') AS yes")
        }
        #expect(try StoreCreation.create(at: folder + "/trees.sqlite", folder: folder, migrator: migrator) == .created)
        let found = try DatabaseQueue(path: folder + "/trees.sqlite").read { db in try Bool.fetchOne(db, sql: "SELECT yes FROM found") }
        #expect(found == true)
    }

    /// A file another program put at the path while the store was being built is kept as it is.
    @Test func aFileThatAppearedMeanwhileIsKept() throws {
        let folder = try folder("taken")
        let path = folder + "/trees.sqlite"
        try Data("not a store".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try StoreCreation.create(at: path, folder: folder) == .taken)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("not a store".utf8))
        #expect(try Self.names(in: folder) == ["trees.sqlite"])
    }

    /// A folder removed after it was checked: the store cannot be created, and nothing is made.
    @Test func aFolderThatDisappearedIsNamed() throws {
        let folder = try folder("gone")
        try FileManager.default.removeItem(atPath: folder)
        #expect(throws: StoreError.cannotCreate(path: folder + "/trees.sqlite", reason: "No such file or directory")) {
            try StoreCreation.create(at: folder + "/trees.sqlite", folder: folder)
        }
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    /// A name near the file system's limit of 255 bytes still leaves room for the file it is built in.
    @Test func aLongNameIsBuiltUnderAShortOne() throws {
        let folder = try folder("long")
        let path = folder + "/" + String(repeating: "t", count: 240) + ".sqlite"
        #expect(try StoreCreation.create(at: path, folder: folder) == .created)
        #expect(try Self.names(in: folder) == [URL(fileURLWithPath: path).lastPathComponent])
        #expect(try TreeStore(path: path).trees().isEmpty)
    }
}
