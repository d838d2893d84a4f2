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
    init(row: Row) throws {
        guard let id = UUID(uuidString: row["id"]) else { throw StoreError.database("malformed collection id") }
        self.init(id: id, name: row["name"], createdAt: row["createdAt"], updatedAt: row["updatedAt"])
    }
}

extension Photo {
    init(row: Row) throws {
        guard let id = UUID(uuidString: row["id"]), let tree = UUID(uuidString: row["treeId"]) else {
            throw StoreError.database("malformed photo id")
        }
        self.init(id: id, treeID: tree, sha256: row["sha256"], format: row["format"], byteCount: row["byteCount"],
                  capturedAt: row["capturedAt"], createdAt: row["createdAt"])
    }
}
