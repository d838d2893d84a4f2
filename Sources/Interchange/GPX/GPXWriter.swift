import Foundation
import TreesKit

/// Writes trees as a GPX 1.1 document of waypoints, valid against the GPX 1.1 schema.
///
/// Each tree is a `wpt`: `ele` = altitude, `time` = fix time (else creation time), `name` =
/// species and variety, `desc` = notes, `type` = species, `sym` = `Forest`, `fix`, `sat`, `hdop`.
/// Under `<extensions>` the `trees` namespace (`GPXNamespace.trees`) carries every field of the
/// tree, so reading the file back restores it exactly:
///
/// ```xml
/// <extensions>
///   <trees:id>…</trees:id> <trees:species>…</trees:species> <trees:variety>…</trees:variety>
///   <trees:rootstock>…</trees:rootstock> <trees:notes>…</trees:notes>
///   <trees:horizontalAccuracy>metres, 95% radius</trees:horizontalAccuracy>
///   <trees:accuracySource>gst</trees:accuracySource> <trees:collection>name</trees:collection>
///   <trees:collectionId>…</trees:collectionId> <trees:createdAt>…</trees:createdAt>
///   <trees:updatedAt>…</trees:updatedAt> <trees:ellipsoidHeight>…</trees:ellipsoidHeight>
///   <trees:fixTime>…</trees:fixTime> <trees:averagedEpochs>…</trees:averagedEpochs>
///   <trees:locationSource>…</trees:locationSource> <trees:fixStatus>rtk-fixed</trees:fixStatus>
///   <trees:correctionAge>seconds</trees:correctionAge>
///   <trees:verticalAccuracy>metres, 95% half-interval</trees:verticalAccuracy>
///   <trees:verticalAccuracySource>gst</trees:verticalAccuracySource>
///   <trees:antennaHeight>metres</trees:antennaHeight>
/// </extensions>
/// ```
/// Elements appear in schema order; absent values are left out. In attribute values, tab, newline
/// and return are written as character references, so a reader gives them back as themselves.
public struct GPXWriter: TreeWriter {
    private var out: ByteOutput
    private let context: ExportContext
    /// Where the room for the bounds element is (byte offsets in the output), when reserved.
    public private(set) var boundsPlaceholder: Range<Int>?
    /// Bytes reserved for the bounds element.
    static let boundsWidth = 160
    /// Whether `<metadata>` is still open, waiting for the first tree to reserve room for the
    /// bounds: a document without trees has no bounds, and so no room for them either.
    private var metadataOpen = false
    /// Values characters were left out of, for the warning.
    private var loss = XMLCharacterLoss()
    /// Numbers of GPX's own elements too large for `xsd:decimal` (see `largestDecimal`), and
    /// the first tree with one.
    private var tooLarge = 0
    private var tooLargeExample: String?

    public init(context: ExportContext, sink: @escaping ByteOutput.Sink) {
        self.context = context
        self.out = ByteOutput(sink: sink)
    }

