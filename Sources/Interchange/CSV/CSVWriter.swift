import Foundation
import TreesKit

/// The columns of our CSV, in order.
public enum CSVColumns {
    public static let all = [
        "id", "latitude", "longitude", "horizontalAccuracy", "accuracySource", "altitude", "ellipsoidHeight",
        "species", "variety", "rootstock", "notes", "collection", "collectionId", "createdAt", "updatedAt",
        "fixTime", "fixMode", "satellites", "hdop", "averagedEpochs", "locationSource", "photoCount",
        "fixStatus", "correctionAge", "verticalAccuracy", "verticalAccuracySource", "antennaHeight",
    ]
}

/// Writes RFC 4180 CSV (UTF-8, CRLF line ends, a header row; see `CSVColumns`).
///
/// Text cells a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or
/// carriage return) get a leading `'`, and so do texts that already start with `'` and one of those
/// or another `'` (which the reader would otherwise take for neutralised). Numeric columns are written as plain numbers, so a
/// negative longitude stays a number.
public struct CSVWriter: TreeWriter {
    private var out: ByteOutput
    private let context: ExportContext
    /// Positions in another CRS as well, in two columns after `longitude` (`easting`, `northing`
    /// for a projected CRS; `x`, `y` for a geographic one): their names, and the function giving
    /// a tree's (x, y), which throws when it cannot; `places` decimals (3 for metres: a millimetre).
    public var grid: (names: (String, String), places: Int, position: (Coordinate) throws -> (x: Double, y: Double))?

    public init(context: ExportContext, sink: @escaping ByteOutput.Sink) {
        self.context = context
        self.out = ByteOutput(sink: sink)
    }

    public mutating func begin() throws {
        var columns = CSVColumns.all
        if let grid { columns.insert(contentsOf: [grid.names.0, grid.names.1], at: 3) }
        out.append(columns.joined(separator: ","))
        out.append("\r\n")
    }

    /// True when a spreadsheet would treat a cell starting with this byte as a formula.
    static func isFormulaStart(_ b: UInt8) -> Bool {
        b == UInt8(ascii: "=") || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: "@")
            || b == 0x09 || b == 0x0D
    }

    /// True when a cell reads as neutralised: a `'` before a formula's first byte or before another
    /// `'`. The reader removes that `'`; the writer adds one to every such text, and to every text
    /// a spreadsheet would run as a formula, so any text is read back as it was written.
    static func looksNeutralised(_ text: some Collection<UInt8>) -> Bool {
        var bytes = text.makeIterator()
        guard bytes.next() == UInt8(ascii: "'"), let second = bytes.next() else { return false }
        return isFormulaStart(second) || second == UInt8(ascii: "'")
    }

    private mutating func text(_ s: String?) { Self.appendText(s, to: &out) }

    /// Appends a text cell: quoted when it holds a comma, quote or line break; a leading `'` when
    /// a spreadsheet would run it as a formula or it `looksNeutralised`. Nothing for nil or empty text.
    static func appendText(_ s: String?, to out: inout ByteOutput) {
        guard let value = s, !value.isEmpty else { return }
        var copy = value
        copy.withUTF8 { p in
            let neutralise = Self.isFormulaStart(p[0]) || Self.looksNeutralised(p)
            let needsQuotes = neutralise || p.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
            if needsQuotes { out.append(byte: UInt8(ascii: "\"")) }
            if neutralise { out.append(byte: UInt8(ascii: "'")) }
            for b in p {
                if b == UInt8(ascii: "\"") { out.append(byte: b) }
                out.append(byte: b)
            }
            if needsQuotes { out.append(byte: UInt8(ascii: "\"")) }
        }
    }

    private mutating func number(_ v: Double?) {
        guard let v, v.isFinite else { return }
        out.appendDecimal(v)
    }

    public mutating func write(_ tree: Tree, photos: [ExportPhoto]) throws {
        let c = tree.capture
        out.appendUUID(tree.id, uppercase: true); out.append(",")
        number(tree.latitude); out.append(",")
        number(tree.longitude); out.append(",")
        if let grid {
            let p = try grid.position(tree.coordinate)
            out.appendWritten(maxCount: TextCodec.maxDecimalCount) { TextCodec.writeDecimal(p.x, places: grid.places, into: $0) }
            out.append(",")
            out.appendWritten(maxCount: TextCodec.maxDecimalCount) { TextCodec.writeDecimal(p.y, places: grid.places, into: $0) }
            out.append(",")
        }
        number(tree.horizontalAccuracy); out.append(",")
        text(tree.accuracySource?.rawValue); out.append(",")
        number(tree.altitude); out.append(",")
        number(tree.ellipsoidHeight); out.append(",")
        text(tree.species); out.append(",")
        text(tree.variety); out.append(",")
        text(tree.rootstock); out.append(",")
        text(tree.notes); out.append(",")
        text(tree.collectionID.flatMap { context.collections[$0]?.name }); out.append(",")
        if let cid = tree.collectionID { out.appendUUID(cid, uppercase: true) }
        out.append(",")
        out.appendISO8601(tree.createdAt); out.append(",")
        out.appendISO8601(tree.updatedAt); out.append(",")
        if let t = c.fixTime { out.appendISO8601(t) }
        out.append(",")
        text(c.fixMode.map(FixModeText.text)); out.append(",")
        if let s = c.satellites { out.appendInteger(s) }
        out.append(",")
        number(c.hdop); out.append(",")
        if let a = c.averagedEpochs { out.appendInteger(a) }
        out.append(",")
        text(c.locationSource); out.append(",")
        out.appendInteger(photos.count); out.append(",")
        text(c.fixStatus?.name); out.append(",")
        number(c.correctionAge); out.append(",")
        number(c.verticalAccuracy); out.append(",")
        text(c.verticalAccuracySource?.rawValue); out.append(",")
        number(c.antennaHeight)
        out.append("\r\n")
        try out.flushIfFull()
    }

    public mutating func finish() throws {
        try out.flush()
    }
}
