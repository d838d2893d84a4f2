import Foundation
import GRDB
import TreesKit

/// Storage form of ids: the lower-case UUID string, so prefixes can be matched on the primary key index.
extension UUID {
    var storageKey: String { lowercaseText }
}

/// Dates are stored as UTC text with milliseconds (GRDB's format), so they sort and round-trip to the millisecond.
enum StoredDate {
    /// Rounds to whole milliseconds, the precision the store keeps.
    static func normalised(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }

    /// The text the store keeps for `date`: `yyyy-MM-dd HH:mm:ss.SSS` in UTC in the proleptic
    /// Gregorian calendar, the same bytes the prepared statements of imports bind. (GRDB's own
    /// date formatting follows Foundation's calendar, which turns to the Julian one before 1582.)
    /// Every write checks its dates against `StorableDates` first; a date outside that span never
    /// gets here, and would be kept as GRDB writes it rather than trap.
    static func text(_ date: Date) -> any DatabaseValueConvertible {
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = bytes.withUnsafeMutableBufferPointer { p in (try? BulkText.write(date: date, into: p.baseAddress!)) ?? 0 }
        guard n > 0 else { return normalised(date) }
        return String(decoding: bytes[..<n], as: UTF8.self)
    }
}

extension TreeCollection {
    /// Column kinds, for reading back and for `trees doctor`.
    static let columns: [(String, ColumnKind)] = [("id", .id), ("name", .nonBlankText), ("createdAt", .date), ("updatedAt", .date)]

    /// Decodes a row read with `SELECT rowid, *`; a damaged value is a `StoreError.damagedRow`.
    init(row: Row) throws {
        let r = CheckedRow(table: "collection", row: row)
        self.init(id: try r.id("id"), name: try r.text("name", .nonBlankText), createdAt: try r.date("createdAt"),
                  updatedAt: try r.date("updatedAt"))
    }
}

extension Photo {
    /// Column kinds, for reading back and for `trees doctor`.
    static let columns: [(String, ColumnKind)] = [
        ("id", .id), ("treeId", .id), ("sha256", .nonBlankText), ("format", .nonBlankText), ("byteCount", .integer),
        ("capturedAt", .date), ("createdAt", .date), ("careEventId", .optionalID),
    ]

    /// Decodes a row read with `SELECT rowid, *`; a damaged value is a `StoreError.damagedRow`.
    init(row: Row) throws {
        let r = CheckedRow(table: "photo", row: row)
        self.init(id: try r.id("id"), treeID: try r.id("treeId"), sha256: try r.text("sha256", .nonBlankText),
                  format: try r.text("format", .nonBlankText), byteCount: try r.integer("byteCount"),
                  capturedAt: try r.date("capturedAt"), createdAt: try r.date("createdAt"), careEventID: try r.optionalID("careEventId"))
    }
}
