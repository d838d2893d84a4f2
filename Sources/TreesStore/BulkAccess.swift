import Foundation
import GRDB
import GRDBSQLite
import TreesKit

// Fast paths for imports and exports of many trees: one prepared statement reused for every row,
// columns read by position, ids and dates converted by hand. They store and read exactly what
// `insert(_:)` and `forEachTree(_:)` do (dates as UTC `yyyy-MM-dd HH:mm:ss.SSS` text, rounded to
// the millisecond).

extension StoreWriter {
    /// Gives this connection a larger page cache for a bulk import, so the indexes of a large
    /// table are not spilled to disk mid-transaction. Costs up to `megabytes` of memory.
    public func reserveBulkCache(megabytes: Int) throws {
        try db.execute(sql: "PRAGMA cache_size = -\(max(2, megabytes) * 1024)")
    }

    /// Inserts a new tree, as `insert(_:)` does, reusing a cached prepared statement.
    public func insertBulk(_ tree: Tree) throws {
        try Self.check(tree)
        let statement = try db.cachedStatement(sql: Tree.insertSQL)
        try statement.execute(arguments: StatementArguments(tree.bulkStorageValues))
    }

    /// Inserts or replaces a tree with the same id, reusing a cached prepared statement.
    public func upsertBulk(_ tree: Tree) throws {
        try Self.check(tree)
        let statement = try db.cachedStatement(sql: Tree.replaceSQL)
        try statement.execute(arguments: StatementArguments(tree.bulkStorageValues))
    }

