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
        var budget = Self.previewBudget
        // A store this user may only read can be mapped; only a new --labels choice needs a write.
        let (page, collectionName) = try (labels == nil ? db.read { r in try makePage(r, now: db.now(), remember: nil) }
            : db.write { w in try makePage(w.reader, now: w.now, remember: w) })
        func makePage(_ r: StoreReader, now: Date, remember w: StoreWriter?) throws -> (MapPage, String?) {
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
            let health = try r.healthByTree()
            var items: [MapPage.Item] = []
            try r.forEachTree(filter) { t in
                let photos = try r.photos(of: t.id).map { p in
                    var uri: String?
                    if budget > 0, let preview = library.preview(of: p, maxBytes: Self.previewLimit), preview.bytes.count <= budget {
                        budget -= preview.bytes.count
                        uri = "data:\(preview.mimeType);base64," + Data(preview.bytes).base64EncodedString()
                    }
                    return MapPage.EmbeddedPhoto(id: p.id, format: p.format, capturedAt: p.capturedAt, dataURI: uri)
                }
                items.append(MapPage.Item(tree: t, collectionName: t.collectionID.flatMap { names[$0] }, photos: photos, health: health[t.id]))
            }
            // Refused inside the transaction, so a remembered --labels choice is not stored either.
            guard !items.isEmpty else { throw CLIError("no trees to map", status: .failure) }
            let title = chosen.map { "Trees — \($0.name)" } ?? (collection != nil ? "Trees in no collection" : "Trees")
            return (MapPage(title: title, items: items, labels: chosenLabels, colouring: color, tiles: tiles,
                            generatedAt: now), chosen?.name)
        }
        let html = page.html()
        let generatedName = Format.generatedName(collectionName, at: db.now(), extension: "html")
        let destination = try OutputDestination.resolve(out, generatedName: generatedName)
        let output = try OutputFile(destination, protecting: db.files)
        do {
            try output.write(html)
            try output.commit()
        } catch {
            output.abandon()
            throw error
        }
        if let path = destination.path { Output.line(path) }
    }
}
