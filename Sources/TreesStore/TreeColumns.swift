import Foundation
import GRDB
import GRDBSQLite
import TreesKit

// The one mapping between a tree and its row. `TreeColumn` lists the columns of the `tree` table
// in the order every statement names them; `kind` says what each may hold and `field(of:)` takes
// the tree's value for it. That table drives every insert, replace and update (through GRDB and
// through the prepared statements of imports), every check of `trees doctor` and the decoder at the
// end of this file. A new field is one case here, one line in each switch and one argument in
// the decoder (plus the model, the migration and the formats); the compiler points at each.

/// A tree's value for one column, in the form the store keeps.
enum TreeField {
    case id(UUID?)
    case real(Double?)
    case integer(Int?)
    case text(String?)
    /// Stored as UTC `yyyy-MM-dd HH:mm:ss.SSS` text, rounded to the millisecond.
    case date(Date?)

    /// The value as GRDB binds it: the same text and numbers the prepared statements bind.
    var databaseValue: (any DatabaseValueConvertible)? {
        switch self {
        case .id(let v): v?.storageKey
        case .real(let v): v
        case .integer(let v): v
        case .text(let v): v
        case .date(let v): v.map(StoredDate.text)
        }
    }
}

/// The columns of the `tree` table, in the order every statement names them; the raw value is
/// the column's position in a row read with `Tree.storageColumnList` (`rowid` follows them).
enum TreeColumn: Int32, CaseIterable {
    case id, latitude, longitude, horizontalAccuracy, accuracySource, altitude, ellipsoidHeight, species
    case variety, rootstock, notes, collectionId, createdAt, updatedAt, fixTime, fixMode, satellites, hdop
    case averagedEpochs, locationSource, fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight

    var name: String { "\(self)" }

    /// What the column may hold, for reading back and for `trees doctor`.
    var kind: ColumnKind {
        switch self {
        case .id: .id
        case .latitude: .latitude
        case .longitude: .longitude
        case .horizontalAccuracy: .accuracy
        case .accuracySource, .variety, .rootstock, .notes, .locationSource: .optionalText
        case .altitude, .ellipsoidHeight, .hdop: .optionalReal
        case .species: .nonBlankText
        case .collectionId: .optionalID
        case .createdAt, .updatedAt: .date
        case .fixTime: .optionalDate
        case .fixMode, .satellites, .averagedEpochs: .optionalInteger
        case .fixStatus: .fixStatus
        case .correctionAge, .antennaHeight: .nonNegativeReal
        case .verticalAccuracy: .accuracy
        case .verticalAccuracySource: .accuracySource
        }
    }

    /// The tree's value for this column.
    func field(of t: Tree) -> TreeField {
        switch self {
        case .id: .id(t.id)
        case .latitude: .real(t.latitude)
        case .longitude: .real(t.longitude)
        case .horizontalAccuracy: .real(t.horizontalAccuracy)
        case .accuracySource: .text(t.accuracySource?.rawValue)
        case .altitude: .real(t.altitude)
        case .ellipsoidHeight: .real(t.ellipsoidHeight)
        case .species: .text(t.species)
        case .variety: .text(t.variety)
        case .rootstock: .text(t.rootstock)
        case .notes: .text(t.notes)
        case .collectionId: .id(t.collectionID)
        case .createdAt: .date(t.createdAt)
        case .updatedAt: .date(t.updatedAt)
        case .fixTime: .date(t.capture.fixTime)
        case .fixMode: .integer(t.capture.fixMode?.rawValue)
        case .satellites: .integer(t.capture.satellites)
        case .hdop: .real(t.capture.hdop)
        case .averagedEpochs: .integer(t.capture.averagedEpochs)
        case .locationSource: .text(t.capture.locationSource)
        case .fixStatus: .text(t.capture.fixStatus?.name)
        case .correctionAge: .real(t.capture.correctionAge)
        case .verticalAccuracy: .real(t.capture.verticalAccuracy)
        case .verticalAccuracySource: .text(t.capture.verticalAccuracySource?.rawValue)
        case .antennaHeight: .real(t.capture.antennaHeight)
        }
    }
}

extension Tree {
    static let databaseTable = "tree"

