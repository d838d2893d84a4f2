import Foundation
import TreesStore

/// Where a command writes its output: standard output, or a path (a regular file, a device, a pipe).
public enum OutputDestination: Equatable, Sendable {
    case standardOutput
    /// A file the user named: a file already there is replaced.
    case file(String)
    /// A name `trees` made: it never replaces a file (see `resolve`).
    case newFile(String)

    public var displayName: String {
        switch self {
        case .standardOutput: "standard output"
        case .file(let path), .newFile(let path): path
        }
    }

    /// The path of a file destination, nil for standard output.
    public var path: String? {
        switch self {
        case .standardOutput: nil
        case .file(let path), .newFile(let path): path
        }
    }

    /// The destination an `--out` value names: `-` is standard output; a folder (or no value, for
    /// the current folder) gets `generatedName` inside it; anything else is the file itself.
    /// `generatedName` is made only for a folder (it reads the local time zone).
    ///
    /// A made name never replaces a file: two exports in one second (or of two collections whose
    /// names make the same slug) would otherwise get one name, and the second would silently
    /// replace the first. The first of `NAME.ext`, `NAME_2.ext`, `NAME_3.ext` … that is free is
    /// taken, and `OutputFile` refuses to rename over a file that appears there meanwhile.
    public static func resolve(_ out: String?, generatedName: @autoclosure () -> String) throws(WorkflowError) -> OutputDestination {
        guard let out else { return .newFile(try freeName(in: "", generatedName())) }
        if out == "-" { return .standardOutput }
        guard !out.isEmpty else { throw .emptyDestination }
        var st = stat()
        if stat(out, &st) == 0, st.st_mode & S_IFMT == S_IFDIR {
            return .newFile(try freeName(in: out.hasSuffix("/") ? out : out + "/", generatedName()))
        }
        if out.hasSuffix("/") { throw .cannotCreate(path: out, reason: "the folder does not exist") }
        return .file(out)
    }

    /// Most suffixes tried before giving up.
    static let suffixLimit = 10_000

    /// `folder` + `name`, or with `_2`, `_3` … before its extension: the first that names nothing
    /// (not even a dangling symbolic link).
    static func freeName(in folder: String, _ name: String) throws(WorkflowError) -> String {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { String(name[$0...]) } ?? ""
        var st = stat()
        for n in 1...suffixLimit {
            let candidate = folder + (n == 1 ? name : "\(stem)_\(n)\(ext)")
            if lstat(candidate, &st) != 0 && errno == ENOENT { return candidate }
        }
        throw .cannotCreate(path: folder + name, reason: "\(suffixLimit) files of that name are already there")
    }
}

/// The one way `trees` writes an output file: under a temporary name beside the destination,
/// renamed into place by `commit()`, so a reader never sees a half-written file.
///
/// - A file that already exists keeps its permissions (and, where this user may set it, its owner);
///   a new file gets the usual `0666` less the umask.
/// - A symbolic link is followed: its target is replaced and the link stays.
/// - Devices and pipes (`/dev/null`, a FIFO) are written straight through, never renamed over.
/// - SIGINT, SIGTERM or SIGHUP while the file is written remove the temporary file, and the process
///   exits with 128 + the signal.
///
/// Failing to open is `WorkflowError.cannotCreate`, failing to write `.cannotWrite`; messages name the path as given.
/// Blocks are handed to the kernel's writeback as they are written (`sync_file_range`), so the
/// `fdatasync` before the rename waits only for the last of them.
public final class OutputFile {
    private let fd: Int32
    /// The destination as the user named it, for messages.
    private let name: String
    /// The regular file the temporary file replaces (a symbolic link's target), nil when written straight through.
    private let finalPath: String?
    /// Set until the temporary file is renamed into place or removed.
    private var temporaryPath: String?
    private let ownsDescriptor: Bool
    /// False for a name `trees` made (`OutputDestination.newFile`): `commit` then never renames over a file.
    private let replaces: Bool
    private var written: Int64 = 0
    private var handedToWriteback: Int64 = 0
    /// Bytes written between two writeback requests.
    private static let writebackStep: Int64 = 1 << 20

