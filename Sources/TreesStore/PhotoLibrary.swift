import Foundation
import GRDBSQLite
import TreesKit

/// The photo files beside a database: content-addressed as `<sha256>.<ext>` in `TreeStore.photoFolder`.
///
/// Files are written before the rows that refer to them, each through a temporary file and a
/// rename, so a reader never sees half a photo and a row never names a missing file. The same
/// bytes added twice (to one tree or to several) are stored once; a file goes when the last row
/// that refers to it goes.
public struct PhotoLibrary: Sendable {
    /// The folder holding the photo files.
    public let folder: String
    /// The store whose library this is; other stores in its folder share the photo folder.
    let storePath: String?

    public init(folder: String, storePath: String? = nil) {
        self.folder = folder
        self.storePath = storePath
    }

    /// Size of the chunks photo files are read and copied in, in bytes.
    static let chunkSize = 1 << 20

    /// The result of adding files to a tree.
    public struct Addition: Sendable, Equatable {
        /// The new photo rows, in the order the files were given.
        public var added: [Photo]
        /// Files whose bytes the tree already had a photo of; nothing was added for them.
        public var alreadyAttached: [String]
    }

    /// Photo files checked, hashed and copied into the folder, not yet recorded: the slow part of
    /// adding photos, done before the write transaction so the store is not locked while a large
    /// file is copied.
    public struct StagedPhotos: Sendable {
        var items: [Staged]
        /// Problems that did not stop a file, e.g. a modification time that could not be used.
        public var warnings: [String]
    }

    /// Checks, hashes and copies `files` into the folder, outside any transaction. Each must be a
    /// regular JPEG, PNG or HEIC file (recognised by its bytes). The capture date is EXIF
    /// DateTimeOriginal when present (read in `timeZone` unless the file records its own UTC
    /// offset), else the file's modification time; a date a store cannot hold is ignored with a
    /// warning. Any bad file refuses the whole call, and files it copied are removed again.
    public func stage(files: [String], timeZone: TimeZone = .current) throws -> StagedPhotos {
        var staged = StagedPhotos(items: [], warnings: [])
        do {
            for file in files { staged.items.append(try stage(file, timeZone: timeZone, warnings: &staged.warnings)) }
        } catch {
            for s in staged.items where s.isNewFile { try? FileManager.default.removeItem(atPath: path(sha256: s.sha256, format: s.format.rawValue)) }
            throw error
        }
        return staged
    }

