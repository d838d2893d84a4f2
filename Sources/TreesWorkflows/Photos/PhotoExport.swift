import Foundation
import TreesKit
import TreesStore

/// Copies photos out of the library into a folder, each file through `OutputFile` like every other
/// file `trees` writes: under a temporary name renamed into place once durable, an existing file
/// keeping its permissions, a symbolic link followed, and the temporary file removed on SIGINT,
/// SIGTERM or SIGHUP.
public enum PhotoExport {
    /// Writes `photos` into `directory` (created when missing) under `PhotoLibrary.exportName`;
    /// the paths written, in order. A photo whose library file is gone is `.photo(.missingFile)`
    /// and nothing more is written; the files already written stay.
    public static func run(_ photos: [Photo], from library: PhotoLibrary, to directory: String) throws(WorkflowError) -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            var st = stat()
            let reason = stat(directory, &st) == 0 && st.st_mode & S_IFMT != S_IFDIR ? "it is not a folder" : String(describing: error)
            throw .cannotCreate(path: directory, reason: reason)
        }
        var written: [String] = []
        for photo in photos {
            let source = library.path(of: photo)
            let input = open(source, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else {
                if errno == ENOENT { throw .photo(.missingFile(path: source)) }
                throw .cannotRead(file: source, reason: String(cString: strerror(errno)))
            }
            defer { close(input) }
            let target = (directory.hasSuffix("/") ? directory : directory + "/") + PhotoLibrary.exportName(photo)
            let output = try OutputFile(.file(target))
            do {
                try copy(from: input, named: source, to: output)
                try output.commit()
            } catch {
                output.abandon()
                throw error
            }
            written.append(target)
        }
        return written
    }

    /// Streams the whole of `input` into `output` in blocks of 1 MiB.
    private static func copy(from input: Int32, named name: String, to output: OutputFile) throws(WorkflowError) {
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = block.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(file: name, reason: String(cString: strerror(errno)))
            }
            if n == 0 { return }
            try output.write(Array(block[..<n]))
        }
    }
}