    /// Opens the output. A file that is one of `protected` (the store the output is made from,
    /// and the files SQLite keeps beside it), under any name, is never written or replaced.
    public init(_ destination: OutputDestination, protecting protected: [String] = []) throws(WorkflowError) {
        name = destination.displayName
        guard let path = destination.path else {
            (fd, finalPath, temporaryPath, ownsDescriptor, replaces) = (STDOUT_FILENO, nil, nil, false, true)
            return
        }
        if case .newFile = destination { replaces = false } else { replaces = true }
        let target: String
        var existing: stat?
        var st = stat()
        if stat(path, &st) == 0 {
            for p in protected {
                var other = stat()
                if stat(p, &other) == 0, other.st_dev == st.st_dev, other.st_ino == st.st_ino {
                    throw Self.cannotCreate(path, "it is the store the output is made from; choose another path")
                }
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                existing = st
                target = Self.realPath(path) ?? path
            case S_IFDIR:
                throw .cannotCreate(path: path, reason: "it is a folder")
            default:
                // A device or a pipe: renaming over it would replace it, so it is opened and written.
                let d = open(path, O_WRONLY | O_CLOEXEC)
                guard d >= 0 else { throw Self.cannotCreate(path, String(cString: strerror(errno))) }
                (fd, finalPath, temporaryPath, ownsDescriptor) = (d, nil, nil, true)
                return
            }
        } else if errno == ENOENT {
            target = try Self.linkTarget(path)
        } else {
            throw Self.cannotCreate(path, String(cString: strerror(errno)))
        }

        let slash = target.lastIndex(of: "/")
        let folder = slash.map { String(target[...$0]) } ?? ""
        let base = slash.map { String(target[target.index(after: $0)...]) } ?? target
        // A name near the file system's limit of 255 bytes leaves no room for the decoration.
        let temp = "\(folder).\(base.utf8.count > 200 ? "trees-output" : base).\(getpid()).tmp"
        // A replaced file's content stays private to its owner until its own permissions are copied.
        let mode: mode_t = existing == nil ? 0o666 : 0o600
        InterruptCleanup.arm(temp)
        var d = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if d < 0 && errno == EEXIST {
            // Left by an earlier process with the same id that was killed mid-write.
            unlink(temp)
            d = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        }
        guard d >= 0 else {
            let code = errno
            InterruptCleanup.disarm()
            if code == ENOENT {
                let shown = folder.isEmpty ? "." : String(folder.dropLast(folder.count > 1 ? 1 : 0))
                throw Self.cannotCreate(path, "the folder \(shown) does not exist")
            }
            throw Self.cannotCreate(path, String(cString: strerror(code)))
        }
        if let existing {
            // The owner first: changing it may clear set-user-ID and set-group-ID bits.
            var mine = stat()
            if fstat(d, &mine) == 0, mine.st_uid != existing.st_uid || mine.st_gid != existing.st_gid {
                _ = fchown(d, existing.st_uid, existing.st_gid)
            }
            _ = fchmod(d, existing.st_mode & 0o7777)
        }
        (fd, finalPath, temporaryPath, ownsDescriptor) = (d, target, temp, true)
    }

    deinit {
        abandon()
        if ownsDescriptor && fd >= 0 { close(fd) }
    }

    /// `cannot write PATH: reason`: the file could not be created.
    private static func cannotCreate(_ path: String, _ reason: String) -> WorkflowError {
        .cannotCreate(path: path, reason: reason)
    }

    /// `cannot write NAME: reason` from `errno`: writing failed.
    private func writeFailure(_ code: Int32) -> WorkflowError {
        .cannotWrite(path: name, reason: String(cString: strerror(code)))
    }

