import Foundation
import TreesKit

/// Writes KML 2.2: one Placemark per tree, styled by its accuracy class (the class colour from
/// `AccuracyClass.colour`), with the tree's fields as ExtendedData.
public struct KMLWriter: TreeWriter {
    private var out: ByteOutput
    private let context: ExportContext
    /// Values characters were left out of, for the warning.
    private var loss = XMLCharacterLoss()

    public init(context: ExportContext, sink: @escaping ByteOutput.Sink) {
        self.context = context
        self.out = ByteOutput(sink: sink)
    }

    /// KML colours are `aabbggrr`; from a CSS `#rrggbb`.
    static func kmlColour(_ css: String) -> String {
        let hex = Array(css.dropFirst())
        guard hex.count == 6 else { return "ff888888" }
        return "ff" + String(hex[4...5]) + String(hex[2...3]) + String(hex[0...1])
    }

    public mutating func begin() throws {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<kml xmlns=\"http://www.opengis.net/kml/2.2\">\n<Document>\n")
        out.append("  <name>")
        if out.appendXMLEscaped(context.name ?? "trees") { loss.noteDocumentValue() }
        out.append("</name>\n")
        for cls in AccuracyClass.allCases {
            out.append("  <Style id=\"accuracy-"); out.append(cls.rawValue); out.append("\">\n")
            out.append("    <IconStyle><color>"); out.append(Self.kmlColour(cls.colour.hex))
            out.append("</color><Icon><href>http://maps.google.com/mapfiles/kml/shapes/parks.png</href></Icon></IconStyle>\n")
            out.append("    <LabelStyle><color>"); out.append(Self.kmlColour(cls.colour.hex)); out.append("</color></LabelStyle>\n")
            out.append("  </Style>\n")
        }
    }

    private mutating func dataOpen(_ name: StaticString) {
        out.append("      <Data name=\""); out.append(name); out.append("\"><value>")
    }

    private mutating func data(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        dataOpen(name)
        if out.appendXMLEscaped(value) { loss.inTree = true }
        out.append("</value></Data>\n")
    }

    private mutating func data(_ name: StaticString, number value: Double?) {
        guard let value, value.isFinite else { return }
        dataOpen(name)
        out.appendDecimal(value)
        out.append("</value></Data>\n")
    }

    private mutating func data(_ name: StaticString, integer value: Int?) {
        guard let value else { return }
        dataOpen(name)
        out.appendInteger(value)
        out.append("</value></Data>\n")
    }

    private mutating func data(_ name: StaticString, date value: Date?) {
        guard let value else { return }
        dataOpen(name)
        out.appendISO8601(value)
        out.append("</value></Data>\n")
    }

    private mutating func data(_ name: StaticString, id value: UUID?) {
        guard let value else { return }
        dataOpen(name)
        out.appendUUID(value, uppercase: true)
        out.append("</value></Data>\n")
    }

    public mutating func write(_ tree: Tree, photos: [ExportPhoto]) throws {
        out.append("  <Placemark id=\"tree-"); out.appendUUID(tree.id); out.append("\">\n")
        out.append("    <name>")
        if out.appendXMLEscaped(tree.displayName) { loss.inTree = true }
        out.append("</name>\n")
        if let notes = tree.notes, !notes.isEmpty {
            out.append("    <description>")
            if out.appendXMLEscaped(notes) { loss.inTree = true }
            out.append("</description>\n")
        }
        out.append("    <TimeStamp><when>"); out.appendISO8601(tree.createdAt); out.append("</when></TimeStamp>\n")
        out.append("    <styleUrl>#accuracy-"); out.append(tree.accuracyClass.rawValue); out.append("</styleUrl>\n")
        out.append("    <ExtendedData>\n")
        data("id", id: tree.id)
        data("species", tree.species)
        data("variety", tree.variety)
        data("rootstock", tree.rootstock)
        data("notes", tree.notes)
        data("horizontalAccuracy", number: tree.horizontalAccuracy)
        data("accuracyClass", tree.accuracyClass.treeTitle)
        data("accuracySource", tree.accuracySource?.rawValue)
        data("altitude", number: tree.altitude)
        data("ellipsoidHeight", number: tree.ellipsoidHeight)
        data("collection", tree.collectionID.flatMap { context.collections[$0]?.name })
        data("collectionId", id: tree.collectionID)
        data("createdAt", date: tree.createdAt)
        data("updatedAt", date: tree.updatedAt)
        data("fixTime", date: tree.capture.fixTime)
        data("fixMode", tree.capture.fixMode.map(FixModeText.text))
        data("satellites", integer: tree.capture.satellites)
        data("hdop", number: tree.capture.hdop)
        data("averagedEpochs", integer: tree.capture.averagedEpochs)
        data("locationSource", tree.capture.locationSource)
        data("fixStatus", tree.capture.fixStatus?.name)
        data("correctionAge", number: tree.capture.correctionAge)
        data("verticalAccuracy", number: tree.capture.verticalAccuracy)
        data("verticalAccuracySource", tree.capture.verticalAccuracySource?.rawValue)
        data("antennaHeight", number: tree.capture.antennaHeight)
        data("photoCount", integer: photos.isEmpty ? nil : photos.count)
        out.append("    </ExtendedData>\n    <Point><coordinates>")
        out.appendDecimal(tree.longitude); out.append(",")
        out.appendDecimal(tree.latitude)
        if let alt = tree.altitude, alt.isFinite { out.append(","); out.appendDecimal(alt) }
        out.append("</coordinates></Point>\n  </Placemark>\n")
        if loss.inTree {
            loss.endTree(tree, texts: [tree.species, tree.variety, tree.rootstock, tree.notes, tree.capture.locationSource,
                                       tree.collectionID.flatMap { context.collections[$0]?.name }])
        }
        try out.flushIfFull()
    }

    /// Says how many values lost characters XML cannot carry, when any did.
    public var warnings: [String] { loss.warning(format: "KML").map { [$0] } ?? [] }

    public mutating func finish() throws {
        out.append("</Document>\n</kml>\n")
        try out.flush()
    }
}