    /// Checks, hashes and writes photo bytes carried inside another file (an import's embedded
    /// photo) into the folder, as `stage(files:)` does for a file; nil when the bytes are not a
    /// JPEG, PNG or HEIC image. The capture date is `capturedAt`, else the image's EXIF
    /// DateTimeOriginal (read in `timeZone`) when a store can hold it, else the time it is attached.
    public func stage(bytes: [UInt8], capturedAt: Date?, timeZone: TimeZone = .current) throws -> StagedPhotos? {
        guard let format = PhotoFormat(header: bytes) else { return nil }
        var date = capturedAt
        if date == nil, let exif = PhotoMetadata.read(format: format, bytes: bytes).dateTimeOriginal,
           let d = exif.date(in: timeZone), StorableDates.contains(d) {
            date = d
        }
        let sha256 = SHA256.hex(bytes)
        let target = path(sha256: sha256, format: format.rawValue)
        let fm = FileManager.default
        var isNewFile = false
        if !fm.fileExists(atPath: target) {
            do {
                try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError.photo(.cannotWrite(path: folder, reason: TreeStore.reason(error)))
            }
            let temporary = folder + "/.incoming-\(UUID().uuidString).tmp"
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: temporary))
            } catch {
                try? fm.removeItem(atPath: temporary)
                throw StoreError.photo(.cannotWrite(path: target, reason: TreeStore.reason(error)))
            }
            guard rename(temporary, target) == 0 else {
                let reason = String(cString: strerror(errno))
                try? fm.removeItem(atPath: temporary)
                throw StoreError.photo(.cannotWrite(path: target, reason: reason))
            }
            isNewFile = true
        }
        let item = Staged(path: target, sha256: sha256, format: format, byteCount: bytes.count, capturedAt: date, isNewFile: isNewFile)
        return StagedPhotos(items: [item], warnings: [])
    }

    /// Records staged photos for a tree inside `writer`'s transaction (short: rows only).
    public func attach(_ staged: StagedPhotos, to treeID: UUID, careEvent: UUID? = nil, in writer: StoreWriter) throws -> Addition {
        guard try writer.treeExists(treeID) else { throw StoreError.unknownTree(ShortID.of(treeID)) }
        if let careEvent {
            guard try writer.reader.careEvent(matching: careEvent.storageKey).treeID == treeID else {
                throw StoreError.unknownCareEvent(careEvent.storageKey)
            }
        }
        // The same picture once per tree, and once more per care event it was taken for.
        var known = Set(try writer.reader.photos(of: treeID).filter { $0.careEventID == careEvent }.map(\.sha256))
        var result = Addition(added: [], alreadyAttached: [])
        for s in staged.items {
            guard known.insert(s.sha256).inserted else {
                result.alreadyAttached.append(s.path)
                continue
            }
            let photo = Photo(treeID: treeID, sha256: s.sha256, format: s.format.rawValue, byteCount: s.byteCount,
                              capturedAt: s.capturedAt ?? writer.now, createdAt: writer.now, careEventID: careEvent)
            try writer.insert(photo)
            result.added.append(photo)
        }
        return result
    }

    /// Removes the files staging copied that no row refers to (after `attach` failed or its
    /// transaction was rolled back).
    public func discard(_ staged: StagedPhotos, store: TreeStore) {
        for s in staged.items where s.isNewFile {
            let referenced = (try? store.read { try $0.photoReferences(sha256: s.sha256) }) ?? 1
            if referenced == 0 { try? FileManager.default.removeItem(atPath: path(sha256: s.sha256, format: s.format.rawValue)) }
        }
    }

    /// Stages, then attaches in one short transaction of `store`: the file copying holds no lock.
    public func add(files: [String], toTreeMatching prefix: String, in store: TreeStore, timeZone: TimeZone = .current)
        throws -> (tree: Tree, addition: Addition, warnings: [String])
    {
        _ = try store.tree(matching: prefix) // refuse an unknown tree before copying anything
        let staged = try stage(files: files, timeZone: timeZone)
        do {
            let (tree, addition) = try store.write { w in
                let tree = try w.reader.tree(matching: prefix)
                return (tree, try attach(staged, to: tree.id, in: w))
            }
            return (tree, addition, staged.warnings)
        } catch {
            discard(staged, store: store)
            throw error
        }
    }

    /// Adds photo files to a tree inside `writer`'s transaction: staging and attaching in one
    /// go, which holds the write lock while files are copied. For small files inside a larger
    /// transaction; `add(files:toTreeMatching:in:)` copies before locking.
    public func add(files: [String], to treeID: UUID, in writer: StoreWriter, timeZone: TimeZone = .current) throws -> Addition {
        guard try writer.treeExists(treeID) else { throw StoreError.unknownTree(ShortID.of(treeID)) }
        let staged = try stage(files: files, timeZone: timeZone)
        do {
            return try attach(staged, to: treeID, in: writer)
        } catch {
            for s in staged.items where s.isNewFile { try? FileManager.default.removeItem(atPath: path(sha256: s.sha256, format: s.format.rawValue)) }
            throw error
        }
    }

    /// The photo of tree `treeID` a typed id means: its whole id, a prefix of it, or its short id.
    public func photo(matching prefix: String, of treeID: UUID, in reader: StoreReader) throws -> Photo {
        guard (try? IDPrefix.storageForm(prefix)) != nil else { throw StoreError.photo(.invalidPhotoID(prefix)) }
        let photos = try reader.photos(of: treeID)
        let matches = photos.filter { IDPrefix.matches($0.id.storageKey, prefix) }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw StoreError.photo(.unknownPhoto(prefix, tree: ShortID.of(treeID), known: photos.map { ShortID.of($0.id) }))
        default: throw StoreError.photo(.ambiguousPhoto(prefix, candidates: ShortID.distinct(matches.map(\.id))))
        }
    }

    /// Deletes a photo row inside `writer`'s transaction; returns it and whether its file is now unreferenced.
    ///
    /// Delete the file with `removeFiles(of:)` after the transaction has committed.
    public func remove(_ photo: Photo, in writer: StoreWriter) throws -> (photo: Photo, orphaned: Bool) {
        guard let removed = try writer.deletePhoto(photo.id) else {
            throw StoreError.photo(.unknownPhoto(ShortID.of(photo.id), tree: ShortID.of(photo.treeID), known: []))
        }
        return removed
    }

    /// Removes the files with these hashes (after the rows that referred to them are gone), except
    /// those another store still refers to.
    ///
    /// Every store in one folder keeps its photos in the same `photos/` folder beside it, so a file
    /// this store no longer refers to may still be another's: each SQLite file in the store's
    /// folder with a photo table is asked first, and a file is kept when one refers to it or when
    /// one cannot be read (kept is the safe side: a file left over costs space, a file removed
    /// loses a photo).
    public func removeFiles(of hashes: [String]) {
        guard !hashes.isEmpty, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        var doomed = Set(hashes)
        if let storePath { doomed.subtract(Self.referencedElsewhere(doomed, besides: storePath)) }
        guard !doomed.isEmpty else { return }
        for name in names where !name.hasPrefix(".") && doomed.contains(String(name.prefix { $0 != "." })) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// Which of `hashes` a store other than the one at `storePath`, in the same folder, refers to
    /// (or may: all of them when such a store cannot be read).
    static func referencedElsewhere(_ hashes: Set<String>, besides storePath: String) -> Set<String> {
        let folderURL = URL(fileURLWithPath: storePath).deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folderURL.path) else { return hashes }
        var own = stat()
        let ownKnown = stat(storePath, &own) == 0
        var kept = Set<String>()
        for name in names where !name.hasSuffix("-wal") && !name.hasSuffix("-shm") && !name.hasSuffix("-journal") {
            let path = folderURL.appendingPathComponent(name).path
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_size >= 100 else { continue }
            if ownKnown && st.st_dev == own.st_dev && st.st_ino == own.st_ino { continue }
            guard isSQLite(path) else { continue }
            guard let refs = references(in: path, to: hashes) else { return hashes }
            kept.formUnion(refs)
            if kept == hashes { break }
        }
        return kept
    }

    /// True when the file starts with SQLite's header string.
    private static func isSQLite(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        guard Glibc.read(fd, &header, 16) == 16 else { return false }
        return header.elementsEqual("SQLite format 3\0".utf8)
    }

    /// The hashes the `photo` table of the SQLite file at `path` refers to: empty for a database
    /// with no such table (a GeoPackage, another program's), nil when it cannot be read.
    private static func references(in path: String, to hashes: Set<String>) -> Set<String>? {
        var db: OpaquePointer?
        defer { sqlite3_close(db) }
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { return nil }
        sqlite3_busy_timeout(db, 10_000)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let hasTable = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'photo'"
        guard sqlite3_prepare_v2(db, hasTable, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW else { return nil }
        guard sqlite3_column_int(statement, 0) == 1 else { return [] }
        sqlite3_finalize(statement)
        statement = nil
        guard sqlite3_prepare_v2(db, "SELECT 1 FROM photo WHERE sha256 = ?1 LIMIT 1", -1, &statement, nil) == SQLITE_OK else { return nil }
        var found = Set<String>()
        for hash in hashes {
            sqlite3_reset(statement)
            sqlite3_bind_text(statement, 1, hash, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            switch sqlite3_step(statement) {
            case SQLITE_ROW: found.insert(hash)
            case SQLITE_DONE: break
            default: return nil
            }
        }
        return found
    }

    /// Path of the file holding a photo's bytes.
    public func path(of photo: Photo) -> String { path(sha256: photo.sha256, format: photo.format) }

    func path(sha256: String, format: String) -> String { folder + "/" + sha256 + "." + format }

    /// The name a photo is exported under: `<tree short id>_<yyyy-MM-dd_HHmmss>_<photo short id>.<ext>`,
    /// capture time in UTC.
    public static func exportName(_ photo: Photo) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: photo.capturedAt)
        let stamp = String(format: "%04d-%02d-%02d_%02d%02d%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
        return "\(ShortID.of(photo.treeID))_\(stamp)_\(ShortID.of(photo.id)).\(photo.format)"
    }

    /// A small picture of the photo for embedding in a page: the file itself when it is a JPEG or PNG
    /// of at most `maxBytes`, else the JPEG preview its EXIF block carries; nil when neither exists
    /// (HEIC, which browsers cannot show, or a large photo without a preview).
    public func preview(of photo: Photo, maxBytes: Int) -> (mimeType: String, bytes: [UInt8])? {
        guard let format = PhotoFormat(rawValue: photo.format), let handle = FileHandle(forReadingAtPath: path(of: photo)) else { return nil }
        defer { try? handle.close() }
        if format != .heic, photo.byteCount <= maxBytes, let data = try? handle.readToEnd() {
            return (format.mimeType, [UInt8](data))
        }
        guard format == .jpeg, let thumbnail = PhotoMetadata.read(format: format, Self.reader(handle)).thumbnail,
              thumbnail.count <= maxBytes else { return nil }
        return (PhotoFormat.jpeg.mimeType, thumbnail)
    }

    // MARK: Staging

    /// A photo file checked, hashed and copied into the folder, not yet recorded.
    struct Staged {
        var path: String
        var sha256: String
        var format: PhotoFormat
        var byteCount: Int
        /// EXIF DateTimeOriginal or the file's modification time; nil when neither is usable (the
        /// time the photo is recorded is used then).
        var capturedAt: Date?
        /// True when this call created the stored file (so a refusal removes it again).
        var isNewFile: Bool
    }

    /// Reads `file` once: recognises its format, hashes it while copying it to a temporary file in the
    /// folder, then renames that to `<sha256>.<ext>` (or drops it when the folder already has those bytes).
    func stage(_ file: String, timeZone: TimeZone, warnings: inout [String]) throws -> Staged {
        let fm = FileManager.default
        let (input, format) = try Self.open(file)
        defer { try? input.close() }
        let metadata = PhotoMetadata.read(format: format, Self.reader(input))
        var capturedAt: Date?
        if let exif = metadata.dateTimeOriginal, let date = exif.date(in: timeZone) {
            if let problem = StorableDates.problem(date) {
                warnings.append("\(file): EXIF DateTimeOriginal \(problem); ignored")
            } else {
                capturedAt = date
            }
        }
        if capturedAt == nil {
            var info = stat()
            if stat(file, &info) == 0 {
                let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
                if let problem = StorableDates.problem(modified) {
                    warnings.append("\(file): its modification time \(problem); ignored, the photo is dated now")
                } else {
                    capturedAt = modified
                }
            }
        }

        do {
            try fm.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError.photo(.cannotWrite(path: folder, reason: TreeStore.reason(error)))
        }
        let temporary = folder + "/.incoming-\(UUID().uuidString).tmp"
        guard fm.createFile(atPath: temporary, contents: nil), let output = FileHandle(forWritingAtPath: temporary) else {
            throw StoreError.photo(.cannotWrite(path: folder, reason: "cannot create a file there"))
        }
        var hasher = SHA256()
        var byteCount = 0
        do {
            defer { try? output.close() }
            try input.seek(toOffset: 0)
            while let chunk = try input.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                chunk.withUnsafeBytes { hasher.update($0) }
                try output.write(contentsOf: chunk)
                byteCount += chunk.count
            }
            try output.synchronize()
        } catch {
            try? fm.removeItem(atPath: temporary)
            throw StoreError.photo(.cannotWrite(path: folder, reason: TreeStore.reason(error)))
        }
        let sha256 = hasher.finalizeHex()
        let target = path(sha256: sha256, format: format.rawValue)
        if fm.fileExists(atPath: target) {
            try? fm.removeItem(atPath: temporary)
            return Staged(path: file, sha256: sha256, format: format, byteCount: byteCount, capturedAt: capturedAt, isNewFile: false)
        }
        guard rename(temporary, target) == 0 else {
            let reason = String(cString: strerror(errno))
            try? fm.removeItem(atPath: temporary)
            throw StoreError.photo(.cannotWrite(path: target, reason: reason))
        }
        return Staged(path: file, sha256: sha256, format: format, byteCount: byteCount, capturedAt: capturedAt, isNewFile: true)
    }

    /// Checks that `file` can be attached, without copying it: it exists, is readable and is a JPEG,
    /// PNG or HEIC image. For prompts that want to refuse a bad path as soon as it is typed.
    public static func check(file: String) throws -> PhotoFormat {
        let (handle, format) = try open(file)
        try? handle.close()
        return format
    }

    /// Opens a photo file and recognises its format from its first bytes.
    static func open(_ file: String) throws -> (FileHandle, PhotoFormat) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) else {
            throw StoreError.photo(.unreadable(path: file, reason: "no such file"))
        }
        guard !isDirectory.boolValue else { throw StoreError.photo(.unreadable(path: file, reason: "it is a directory")) }
        // Only regular files: opening a FIFO with no writer would wait for ever, and a device or
        // socket is not a photo. Opened without blocking, then checked on the open descriptor, so
        // the file cannot be swapped between the check and the read.
        let fd = Foundation.open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError.photo(.unreadable(path: file, reason: String(cString: strerror(errno)))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw StoreError.photo(.unreadable(path: file, reason: "it is not a regular file (a pipe, device or socket)"))
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
        let input = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let head: [UInt8]
        do {
            head = [UInt8](try input.read(upToCount: PhotoFormat.headerLength) ?? Data())
        } catch {
            try? input.close()
            throw StoreError.photo(.unreadable(path: file, reason: TreeStore.reason(error)))
        }
        guard let format = PhotoFormat(header: head) else {
            try? input.close()
            throw StoreError.photo(.notAnImage(path: file))
        }
        return (input, format)
    }

    /// Random access to an open file for `PhotoMetadata`.
    static func reader(_ handle: FileHandle) -> (Int, Int) -> [UInt8] {
        { offset, count in
            guard offset >= 0, count > 0, (try? handle.seek(toOffset: UInt64(offset))) != nil,
                  let data = try? handle.read(upToCount: count) else { return [] }
            return [UInt8](data)
        }
    }
}

