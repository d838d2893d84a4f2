import Foundation
import TreesKit

/// Writes the care log as RFC 4180 CSV, one row per event (UTF-8, CRLF, a header row), with the
/// same quoting and formula neutralising as the trees' CSV.
public struct CareCSVWriter {
    public static let columns = [
        "eventId", "treeId", "species", "variety", "collection", "kind", "date", "quantity", "unit", "health", "who",
        "notes", "createdAt", "updatedAt",
    ]

    /// One event with what the row says of its tree.
    public struct Row: Sendable {
        public var event: CareEvent
        public var species: String
        public var variety: String?
        public var collection: String?
        public init(event: CareEvent, species: String, variety: String?, collection: String?) {
            self.event = event; self.species = species; self.variety = variety; self.collection = collection
        }
    }

    private var out: ByteOutput

    public init(sink: @escaping ByteOutput.Sink) { out = ByteOutput(sink: sink) }

    public mutating func begin() throws {
        out.append(Self.columns.joined(separator: ","))
        out.append("\r\n")
    }

    public mutating func write(_ row: Row) throws {
        let e = row.event
        out.appendUUID(e.id, uppercase: true); out.append(",")
        out.appendUUID(e.treeID, uppercase: true); out.append(",")
        CSVWriter.appendText(row.species, to: &out); out.append(",")
        CSVWriter.appendText(row.variety, to: &out); out.append(",")
        CSVWriter.appendText(row.collection, to: &out); out.append(",")
        CSVWriter.appendText(e.kind.name, to: &out); out.append(",")
        out.appendISO8601(e.date); out.append(",")
        if let q = e.quantity, q.value.isFinite { out.appendDecimal(q.value) }
        out.append(",")
        CSVWriter.appendText(e.quantity?.unit, to: &out); out.append(",")
        CSVWriter.appendText(e.health?.rawValue, to: &out); out.append(",")
        CSVWriter.appendText(e.who, to: &out); out.append(",")
        CSVWriter.appendText(e.notes, to: &out); out.append(",")
        out.appendISO8601(e.createdAt); out.append(",")
        out.appendISO8601(e.updatedAt)
        out.append("\r\n")
        try out.flushIfFull()
    }

    public mutating func finish() throws { try out.flush() }
}
