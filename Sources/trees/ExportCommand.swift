import ArgumentParser
import Foundation
import Interchange
import TreesKit
import TreesStore

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export trees as GPX, collection JSON, CSV, GeoJSON or KML.",
        discussion: """
            Without --out, or with --out naming a folder, the file is named \
            {prefix}_{yyyy-MM-dd_HHmmss}.{ext}: prefix 'trees', or the collection's name as a slug. \
            --out - writes to standard output. A file is written under a temporary name beside its \
            destination and renamed when complete, so no half-written export is ever left behind.
            """
    )

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("gpx, json, csv, geojson or kml.", valueName: "format"))
    var format: String
    @Option(help: ArgumentHelp("Only the trees of this collection.", valueName: "name"))
    var collection: String?
    @Flag(help: "Embed photos (base64) in a JSON export.")
    var photos = false
    @Option(help: ArgumentHelp("A file, a folder, or - for standard output.", valueName: "path"))
    var out: String?

    func validate() throws {
        guard ExportFormat(rawValue: format.lowercased()) != nil else {
            throw ValidationError("--format must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(format)'")
        }
        if photos && format.lowercased() != "json" {
            throw ValidationError("--photos works with --format json only")
        }
    }

    func run() async throws {
        guard let fmt = ExportFormat(rawValue: format.lowercased()) else { return }
        let db = try store.open()
        let now = db.now()
        let destination = try Self.destination(out, format: fmt, collectionName: collection, now: now)
        var written = 0
        var sinkError: (any Error)?
        let output: OutputFile
        do {
            output = try OutputFile(destination)
        } catch {
            throw CLIError("cannot write \(destination.displayName): \(error.localizedDescription)", status: .cannotCreate)
        }
        do {
            try db.read { r in
                var filter = TreeFilter()
                var name: String?
                if let collection {
                    let c = try r.collection(named: collection)
                    filter.collection = .collection(c.id)
                    name = c.name
                }
                let collections = try r.collections().map(\.collection)
                let listed = filter.collection == .any ? collections : collections.filter { c in
                    if case .collection(let id) = filter.collection { return c.id == id }
                    return false
                }
                var context = ExportContext(collections: listed, exportedAt: now, name: name,
                                            creator: "trees \(Trees.configuration.version)")
                // GPX needs its bounds before the waypoints: a file gets them patched in afterwards
                // (one pass over the trees); standard output takes a first pass to compute them.
                let patchBounds = fmt == .gpx && output.isSeekable
                if fmt == .gpx && !patchBounds {
                    var bounds: GeoBounds?
                    try r.forEachTreeBulk(filter) { t in
                        if bounds == nil { bounds = GeoBounds(t.coordinate) } else { bounds?.include(t.coordinate) }
                    }
                    context.bounds = bounds
                }
                context.reserveBounds = patchBounds
                let sink: ByteOutput.Sink = { bytes in
                    do { try output.write(bytes) } catch { sinkError = error; throw error }
                }
                var writer = makeTreeWriter(fmt, context: context, sink: sink)
                let withPhotos = fmt == .gpx ? [] : try r.treeIDsWithPhotos()
                var bounds: GeoBounds?
                try writer.begin()
                try r.forEachTreeBulk(filter) { tree in
                    var list: [ExportPhoto] = []
                    if withPhotos.contains(tree.id) {
                        for p in try r.photos(of: tree.id) {
                            var data: [UInt8]?
                            if photos {
                                let path = db.photoFolder + "/" + p.sha256 + "." + p.format
                                guard let bytes = FileManager.default.contents(atPath: path) else {
                                    throw CLIError("photo \(path) of tree \(tree.shortID) is missing", status: .noInput)
                                }
                                data = [UInt8](bytes)
                            }
                            list.append(ExportPhoto(capturedAt: p.capturedAt, data: data))
                        }
                    }
                    if patchBounds {
                        if bounds == nil { bounds = GeoBounds(tree.coordinate) } else { bounds?.include(tree.coordinate) }
                    }
                    try writer.write(tree, photos: list)
                    written += 1
                }
                try writer.finish()
                if patchBounds, let placeholder = (writer as? GPXWriter)?.boundsPlaceholder {
                    try output.patch(at: placeholder.lowerBound, GPXWriter.boundsPatch(bounds))
                }
            }
            try output.commit()
        } catch {
            output.abandon()
            if let sinkError {
                throw CLIError("cannot write \(destination.displayName): \(sinkError.localizedDescription)", status: .ioError)
            }
            throw CLIError.from(error)
        }
        if case .file(let path) = destination {
            Output.line("Exported \(written) tree\(written == 1 ? "" : "s") to \(path)")
        }
    }

    enum Destination {
        case standardOutput
        case file(String)

        var displayName: String {
            switch self {
            case .standardOutput: "standard output"
            case .file(let p): p
            }
        }
    }

    /// The output path: `-`, a file, or a generated name in a folder (default: the current folder).
    static func destination(_ out: String?, format: ExportFormat, collectionName: String?, now: Date) throws -> Destination {
        if out == "-" { return .standardOutput }
        var isDirectory: ObjCBool = false
        let folder: String
        if let out {
            if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), isDirectory.boolValue {
                folder = out
            } else if out.hasSuffix("/") {
                throw CLIError("folder \(out) does not exist", status: .cannotCreate)
            } else {
                return .file(out)
            }
        } else {
            folder = "."
        }
        let slug = collectionName.map(TextTools.slug) ?? ""
        let prefix = slug.isEmpty ? "trees" : slug
        let name = "\(prefix)_\(Format.fileStamp(now)).\(format.fileExtension)"
        return .file(folder == "." ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name))
    }
}

