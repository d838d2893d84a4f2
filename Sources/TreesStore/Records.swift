import Foundation
import GRDB
import TreesKit

/// Storage form of ids: the lower-case UUID string, so prefixes can be matched on the primary key index.
extension UUID {
    var storageKey: String { uuidString.lowercased() }
}

/// Dates are stored as UTC text with milliseconds (GRDB's format), so they sort and round-trip to the millisecond.
enum StoredDate {
    /// Rounds to whole milliseconds, the precision the store keeps.
    static func normalised(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}

extension Tree {
    static let databaseTable = "tree"

    var storageArguments: StatementArguments { StatementArguments(storageValues) }

    var storageValues: [(any DatabaseValueConvertible)?] {
        [
            id.storageKey, latitude, longitude, horizontalAccuracy, accuracySource?.rawValue, altitude,
            ellipsoidHeight, species, variety, rootstock, notes, collectionID?.storageKey,
            StoredDate.normalised(createdAt), StoredDate.normalised(updatedAt),
            capture.fixTime.map(StoredDate.normalised), capture.fixMode?.rawValue, capture.satellites, capture.hdop,
            capture.averagedEpochs, capture.locationSource,
        ]
    }

    /// `storageColumns` joined for a SELECT.
    static let storageColumnList = storageColumns.joined(separator: ", ")

    static let storageColumns = [
        "id", "latitude", "longitude", "horizontalAccuracy", "accuracySource", "altitude", "ellipsoidHeight",
        "species", "variety", "rootstock", "notes", "collectionId", "createdAt", "updatedAt", "fixTime",
        "fixMode", "satellites", "hdop", "averagedEpochs", "locationSource",
    ]
    static let insertSQL =
        "INSERT INTO tree (\(storageColumns.joined(separator: ", "))) VALUES (\(storageColumns.map { _ in "?" }.joined(separator: ", ")))"
    static let replaceSQL =
        "INSERT OR REPLACE INTO tree (\(storageColumns.joined(separator: ", "))) VALUES (\(storageColumns.map { _ in "?" }.joined(separator: ", ")))"
    static let updateSQL =
        "UPDATE tree SET \(storageColumns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    var updateArguments: StatementArguments {
        var values = Array(storageValues.dropFirst())
        values.append(id.storageKey)
        return StatementArguments(values)
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
        ("capturedAt", .date), ("createdAt", .date),
    ]

    /// Decodes a row read with `SELECT rowid, *`; a damaged value is a `StoreError.damagedRow`.
    init(row: Row) throws {
        let r = CheckedRow(table: "photo", row: row)
        self.init(id: try r.id("id"), treeID: try r.id("treeId"), sha256: try r.text("sha256", .nonBlankText),
                  format: try r.text("format", .nonBlankText), byteCount: try r.integer("byteCount"),
                  capturedAt: try r.date("capturedAt"), createdAt: try r.date("createdAt"))
    }
}
