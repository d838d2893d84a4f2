import ArgumentParser
import Foundation
import TreesKit

/// One self-contained HTML page that draws trees in their true relative positions.
///
/// Positions are east/north metres on a local tangent plane around the middle of the trees
/// (`Geodesy.offset`), so distances and accuracy circles are at true scale. The page loads nothing
/// from the network unless a tile URL template is given; photos are embedded as data URIs.
struct MapPage {
    /// What the labels show.
    enum Labels: String, CaseIterable, ExpressibleByArgument { case species, variety }
    /// What the markers are coloured by.
    enum Colouring: String, CaseIterable, ExpressibleByArgument { case species, accuracy }

    /// A tree as the page draws it.
    struct Item {
        var tree: Tree
        var collectionName: String?
        var photos: [EmbeddedPhoto]
        /// The tree's health from its latest inspection, if any.
        var health: HealthStatus? = nil
    }

    /// The outline a marker gets for its tree's health: none for healthy or unknown, so that a
    /// glance finds the trees that need attention.
    static func outline(_ health: HealthStatus?) -> String? {
        switch health {
        case .stressed: "#e6a100"
        case .diseased: "#c2185b"
        case .pest: "#7b1fa2"
        case .damaged: "#5d4037"
        case .dead: "#000000"
        case .healthy, .unknown, nil: nil
        }
    }

    /// A photo with its preview, when one could be embedded.
    struct EmbeddedPhoto {
        var id: UUID
        var format: String
        var capturedAt: Date
        /// `data:` URI of the preview; nil when there is none (HEIC) or the page's budget is spent.
        var dataURI: String?
    }

    var title: String
    var labels: Labels
    var colouring: Colouring
    /// A tile URL template with `{z}`, `{x}` and `{y}` (and optionally `{s}`), or nil for no background.
    var tiles: String?
    /// When the page was made, shown in its footer.
    var generatedAt: Date