    static let storageColumns = TreeColumn.allCases.map(\.name)
    /// Column kinds of `storageColumns`, in that order, for reading back and for `trees doctor`.
    static let columnKinds = TreeColumn.allCases.map(\.kind)
    /// `storageColumns` joined for a SELECT; `rowid` follows them at position `TreeColumn.allCases.count`.
    static let storageColumnList = storageColumns.joined(separator: ", ")

    private static let placeholders = storageColumns.map { _ in "?" }.joined(separator: ", ")
    static let insertSQL = "INSERT INTO tree (\(storageColumnList)) VALUES (\(placeholders))"
    static let insertIfNewSQL = "INSERT OR IGNORE INTO tree (\(storageColumnList)) VALUES (\(placeholders))"
    /// `insertIfNewSQL` for `rows` trees, inserted in the order of their values.
    static func insertIfNewSQL(rows: Int) -> String {
        "INSERT OR IGNORE INTO tree (\(storageColumnList)) VALUES " + Array(repeating: "(\(placeholders))", count: rows).joined(separator: ", ")
    }
    static let replaceSQL = "INSERT OR REPLACE INTO tree (\(storageColumnList)) VALUES (\(placeholders))"
    static let updateSQL = "UPDATE tree SET \(storageColumns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    var storageValues: [(any DatabaseValueConvertible)?] { TreeColumn.allCases.map { $0.field(of: self).databaseValue } }

    var storageArguments: StatementArguments { StatementArguments(storageValues) }

    var updateArguments: StatementArguments {
        var values = Array(storageValues.dropFirst())
        values.append(id.storageKey)
        return StatementArguments(values)
    }

    /// Decodes the current row of a statement whose columns are `storageColumns` followed by
    /// `rowid`, straight from SQLite's buffers. A value that is not what its column holds is a
    /// `StoreError.damagedRow` naming the row and column, never a trap.
    init(statement s: OpaquePointer) throws {
        var texts = RepeatedTreeTexts()
        try self.init(statement: s, texts: &texts)
    }

    /// The same, for one of many rows of a statement: a text equal to the one `texts` holds from
    /// the row before is that row's `String` again, not a new one.
    init(statement s: OpaquePointer, texts: inout RepeatedTreeTexts) throws {
        let row = StatementRow(s)
        guard let id = try row.uuid(.id) else { throw row.damaged(.id) }
        guard let latitude = try row.number(.latitude), CoordinateCheck.latitudeProblem(latitude) == nil else { throw row.damaged(.latitude) }
        guard let longitude = try row.number(.longitude), CoordinateCheck.longitudeProblem(longitude) == nil else { throw row.damaged(.longitude) }
        let accuracy = try row.number(.horizontalAccuracy)
        if let accuracy, CoordinateCheck.accuracyProblem(accuracy) != nil { throw row.damaged(.horizontalAccuracy) }
        guard let species = try row.text(.species, repeating: &texts.species), !StoredValue.isBlank(species) else {
            throw row.damaged(.species)
        }
        guard let created = try row.date(.createdAt) else { throw row.damaged(.createdAt) }
        guard let updated = try row.date(.updatedAt, orSameAs: .createdAt, created) else { throw row.damaged(.updatedAt) }
        var status: FixStatus?
        if let named = try row.name(.fixStatus, among: StoredNames.fixStatuses) {
            guard let s = named else { throw row.damaged(.fixStatus) }
            status = s
        }
        var verticalSource: AccuracySource?
        if let named = try row.name(.verticalAccuracySource, among: StoredNames.accuracySources) {
            guard let s = named else { throw row.damaged(.verticalAccuracySource) }
            verticalSource = s
        }
        self.init(
            id: id,
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            horizontalAccuracy: accuracy,
            accuracySource: try row.name(.accuracySource, among: StoredNames.accuracySources) ?? nil,
            altitude: try row.finite(.altitude),
            ellipsoidHeight: try row.finite(.ellipsoidHeight),
            species: species,
            variety: try row.text(.variety, repeating: &texts.variety),
            rootstock: try row.text(.rootstock, repeating: &texts.rootstock),
            notes: try row.text(.notes),
            collectionID: try row.uuid(.collectionId),
            createdAt: created,
            updatedAt: updated,
            capture: CaptureInfo(
                fixTime: try row.date(.fixTime, orSameAs: .createdAt, created), fixMode: try row.int(.fixMode).flatMap(FixMode.init(rawValue:)),
                satellites: try row.int(.satellites), hdop: try row.finite(.hdop), averagedEpochs: try row.int(.averagedEpochs),
                locationSource: try row.text(.locationSource, repeating: &texts.locationSource), fixStatus: status,
                correctionAge: try row.nonNegative(.correctionAge), verticalAccuracy: try row.nonNegative(.verticalAccuracy),
                verticalAccuracySource: verticalSource, antennaHeight: try row.nonNegative(.antennaHeight)))
    }
}