extension TreeStore {
    /// The photo files beside this database.
    public var photoLibrary: PhotoLibrary { PhotoLibrary(folder: photoFolder, storePath: path) }
}

/// Problems with photo files, each naming the file and what to do (thrown as `StoreError.photo`).
public enum PhotoProblem: Equatable, CustomStringConvertible, Sendable {
    case unreadable(path: String, reason: String)
    case notAnImage(path: String)
    case cannotWrite(path: String, reason: String)
    case missingFile(path: String)
    case invalidPhotoID(String)
    case unknownPhoto(String, tree: String, known: [String])
    case ambiguousPhoto(String, candidates: [String])

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .notAnImage(let path): "\(path) is not a JPEG, PNG or HEIC image"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .missingFile(let path): "the photo file \(path) is missing from the store's photo folder"
        case .invalidPhotoID(let text):
            "'\(TextTools.clipped(text))' is not a photo id; expected hex digits of an id as shown by 'trees photo list'"
        case .unknownPhoto(let prefix, let tree, let known):
            known.isEmpty
                ? "tree \(tree) has no photo \(prefix); it has no photos"
                : "tree \(tree) has no photo \(prefix); its photos: \(known.joined(separator: ", "))"
        case .ambiguousPhoto(let prefix, let candidates):
            "photo id \(prefix) is ambiguous; it matches \(candidates.joined(separator: ", ")); type more digits"
        }
    }
}
