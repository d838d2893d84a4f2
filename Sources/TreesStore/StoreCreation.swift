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
        let image = image(of: migrator)
        let temporary = try makeTemporaryFile(for: path, in: folder, holding: image)
        do throws(StoreError) {
            try build(temporary, for: path, migrator: migrator, written: image != nil)
            try makeDurable(temporary, for: path)
        } catch {
            removeFiles(of: temporary)
            throw error
        }
        let outcome = try place(temporary, at: path, folder: folder)
        if outcome == .inPlace { unlink(temporary) }
        return outcome
    }

    /// Makes a new store beside `path` under a name of its own, on the connection `open` opens to
    /// it, for that connection to fill before `publish` gives it its name; returns the connection
    /// and the file's name. The connection must hold the file alone (exclusive locking) and keep
    /// its rollback journal in memory, as `build` does. Nothing is left behind when it fails.
    ///
    /// The schema is made on that very connection: a second one would have SQLite read and parse
    /// the whole schema again, a tenth of a small import's time before its first tree.
    static func createUnseen(for path: String, folder: String,
                             open: (String) throws -> DatabaseQueue) throws(StoreError) -> (queue: DatabaseQueue, path: String) {
        let migrator = Schema.migrator
        let image = image(of: migrator)
        let temporary = try makeTemporaryFile(for: path, in: folder, holding: image)
        do throws(StoreError) {
            let queue: DatabaseQueue
            do {
                queue = try open(temporary)
            } catch {
                throw .cannotCreate(path: path, reason: TreeStore.reason(error))
            }
            try makeSchema(queue, migrator: migrator, written: image != nil)
            return (queue, temporary)
        } catch {
            removeFiles(of: temporary)
            throw error
        }
    }

    /// Makes the store `createUnseen` made (and its connection filled, switched to WAL and closed)
    /// durable and gives it the name `path`: `.created`, or `.taken` when another process made a
    /// file of that name meanwhile, which is left as it is. The file is gone from its own name either
    /// way; on a failure, it is removed.
    static func publish(_ temporary: String, at path: String, folder: String) throws(StoreError) -> Outcome {
        do throws(StoreError) {
            try makeDurable(temporary, for: path)
            switch try place(temporary, at: path, folder: folder) {
            case .created: return .created
            case .taken:
                removeFiles(of: temporary)
                return .taken
            case .inPlace:
                // No hard links here: renamed, unless a file of the name appeared (a process making
                // one in place between the look and the rename is a race this file system allows).
                guard access(path, F_OK) != 0 else {
                    removeFiles(of: temporary)
                    return .taken
                }
                guard rename(temporary, path) == 0 else { throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(errno))) }
                syncFolder(folder)
                return .created
            }
        } catch {
            removeFiles(of: temporary)
            throw error
        }
    }

    /// Links the complete, durable file `temporary` to `path` where no file is yet, then removes its
    /// own name (on `.created` and `.taken`) and syncs the folder; `.inPlace` leaves it as it is.
    private static func place(_ temporary: String, at path: String, folder: String) throws(StoreError) -> Outcome {
        let linked = link(temporary, path) == 0
        let code = errno
        if !linked, [EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS].contains(code) { return .inPlace }
        // Removed before the folder is synced, so that the sync covers both names.
        unlink(temporary)
        guard linked else {
            if code == EEXIST { return .taken }
            throw .cannotCreate(path: path, reason: String(cString: strerror(code)))
        }
        syncFolder(folder)
        return .created
    }

    /// The files left by an unseen store (see `createUnseen`) whose process ended before publishing
    /// it, killed or cut off by a crash: `.NAME.new-PID-…` of a process that no longer runs, and
    /// whose file no connection holds a lock on (a process in another PID namespace may share
    /// the folder).
    private static func removeAbandoned(for stem: String, in folder: String) {
        let prefix = ".\(stem).new-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0, pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            var store = name
            for suffix in ["-journal", "-wal", "-shm"] where store.hasSuffix(suffix) { store.removeLast(suffix.count) }
            if !isLocked(folder + "/" + store) { unlink(folder + "/" + name) }
        }
    }

    /// Whether a connection of another process holds a lock on the SQLite file at `path`: one of
    /// SQLite's lock bytes (from 2^30: pending, reserved, then the shared range) is taken. A file
    /// that cannot be asked counts as locked.
    private static func isLocked(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        // Closing drops this process's own locks on the file; it holds none on another's.
        defer { close(fd) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 0x4000_0000
        probe.l_len = 512
        guard fcntl(fd, F_GETLK, &probe) == 0 else { return true }
        return probe.l_type != Int16(F_UNLCK)
    }

    /// The bytes of an empty store as `migrator` makes it (`StoreImage`), when there is an image of
    /// its migrations.
    private static func image(of migrator: DatabaseMigrator) -> [UInt8]? {
        migrator.migrations == StoreImage.migrations ? StoreImage.bytes() : nil
    }

    /// Creates a file of a name no other process uses, beside `path`, with the permissions SQLite
    /// gives a new database, holding `image` (else empty); returns its path.
    private static func makeTemporaryFile(for path: String, in folder: String, holding image: [UInt8]?) throws(StoreError) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        // A name near the file system's limit of 255 bytes leaves no room for the decoration.
        let stem = name.utf8.count > 200 ? "trees" : name
        removeAbandoned(for: stem, in: folder)
        var code: Int32 = EEXIST
        for _ in 0..<4 where code == EEXIST {
            let temporary = "\(folder)/.\(stem).new-\(getpid())-\(String(UInt32.random(in: .min ... .max), radix: 16))"
            let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                let failure = image?.withUnsafeBytes { writeAll(fd, $0) }
                close(fd)
                if let failure {
                    unlink(temporary)
                    // A full disk: the store could be made, but not written.
                    throw .storage("\(path): \(String(cString: strerror(failure)))")
                }
                return temporary
            }
            code = errno
        }
        throw .cannotCreate(path: path, reason: String(cString: strerror(code)))
    }

    /// Makes the store of `migrator` in the file at `temporary` (empty, or `written` from the
    /// image of its migrations), then switches it to WAL mode.
    ///
    /// Nothing but this connection sees the file: it keeps its lock throughout, so SQLite makes no
    /// shared-memory file, keeps its rollback journal in memory and syncs nothing.
    private static func build(_ temporary: String, for path: String, migrator: DatabaseMigrator, written: Bool) throws(StoreError) {
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
            try makeSchema(queue, migrator: migrator, written: written)
            try switchToWAL(queue, for: path)
            try queue.close()
        } catch {
            throw .wrapping(error)
        }
    }

    /// Makes the store of `queue` what the migrations of `migrator` make: a store `written` from
    /// their image is given its own device id; an empty one is migrated.
    private static func makeSchema(_ queue: DatabaseQueue, migrator: DatabaseMigrator, written: Bool) throws(StoreError) {
        do {
            if written {
                try queue.write { db in try db.execute(sql: StoreImage.newDeviceSQL) }
            } else {
                try migrator.migrate(queue)
            }
        } catch {
            throw .wrapping(error)
        }
    }

    /// Switches the store of a connection that holds it alone to WAL mode, as every store is kept.
    static func switchToWAL(_ queue: DatabaseQueue, for path: String) throws {
        try queue.writeWithoutTransaction { db in
            // The connection holds the file alone: nothing to wait for.
            guard try TreeStore.switchToWAL(db, waitingUpTo: 0) == "wal" else {
                throw DatabaseError(message: "could not switch \(path) to WAL mode")
            }
        }
    }

    /// The length in bytes of the store a connection's file holds (its pages, as SQLite counts them).
    static func storeLength(_ queue: DatabaseQueue) throws -> Int64 {
        try queue.read { db in
            try (Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0) * (Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0)
        }
    }

    /// Cuts a closed store's file back to `length`, the store it holds, when it is longer.
    ///
    /// A bulk write that failed part way into a store made unseen (a full disk) leaves the pages it
    /// had written past the store's end: SQLite never reads them again, and a first import of a
    /// large file refused by a full disk kept the disk as full as it had made it.
    static func cutBack(_ file: String, to length: Int64) {
        var info = stat()
        guard length > 0, stat(file, &info) == 0, Int64(info.st_size) > length else { return }
        _ = truncate(file, off_t(length))
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
    static func removeFiles(of temporary: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(temporary + suffix) }
    }
}
