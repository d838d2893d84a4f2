import Foundation
import GRDB

/// Makes a new store file whole: its schema is built in a private file beside it, made durable once
/// and then linked into place.
///
/// Migrated in place, a new store would take each migration as a transaction of its own, written
/// through the WAL and synced as any write is (eight syncs before a first command could start), and
/// half a store would be left by a full disk or seen by a second process starting at the same moment.
/// A file no other process can see needs neither journal nor sync until it is complete; one sync
/// then makes it durable, and `link` puts it in place only where no file is yet, so a store another
/// process made meanwhile is never replaced.
enum StoreCreation {
    /// What `create` did.
    enum Outcome: Equatable {
        /// The new store is in place, its schema complete.
        case created
        /// Another process made a file at the path first; it was left as it is.
        case taken
        /// The file system makes no hard links: nothing was made, the store is to be created in place.
        case inPlace
    }

    /// Makes the store at `path`, in `folder` (which exists and is writable), with the migrations of
    /// `migrator`. No file but the store's is left behind, whatever happens.
    static func create(at path: String, folder: String, migrator: DatabaseMigrator = Schema.migrator) throws(StoreError) -> Outcome {
        let temporary = try makeTemporaryFile(for: path, in: folder)
        do throws(StoreError) {
            try build(temporary, for: path, migrator: migrator)
            try makeDurable(temporary, for: path)
        } catch {
            removeFiles(of: temporary)
            throw error
        }
        let linked = link(temporary, path) == 0
        let code = errno
        // Removed before the folder is synced, so that the sync covers both names.
        unlink(temporary)
        guard linked else {
            switch code {
            case EEXIST: return .taken
            case EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS: return .inPlace
            default: throw .cannotCreate(path: path, reason: String(cString: strerror(code)))
            }
        }
        syncFolder(folder)
        return .created
    }

    /// Creates an empty file of a name no other process uses, beside `path`, with the permissions
    /// SQLite gives a new database; returns its path.
    private static func makeTemporaryFile(for path: String, in folder: String) throws(StoreError) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        // A name near the file system's limit of 255 bytes leaves no room for the decoration.
        let stem = name.utf8.count > 200 ? "trees" : name
        var code: Int32 = EEXIST
        for _ in 0..<4 where code == EEXIST {
            let temporary = "\(folder)/.\(stem).new-\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
            let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                close(fd)
                return temporary
            }
            code = errno
        }
        throw .cannotCreate(path: path, reason: String(cString: strerror(code)))
    }

    /// Applies every migration to the empty file at `temporary` (for those of `Schema.migrator`, the
    /// script that makes what they make), then switches it to WAL mode.
    ///
    /// Nothing but this connection sees the file: it keeps its lock throughout, so SQLite makes no
    /// shared-memory file, keeps its rollback journal in memory and syncs nothing.
    private static func build(_ temporary: String, for path: String, migrator: DatabaseMigrator) throws(StoreError) {
        var config = Configuration()
        // As the store opens itself: GRDB's migrations check foreign keys when they are on.
        config.foreignKeysEnabled = true
        config.label = "trees-new"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF")
            // The SQL functions a migration may call are those of the store's own connection.
            db.add(function: TextSearch.containsFunction)
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: temporary, configuration: config)
        } catch {
            throw .cannotCreate(path: path, reason: TreeStore.reason(error))
        }
        do {
            if migrator.migrations == SchemaSnapshot.migrations {
                // What the migrations would make, in one transaction (see `SchemaSnapshot`).
                try queue.write { db in try db.execute(sql: SchemaSnapshot.sql) }
            } else {
                try migrator.migrate(queue)
            }
            try queue.writeWithoutTransaction { db in
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                    throw DatabaseError(message: "could not switch \(path) to WAL mode")
                }
            }
            try queue.close()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw .sqlite(code: error.extendedResultCode.rawValue, message: TreeStore.reason(error))
        } catch {
            throw .database(TreeStore.reason(error))
        }
    }

    /// Syncs the complete file to disk, the one sync its content needs.
    private static func makeDurable(_ temporary: String, for path: String) throws(StoreError) {
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .storage("\(path): \(String(cString: strerror(errno)))") }
    }

    /// Syncs the folder, so that the store's name survives a crash as its content does.
    ///
    /// As SQLite does with the folder of a new journal, a folder that cannot be synced (some file
    /// systems refuse) is no error: the file itself is durable.
    private static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// Removes the temporary file and any file SQLite may have made beside it.
    private static func removeFiles(of temporary: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }
}
