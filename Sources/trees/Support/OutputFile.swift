import Foundation

/// An output file written under a temporary name beside its destination and renamed into place on
/// `commit()`, so no half-written file is ever left; standard output, devices and pipes are written
/// straight through.
///
/// Blocks are handed to the kernel's writeback as they are written (`sync_file_range`), so the
/// `fdatasync` before the rename waits only for the last of them.
final class OutputFile {
    private let fd: Int32
    private let finalPath: String?
    private let temporaryPath: String?
    private let ownsDescriptor: Bool
    private var written: Int64 = 0
    private var handedToWriteback: Int64 = 0
    /// Bytes written between two writeback requests.
    private static let writebackStep: Int64 = 1 << 20

    init(_ destination: ExportCommand.Destination) throws {
        switch destination {
        case .standardOutput:
            (fd, finalPath, temporaryPath, ownsDescriptor) = (STDOUT_FILENO, nil, nil, false)
        case .file(let path) where Self.isSpecialFile(path):
            // A device or pipe (/dev/null, a FIFO) is written straight through: renaming over it would replace it.
            let d = open(path, O_WRONLY | O_CLOEXEC)
            guard d >= 0 else { throw Self.failure("cannot open \(path) for writing") }
            (fd, finalPath, temporaryPath, ownsDescriptor) = (d, nil, nil, true)
        case .file(let path):
            let slash = path.lastIndex(of: "/")
            let folder = slash.map { String(path[...$0]) } ?? ""
            let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
            let temp = "\(folder).\(name).\(getpid()).tmp"
            var d = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if d < 0 && errno == EEXIST {
                // Left by an earlier process with the same id that was killed mid-export.
                unlink(temp)
                d = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            }
            guard d >= 0 else { throw Self.failure("cannot create \(path)") }
            (fd, finalPath, temporaryPath, ownsDescriptor) = (d, path, temp, true)
        }
    }

    /// `what: reason` from `errno`, exit status 73.
    private static func failure(_ what: String) -> CLIError {
        CLIError("\(what): \(String(cString: strerror(errno)))", status: .cannotCreate)
    }

    deinit {
        if ownsDescriptor && fd >= 0 { close(fd) }
    }

    /// True when `path` exists and is not a regular file or folder (a character device, a FIFO, a socket).
    static func isSpecialFile(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// True for a file (which can be patched after writing), false for standard output and devices.
    var isSeekable: Bool { finalPath != nil }

    func write(_ bytes: [UInt8]) throws {
        if let code = bytes.withUnsafeBytes({ writeAll(fd, $0) }) { throw OutputError(errno: code) }
        written += Int64(bytes.count)
        if temporaryPath != nil, written - handedToWriteback >= Self.writebackStep {
            startWriteback(handedToWriteback, written - handedToWriteback)
            handedToWriteback = written
        }
    }

    /// Overwrites bytes already written at `offset`.
    func patch(at offset: Int, _ bytes: [UInt8]) throws {
        let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        if n != bytes.count { throw OutputError(errno: n < 0 ? errno : EIO) }
    }

    /// Makes the file durable and renames it to its final name.
    func commit() throws {
        guard let finalPath, let temporaryPath else { return }
        guard fdatasync(fd) == 0 else { throw OutputError(errno: errno) }
        guard rename(temporaryPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw CLIError("cannot rename the export to \(finalPath): \(reason)", status: .ioError)
        }
    }

    /// Removes the temporary file after a failure.
    func abandon() {
        guard let temporaryPath else { return }
        unlink(temporaryPath)
    }

    /// Asks the kernel to start writing a range to disk now, without waiting for it.
    private func startWriteback(_ offset: Int64, _ length: Int64) {
        _ = Self.syncFileRange?(fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */)
    }

    /// `sync_file_range(2)`, which the Glibc module does not declare; nil where the C library lacks it.
    private static let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
    }()
}

/// A failed write of an output file, described as the C library describes its `errno`.
struct OutputError: Error, LocalizedError {
    let errno: Int32
    var errorDescription: String? { String(cString: strerror(errno)) }
}