    /// Distinct colours for species, most common species first; beyond the palette colours repeat.
    static let palette = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
        "#bcbd22", "#393b79", "#637939", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354",
    ]

    /// Classes in legend order, with the range each covers.
    static let classes: [(AccuracyClass, String)] = [
        (.survey, "< 0.1 m"), (.excellent, "0.1–5 m"), (.good, "5–10 m"), (.acceptable, "10–15 m"), (.marginal, "15–20 m"),
        (.poor, "≥ 20 m"), (.unknown, "no figure"),
    ]

    /// What the page says of its trees as a whole (their middle, the legends' counts), gathered
    /// in a first pass over them: the page is then written a tree at a time (`Writer`), so a map of
    /// a million trees never holds them all.
    struct Summary {
        private(set) var count = 0
        private var latitudes = (low: Double.infinity, high: -Double.infinity)
        private var longitudes = (low: Double.infinity, high: -Double.infinity)
        /// Longitudes with those west of Greenwich taken past 180°, for the way round the antimeridian.
        private var shifted = (low: Double.infinity, high: -Double.infinity)
        fileprivate var speciesCounts: [String: (name: String, count: Int)] = [:]
        fileprivate var classCounts: [AccuracyClass: Int] = [:]
        fileprivate var healthCounts: [HealthStatus: Int] = [:]

        init() {}

        mutating func add(_ tree: Tree, health: HealthStatus?) {
            count += 1
            latitudes = (min(latitudes.low, tree.latitude), max(latitudes.high, tree.latitude))
            longitudes = (min(longitudes.low, tree.longitude), max(longitudes.high, tree.longitude))
            let s = tree.longitude < 0 ? tree.longitude + 360 : tree.longitude
            shifted = (min(shifted.low, s), max(shifted.high, s))
            speciesCounts[tree.species.lowercased(), default: (tree.species, 0)].count += 1
            classCounts[tree.accuracyClass, default: 0] += 1
            if let health { healthCounts[health, default: 0] += 1 }
        }

        /// The middle of the trees: of their latitudes, and of their longitudes the shorter way round.
        var origin: Coordinate {
            guard count > 0 else { return Coordinate(latitude: 0, longitude: 0) }
            var longitude = (longitudes.low + longitudes.high) / 2
            if longitudes.high - longitudes.low > 180 {
                longitude = (shifted.low + shifted.high) / 2
                if longitude > 180 { longitude -= 360 }
            }
            return Coordinate(latitude: (latitudes.low + latitudes.high) / 2, longitude: longitude)
        }
    }

    /// Writes the page's HTML in three parts: `head` (the page up to its trees), a tree at a time
    /// (`append`), then `tail`; their bytes together are the whole document.
    struct Writer {
        let page: MapPage
        let origin: Coordinate
        private let speciesOrder: [(key: String, value: (name: String, count: Int))]
        private let speciesColour: [String: String]
        private let summary: Summary
        private var written = 0

        init(page: MapPage, summary: Summary) {
            self.page = page
            self.summary = summary
            origin = summary.origin
            speciesOrder = summary.speciesCounts.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }
            var colours: [String: String] = [:]
            for (i, entry) in speciesOrder.enumerated() { colours[entry.key] = MapPage.palette[i % MapPage.palette.count] }
            speciesColour = colours
        }

        /// The document up to the first tree: the page, its settings and legends, and the opening
        /// of the list of trees in its data.
        func head() -> [UInt8] {
            let perDegree = Geodesy.metresPerDegree(atLatitude: origin.latitude)
            let settings = JSON.object([
                ("title", .string(page.title)),
                ("labels", .string(page.labels.rawValue)),
                ("color", .string(page.colouring.rawValue)),
                ("tiles", .optional(page.tiles)),
                ("generated", .string(ISOTime.string(page.generatedAt))),
                ("origin", .object([("lat", .number(origin.latitude)), ("lon", .number(origin.longitude))])),
                ("metresPerDegree", .object([("north", .number(perDegree.north)), ("east", .number(perDegree.east))])),
                ("legend", .object([
                    ("species", .array(speciesOrder.map { key, value in
                        .object([("name", .string(value.name)), ("colour", .string(speciesColour[key] ?? "")), ("count", .int(value.count))])
                    })),
                    ("accuracy", .array(MapPage.classes.map { c, range in
                        .object([("name", .string(c.treeTitle)), ("range", .string(range)),
                                 ("colour", .string(c.colour.hex)), ("count", .int(summary.classCounts[c] ?? 0))])
                    })),
                    // Outlined statuses present on the page, in the order of the statuses.
                    ("health", .array(HealthStatus.allCases.compactMap { h in
                        guard let colour = MapPage.outline(h), let n = summary.healthCounts[h] else { return nil }
                        return .object([("name", .string(h.rawValue)), ("colour", .string(colour)), ("count", .int(n))])
                    })),
                ])),
            ])
            // The data object with its last member, the trees, left open: `{…,"trees":[`.
            var data = settings.bytes(indent: nil)
            data.removeLast()
            data.append(contentsOf: #","trees":["#.utf8)
            var out = Array("""
                <!DOCTYPE html>
                <html lang="en">
                <head>
                <meta charset="utf-8">
                <meta name="viewport" content="width=device-width, initial-scale=1">
                <meta name="generator" content="trees">
                <title>\(TextCodec.htmlEscaped(page.title))</title>
                <style>
                \(MapAssets.style)</style>
                </head>
                <body class="labels-\(page.labels.rawValue) colour-\(page.colouring.rawValue)">
                \(MapAssets.body)
                <script id="trees-data" type="application/json">
                """.utf8)
            out.append(contentsOf: TextCodec.jsonForScriptElement(String(decoding: data, as: UTF8.self)).utf8)
            return out
        }

        /// Appends one tree of the page's data (trees with local coordinates in metres) to `out`.
        mutating func append(_ item: Item, to out: inout [UInt8]) {
            let t = item.tree
            let offset = Geodesy.offset(of: t.coordinate, from: origin)
            let tree = JSON.object([
                ("id", .string(t.id.lowercaseText)),
                ("short", .string(t.shortID)),
                ("x", .number(MapPage.rounded(offset.east))),
                ("y", .number(MapPage.rounded(offset.north))),
                ("lat", .number(t.latitude)),
                ("lon", .number(t.longitude)),
                ("acc", .optional(t.horizontalAccuracy.map(MapPage.rounded))),
                ("accClass", .string(t.accuracyClass.treeTitle)),
                ("accColour", .string(t.accuracyClass.colour.hex)),
                ("spColour", .string(speciesColour[t.species.lowercased()] ?? MapPage.palette[0])),
                ("species", .string(t.species)),
                ("variety", .optional(t.variety)),
                ("rootstock", .optional(t.rootstock)),
                ("notes", .optional(t.notes)),
                ("collection", .optional(item.collectionName)),
                ("altitude", .optional(t.altitude)),
                ("fix", .optional(FixQuality.summary(t.capture))),
                ("vacc", .optional(t.capture.verticalAccuracy.map(MapPage.rounded))),
                ("antenna", .optional(t.capture.antennaHeight)),
                ("created", .string(ISOTime.string(t.createdAt))),
                ("health", .optional(item.health?.rawValue)),
                ("outline", .optional(MapPage.outline(item.health))),
                ("photos", .array(item.photos.map { p in
                    .object([
                        ("id", .string(ShortID.of(p.id))),
                        ("format", .string(p.format)),
                        ("taken", .string(ISOTime.string(p.capturedAt))),
                        ("src", .optional(p.dataURI)),
                    ])
                })),
            ])
            if written > 0 { out.append(UInt8(ascii: ",")) }
            written += 1
            out.append(contentsOf: TextCodec.jsonForScriptElement(tree.serialized(indent: nil)).utf8)
        }

        /// The rest of the document after the last tree.
        func tail() -> [UInt8] {
            Array("""
                ]}</script>
                <script>
                \(MapAssets.script)</script>
                </body>
                </html>

                """.utf8)
        }
    }

    /// Millimetres are plenty for positions on the page.
    static func rounded(_ metres: Double) -> Double { (metres * 1000).rounded() / 1000 }
}
