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
    var items: [Item]
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

    /// The page's data: trees with local coordinates in metres, legends and settings.
    var data: JSON {
        let lats = items.map(\.tree.latitude), lons = items.map(\.tree.longitude)
        let origin = Coordinate(latitude: ((lats.min() ?? 0) + (lats.max() ?? 0)) / 2,
                                longitude: Self.middleLongitude(lons))
        let perDegree = Geodesy.metresPerDegree(atLatitude: origin.latitude)

        var speciesCounts: [String: (name: String, count: Int)] = [:]
        for item in items { speciesCounts[item.tree.species.lowercased(), default: (item.tree.species, 0)].count += 1 }
        let speciesOrder = speciesCounts.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }
        var speciesColour: [String: String] = [:]
        for (i, entry) in speciesOrder.enumerated() { speciesColour[entry.key] = Self.palette[i % Self.palette.count] }

        var classCounts: [AccuracyClass: Int] = [:]
        for item in items { classCounts[item.tree.accuracyClass, default: 0] += 1 }
        var healthCounts: [HealthStatus: Int] = [:]
        for item in items { if let h = item.health { healthCounts[h, default: 0] += 1 } }

        let trees: [JSON] = items.map { item in
            let t = item.tree
            let offset = Geodesy.offset(of: t.coordinate, from: origin)
            return .object([
                ("id", .string(t.id.lowercaseText)),
                ("short", .string(t.shortID)),
                ("x", .number(Self.rounded(offset.east))),
                ("y", .number(Self.rounded(offset.north))),
                ("lat", .number(t.latitude)),
                ("lon", .number(t.longitude)),
                ("acc", .optional(t.horizontalAccuracy.map(Self.rounded))),
                ("accClass", .string(t.accuracyClass.treeTitle)),
                ("accColour", .string(t.accuracyClass.colour.hex)),
                ("spColour", .string(speciesColour[t.species.lowercased()] ?? Self.palette[0])),
                ("species", .string(t.species)),
                ("variety", .optional(t.variety)),
                ("rootstock", .optional(t.rootstock)),
                ("notes", .optional(t.notes)),
                ("collection", .optional(item.collectionName)),
                ("altitude", .optional(t.altitude)),
                ("fix", .optional(FixQuality.summary(t.capture))),
                ("vacc", .optional(t.capture.verticalAccuracy.map(Self.rounded))),
                ("antenna", .optional(t.capture.antennaHeight)),
                ("created", .string(ISOTime.string(t.createdAt))),
                ("health", .optional(item.health?.rawValue)),
                ("outline", .optional(Self.outline(item.health))),
                ("photos", .array(item.photos.map { p in
                    .object([
                        ("id", .string(ShortID.of(p.id))),
                        ("format", .string(p.format)),
                        ("taken", .string(ISOTime.string(p.capturedAt))),
                        ("src", .optional(p.dataURI)),
                    ])
                })),
            ])
        }
        return .object([
            ("title", .string(title)),
            ("labels", .string(labels.rawValue)),
            ("color", .string(colouring.rawValue)),
            ("tiles", .optional(tiles)),
            ("generated", .string(ISOTime.string(generatedAt))),
            ("origin", .object([("lat", .number(origin.latitude)), ("lon", .number(origin.longitude))])),
            ("metresPerDegree", .object([("north", .number(perDegree.north)), ("east", .number(perDegree.east))])),
            ("legend", .object([
                ("species", .array(speciesOrder.map { key, value in
                    .object([("name", .string(value.name)), ("colour", .string(speciesColour[key] ?? "")), ("count", .int(value.count))])
                })),
                ("accuracy", .array(Self.classes.map { c, range in
                    .object([("name", .string(c.treeTitle)), ("range", .string(range)),
                             ("colour", .string(c.colour.hex)), ("count", .int(classCounts[c] ?? 0))])
                })),
                // Outlined statuses present on the page, in the order of the statuses.
                ("health", .array(HealthStatus.allCases.compactMap { h in
                    guard let colour = Self.outline(h), let n = healthCounts[h] else { return nil }
                    return .object([("name", .string(h.rawValue)), ("colour", .string(colour)), ("count", .int(n))])
                })),
            ])),
            ("trees", .array(trees)),
        ])
    }

    /// The middle of a set of longitudes, taking the shorter way round the antimeridian.
    static func middleLongitude(_ lons: [Double]) -> Double {
        guard let lo = lons.min(), let hi = lons.max() else { return 0 }
        if hi - lo <= 180 { return (lo + hi) / 2 }
        let shifted = lons.map { $0 < 0 ? $0 + 360 : $0 }
        var mid = ((shifted.min() ?? 0) + (shifted.max() ?? 0)) / 2
        if mid > 180 { mid -= 360 }
        return mid
    }

    /// Millimetres are plenty for positions on the page.
    static func rounded(_ metres: Double) -> Double { (metres * 1000).rounded() / 1000 }

    /// The complete HTML document.
    func html() -> String {
        let json = TextCodec.jsonForScriptElement(data.serialized(indent: nil))
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="trees">
            <title>\(TextCodec.htmlEscaped(title))</title>
            <style>
            \(MapAssets.style)</style>
            </head>
            <body class="labels-\(labels.rawValue) colour-\(colouring.rawValue)">
            \(MapAssets.body)
            <script id="trees-data" type="application/json">\(json)</script>
            <script>
            \(MapAssets.script)</script>
            </body>
            </html>

            """
    }


}