/// The current row of a tree statement, read by column straight from SQLite's buffers.
private struct StatementRow {
    let s: OpaquePointer

    init(_ s: OpaquePointer) { self.s = s }

    func value(_ c: TreeColumn) -> DatabaseValue { DatabaseValue(sqliteStatement: s, index: c.rawValue) }

    func damaged(_ c: TreeColumn) -> StoreError {
        // The slow path: the checked reading of the same value says why.
        let reason: String
        let held = cell(c)
        if c.kind.holdsText, held.type == SQLITE_TEXT || held.type == SQLITE_BLOB, StoredValue.hasNUL(held.bytes) {
            reason = StoredValue.nulReason
        } else if case .failure(let p) = StoredValue.check(value(c), as: c.kind) {
            reason = p.reason
        } else {
            reason = "unreadable value"
        }
        let idCell = cell(.id)
        let id = idCell.type == SQLITE_NULL ? nil : String(decoding: idCell.bytes, as: UTF8.self)
        let rowid = sqlite3_column_int64(s, Int32(TreeColumn.allCases.count))
        return .damagedRow(table: Tree.databaseTable, row: rowid, id: id, column: c.name, reason: reason)
    }

    /// One column of the row as SQLite holds it: asked of the statement once, after which its
    /// type, text and number are read from the value itself. Each `sqlite3_column_…` call takes
    /// the connection's lock and checks for a failed allocation; with three of them a column,
    /// reading a tree took 1.15 times as long (`trees-bench rows`).
    struct Cell {
        let value: OpaquePointer?

        var type: Int32 { sqlite3_value_type(value) }

        var bytes: UnsafeBufferPointer<UInt8> {
            // The text before its length, as SQLite asks.
            let p = sqlite3_value_text(value)
            return UnsafeBufferPointer(start: p, count: Int(sqlite3_value_bytes(value)))
        }
    }

    func cell(_ c: TreeColumn) -> Cell { Cell(value: sqlite3_column_value(s, c.rawValue)) }

    func text(_ c: TreeColumn) throws -> String? {
        let cell = cell(c)
        switch cell.type {
        case SQLITE_NULL: return nil
        case SQLITE_BLOB:
            let b = cell.bytes
            guard !StoredValue.hasNUL(b), let t = String(validating: b, as: UTF8.self) else { throw damaged(c) }
            return t
        default:
            let b = cell.bytes
            if StoredValue.hasNUL(b) { throw damaged(c) }
            return String(decoding: b, as: UTF8.self)
        }
    }

    /// `text(c)`, or the `String` `last` holds when the column holds its very bytes.
    func text(_ c: TreeColumn, repeating last: inout RepeatedText) throws -> String? {
        let cell = cell(c)
        let type = cell.type
        if type == SQLITE_NULL { return nil }
        guard type == SQLITE_TEXT else { return try text(c) }
        let b = cell.bytes
        if let same = last.text(ifSameAs: b) { return same }
        // A text SQLite holds as UTF-8 is read again in place: `b` stays valid.
        let text = try text(c)
        if let text { last.remember(text, b) }
        return text
    }

    func number(_ c: TreeColumn) throws -> Double? {
        let cell = cell(c)
        switch cell.type {
        case SQLITE_NULL: return nil
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_value_double(cell.value)
        default: throw damaged(c)
        }
    }

    func finite(_ c: TreeColumn) throws -> Double? {
        guard let v = try number(c) else { return nil }
        guard v.isFinite else { throw damaged(c) }
        return v
    }