    public mutating func begin() throws {
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" xmlns:trees=\"")
        out.append(GPXNamespace.trees)
        out.append("\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd\" version=\"1.1\" creator=\"")
        if out.appendXMLAttribute(context.creator) { loss.noteDocumentValue() }
        out.append("\">\n  <metadata>\n")
        if let name = context.name {
            out.append("    <name>")
            if out.appendXMLEscaped(name) { loss.noteDocumentValue() }
            out.append("</name>\n")
        }
        out.append("    <time>"); out.appendISO8601(context.exportedAt); out.append("</time>\n")
        if let b = context.bounds {
            out.append(Self.boundsElement(b))
            out.append("\n")
        } else if context.reserveBounds {
            metadataOpen = true
            return
        }
        out.append("  </metadata>\n")
    }

    /// Reserves the room for the bounds when a tree follows, and closes `<metadata>`.
    private mutating func closeMetadata(reserving: Bool) {
        guard metadataOpen else { return }
        metadataOpen = false
        if reserving {
            boundsPlaceholder = out.byteCount..<(out.byteCount + Self.boundsWidth)
            out.append(UInt8(ascii: " "), repeating: Self.boundsWidth)
            out.append("\n")
        }
        out.append("  </metadata>\n")
    }

    /// `    <bounds minlat="…" minlon="…" maxlat="…" maxlon="…"/>`.
    static func boundsElement(_ b: GeoBounds) -> String {
        func number(_ v: Double) -> String {
            var bytes: [UInt8] = []
            appendNumber(v, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        return "    <bounds minlat=\"\(number(b.minLatitude))\" minlon=\"\(number(longitude(b.minLongitude)))\" "
            + "maxlat=\"\(number(b.maxLatitude))\" maxlon=\"\(number(longitude(b.maxLongitude)))\"/>"
    }

    /// The bytes that replace `boundsPlaceholder`: the bounds element padded with spaces (only
    /// spaces when there were no trees; the writer reserves no room then).
    public static func boundsPatch(_ bounds: GeoBounds?) -> [UInt8] {
        var bytes = bounds.map { Array(boundsElement($0).utf8) } ?? []
        if bytes.count > boundsWidth { bytes = [] }
        bytes += repeatElement(UInt8(ascii: " "), count: boundsWidth - bytes.count)
        return bytes
    }

    /// Magnitudes below which a number is written to 9 decimal places, not in full: written in
    /// full, one could take hundreds of digits, and schema processors read `xsd:decimal` to some
    /// 24 digits at most (libxml2's limit; the schema standard asks for 18). 1e-9 of a degree is
    /// 0.1 mm, of a metre 1 nm.
    static let smallestInFull = 1e-7

    /// `value` as `xsd:decimal`: exact and shortest, or to 9 places when tiny (see `smallestInFull`).
    static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        if value != 0 && value.magnitude < smallestInFull {
            TextCodec.appendDecimal(value, places: 9, to: &out)
        } else if !TextCodec.appendDecimal(value, to: &out) {
            out.append(UInt8(ascii: "0"))
        }
    }

    private mutating func appendNumber(_ value: Double) {
        if value != 0 && value.magnitude < Self.smallestInFull {
            var bytes: [UInt8] = []
            Self.appendNumber(value, to: &bytes)
            out.append(String(decoding: bytes, as: UTF8.self))
        } else {
            out.appendDecimal(value)
        }
    }

    /// The largest `xsd:decimal` schema processors read: libxml2 reads 24 digits at most, and a
    /// number of 1e24 or more takes 25. GPX's own elements (`ele`, `hdop`) hold this instead,
    /// with the number's sign; our extension's elements, which no schema checks, hold the number.
    static let largestDecimal: StaticString = "999999999999999999999999"

    /// `value` in an element of GPX's schema: as `element(_:number:_:)`, or `largestDecimal` when
    /// it is 1e24 or more (counted for the warning).
    private mutating func element(_ open: StaticString, schemaNumber value: Double, _ close: StaticString, tree: Tree) {
        guard value.magnitude >= 1e24 else { return element(open, number: value, close) }
        out.append(open)
        if value < 0 { out.append("-") }
        out.append(Self.largestDecimal)
        out.append(close)
        tooLarge += 1
        if tooLargeExample == nil { tooLargeExample = tree.shortID }
    }

    /// GPX longitudes run from −180 inclusive to 180 exclusive; 180° is written as −180°.
    static func longitude(_ value: Double) -> Double { value >= 180 ? value - 360 : value }

    private mutating func element(_ open: StaticString, _ text: String, _ close: StaticString) {
        out.append(open)
        if out.appendXMLEscaped(text) { loss.inTree = true }
        out.append(close)
    }

    private mutating func element(_ open: StaticString, raw text: String, _ close: StaticString) {
        out.append(open)
        out.append(text)
        out.append(close)
    }

    private mutating func element(_ open: StaticString, number: Double, _ close: StaticString) {
        out.append(open)
        appendNumber(number)
        out.append(close)
    }

    public mutating func write(_ tree: Tree, photos: [ExportPhoto]) throws {
        try write(tree, photos: photos, care: TreeCare())
    }

    /// Writes one waypoint; its care log goes into our extension, an event as
    /// `<trees:care id kind date [quantity unit health who] createdAt updatedAt>notes</trees:care>`
    /// and a schedule as `<trees:schedule id kind everyDays from [season] createdAt updatedAt/>`,
    /// dates to the millisecond.
    public mutating func write(_ tree: Tree, photos: [ExportPhoto], care: TreeCare) throws {
        closeMetadata(reserving: true)
        out.append("  <wpt lat=\"")
        appendNumber(tree.latitude)
        out.append("\" lon=\"")
        appendNumber(Self.longitude(tree.longitude))
        out.append("\">\n")
        if let alt = tree.altitude, alt.isFinite { element("    <ele>", schemaNumber: alt, "</ele>\n", tree: tree) }
        out.append("    <time>"); out.appendISO8601(tree.capture.fixTime ?? tree.createdAt); out.append("</time>\n")
        let name = tree.displayName
        if !name.isEmpty { element("    <name>", name, "</name>\n") }
        if let notes = tree.notes, !notes.isEmpty { element("    <desc>", notes, "</desc>\n") }
        out.append("    <sym>Forest</sym>\n")
        if !tree.species.isEmpty { element("    <type>", tree.species, "</type>\n") }
        switch tree.capture.fixMode {
        case .noFix: out.append("    <fix>none</fix>\n")
        case .twoD: out.append("    <fix>2d</fix>\n")
        case .threeD: out.append("    <fix>3d</fix>\n")
        case .notSeen, nil: break
        }
        if let sat = tree.capture.satellites, sat >= 0 { element("    <sat>", raw: String(sat), "</sat>\n") }
        if let hdop = tree.capture.hdop, hdop.isFinite { element("    <hdop>", schemaNumber: hdop, "</hdop>\n", tree: tree) }
        out.append("    <extensions>\n")
        out.append("      <trees:id>"); out.appendUUID(tree.id); out.append("</trees:id>\n")
        element("      <trees:species>", tree.species, "</trees:species>\n")
        if let v = tree.variety { element("      <trees:variety>", v, "</trees:variety>\n") }
        if let v = tree.rootstock { element("      <trees:rootstock>", v, "</trees:rootstock>\n") }
        if let v = tree.notes { element("      <trees:notes>", v, "</trees:notes>\n") }
        if let v = tree.horizontalAccuracy, v.isFinite {
            element("      <trees:horizontalAccuracy>", number: v, "</trees:horizontalAccuracy>\n")
        }
        if let v = tree.accuracySource { element("      <trees:accuracySource>", raw: v.rawValue, "</trees:accuracySource>\n") }
        if let cid = tree.collectionID {
            if let c = context.collections[cid] { element("      <trees:collection>", c.name, "</trees:collection>\n") }
            out.append("      <trees:collectionId>"); out.appendUUID(cid); out.append("</trees:collectionId>\n")
        }
        out.append("      <trees:createdAt>"); out.appendISO8601(tree.createdAt); out.append("</trees:createdAt>\n")
        out.append("      <trees:updatedAt>"); out.appendISO8601(tree.updatedAt); out.append("</trees:updatedAt>\n")
        if let v = tree.ellipsoidHeight, v.isFinite {
            element("      <trees:ellipsoidHeight>", number: v, "</trees:ellipsoidHeight>\n")
        }
        if let v = tree.capture.fixTime { out.append("      <trees:fixTime>"); out.appendISO8601(v); out.append("</trees:fixTime>\n") }
        if let v = tree.capture.averagedEpochs { element("      <trees:averagedEpochs>", raw: String(v), "</trees:averagedEpochs>\n") }
        if let v = tree.capture.locationSource { element("      <trees:locationSource>", v, "</trees:locationSource>\n") }
        let c = tree.capture
        if let v = c.fixStatus { element("      <trees:fixStatus>", raw: v.name, "</trees:fixStatus>\n") }
        if let v = c.correctionAge, v.isFinite { element("      <trees:correctionAge>", number: v, "</trees:correctionAge>\n") }
        if let v = c.verticalAccuracy, v.isFinite { element("      <trees:verticalAccuracy>", number: v, "</trees:verticalAccuracy>\n") }
        if let v = c.verticalAccuracySource {
            element("      <trees:verticalAccuracySource>", raw: v.rawValue, "</trees:verticalAccuracySource>\n")
        }
        if let v = c.antennaHeight, v.isFinite { element("      <trees:antennaHeight>", number: v, "</trees:antennaHeight>\n") }
        for e in care.events {
            out.append("      <trees:care id=\""); out.appendUUID(e.id)
            out.append("\" kind=\""); attribute(e.kind.name)
            out.append("\" date=\""); out.appendISO8601(e.date, fraction: .milliseconds)
            if let q = e.quantity, q.value.isFinite {
                out.append("\" quantity=\""); appendNumber(q.value)
                if let u = q.unit { out.append("\" unit=\""); attribute(u) }
            }
            if let h = e.health { out.append("\" health=\""); out.append(h.rawValue) }
            if let w = e.who { out.append("\" who=\""); attribute(w) }
            out.append("\" createdAt=\""); out.appendISO8601(e.createdAt, fraction: .milliseconds)
            out.append("\" updatedAt=\""); out.appendISO8601(e.updatedAt, fraction: .milliseconds)
            if let notes = e.notes {
                element("\">", notes, "</trees:care>\n")
            } else {
                out.append("\"/>\n")
            }
        }
        for s in care.schedules {
            out.append("      <trees:schedule id=\""); out.appendUUID(s.id)
            out.append("\" kind=\""); attribute(s.kind.name)
            out.append("\" everyDays=\""); out.appendInteger(s.everyDays)
            out.append("\" from=\""); out.append(s.from.description)
            if let season = s.season { out.append("\" season=\""); out.append(season.description) }
            out.append("\" createdAt=\""); out.appendISO8601(s.createdAt, fraction: .milliseconds)
            out.append("\" updatedAt=\""); out.appendISO8601(s.updatedAt, fraction: .milliseconds)
            out.append("\"/>\n")
        }
        out.append("    </extensions>\n  </wpt>\n")
        if loss.inTree {
            loss.endTree(tree, texts: [tree.species, tree.variety, tree.rootstock, tree.notes, tree.capture.locationSource,
                                       tree.collectionID.flatMap { context.collections[$0]?.name }]
                         + care.events.flatMap { [$0.kind.name, $0.quantity?.unit, $0.who, $0.notes] } + care.schedules.map(\.kind.name))
        }
        try out.flushIfFull()
    }

    private mutating func attribute(_ text: String) {
        if out.appendXMLAttribute(text) { loss.inTree = true }
    }

    /// Says how many values lost characters XML cannot carry, and how many numbers were too
    /// large for GPX, when any were.
    public var warnings: [String] {
        var lines = loss.warning(format: "GPX").map { [$0] } ?? []
        if tooLarge > 0 {
            lines.append("\(tooLarge == 1 ? "1 number" : "\(tooLarge) numbers") of 1e24 or more (an altitude or an HDOP) written as "
                         + "\(Self.largestDecimal), the largest GPX readers take"
                         + (tooLargeExample.map { "; the first in tree \($0) (trees show \($0))" } ?? ""))
        }
        return lines
    }

    public mutating func finish() throws {
        closeMetadata(reserving: false)
        out.append("</gpx>\n")
        try out.flush()
    }
}
