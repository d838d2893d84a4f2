import CSQLiteConfig
import Foundation
import GRDB
import TreesKit

/// The trees database: one SQLite file (WAL mode, foreign keys on, busy timeout) plus a photo folder beside it.
///
/// Every write runs in one immediate transaction, so two `trees` processes can share the file and a
/// refused command leaves it exactly as it was.
public final class TreeStore: Sendable {
    /// Path of the SQLite file.
    public let path: String
    /// Folder of photo files (content-addressed), beside the database.
    public let photoFolder: String
    /// The SQLite file and the files SQLite keeps beside it: an output must never replace one.
    public var files: [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }
    let queue: DatabaseQueue
    let clock: WallClock
    /// True when the store was opened for reading only: the file (or its folder, which must hold
    /// the WAL files) is not writable by this user. Reads work as always; writes fail with
    /// `StoreError.storage` naming the cause.
    public let isReadOnly: Bool
    /// How long a write waits for another process's write to end, in seconds.
    let busyTimeout: TimeInterval
    /// True when this process made the store: it held nothing before.
    public let isNew: Bool
    /// Where a store made unseen (`init(path:…unseenWhenNew: true)`) is until `publish()`; nil for
    /// any other store.
    public let unseenPath: String?
    /// The folders made for a store made unseen, deepest first: `discardUnseen()` removes them
    /// again (those still empty), as does Ctrl-C during an import into it. None for any other store.
    public let madeFolders: [String]

    /// SQLite's settings for the whole process (`trees_sqlite_configure`), made once, before the
    /// first store opens; nil when another part of the process had already started SQLite.
    private static let librarySettings: Void? = trees_sqlite_configure() == 0 ? () : nil

