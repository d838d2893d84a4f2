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
    @Option(name: .customLong("for"), help: ArgumentHelp(
        "With --format json: 'tree-tracker' writes exactly what the iOS Tree Tracker app reads (its keys, whole seconds, its accuracy meaning).",
        valueName: "app"))
    var forApp: String?
    @Option(help: ArgumentHelp(
        "With --for tree-tracker: the accuracy to write for trees without one (the app needs one), in metres; without it such trees refuse the export.",
        valueName: "m"))
    var unknownAccuracy: Double?

    func validate() throws {
        guard ExportFormat(rawValue: format.lowercased()) != nil else {
            throw ValidationError("--format must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(format)'")
        }
        if photos && format.lowercased() != "json" {
            throw ValidationError("--photos works with --format json only")
        }
        if let forApp {
            guard forApp.lowercased() == "tree-tracker" else { throw ValidationError("--for takes tree-tracker, not '\(forApp)'") }
            guard format.lowercased() == "json" else { throw ValidationError("--for tree-tracker works with --format json only") }
        }
        if let unknownAccuracy {
            guard forApp != nil else { throw ValidationError("--unknown-accuracy works with --for tree-tracker only") }
            guard unknownAccuracy.isFinite, unknownAccuracy >= 0 else { throw ValidationError("--unknown-accuracy must be metres, 0 or more") }
        }
    }

    func run() async throws {
        guard let fmt = ExportFormat(rawValue: format.lowercased()) else { return }
        let db = try store.open()
        let now = db.now()
        let slug = collection.map(TextTools.slug) ?? ""
        let generatedName = "\(slug.isEmpty ? "trees" : slug)_\(Format.fileStamp(now)).\(fmt.fileExtension)"
        let flavour = forApp == nil ? nil : TreeTrackerFlavour(unknownAccuracy: unknownAccuracy)
        if flavour != nil && unknownAccuracy == nil {
            // The app refuses a whole file with one tree without an accuracy: say which, before writing.
            let missing = try db.read { r in
                var filter = TreeFilter()
                if let collection { filter.collection = .collection(try r.collection(named: collection).id) }
                var names: [String] = []
                var count = 0
                try r.forEachTree(filter) { t in
                    guard t.horizontalAccuracy == nil else { return }
                    count += 1
                    if names.count < 5 { names.append("\(t.shortID) (\(t.species))") }
                }
                return (names, count)
            }
            if missing.1 > 0 {
                throw CLIError("\(missing.1) tree\(missing.1 == 1 ? " has" : "s have") no accuracy, which the Tree Tracker app needs: "
                    + missing.0.joined(separator: ", ") + (missing.1 > 5 ? ", …" : "")
                    + "; give one with --unknown-accuracy M or set it with 'trees edit'", status: .failure)
            }
        }
        let destination = try OutputDestination.resolve(out, generatedName: generatedName)
        var written = 0
        var sinkError: (any Error)?
        let output = try OutputFile(destination)
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
                    try r.forEachTree(filter) { t in
                        if bounds == nil { bounds = GeoBounds(t.coordinate) } else { bounds?.include(t.coordinate) }
                    }
                    context.bounds = bounds
                }
                context.reserveBounds = patchBounds
                context.treeTracker = flavour
                let sink: ByteOutput.Sink = { bytes in
                    do { try output.write(bytes) } catch { sinkError = error; throw error }
                }
                var writer = makeTreeWriter(fmt, context: context, sink: sink)
                let withPhotos = fmt == .gpx ? [] : try r.treeIDsWithPhotos()
                var bounds: GeoBounds?
                try writer.begin()
                try r.forEachTree(filter) { tree in
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
            throw CLIError.from(sinkError ?? error)
        }
        if case .file(let path) = destination {
            Output.line("Exported \(written) tree\(written == 1 ? "" : "s") to \(path)")
        }
    }
}
