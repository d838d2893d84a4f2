import ArgumentParser
import Foundation
import TreesKit
import TreesStore
import TreesWorkflows

struct MapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Write an offline HTML map of the trees.",
        discussion: """
            One self-contained HTML file that needs no network: trees in their true relative positions \
            (east and north metres around the middle of the trees), each with its accuracy circle (the \
            95% radius) at true scale, a scale bar and a north arrow. Drag to pan, use the wheel to zoom, \
            click a tree for its details and photos. Labels and colours can be switched in the page; \
            '?labels=variety' or '?color=accuracy' after the file's URL choose them too. The --labels \
            choice is remembered as the default for the next map. Background tiles are loaded only when \
            --tiles gives a URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png.
            """
    )

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only trees in this collection ('none': trees in no collection).", valueName: "name"))
    var collection: String?
    @Option(help: ArgumentHelp("What the labels show: species or variety (default: the last choice, else species).", valueName: "what"))
    var labels: MapPage.Labels?
    @Option(name: [.customLong("color"), .customLong("colour")],
            help: ArgumentHelp("Colour markers by species or by accuracy class.", valueName: "what"))
    var color: MapPage.Colouring = .species
    @Option(help: ArgumentHelp("The HTML file to write, '-' for standard output (default: trees_yyyy-MM-dd_HHmmss.html, or the collection's name as a slug, in the current folder).", valueName: "file"))
    var out: String?
    @Option(help: ArgumentHelp("Tile URL template with {z}, {x} and {y} for a background map (the page then loads tiles from there).", valueName: "url-template"))
    var tiles: String?

    /// Photo previews larger than this are not embedded, in bytes.
    static let previewLimit = 200_000
    /// Total bytes of previews one page embeds; beyond it photos are listed without a preview.
    static let previewBudget = 16_000_000

    func validate() throws {
        if let tiles {
            guard ["{z}", "{x}", "{y}"].allSatisfy(tiles.contains) else {
                throw ValidationError("--tiles '\(tiles)' needs {z}, {x} and {y}, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png")
            }
            guard tiles.hasPrefix("https://") || tiles.hasPrefix("http://") || tiles.hasPrefix("file:") else {
                throw ValidationError("--tiles '\(tiles)' is not an http(s) or file URL template")
            }
        }
    }

    func run() async throws {
        let db = try store.open()
        let library = db.photoLibrary
        let generatedAt = db.now()
        var output: OutputFile?
        var destination: OutputDestination?
        // A store this user may only read can be mapped; only a new --labels choice needs a write.
        do {
            if labels == nil {
                try db.read { r in try writePage(r, now: generatedAt, remember: nil) }
            } else {
                try db.write { w in try writePage(w.reader, now: w.now, remember: w) }
            }
            try output?.commit()
        } catch {
            output?.abandon()
            throw error
        }
        if let path = destination?.path { Output.line(path) }

        /// Two passes over the trees, in one snapshot: the first gathers what the page says of them
        /// all (their middle, the legends), the second writes them a tree at a time, so the page's
        /// memory is that of one tree however many it shows.
        func writePage(_ r: StoreReader, now: Date, remember w: StoreWriter?) throws {
            var filter = TreeFilter()
            var chosen: TreeCollection?
            if let scope = try resolveCollection(collection, in: r) {
                filter.collection = scope.map { .collection($0.id) } ?? .unassigned
                chosen = scope
            }
            let chosenLabels: MapPage.Labels
            if let labels {
                chosenLabels = labels
                try w?.setPreference(.mapLabels, labels.rawValue)
            } else {
                chosenLabels = try r.preference(.mapLabels).flatMap(MapPage.Labels.init(rawValue:)) ?? .species
            }
            let names = Dictionary(uniqueKeysWithValues: try r.collections().map { ($0.collection.id, $0.collection.name) })
            let withPhotos = try r.treeIDsWithPhotos()
            var summary = MapPage.Summary()
            try r.forEachTreeBatch(filter) { trees, health in for t in trees { summary.add(t, health: health[t.id]) } }
            // Refused inside the transaction, so a remembered --labels choice is not stored either.
            guard summary.count > 0 else { throw CLIError("no trees to map", status: .failure) }
            let title = chosen.map { "Trees — \($0.name)" } ?? (collection != nil ? "Trees in no collection" : "Trees")
            let page = MapPage(title: title, labels: chosenLabels, colouring: color, tiles: tiles, generatedAt: generatedAt)
            let generatedName = Format.generatedName(chosen?.name, at: generatedAt, extension: "html")
            let resolved = try OutputDestination.resolve(out, generatedName: generatedName)
            destination = resolved
            let file = try OutputFile(resolved, protecting: db.files)
            output = file
            var writer = MapPage.Writer(page: page, summary: summary)
            var bytes = writer.head()
            var budget = Self.previewBudget
            try r.forEachTreeBatch(filter) { trees, health in
                for t in trees {
                    let photos: [MapPage.EmbeddedPhoto] = withPhotos.contains(t.id) ? try r.photos(of: t.id).map { p in
                        var uri: String?
                        if budget > 0, let preview = library.preview(of: p, maxBytes: Self.previewLimit), preview.bytes.count <= budget {
                            budget -= preview.bytes.count
                            uri = "data:\(preview.mimeType);base64," + Data(preview.bytes).base64EncodedString()
                        }
                        return MapPage.EmbeddedPhoto(id: p.id, format: p.format, capturedAt: p.capturedAt, dataURI: uri)
                    } : []
                    writer.append(MapPage.Item(tree: t, collectionName: t.collectionID.flatMap { names[$0] }, photos: photos, health: health[t.id]),
                                  to: &bytes)
                }
                try file.write(bytes)
                bytes.removeAll(keepingCapacity: true)
            }
            try file.write(bytes + writer.tail())
        }
    }
}