/// An output file written under a temporary name and renamed into place on `commit()`;
/// standard output is written straight through.
final class OutputFile {
    private let handle: FileHandle
    private let finalPath: String?
    private let temporaryPath: String?

    init(_ destination: ExportCommand.Destination) throws {
        switch destination {
        case .standardOutput:
            handle = FileHandle.standardOutput
            finalPath = nil
            temporaryPath = nil
        case .file(let path) where Self.isSpecialFile(path):
            // A device or pipe (/dev/null, a FIFO) is written straight through: renaming over it would replace it.
            guard let h = FileHandle(forWritingAtPath: path) else {
                throw CLIError("cannot open \(path) for writing: \(String(cString: strerror(errno)))", status: .cannotCreate)
            }
            handle = h
            finalPath = nil
            temporaryPath = nil
        case .file(let path):
            let url = URL(fileURLWithPath: path)
            let temp = url.deletingLastPathComponent()
                .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp").path
            guard FileManager.default.createFile(atPath: temp, contents: nil) else {
                let reason = String(cString: strerror(errno))
                throw CLIError("cannot create \(path): \(reason)", status: .cannotCreate)
            }
            guard let h = FileHandle(forWritingAtPath: temp) else {
                throw CLIError("cannot open \(temp) for writing", status: .cannotCreate)
            }
            handle = h
            finalPath = path
            temporaryPath = temp
        }
    }

    /// True when `path` exists and is not a regular file or folder (a character device, a FIFO, a socket).
    static func isSpecialFile(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let kind = st.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// True for a file (which can be patched after writing), false for standard output.
    var isSeekable: Bool { finalPath != nil }

    /// Overwrites bytes already written at `offset`.
    func patch(at offset: Int, _ bytes: [UInt8]) throws {
        try handle.seek(toOffset: UInt64(offset))
        try bytes.withUnsafeBytes { try handle.write(contentsOf: $0) }
        try handle.seekToEnd()
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try handle.write(contentsOf: $0) }
    }

    /// Flushes and renames the temporary file to its final name.
    func commit() throws {
        guard let finalPath, let temporaryPath else { return }
        try handle.synchronize()
        try handle.close()
        guard rename(temporaryPath, finalPath) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporaryPath)
            throw CLIError("cannot rename the export to \(finalPath): \(reason)", status: .ioError)
        }
    }

    /// Removes the temporary file after a failure.
    func abandon() {
        guard let temporaryPath else { return }
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }
}