    /// A finite number, 0 or more (a correction age, a vertical accuracy, an antenna height).
    func nonNegative(_ c: TreeColumn) throws -> Double? {
        guard let v = try number(c) else { return nil }
        guard v.isFinite, v >= 0 else { throw damaged(c) }
        return v
    }

    func int(_ c: TreeColumn) throws -> Int? {
        let cell = cell(c)
        switch cell.type {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER: return Int(sqlite3_value_int64(cell.value))
        default:
            guard case .success(.integer(let v)) = StoredValue.check(value(c), as: .optionalInteger) else { throw damaged(c) }
            return v
        }
    }

    func uuid(_ c: TreeColumn) throws -> UUID? {
        let cell = cell(c)
        guard cell.type != SQLITE_NULL else { return nil }
        guard let id = UUID(text: cell.bytes) else { throw damaged(c) }
        return id
    }

    /// A column holding one of a few names (a source, a status), matched by its bytes, so the
    /// usual row makes no `String` for it: nil for NULL, `.some(nil)` for a name not among them.
    func name<T>(_ c: TreeColumn, among names: [(T, [UInt8])]) throws -> T?? {
        let cell = cell(c)
        let t = cell.type
        if t == SQLITE_NULL { return nil }
        if t == SQLITE_TEXT {
            let b = cell.bytes
            for (value, text) in names where text.count == b.count {
                if text.elementsEqual(b) { return .some(value) }
            }
        }
        // Any other text (or a value of another type) the way every text column is read.
        guard let text = try text(c) else { return nil }
        let bytes = Array(text.utf8)
        return .some(names.first { $0.1 == bytes }?.0)
    }

    /// The date of column `c`, or `date` when `c` holds the very text of column `other`, whose
    /// date it is: a tree's change time and fix time are often its creation time, and comparing
    /// 23 bytes costs less than reading them again.
    func date(_ c: TreeColumn, orSameAs other: TreeColumn, _ date: Date) throws -> Date? {
        let mine = cell(c), theirs = cell(other)
        if mine.type == SQLITE_TEXT, theirs.type == SQLITE_TEXT {
            let a = mine.bytes, b = theirs.bytes
            if a.count == b.count, let pa = a.baseAddress, let pb = b.baseAddress, memcmp(pa, pb, a.count) == 0 { return date }
        }
        return try self.date(c)
    }

    func date(_ c: TreeColumn) throws -> Date? {
        let cell = cell(c)
        let t = cell.type
        guard t != SQLITE_NULL else { return nil }
        if t == SQLITE_TEXT, let d = BulkText.parseDate(cell.bytes) { return d }
        guard case .success(let d) = StoredValue.date(value(c)) else { throw damaged(c) }
        return d
    }
}

/// The last text a statement's rows gave for one column, with its bytes as stored: a column
/// whose rows repeat a few values hands back the same `String` for the same bytes. Made again for
/// every row, a species cost 230 instructions (350 past 15 bytes); compared, about 60.
struct RepeatedText {
    private var bytes: [UInt8] = []
    private var text: String?

    /// The text remembered, when `b` are the bytes it was made from.
    func text(ifSameAs b: UnsafeBufferPointer<UInt8>) -> String? {
        guard let text, b.count == bytes.count else { return nil }
        let same = bytes.withUnsafeBufferPointer { held in
            guard let p = held.baseAddress, let q = b.baseAddress else { return b.isEmpty }
            return memcmp(p, q, b.count) == 0
        }
        return same ? text : nil
    }

    /// Remembers `text`, made from the bytes `b`.
    mutating func remember(_ text: String, _ b: UnsafeBufferPointer<UInt8>) {
        bytes.removeAll(keepingCapacity: true)
        bytes.append(contentsOf: b)
        self.text = text
    }
}

/// The texts of a tree row that often repeat from one tree to the next.
struct RepeatedTreeTexts {
    var species = RepeatedText()
    var variety = RepeatedText()
    var rootstock = RepeatedText()
    var locationSource = RepeatedText()
}

/// The names stored for a tree's sources and statuses, as bytes to match a row's text against.
private enum StoredNames {
    static let accuracySources = AccuracySource.allCases.map { ($0, Array($0.rawValue.utf8)) }
    static let fixStatuses = FixStatus.allCases.map { ($0, Array($0.name.utf8)) }
}