    /// Inserts a new tree unless one with the same id is stored; true when it was inserted.
    ///
    /// Binds the values straight into a cached prepared statement: the fastest way to store many trees.
    public func insertIfNewBulk(_ tree: Tree) throws -> Bool {
        try Self.bulkCheck(tree)
        let statement = try db.cachedStatement(sql: Tree.insertIfNewSQL)
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        sqlite3_clear_bindings(s)
        var index: Int32 = 0
        func text(_ value: String?) {
            index += 1
            guard let value else { sqlite3_bind_null(s, index); return }
            var v = value
            v.withUTF8 { p in
                p.withMemoryRebound(to: CChar.self) { c in
                    if let base = c.baseAddress {
                        _ = sqlite3_bind_text(s, index, base, Int32(c.count), bulkTransient)
                    } else {
                        _ = sqlite3_bind_text(s, index, "", 0, bulkTransient)
                    }
                }
            }
        }
        func double(_ value: Double?) {
            index += 1
            if let value { sqlite3_bind_double(s, index, value) } else { sqlite3_bind_null(s, index) }
        }
        func int(_ value: Int?) {
            index += 1
            if let value { sqlite3_bind_int64(s, index, Int64(value)) } else { sqlite3_bind_null(s, index) }
        }
        text(BulkText.uuid(tree.id)); double(tree.latitude); double(tree.longitude); double(tree.horizontalAccuracy)
        text(tree.accuracySource?.rawValue); double(tree.altitude); double(tree.ellipsoidHeight); text(tree.species)
        text(tree.variety); text(tree.rootstock); text(tree.notes); text(tree.collectionID.map(BulkText.uuid))
        text(BulkText.date(tree.createdAt)); text(BulkText.date(tree.updatedAt)); text(tree.capture.fixTime.map(BulkText.date))
        int(tree.capture.fixMode?.rawValue); int(tree.capture.satellites); double(tree.capture.hdop)
        int(tree.capture.averagedEpochs); text(tree.capture.locationSource)
        let rc = sqlite3_step(s)
        sqlite3_reset(s)
        guard rc == SQLITE_DONE else {
            throw StoreError.database(String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        return sqlite3_changes(db.sqliteConnection) > 0
    }

    /// The checks of `check(_:)`, with a blank-species test that needs no Foundation string work.
    static func bulkCheck(_ tree: Tree) throws {
        if let problem = CoordinateCheck.latitudeProblem(tree.latitude) ?? CoordinateCheck.longitudeProblem(tree.longitude) {
            throw StoreError.database(problem)
        }
        if let a = tree.horizontalAccuracy, let problem = CoordinateCheck.accuracyProblem(a) { throw StoreError.database(problem) }
        let blank = tree.species.unicodeScalars.allSatisfy { c in
            c.isASCII ? (c == " " || (c.value >= 0x09 && c.value <= 0x0D)) : c.properties.isWhitespace
        }
        if blank { throw StoreError.database("species is empty") }
    }

    /// True when a tree with this id is stored, reusing a cached prepared statement.
    public func treeExistsBulk(_ id: UUID) throws -> Bool {
        let statement = try db.cachedStatement(sql: "SELECT 1 FROM tree WHERE id = ?")
        return try Row.fetchOne(statement, arguments: [BulkText.uuid(id)]) != nil
    }
}

extension StoreReader {
    /// Ids of the trees that have at least one photo.
    public func treeIDsWithPhotos() throws -> Set<UUID> {
        var ids = Set<UUID>()
        let cursor = try String.fetchCursor(db, sql: "SELECT DISTINCT treeId FROM photo")
        while let text = try cursor.next() {
            if let id = UUID(uuidString: text) { ids.insert(id) }
        }
        return ids
    }

    /// Visits the position and species of every stored tree (for finding duplicates without ids).
    public func forEachPosition(_ body: (_ latitude: Double, _ longitude: Double, _ species: String) throws -> Void) throws {
        let cursor = try Row.fetchCursor(db, sql: "SELECT latitude, longitude, species FROM tree")
        while let row = try cursor.next() { try body(row[0], row[1], row[2]) }
    }

    /// Visits trees matching `filter` in the order of `forEachTree(_:)`, decoding rows by column position.
    public func forEachTreeBulk(_ filter: TreeFilter, _ body: (Tree) throws -> Void) throws {
        let (whereSQL, arguments) = Self.whereClause(filter)
        let columns = Tree.storageColumns.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM tree\(whereSQL) ORDER BY createdAt DESC, id DESC"
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() { try body(Tree(bulkRow: row)) }
    }
}

/// SQLite's "copy the bytes now" destructor.
private let bulkTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension Tree {
    static let insertIfNewSQL =
        "INSERT OR IGNORE INTO tree (\(storageColumns.joined(separator: ", "))) VALUES (\(storageColumns.map { _ in "?" }.joined(separator: ", ")))"

    var bulkStorageValues: [(any DatabaseValueConvertible)?] {
        [
            BulkText.uuid(id), latitude, longitude, horizontalAccuracy, accuracySource?.rawValue, altitude,
            ellipsoidHeight, species, variety, rootstock, notes, collectionID.map(BulkText.uuid),
            BulkText.date(createdAt), BulkText.date(updatedAt), capture.fixTime.map(BulkText.date),
            capture.fixMode?.rawValue, capture.satellites, capture.hdop, capture.averagedEpochs, capture.locationSource,
        ]
    }

    /// Decodes a row whose columns are `Tree.storageColumns`, in that order.
    init(bulkRow row: Row) throws {
        func text(_ i: Int) -> String? { row.hasNull(atIndex: i) ? nil : row[i] as String }
        func double(_ i: Int) -> Double? { row.hasNull(atIndex: i) ? nil : row[i] as Double }
        func int(_ i: Int) -> Int? { row.hasNull(atIndex: i) ? nil : row[i] as Int }
        func date(_ i: Int) throws -> Date? {
            guard let t = text(i) else { return nil }
            guard let d = BulkText.parseDate(t) ?? (row[i] as Date?) else { throw StoreError.database("malformed date \(t)") }
            return d
        }
        guard let idText = text(0), let id = BulkText.parseUUID(idText) else { throw StoreError.database("malformed tree id") }
        guard let created = try date(12), let updated = try date(13) else { throw StoreError.database("tree \(idText) has no dates") }
        self.init(
            id: id,
            coordinate: Coordinate(latitude: row[1], longitude: row[2]),
            horizontalAccuracy: double(3),
            accuracySource: text(4).flatMap(AccuracySource.init(rawValue:)),
            altitude: double(5),
            ellipsoidHeight: double(6),
            species: row[7],
            variety: text(8),
            rootstock: text(9),
            notes: text(10),
            collectionID: text(11).flatMap(BulkText.parseUUID),
            createdAt: created,
            updatedAt: updated,
            capture: CaptureInfo(
                fixTime: try date(14), fixMode: int(15).flatMap(FixMode.init(rawValue:)), satellites: int(16),
                hdop: double(17), averagedEpochs: int(18), locationSource: text(19)))
    }
}

/// Hand-written conversions of ids and dates to and from their stored text.
enum BulkText {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// The lower-case UUID text, as `UUID.storageKey`.
    static func uuid(_ id: UUID) -> String {
        let u = id.uuid
        let bytes = [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7, u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15]
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, b) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` in either case.
    static func parseUUID(_ text: String) -> UUID? {
        var t = text
        return t.withUTF8 { p -> UUID? in
            guard p.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var k = 0
            var i = 0
            while i < 36 {
                if i == 8 || i == 13 || i == 18 || i == 23 {
                    guard p[i] == UInt8(ascii: "-") else { return nil }
                    i += 1
                    continue
                }
                guard let hi = nibble(p[i]), let lo = nibble(p[i + 1]) else { return nil }
                bytes[k] = hi << 4 | lo
                k += 1
                i += 2
            }
            return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` in UTC, rounded to the millisecond (years 0…9999).
    static func date(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        var secs = ms / 1000
        var millis = ms % 1000
        if millis < 0 { millis += 1000; secs -= 1 }
        var days = secs / 86400
        var rem = secs % 86400
        if rem < 0 { rem += 86400; days -= 1 }
        let (y, m, d) = civil(Int(days))
        var out: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &out) { raw -> String in
            var n = 0
            func put(_ v: Int, _ width: Int) {
                var x = abs(v)
                var i = n + width - 1
                while i >= n { raw[i] = UInt8(ascii: "0") + UInt8(x % 10); x /= 10; i -= 1 }
                n += width
            }
            func sep(_ c: UInt8) { raw[n] = c; n += 1 }
            put(y, 4); sep(UInt8(ascii: "-")); put(m, 2); sep(UInt8(ascii: "-")); put(d, 2); sep(UInt8(ascii: " "))
            put(Int(rem / 3600), 2); sep(UInt8(ascii: ":")); put(Int(rem % 3600 / 60), 2); sep(UInt8(ascii: ":"))
            put(Int(rem % 60), 2); sep(UInt8(ascii: ".")); put(Int(millis), 3)
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[0..<n]), as: UTF8.self)
        }
    }

    /// Parses `yyyy-MM-dd HH:mm:ss(.SSS)` (UTC); nil for any other shape.
    static func parseDate(_ text: String) -> Date? {
        var t = text
        return t.withUTF8 { p -> Date? in
            guard p.count == 19 || p.count == 23 else { return nil }
            func num(_ at: Int, _ n: Int) -> Int? {
                var v = 0
                for i in at..<(at + n) {
                    let d = p[i] &- UInt8(ascii: "0")
                    guard d < 10 else { return nil }
                    v = v * 10 + Int(d)
                }
                return v
            }
            guard p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"), p[10] == UInt8(ascii: " ") || p[10] == UInt8(ascii: "T"),
                  p[13] == UInt8(ascii: ":"), p[16] == UInt8(ascii: ":"),
                  let y = num(0, 4), let mo = num(5, 2), let d = num(8, 2), let h = num(11, 2), let mi = num(14, 2),
                  let s = num(17, 2), (1...12).contains(mo), (1...31).contains(d) else { return nil }
            var ms = 0
            if p.count == 23 {
                guard p[19] == UInt8(ascii: "."), let f = num(20, 3) else { return nil }
                ms = f
            }
            let days = daysFromCivil(y, mo, d)
            let total = Int64(days) * 86_400_000 + Int64(h * 3_600_000 + mi * 60_000 + s * 1000 + ms)
            return Date(timeIntervalSince1970: Double(total) / 1000)
        }
    }

    private static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    private static func civil(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }
}
