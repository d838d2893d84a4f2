// What the store targets share: column values drawn from the input, and sound rows to damage.
import Foundation
import GRDB

/// Column values as a hand edit, another program, an older version or a fault could leave them:
/// NULL, integers, reals (also infinite, negative zero and the extremes), text and blobs taken from
/// the input, texts that are nearly a date or a UUID, or the plausible value of the column.
public struct Values {
    var bytes: ArraySlice<UInt8>

    public init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func take(_ n: Int) -> [UInt8] {
        let k = min(n, bytes.count)
        defer { bytes = bytes.dropFirst(k) }
        return Array(bytes.prefix(k))
    }

    mutating func word() -> UInt64 { take(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }

    static let edges: [DatabaseValue] = [
        Double.infinity.databaseValue, (-Double.infinity).databaseValue, 1e300.databaseValue, (-0.0).databaseValue,
        Double.leastNonzeroMagnitude.databaseValue, Double.greatestFiniteMagnitude.databaseValue,
        Int64.max.databaseValue, Int64.min.databaseValue, 0.databaseValue, "".databaseValue, " \t\u{00A0}\u{3000}".databaseValue,
        "0000-01-01 00:00:00.000".databaseValue, "9999-12-31 23:59:59.999".databaseValue, "10000-01-01 00:00:00.000".databaseValue,
        "2025-02-29 10:00:00.000".databaseValue, "2025-05-01T10:00:00Z".databaseValue, "2025-05-01".databaseValue,
        "2025-05-01 24:00:00.000".databaseValue, "-0001-01-01 00:00:00.000".databaseValue, "2025-05-01 10:00:00.9999".databaseValue,
        "6F1C2E1A-1111-4222-8333-944455556666".databaseValue, "6f1c2e1a11114222833394445555666".databaseValue,
        "6f1c2e1a-1111-4222-8333-94445555666g".databaseValue, Data([0xFF, 0xFE, 0x00]).databaseValue,
    ]

    /// A value for a column whose sound value is `plausible`.
    public mutating func value(plausible: DatabaseValue) -> DatabaseValue {
        switch byte() % 10 {
        case 0: return .null
        case 1: return Int64(bitPattern: word()).databaseValue
        case 2: return Double(bitPattern: word()).databaseValue
        case 3: return String(decoding: take(Int(byte() % 40)), as: UTF8.self).databaseValue
        case 4: return Data(take(Int(byte() % 40))).databaseValue
        case 5: return Self.edges[Int(byte()) % Self.edges.count]
        case 6:
            // The plausible text with one byte changed, or cut short.
            guard case .string(let s) = plausible.storage else { return plausible }
            var b = Array(s.utf8)
            let at = Int(byte()) % max(1, b.count)
            if byte() % 2 == 0, !b.isEmpty { b[at] = byte() } else { b = Array(b.prefix(at)) }
            return String(decoding: b, as: UTF8.self).databaseValue
        default: return plausible
        }
    }
}

public let date = "2025-05-01 10:00:00.000".databaseValue
public let treeID = "6f1c2e1a-1111-4222-8333-944455556666".databaseValue
public let collectionID = "0e5c0c1e-0000-4000-8000-000000000001".databaseValue
/// A sound tree row, column by column (`Tree.storageColumns`).
public let plausibleTree: [DatabaseValue] = [
    treeID, 47.5.databaseValue, 8.5.databaseValue, 3.0.databaseValue, "gst".databaseValue, 400.0.databaseValue,
    448.0.databaseValue, "Apple".databaseValue, "Gala".databaseValue, "M9".databaseValue, "note".databaseValue, collectionID,
    date, date, date, 3.databaseValue, 9.databaseValue, 0.9.databaseValue, 1.databaseValue, "replay:x".databaseValue,
    "rtk-fixed".databaseValue, 1.5.databaseValue, 0.04.databaseValue, "gst".databaseValue, 1.8.databaseValue,
]
public let plausibleCollection: [DatabaseValue] = [collectionID, "North".databaseValue, date, date]
public let plausiblePhoto: [DatabaseValue] = [
    "7f1c2e1a-1111-4222-8333-944455556666".databaseValue, treeID, String(repeating: "ab", count: 32).databaseValue,
    "jpeg".databaseValue, 1234.databaseValue, date, date, .null,
]