    /// The default database path: `$XDG_DATA_HOME/trees/trees.sqlite`, else `~/.local/share/trees/trees.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return dataHome + "/trees/trees.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/trees/trees.sqlite"
    }

    /// Opens the store at `path`, creating the file and its folder on first use.
    ///
    /// With `unseenWhenNew`, a store that does not exist yet is made under a name of its own beside
    /// `path`, where no other process sees it, for one bulk write (an import) to fill before
    /// `publish()` gives it its name. That write then needs no journal on disk and no sync until it
    /// is complete: a file that is not yet the store can be thrown away whole. A million trees were
    /// written each once, where the WAL had them written twice and synced.
    public init(path: String, clock: WallClock = .system, busyTimeout: TimeInterval = 10, unseenWhenNew: Bool = false) throws(StoreError) {
        _ = Self.librarySettings
        self.path = path
        self.clock = clock
        self.busyTimeout = busyTimeout
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        photoFolder = folder + "/photos"
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        var exists = fm.fileExists(atPath: path, isDirectory: &isDirectory)
        var missing: [String] = []
        if !exists {
            var ancestor = folder
            while !ancestor.isEmpty, ancestor != "/", !fm.fileExists(atPath: ancestor) {
                missing.append(ancestor)
                ancestor = URL(fileURLWithPath: ancestor).deletingLastPathComponent().path
            }
            do {
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .cannotCreate(path: path, reason: Self.fileInTheWay(of: folder).map { "\($0) is a file, not a folder" } ?? Self.reason(error))
            }
            guard fm.isWritableFile(atPath: folder) else { throw .cannotCreate(path: path, reason: "the folder \(folder) is not writable") }
            if unseenWhenNew {
                let configuration = Self.unseenConfiguration(busyTimeout: busyTimeout)
                (queue, unseenPath) = try StoreCreation.createUnseen(for: path, folder: folder) { temporary in
                    try DatabaseQueue(path: temporary, configuration: configuration)
                }
                isReadOnly = false
                isNew = true
                madeFolders = missing
                return
            }
            // A store made here is complete and opened below as made; one another process made
            // first is checked as any existing file; without hard links SQLite creates it in place.
            if try StoreCreation.create(at: path, folder: folder) == .taken {
                exists = fm.fileExists(atPath: path, isDirectory: &isDirectory)
            }
        }
        unseenPath = nil
        madeFolders = []
        if exists, isDirectory.boolValue { throw .cannotCreate(path: path, reason: "it is a directory") }
        let readOnly = exists && !Self.isWritable(path: path, folder: folder)
        isReadOnly = readOnly
        isNew = !exists
        if readOnly {
            queue = try Self.openReadOnly(path: path, folder: folder, busyTimeout: busyTimeout)
            return
        }
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "trees"
        let existed = exists
        config.prepareDatabase { db in
            // An existing file is known for a store before anything is written to it: another
            // program's database is refused as it is, never switched to WAL.
            if existed { try Self.checkExisting(db, path: path, busyTimeout: busyTimeout) }
            // WAL is set here rather than with `journalMode = .wal`, which also writes a throw-away
            // table on every open whose WAL file is absent (as it is after every clean close), so
            // that each command, even a read, cost a write transaction and a checkpoint.
            guard try Self.switchToWAL(db, waitingUpTo: busyTimeout) == "wal" else {
                throw DatabaseError(message: "could not switch \(path) to WAL mode")
            }
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            db.add(function: TextSearch.containsFunction)
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where exists && StoreError.isStorageFailure(code: error.extendedResultCode.rawValue) {
            throw .storage("\(path): \(Self.reason(error))")
        } catch let error as DatabaseError where exists && [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            // Found as the connection opened, before the check above could read the file.
            throw .notATreesDatabase(path: path, reason: Self.reason(error))
        } catch {
            throw .cannotCreate(path: path, reason: Self.reason(error))
        }
        do {
            let migrator = Schema.migrator
            try queue.read { db in
                if try migrator.hasBeenSuperseded(db) {
                    let applied = try migrator.appliedIdentifiers(db)
                    let known = Set(migrator.migrations)
                    let unknown = applied.first { !known.contains($0) } ?? "?"
                    throw StoreError.newerSchema(path: path, migration: unknown)
                }
            }
            try migrator.migrate(queue)
        } catch {
            throw .wrapping(error)
        }
    }

    /// The connection to a store made unseen: it alone has the file (an exclusive lock from its first
    /// write on), so SQLite keeps the rollback journal in memory and syncs nothing; `publish` syncs.
    private static func unseenConfiguration(busyTimeout: TimeInterval) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "trees"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF")
            db.add(function: TextSearch.containsFunction)
        }
        return config
    }

    /// Gives a store made unseen its name, switched to WAL mode and synced, and closes this
    /// connection to it (open the store again to go on using it). False, with the file removed,
    /// when another process made a store of that name meanwhile. Nothing for any other store.
    public func publish() throws(StoreError) -> Bool {
        guard let temporary = unseenPath else { return true }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try StoreCreation.switchToWAL(queue, for: path)
            let length = try StoreCreation.storeLength(queue)
            try queue.close()
            StoreCreation.cutBack(temporary, to: length)
        } catch {
            discardUnseen()
            if let e = error as? DatabaseError, StoreError.isStorageFailure(code: e.extendedResultCode.rawValue) {
                throw .storage("\(path): \(Self.reason(e))")
            }
            throw .cannotCreate(path: path, reason: Self.reason(error))
        }
        return try StoreCreation.publish(temporary, at: path, folder: folder) == .created
    }

    /// Closes a store made unseen and removes its file, and the folders made for it that are
    /// still empty; nothing for any other store.
    public func discardUnseen() {
        guard let temporary = unseenPath else { return }
        try? queue.close()
        StoreCreation.removeFiles(of: temporary)
        for folder in madeFolders where rmdir(folder) != 0 { break }
    }

    /// `PRAGMA journal_mode = WAL`, asked again while another connection holds the store in a way
    /// that keeps it from switching, for up to `seconds` as a write waits for another: SQLite
    /// answers such a switch with SQLITE_BUSY at once rather than through the busy handler. The
    /// mode the store is in afterwards.
    static func switchToWAL(_ db: Database, waitingUpTo seconds: TimeInterval) throws -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var pause = 1
        while true {
            do {
                return try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                usleep(useconds_t(pause * 1000))
                pause = min(pause * 2, 50)
            }
        }
    }

    /// True when this user can write the database file and the files SQLite keeps beside it in WAL
    /// mode (`-wal`, `-shm`): existing ones writable, missing ones creatable in the folder.
    static func isWritable(path: String, folder: String) -> Bool {
        guard access(path, W_OK) == 0 else { return false }
        if access(folder, W_OK) == 0 { return true }
        return ["-wal", "-shm"].allSatisfy { access(path + $0, W_OK) == 0 }
    }

    /// Opens a store this user may read but not write, without writing anything: no migration, no
    /// change of journal mode. A WAL database whose `-shm` file cannot be created (a read-only
    /// folder or mount) and that has no pending `-wal` is opened as immutable, which SQLite reads
    /// without shared memory.
    private static func openReadOnly(path: String, folder: String, busyTimeout: TimeInterval) throws(StoreError) -> DatabaseQueue {
        let queue: DatabaseQueue
        do {
            queue = try readOnlyQueue(path: path, busyTimeout: busyTimeout)
            try queue.read { db in try checkExisting(db, path: path, busyTimeout: busyTimeout) }
        } catch {
            throw refusal(error, path: path, busyTimeout: busyTimeout)
        }
        do {
            try queue.read { db in
                if try Schema.migrator.hasBeenSuperseded(db) {
                    let applied = try Schema.migrator.appliedIdentifiers(db)
                    let known = Set(Schema.migrator.migrations)
                    throw StoreError.newerSchema(path: path, migration: applied.first { !known.contains($0) } ?? "?")
                }
            }
            return queue
        } catch {
            throw .wrapping(error, context: "\(path) (opened read-only)")
        }
    }

    /// A read-only connection that writes nothing beside the file. A WAL database whose `-shm`
    /// file cannot be created (a read-only folder or mount) and that has no pending `-wal` is
    /// opened as immutable, which SQLite reads without shared memory.
    static func readOnlyQueue(path: String, busyTimeout: TimeInterval) throws -> DatabaseQueue {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(busyTimeout)
        config.label = "trees"
        config.prepareDatabase { db in db.add(function: TextSearch.containsFunction) }
        let fm = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let canMakeShm = access(folder, W_OK) == 0 || access(path + "-shm", W_OK) == 0
        let walSize = (try? fm.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        guard !canMakeShm && walSize == 0 else { return try DatabaseQueue(path: path, configuration: config) }
        var uri = URLComponents()
        uri.scheme = "file"
        uri.path = path.hasPrefix("/") ? path : fm.currentDirectoryPath + "/" + path
        uri.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        return try DatabaseQueue(path: uri.string ?? path, configuration: config)
    }

    /// Refuses a file that is not SQLite, or is another program's SQLite database, without changing
    /// it: read on the connection that opens the store, before that connection writes anything.
    private static func checkExisting(_ db: Database, path: String, busyTimeout: TimeInterval) throws(StoreError) {
        do {
            let appID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            if appID == Schema.applicationID { return }
            if appID != 0 { throw StoreError.notATreesDatabase(path: path, reason: String(format: "application id 0x%08x", appID)) }
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if !tables.isEmpty {
                throw StoreError.notATreesDatabase(path: path, reason: "it holds tables \(tables.sorted().prefix(5).joined(separator: ", "))")
            }
        } catch {
            throw refusal(error, path: path, busyTimeout: busyTimeout)
        }
    }

    /// Why an existing file was not opened as a store: another process holding it too long, a
    /// failing disk (which says nothing about what the file holds), or a file that is no trees store.
    private static func refusal(_ error: any Error, path: String, busyTimeout: TimeInterval) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                return .busy("\(path) stayed locked by another process for \(Int(busyTimeout)) s")
            }
            if error.resultCode == .SQLITE_CORRUPT { return .damagedFile("\(path): \(reason(error))") }
            if StoreError.isStorageFailure(code: error.extendedResultCode.rawValue) { return .storage("\(path): \(reason(error))") }
        }
        return .notATreesDatabase(path: path, reason: reason(error))
    }

    /// Why no store could be made at `path`, found without making anything: a file where a folder
    /// of the path has to be, a folder where the store's file would go, or no right to write in
    /// the deepest folder of the path that exists. Nil when a store could be made there, or
    /// one is there already. A command that makes its store late (capture, on its first save)
    /// refuses a path that cannot hold one before the user waits for a fix.
    public static func problemMaking(at path: String) -> StoreError? {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? .cannotCreate(path: path, reason: "it is a directory") : nil
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if let file = fileInTheWay(of: folder) { return .cannotCreate(path: path, reason: "\(file) is a file, not a folder") }
        var existing = folder
        while !existing.isEmpty, existing != "/", !fm.fileExists(atPath: existing) {
            existing = URL(fileURLWithPath: existing).deletingLastPathComponent().path
        }
        guard access(existing.isEmpty ? "/" : existing, W_OK | X_OK) == 0 else {
            return .cannotCreate(path: path, reason: "the folder \(existing) is not writable")
        }
        return nil
    }

    /// The first part of `folder` that exists and is not a folder (a file where a folder of the
    /// path has to be), if any.
    static func fileInTheWay(of folder: String) -> String? {
        var path = ""
        for part in URL(fileURLWithPath: folder).standardizedFileURL.path.split(separator: "/") {
            path += "/" + part
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
            if !isDirectory.boolValue { return path }
        }
        return nil
    }

    static func reason(_ error: any Error) -> String {
        if let db = error as? DatabaseError {
            return db.message ?? db.description
        }
        if let cocoa = error as NSError?, let underlying = cocoa.userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// The current time as the store records it (milliseconds).
    public func now() -> Date { StoredDate.normalised(clock.now()) }

    // MARK: Transactions

    /// The page cache of a direct write (see `write`), in KiB. A small file can make a large store
    /// (70,000 surveyed trees in 16 MB of GPX make 34 MB of store): with 32 MiB of pages kept, an
    /// import of such a file peaked at 70 MB, against 41 MB now. Stores made from files of up to
    /// about 15,000 trees still fit whole.
    static let directCacheKiB = 8192

    /// Runs `body` in one immediate transaction: everything it writes is stored, or nothing is.
    ///
    /// `bulk` is for a transaction of many statements (an import): SQLite then keeps the undo
    /// record of each statement (its statement journal, a copy of every page the statement changes)
    /// in memory. By default that record spills to a temporary file once one statement outgrows
    /// 64 KiB, and from then on every insert of the transaction wrote its pages there, a system
    /// call each: most of an import's time went there. Its foreign keys are checked when it
    /// commits rather than after each statement (`defer_foreign_keys`): a statement that may fail
    /// part way needs that undo record, and an insert of many trees at once, each naming its
    /// collection, was such a statement. The import names only collections it has stored, and a
    /// dangling one would still refuse the whole transaction.
    ///
    /// `direct`, with `bulk`, is for a write that ends within a second or so (a small file's
    /// import) into a store made unseen: its pages stay in memory until the commit, which writes
    /// each once (up to `directCacheKiB` of them; any beyond are written as they leave the cache).
    /// It changes nothing for any other store. A longer bulk write into a store made unseen has
    /// the pages it writes out handed to the disk as it goes (`BackgroundWriteback`).
    public func write<T>(bulk: Bool = false, direct: Bool = false, _ body: (StoreWriter) throws -> T) throws -> T {
        if isReadOnly { throw StoreError.storage("\(path) is read-only for this user (the file or its folder cannot be written)") }
        do {
            let now = now()
            if let problem = StorableDates.problem(now) {
                throw StoreError.unstorable("the current time: \(problem); check the system clock")
            }
            return try queue.writeWithoutTransaction { db in
                // SQLite decides where statement journals go when the transaction begins.
                if bulk { try db.execute(sql: "PRAGMA temp_store = MEMORY") }
                defer { if bulk { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") } }
                // A store no other process sees (see `init`) is written as it is configured; a small
                // file's pages stay in memory until the commit, up to 8 MiB of them, and any beyond
                // are written out as they leave the cache. Any other store is written through its WAL.
                let direct = direct && bulk && unseenPath != nil
                if direct { try db.execute(sql: "PRAGMA cache_size = -\(Self.directCacheKiB)") }
                // A long one writes pages out as they leave the cache: the disk takes them meanwhile,
                // not all at once in `publish`'s sync.
                let writeback = bulk && !direct ? unseenPath.flatMap { BackgroundWriteback(path: $0) } : nil
                defer { writeback?.stop() }
                return try transaction(db, now: now, bulk: bulk, direct: direct, body)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.sqlite(error)
        }
    }

    /// `body` in a transaction as `DatabaseQueue.write` opens it, stamped with one tick of the
    /// hybrid logical clock and one change number (the sync triggers stamp what it changes with
    /// them, see `SyncSchema`).
    private func transaction<T>(_ db: Database, now: Date, bulk: Bool = false, direct: Bool = false,
                                _ body: (StoreWriter) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction {
            // In force until this transaction ends.
            if bulk { try db.execute(sql: "PRAGMA defer_foreign_keys = ON") }
            let previous = try Row.fetchOne(db, sql: "SELECT hlc, seq FROM syncState")
            try db.execute(sql: "UPDATE syncState SET hlc = max(hlc + 1, ?), seq = seq + 1", arguments: [SyncVersion.clock(at: now)])
            let ticked = db.totalChangesCount
            let writer = StoreWriter(db: db, now: now, isDirect: direct)
            defer { writer.end.finish() }
            result = try body(writer)
            try writer.end.run()
            try writer.refreshDueCare()
            // A transaction that changed nothing (an import of trees already present) leaves
            // the store as it was, the clock included: no version was stamped with the tick.
            if db.totalChangesCount == ticked, let previous {
                try db.execute(sql: "UPDATE syncState SET hlc = ?, seq = ?", arguments: [previous["hlc"], previous["seq"]])
            }
            return .commit
        }
        guard let result else { throw StoreError.database("the transaction ended without a result") }
        return result
    }

    /// Runs `body` on a consistent snapshot.
    public func read<T>(_ body: (StoreReader) throws -> T) throws -> T {
        do {
            return try queue.read { db in try body(StoreReader(db: db)) }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw StoreError.sqlite(error)
        }
    }

    // MARK: Convenience

    public func tree(matching prefix: String) throws -> Tree { try read { try $0.tree(matching: prefix) } }
    public func trees(_ filter: TreeFilter = .init(), limit: Int? = nil) throws -> [Tree] {
        try read { try $0.trees(filter, limit: limit) }
    }
    public func collections() throws -> [CollectionSummary] { try read { try $0.collections() } }
    public func collection(named name: String) throws -> TreeCollection { try read { try $0.collection(named: name) } }
    public func preference(_ key: PreferenceKey) throws -> String? { try read { try $0.preference(key) } }
}

/// Preference keys.
public enum PreferenceKey: String, Sendable {
    /// Id of the collection a tree was last added to; the default for the next `add` and `capture`.
    case lastCollection
    /// `species` or `variety`: what map labels show.
    case mapLabels
    /// Who does the work: the default name recorded with care events.
    case operatorName = "operator"
    /// `dgps`, `rtk-float` or `rtk-fixed`: the fix quality `capture` waits for (`--require-fix`).
    case requireFix
    /// Height of the antenna above the ground in metres (`capture --antenna-height`).
    case antennaHeight
}

/// Which trees a listing shows.
public struct TreeFilter: Sendable, Equatable {
    public enum CollectionScope: Sendable, Equatable { case any, unassigned, collection(UUID) }
    public var collection: CollectionScope
    /// Species, matched exactly but ignoring case.
    public var species: String?
    /// Text found in species, variety, rootstock or notes, ignoring case.
    public var search: String?

    public init(collection: CollectionScope = .any, species: String? = nil, search: String? = nil) {
        self.collection = collection; self.species = species; self.search = search
    }
}

/// A collection with its tree count.
public struct CollectionSummary: Sendable, Equatable {
    public var collection: TreeCollection
    public var treeCount: Int
}

/// Case-insensitive substring search that folds Unicode case, registered as the SQL function `trees_contains`.
enum TextSearch {
    static let containsFunction = DatabaseFunction("trees_contains", argumentCount: 2, pure: true) { values in
        guard let haystack = String.fromDatabaseValue(values[0]), let needle = String.fromDatabaseValue(values[1]) else { return false }
        return haystack.range(of: needle, options: [.caseInsensitive]) != nil
    }
}