    /// The canonical path of an existing file, symbolic links resolved.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where a path that does not exist yet will be created: `path` itself, or the end of the chain
    /// of symbolic links that starts there and leads to no file.
    private static func linkTarget(_ path: String) throws(WorkflowError) -> String {
        var current = path
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return current }
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { throw cannotCreate(path, String(cString: strerror(errno))) }
            let link = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") {
                current = link
            } else if let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + link
            } else {
                current = link
            }
        }
        throw cannotCreate(path, String(cString: strerror(ELOOP)))
    }

    /// The temporary file itself, for a writer that builds its file in place (a GeoPackage is an
    /// SQLite database) instead of streaming bytes through `write`; nil for standard output and
    /// devices. `commit()` makes it durable and renames it as it does any other.
    public var buildPath: String? { temporaryPath }

    /// The path the file will have once committed (a symbolic link's target); nil for standard output and devices.
    public var destinationPath: String? { finalPath }

    /// True for a file (which can be patched after writing), false for standard output and devices.
    public var isSeekable: Bool { finalPath != nil }

    public func write(_ bytes: [UInt8]) throws(WorkflowError) {
        if let code = bytes.withUnsafeBytes({ write($0) }) { throw writeFailure(code) }
    }

    public func write(_ bytes: UnsafeBufferPointer<UInt8>) throws(WorkflowError) {
        if let code = write(UnsafeRawBufferPointer(bytes)) { throw writeFailure(code) }
    }

    public func write(_ text: String) throws(WorkflowError) {
        var text = text
        if let code = text.withUTF8({ write(UnsafeRawBufferPointer($0)) }) { throw writeFailure(code) }
    }

    /// Writes all of `bytes`; the `errno` of a failure.
    private func write(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        if let code = writeAll(fd, bytes) { return code }
        written += Int64(bytes.count)
        if temporaryPath != nil, written - handedToWriteback >= Self.writebackStep {
            startWriteback(fd, offset: handedToWriteback, length: written - handedToWriteback)
            handedToWriteback = written
        }
        return nil
    }

    /// Overwrites bytes already written at `offset`.
    public func patch(at offset: Int, _ bytes: [UInt8]) throws(WorkflowError) {
        let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        if n != bytes.count { throw writeFailure(n < 0 ? errno : EIO) }
    }

    /// Makes the file durable and renames it to its final name; nothing to do for standard output and devices.
    ///
    /// A large file it replaces is let go of on a thread of its own: see `ReplacedFile`.
    public func commit() throws(WorkflowError) {
        guard let finalPath, let temporaryPath else { return }
        guard fdatasync(fd) == 0 else { throw writeFailure(errno) }
        if !replaces {
            try publishWithoutReplacing(temporaryPath, as: finalPath)
            self.temporaryPath = nil
            InterruptCleanup.disarm()
            return
        }
        let replaced = ReplacedFile(finalPath)
        guard rename(temporaryPath, finalPath) == 0 else {
            let code = errno
            replaced?.release()
            throw writeFailure(code)
        }
        self.temporaryPath = nil
        InterruptCleanup.disarm()
        replaced?.releaseElsewhere()
    }

    /// Gives the temporary file its final name unless a file of that name is there: a second
    /// name is linked to it, which fails if the name is taken, then the temporary name is removed.
    /// Where the file system has no hard links (FAT on a memory stick), it is renamed if the name
    /// is still free just before.
    private func publishWithoutReplacing(_ temporaryPath: String, as finalPath: String) throws(WorkflowError) {
        if link(temporaryPath, finalPath) == 0 {
            unlink(temporaryPath)
            return
        }
        let code = errno
        var st = stat()
        if code == EEXIST || lstat(finalPath, &st) == 0 {
            throw Self.cannotCreate(name, "a file of that name appeared while it was written; nothing was replaced")
        }
        guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EMLINK || code == ENOSYS else {
            throw writeFailure(code)
        }
        guard rename(temporaryPath, finalPath) == 0 else { throw writeFailure(errno) }
    }

    /// Removes the temporary file after a failure (the destination is left as it was).
    public func abandon() {
        guard let temporaryPath else { return }
        unlink(temporaryPath)
        self.temporaryPath = nil
        InterruptCleanup.disarm()
    }
}

/// The file an output file is renamed over, held open across the rename.
///
/// Renaming onto a file frees its blocks and its cached pages as part of the rename: for a 9 MB
/// export about 3 ms of the kernel's time, in a command that takes about 40. Held open (`O_PATH`,
/// which needs no permission to read it and opens no device or pipe), the old file is freed when the
/// last descriptor to it closes instead, and that close happens on a short-lived thread, beside what
/// the command still does (closing the store, exiting). What the user sees is the same: the new file
/// under the name once `commit` returns, the old one gone with no name. Files under 1 MiB, and files
/// with other names (hard links), which the rename does not free, are not held.
struct ReplacedFile {
    private let fd: Int32
    /// Below this, freeing the file costs less than starting a thread.
    static let threshold = 1 << 20
    /// Linux's `O_PATH` (the same on x86-64, ARM and RISC-V), which Swift's Glibc module leaves out.
    private static let pathOnly: Int32 = 0o10000000

