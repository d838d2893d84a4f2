import Foundation
import Interchange

/// An input file read in chunks (or standard input, `-`), with errors that name it.
public struct InputFile: @unchecked Sendable {
    public let path: String
    let handle: FileHandle
    /// Its size in bytes; nil for standard input.
    public let size: Int?
    /// The first bytes, kept for format detection and replayed by `forEachChunk`.
    private let head: [UInt8]

    static let chunkSize = 1 << 18

    public init(_ path: String) throws(WorkflowError) {
        if path == "-" {
            try self.init(path: path, handle: FileHandle.standardInput, size: nil)
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .noSuchFile(path) }
        guard !isDirectory.boolValue else { throw .isAFolder(path) }
        guard let h = FileHandle(forReadingAtPath: path) else { throw .cannotOpen(path) }
        // fstat: the attributes FileManager gives look up the owner's and group's names as well.
        var info = stat()
        let size = fstat(h.fileDescriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
        try self.init(path: path, handle: h, size: size)
    }

    /// Standard input read from `handle` (a pipe, in tests), named and treated as standard input is.
    package init(standardInput handle: FileHandle) throws(WorkflowError) {
        try self.init(path: "-", handle: handle, size: nil)
    }

    private init(path: String, handle: FileHandle, size: Int?) throws(WorkflowError) {
        self.path = path
        self.handle = handle
        self.size = size
        head = try Self.readHead(handle.fileDescriptor, name: path == "-" ? "<stdin>" : path)
    }

    /// Up to `chunkSize` first bytes of `fd`, fewer only at its end: read(2) straight into the
    /// array, where `FileHandle` reads a regular file 4 KiB a call.
    private static func readHead(_ fd: Int32, name: String) throws(WorkflowError) -> [UInt8] {
        var failure: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: chunkSize) { buffer, count in
            count = 0
            while count < buffer.count {
                let n = read(fd, buffer.baseAddress! + count, buffer.count - count)
                if n > 0 {
                    count += n
                } else if n == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
        }
        guard failure == 0 else { throw .cannotRead(file: name, reason: String(cString: strerror(failure))) }
        return bytes
    }

    /// True for a regular file, which can be opened and read again from its start; false for
    /// standard input, a pipe or a device, whose bytes once read are gone.
    public var canBeReadAgain: Bool { path != "-" && size != nil }

    /// The file opened again from its start, to be read a second time after a GeoJSON `crs` found
    /// after the features (`late`): refused with the crs's own reason for standard input or a
    /// pipe, which cannot be read again.
    public func reopened(after late: GeoJSONReader.LateCRS) throws(WorkflowError) -> InputFile {
        guard canBeReadAgain else { throw failure(late.refusal) }
        return try InputFile(path)
    }

    /// The name errors and reports use: the path, or `<stdin>`.
    public var displayName: String { path == "-" ? "<stdin>" : path }

    /// The format the name and the first bytes show.
    public func detectedFormat() throws(WorkflowError) -> FileFormat {
        guard let f = FileFormat.detect(prefix: head, fileName: path == "-" ? nil : path) else {
            throw .undetectableFormat(file: displayName)
        }
        return f
    }

    /// Passes the file's bytes in chunks; `progress` gets the fraction read so far (when the size is known).
    public func forEachChunk(progress: (Double) -> Void = { _ in }, _ body: (Data) throws -> Void) throws {
        var done = head.count
        try body(Data(head))
        while true {
            // read(2) straight into a large buffer: FileHandle reads a regular file 4 KiB at a time here.
            var buffer = Data(count: Self.chunkSize)
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                var r: Int
                repeat { r = read(handle.fileDescriptor, raw.baseAddress, raw.count) } while r < 0 && errno == EINTR
                return r
            }
            if n < 0 { throw WorkflowError.cannotRead(file: displayName, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            buffer.count = n
            let chunk = buffer
            done += chunk.count
            try body(chunk)
            if let size, size > 0 { progress(Double(done) / Double(size)) }
        }
    }

    /// The refusal of a malformed file: `FILE:LINE: reason`.
    public func failure(_ e: InterchangeError) -> WorkflowError {
        .malformed(file: displayName, line: e.line, reason: e.reason)
    }
}
