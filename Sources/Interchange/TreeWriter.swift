import Foundation
import TreesKit

/// The export formats.
public enum ExportFormat: String, Sendable, CaseIterable {
    case gpx, json, csv, geojson, kml, gpkg

    /// The file name extension.
    public var fileExtension: String { rawValue }

    /// False for GeoPackage, a database file built in place rather than a stream of bytes.
    public var isStream: Bool { self != .gpkg }
}

/// What every export needs besides the trees themselves.
public struct ExportContext: Sendable {
    /// Collections by id, to name each tree's collection.
    public var collections: [UUID: TreeCollection]
    /// The collections written to a collection JSON document, in order.
    public var collectionList: [TreeCollection]
    /// When the export was made (from the caller's clock).
    public var exportedAt: Date
    /// A document name (the collection's name, or nil for all trees).
    public var name: String?
    /// Bounds of the exported trees, when known in advance (GPX metadata needs them up front).
    public var bounds: GeoBounds?
    /// The `creator` written into GPX.
    public var creator: String
    /// GPX without `bounds`: leave room for the bounds element, to be filled in once the trees are
    /// written (see `GPXWriter.boundsPlaceholder`), so a file export needs one pass over the trees.
    public var reserveBounds = false
    /// Collection JSON for the iOS Tree Tracker app: its keys only, accuracy in its meaning.
    public var treeTracker: TreeTrackerFlavour?
    /// Care schedules of collections, by collection id (collection JSON carries them).
    public var collectionSchedules: [UUID: [CareSchedule]] = [:]

    public init(collections: [TreeCollection], exportedAt: Date, name: String? = nil, bounds: GeoBounds? = nil,
                creator: String = "trees") {
        self.collectionList = collections
        self.collections = Dictionary(collections.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        self.exportedAt = exportedAt; self.name = name; self.bounds = bounds; self.creator = creator
    }
}

/// A streaming writer of trees in one export format.
public protocol TreeWriter {
    /// Writes the document header.
    mutating func begin() throws
    /// Writes one tree; `photos` lists its photos (dates always, bytes when embedding).
    mutating func write(_ tree: Tree, photos: [ExportPhoto]) throws
    /// Writes one tree with its care log; formats that carry no care log write the tree alone.
    mutating func write(_ tree: Tree, photos: [ExportPhoto], care: TreeCare) throws
    /// Writes the document's end and flushes everything to the sink.
    mutating func finish() throws
    /// What the document could not carry as it was (one line each, for standard error), once
    /// `finish()` has returned.
    var warnings: [String] { get }
}

extension TreeWriter {
    public var warnings: [String] { [] }
    public mutating func write(_ tree: Tree) throws { try write(tree, photos: []) }
    public mutating func write(_ tree: Tree, photos: [ExportPhoto], care: TreeCare) throws { try write(tree, photos: photos) }
}

/// Makes the writer for a format.
public func makeTreeWriter(_ format: ExportFormat, context: ExportContext, sink: @escaping ByteOutput.Sink) -> any TreeWriter {
    switch format {
    case .gpx: GPXWriter(context: context, sink: sink)
    case .json: CollectionJSONWriter(context: context, sink: sink)
    case .csv: CSVWriter(context: context, sink: sink)
    case .geojson: GeoJSONWriter(context: context, sink: sink)
    case .kml: KMLWriter(context: context, sink: sink)
    case .gpkg: UnstreamableWriter()
    }
}

/// What `makeTreeWriter` gives for a format that is no stream (GeoPackage, which the GIS module
/// writes as a file): it refuses to start.
struct UnstreamableWriter: TreeWriter {
    func begin() throws { throw InterchangeError.unknownFormat("a GeoPackage is a database file: it can only be written to a file") }
    func write(_ tree: Tree, photos: [ExportPhoto]) throws {}
    func finish() throws {}
}

/// Writes `trees` to a string in `format` (for tests and small documents).
public func exportString(_ trees: [Tree], format: ExportFormat, context: ExportContext,
                         photos: [UUID: [ExportPhoto]] = [:]) throws -> String {
    let box = StringBox()
    var writer = makeTreeWriter(format, context: context) { box.bytes.append(contentsOf: $0) }
    try writer.begin()
    for t in trees { try writer.write(t, photos: photos[t.id] ?? []) }
    try writer.finish()
    return box.string
}

extension Tree {
    /// `Malus domestica 'Boskoop'`: the species, with the variety in single quotes as cultivars are written.
    public var displayName: String {
        guard let v = ByteParsing.nonBlank(variety) else { return species }
        return species.isEmpty ? "'\(v)'" : "\(species) '\(v)'"
    }
}

/// How a collection JSON export is shaped for the iOS Tree Tracker app: only the keys the app
/// reads, dates in whole seconds, optional texts left out when empty, and each accuracy divided by
/// `AccuracyModel.phoneTo95`, so the app shows the one-sigma-class radius it uses itself.
public struct TreeTrackerFlavour: Sendable, Equatable {
    /// What to write for a tree without an accuracy (the app needs one), in the app's meaning;
    /// nil when such trees are refused before the export starts.
    public var unknownAccuracy: Double?
    public init(unknownAccuracy: Double? = nil) { self.unknownAccuracy = unknownAccuracy }
}

/// The values an XML writer left characters out of (XML 1.0 cannot carry control characters
/// other than tab, newline and return, U+FFFE or U+FFFF), counted for a warning.
struct XMLCharacterLoss {
    /// Values that lost characters.
    private(set) var values = 0
    /// The first tree with such a value.
    private(set) var example: String?
    /// Whether the escaper dropped characters in the tree being written.
    var inTree = false

    /// Counts the values of `tree` (`texts`, everything written as text) that lose characters.
    /// Called only when the escaper noticed any while writing the tree (`inTree`): the list of its
    /// texts is made only then. (Built inside an autoclosure instead, it made every tree be copied
    /// into the closure's context.)
    mutating func endTree(_ tree: Tree, texts: [String?]) {
        guard inTree else { return }
        inTree = false
        let lost = texts.reduce(0) { $0 + ($1.map { TextCodec.xmlDropsCharacters($0) ? 1 : 0 } ?? 0) }
        values += max(lost, 1)
        if example == nil { example = tree.shortID }
    }

    /// A value written outside any tree (the document's name).
    mutating func noteDocumentValue() { values += 1 }

    /// The warning, when anything was left out.
    func warning(format: String) -> String? {
        guard values > 0 else { return nil }
        let those = values == 1 ? "1 value held characters" : "\(values) values held characters"
        return "\(those) \(format) cannot carry (control characters other than tab, newline and return, U+FFFE, U+FFFF), "
            + "left out of the file" + (example.map { "; the first in tree \($0) (trees show \($0))" } ?? "")
    }
}
