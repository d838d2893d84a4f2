import Foundation
import TreesKit

/// Writes an RFC 7946 GeoJSON FeatureCollection: one Point feature per tree,
/// coordinates `[longitude, latitude(, altitude)]`, the tree's fields as properties
/// (the collection JSON members, plus `collection` and `accuracyClass`).
public struct GeoJSONWriter: TreeWriter {
    private var out: ByteOutput
    private let context: ExportContext
    private var count = 0

    public init(context: ExportContext, sink: @escaping ByteOutput.Sink) {
        self.context = context
        self.out = ByteOutput(sink: sink)
    }

    public mutating func begin() throws {
        out.append("{\"type\":\"FeatureCollection\",\"features\":[")
    }

    public mutating func write(_ tree: Tree, photos: [ExportPhoto]) throws {
        out.append(count == 0 ? "\n" : ",\n")
        count += 1
        out.append("{\"type\":\"Feature\",\"id\":")
        out.appendJSONUUID(tree.id)
        out.append(",\"geometry\":{\"type\":\"Point\",\"coordinates\":[")
        out.appendJSONNumber(tree.longitude)
        out.append(",")
        out.appendJSONNumber(tree.latitude)
        if let alt = tree.altitude, alt.isFinite { out.append(","); out.appendJSONNumber(alt) }
        out.append("]},\"properties\":{")
        var first = true
        out.appendTreeMembers(tree, photos: photos.map { ExportPhoto(capturedAt: $0.capturedAt) },
                              collectionName: tree.collectionID.flatMap { context.collections[$0]?.name },
                              coordinates: false, first: &first)
        out.appendJSONKey("accuracyClass", first: &first)
        out.appendJSONString(tree.accuracyClass.rawValue)
        out.append("}}")
        try out.flushIfFull()
    }

    public mutating func finish() throws {
        out.append(count == 0 ? "]}\n" : "\n]}\n")
        try out.flush()
    }
}