    init?(_ path: String) {
        let d = open(path, Self.pathOnly | O_NOFOLLOW | O_CLOEXEC)
        guard d >= 0 else { return nil }
        var st = stat()
        guard fstat(d, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 1, st.st_size >= Self.threshold else {
            close(d)
            return nil
        }
        fd = d
    }

    /// Closes it here (the rename failed: the file keeps its name and nothing is freed).
    func release() { close(fd) }

    /// Closes it on a detached thread; here if no thread can be started.
    func releaseElsewhere() {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 64 << 10)
        var thread = pthread_t()
        // The descriptor travels as the thread's argument (0, with standard input closed, as nil, which reads back as 0).
        let started = pthread_create(&thread, &attributes, { argument in
            close(Int32(truncatingIfNeeded: Int(bitPattern: argument)))
            return nil
        }, UnsafeMutableRawPointer(bitPattern: Int(fd)))
        if started != 0 { close(fd) }
    }
}

/// Removes the temporary file of the output file being written when SIGINT, SIGTERM or SIGHUP ends
/// the process, which then exits with 128 + the signal (130, 143, 129). For a store made unseen,
/// the files SQLite keeps beside it (`-wal`, `-shm`, which exist for an instant while it is
/// switched to WAL) go too, and then the folders made for it, when they are empty.
///
/// A signal handler may call only async-signal-safe functions, so the paths wait in C buffers
/// allocated once, and the handler does nothing but `unlink`, `rmdir` and `_exit`. A signal the
/// process was started with ignored (`nohup`) stays ignored. One output file is written at a time.
enum InterruptCleanup {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    /// The file and the companions of it that may be removed: at most this many.
    private static let fileSlots = 3
    /// The folders that may be removed after them: at most this many (the deepest first).
    private static let folderSlots = 8
    private static let slots = fileSlots + folderSlots
    /// The paths, each NUL-terminated in `PATH_MAX + 1` bytes; an empty one is no path.
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: slots * (Int(PATH_MAX) + 1))
        p.initialize(repeating: 0, count: slots * (Int(PATH_MAX) + 1))
        return p
    }()
    /// The handlers that were in place before `arm`, put back by `disarm`.
    nonisolated(unsafe) private static var previous: [(Int32, sigaction)] = []

    /// Installs the handlers for `temporaryPath` and `temporaryPath` + each of `companions` (at
    /// most two), then `folders` in order (made for the file, the deepest first; at most eight,
    /// removed only when empty); a path too long for the buffer (which `open` would refuse
    /// anyway) is not armed.
    static func arm(_ temporaryPath: String, companions: [String] = [], folders: [String] = []) {
        disarm()
        let files = [temporaryPath] + companions.prefix(fileSlots - 1).map { temporaryPath + $0 }
        for path in files + folders.prefix(folderSlots) {
            guard path.utf8.count <= Int(PATH_MAX), !path.utf8.contains(0) else { return }
        }
        func keep(_ path: String, in slot: Int) {
            let base = paths + slot * (Int(PATH_MAX) + 1)
            for (i, b) in path.utf8.enumerated() { base[i] = CChar(bitPattern: b) }
            base[path.utf8.count] = 0
        }
        for (slot, path) in files.enumerated() { keep(path, in: slot) }
        for (i, folder) in folders.prefix(folderSlots).enumerated() { keep(folder, in: fileSlots + i) }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            InterruptCleanup.removeArmedFiles()
            _exit(128 + signal)
        }
        sigemptyset(&action.sa_mask)
        for s in signals { sigaddset(&action.sa_mask, s) }
        action.sa_flags = 0
        for s in signals {
            var old = sigaction()
            guard sigaction(s, nil, &old) == 0 else { continue }
            if let handler = old.__sigaction_handler.sa_handler, unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                continue
            }
            if sigaction(s, &action, nil) == 0 { previous.append((s, old)) }
        }
    }

    /// What the handler does before it exits: `unlink` each armed file, then `rmdir` each armed
    /// folder (both async-signal-safe; a folder that is not empty stays).
    static func removeArmedFiles() {
        for slot in 0..<slots {
            let base = paths + slot * (Int(PATH_MAX) + 1)
            guard base[0] != 0 else { continue }
            if slot < fileSlots { unlink(base) } else { rmdir(base) }
        }
    }

    /// Puts back the handlers `arm` replaced, then forgets the paths.
    static func disarm() {
        for (s, old) in previous {
            var old = old
            sigaction(s, &old, nil)
        }
        previous = []
        for slot in 0..<slots { paths[slot * (Int(PATH_MAX) + 1)] = 0 }
    }
}
