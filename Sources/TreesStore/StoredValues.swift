import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// What a stored column holds; every value read back is checked against it, so a damaged value
/// (written by hand, by an older version, or by a fault) is named instead of trapping.
enum ColumnKind: Sendable, Equatable {
    /// A UUID as text; never NULL.
    case id
    /// A UUID as text, or NULL.
    case optionalID
    /// Text; never NULL.
    case text
    /// Text with something other than white space in it; never NULL.
    case nonBlankText
    /// Text, or NULL.
    case optionalText
    /// A date the store can hold; never NULL.
    case date
    /// A date the store can hold, or NULL.
    case optionalDate
    /// Degrees, -90…90; never NULL.
    case latitude
    /// Degrees, -180…180; never NULL.
    case longitude
    /// Metres, 0 or more, or NULL.
    case accuracy
    /// A finite number, or NULL.
    case optionalReal
    /// A finite number, 0 or more, or NULL (seconds of a correction age, metres of an antenna height).
    case nonNegativeReal
    /// The short name of a fix status (`FixStatus.name`: `gps`, `rtk-fixed`, …), or NULL.
    case fixStatus
    /// The name of an accuracy source (`AccuracySource`: `gst`, `dop`, …), or NULL.
    case accuracySource
    /// A whole number; never NULL.
    case integer
    /// A whole number, or NULL.
    case optionalInteger

    var isText: Bool { self == .text || self == .optionalText || self == .nonBlankText }

    /// Text, an id or a name (kept as text): what a NUL character would cut short.
    var holdsText: Bool { isText || self == .id || self == .optionalID || self == .fixStatus || self == .accuracySource }

    var isNullable: Bool {
        switch self {
        case .optionalID, .optionalText, .optionalDate, .accuracy, .optionalReal, .optionalInteger, .nonNegativeReal, .fixStatus,
             .accuracySource: true
        default: false
        }
    }
}

/// A checked column value.
enum ColumnValue: Equatable {
    case null
    case text(String)
    case id(UUID)
    case date(Date)
    case real(Double)
    case integer(Int)
}

/// Why a stored value is not what its column holds.
struct ColumnProblem: Error, Equatable {
    var reason: String
}

/// Reading stored values back, checked.
enum StoredValue {
    /// `value` checked against `kind`.
    static func check(_ value: DatabaseValue, as kind: ColumnKind) -> Result<ColumnValue, ColumnProblem> {
        if value.isNull {
            return kind.isNullable ? .success(.null) : .failure(ColumnProblem(reason: "it is empty (NULL)"))
        }
        switch kind {
        case .id, .optionalID:
            guard let text = self.text(value) else { return .failure(ColumnProblem(reason: "\(shown(value)) is not a UUID")) }
            var t = text
            guard let id = t.withUTF8({ UUID(text: $0) }) else { return .failure(ColumnProblem(reason: "\(shown(value)) is not a UUID")) }
            return .success(.id(id))
        case .text, .optionalText:
            guard let text = self.text(value) else { return .failure(ColumnProblem(reason: "\(shown(value)) is not text")) }
            guard !hasNUL(text) else { return .failure(ColumnProblem(reason: Self.nulReason)) }
            return .success(.text(text))
        case .nonBlankText:
            guard let text = self.text(value) else { return .failure(ColumnProblem(reason: "\(shown(value)) is not text")) }
            guard !hasNUL(text) else { return .failure(ColumnProblem(reason: Self.nulReason)) }
            guard !isBlank(text) else { return .failure(ColumnProblem(reason: "it is blank")) }
            return .success(.text(text))
        case .date, .optionalDate:
            return date(value).map(ColumnValue.date)
        case .fixStatus:
            guard let text = self.text(value), !hasNUL(text) else { return .failure(ColumnProblem(reason: "\(shown(value)) is not a fix status")) }
            guard fixStatus(named: text) != nil else {
                return .failure(ColumnProblem(reason: "\(shown(value)) is not a fix status; expected one of \(FixStatus.allCases.map(\.name).joined(separator: ", "))"))
            }
            return .success(.text(text))
        case .accuracySource:
            guard let text = self.text(value), !hasNUL(text), AccuracySource(rawValue: text) != nil else {
                return .failure(ColumnProblem(reason: "\(shown(value)) is not an accuracy source; expected one of \(AccuracySource.allCases.map(\.rawValue).joined(separator: ", "))"))
            }
            return .success(.text(text))
        case .latitude, .longitude, .accuracy, .optionalReal, .nonNegativeReal:
            guard let v = number(value) else { return .failure(ColumnProblem(reason: "\(shown(value)) is not a number")) }
            let problem: String? = switch kind {
            case .latitude: CoordinateCheck.latitudeProblem(v)
            case .longitude: CoordinateCheck.longitudeProblem(v)
            case .accuracy: CoordinateCheck.accuracyProblem(v)
            case .nonNegativeReal: !v.isFinite ? "\(v) is not a finite number" : v < 0 ? "\(shown(value)) is negative; expected 0 or more" : nil
            default: v.isFinite ? nil : "\(v) is not a finite number"
            }
            if let problem { return .failure(ColumnProblem(reason: problem)) }
            return .success(.real(v))
        case .integer, .optionalInteger:
            switch value.storage {
            case .int64(let i): return .success(.integer(Int(i)))
            case .double(let d) where d.isFinite && d == d.rounded() && d.magnitude < 9e15: return .success(.integer(Int(d)))
            default: return .failure(ColumnProblem(reason: "\(shown(value)) is not a whole number"))
            }
        }
    }

    /// A stored date: the store's `yyyy-MM-dd HH:mm:ss.SSS` text (or another form SQLite date
    /// functions and GRDB write), within the span a store holds.
    static func date(_ value: DatabaseValue) -> Result<Date, ColumnProblem> {
        let parsed: Date?
        switch value.storage {
        case .string(let s):
            var s = s
            parsed = s.withUTF8 { BulkText.parseDate($0) } ?? Date.fromDatabaseValue(value)
        case .int64, .double:
            parsed = Date.fromDatabaseValue(value)
        case .blob, .null:
            parsed = nil
        }
        guard let parsed else {
            if case .string(let s) = value.storage, looksLikeFarDate(s) {
                return .failure(ColumnProblem(reason: "\(shown(value)) is outside \(StorableDates.span)"))
            }
            return .failure(ColumnProblem(reason: "\(shown(value)) is not a date"))
        }
        if let problem = StorableDates.problem(parsed, text: text(value)) { return .failure(ColumnProblem(reason: problem)) }
        // The store keeps milliseconds: a date written in another form (more digits, or a day's
        // 24:00) reads as the whole millisecond every write would keep, computed as the store's
        // own text is read, so reading it back after a write gives the very same value.
        return .success(StoredDate.normalised(parsed))
    }

    /// The fix status stored under `name`: its short name exactly as `FixStatus.name` writes it.
    static func fixStatus(named name: String) -> FixStatus? {
        FixStatus.allCases.first { $0.name == name }
    }

    /// True for date text whose year has a sign or more than four digits (`12345-01-01 …`).
    static func looksLikeFarDate(_ s: String) -> Bool {
        var digits = s.utf8.drop { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }
        let signed = digits.count < s.utf8.count
        var n = 0
        while let c = digits.first, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") { n += 1; digits = digits.dropFirst() }
        return n >= 4 && digits.first == UInt8(ascii: "-") && (signed || n > 4)
    }

    /// Text of a TEXT value, or of a BLOB holding valid UTF-8; numbers as SQLite prints them.
    /// Why text holding a NUL character is not a stored value: SQLite's text functions and the
    /// statements that bind Swift strings stop at it, so it would not be written back whole.
    static let nulReason = "it contains a NUL character (U+0000)"

    /// What follows `SELECT` to read a row of `table` checked: `rowid`, every column, and for each
    /// text column a `nul:COLUMN` column holding the text's bytes when it has a NUL character (GRDB
    /// reads text only up to a NUL, so such a value would otherwise look shorter than it is).
    static func selection(_ table: String, _ columns: [(String, ColumnKind)]) -> String {
        var parts = ["\(table).rowid", "\(table).*"]
        for (column, kind) in columns where kind.holdsText {
            let c = "\(table).\(column)"
            parts.append("CASE WHEN typeof(\(c)) = 'text' AND instr(CAST(\(c) AS BLOB), X'00') > 0 THEN CAST(\(c) AS BLOB) END AS \"nul:\(column)\"")
        }
        return parts.joined(separator: ", ")
    }

    /// The whole bytes of a text value of `row` that holds a NUL character, from `selection`'s
    /// `nul:COLUMN`, or of a blob holding one; nil when the value holds none.
    static func bytesWithNUL(_ row: Row, _ column: String) -> Data? {
        if let bytes = row["nul:\(column)"] as Data? { return bytes }
        if case .blob(let d) = (row[column] as DatabaseValue).storage, d.contains(0) { return d }
        return nil
    }

    /// True when `text` holds a NUL character.
    static func hasNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { hasNUL($0) }
    }

    /// True when `bytes` hold a NUL byte.
    static func hasNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return false }
        return memchr(base, 0, bytes.count) != nil
    }

    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .string(let s): s
        case .blob(let d): String(validating: d, as: UTF8.self)
        case .int64(let i): String(i)
        case .double(let d): String(d)
        case .null: nil
        }
    }

    static func number(_ value: DatabaseValue) -> Double? {
        switch value.storage {
        case .int64(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { c in
            c.isASCII ? (c == " " || (c.value >= 0x09 && c.value <= 0x0D)) : c.properties.isWhitespace
        }
    }

    /// A stored value as a message quotes it: text in quotes (shortened, control characters
    /// escaped), a blob by its size, numbers as they are.
    static func shown(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .string(let s): "\"\(TerminalText.escaped(String(s.prefix(60))))\""
        case .blob(let d): "a blob of \(d.count) bytes"
        case .int64(let i): String(i)
        case .double(let d): String(d)
        case .null: "NULL"
        }
    }
}

/// A row read with `SELECT rowid, …`: its values checked column by column, failing with the
/// table, row and column of the first damaged value.
///
/// Read from GRDB's row by column name, or straight from SQLite's statement by column position
/// (`init(table:statement:columns:)`), which a long listing's rows take: the same checks without
/// looking each name up. A statement row needs no `nul:` columns (`StoredValue.selection`): a
/// text's bytes are looked at where SQLite holds them.
struct CheckedRow {
    let table: String
    private let row: Row?
    private let statement: OpaquePointer?
    private let columns: [String: Int32]

    init(table: String, row: Row) {
        self.table = table
        self.row = row
        statement = nil
        columns = [:]
    }

    /// The row `statement` stands on, whose column `columns[name]` holds `name` (`rowid`, `id`, …).
    init(table: String, statement: OpaquePointer, columns: [String: Int32]) {
        self.table = table
        row = nil
        self.statement = statement
        self.columns = columns
    }

    private func databaseValue(_ column: String) -> DatabaseValue {
        if let row { return row[column] as DatabaseValue }
        guard let statement, let i = columns[column] else { return .null }
        return DatabaseValue(sqliteStatement: statement, index: i)
    }

    var rowID: Int64 { databaseValue("rowid").storage.int64Value ?? 0 }

    /// The row's `id` text, for messages, when it has one.
    var idText: String? { StoredValue.text(databaseValue("id")) }

    func value(_ column: String, _ kind: ColumnKind) throws -> ColumnValue {
        let value = databaseValue(column)
        let nul: Bool
        if let row {
            nul = kind.holdsText && StoredValue.bytesWithNUL(row, column) != nil
        } else if kind.holdsText, case .blob(let d) = value.storage {
            nul = d.contains(0)
        } else if kind.holdsText, let statement, let i = columns[column], sqlite3_column_type(statement, i) == SQLITE_TEXT,
                  let text = sqlite3_column_text(statement, i) {
            // A text's own bytes, NUL and all (the value above ends at its first NUL).
            nul = StoredValue.hasNUL(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, i))))
        } else {
            nul = false
        }
        if nul {
            throw StoreError.damagedRow(table: table, row: rowID, id: idText, column: column, reason: StoredValue.nulReason)
        }
        switch StoredValue.check(value, as: kind) {
        case .success(let v): return v
        case .failure(let p):
            throw StoreError.damagedRow(table: table, row: rowID, id: idText, column: column, reason: p.reason)
        }
    }

    func id(_ column: String) throws -> UUID {
        guard case .id(let v) = try value(column, .id) else { throw unreachable(column) }
        return v
    }

    func optionalID(_ column: String) throws -> UUID? {
        switch try value(column, .optionalID) {
        case .null: return nil
        case .id(let v): return v
        default: throw unreachable(column)
        }
    }

    func optionalText(_ column: String) throws -> String? {
        switch try value(column, .optionalText) {
        case .null: return nil
        case .text(let v): return v
        default: throw unreachable(column)
        }
    }

    func optionalReal(_ column: String) throws -> Double? {
        switch try value(column, .optionalReal) {
        case .null: return nil
        case .real(let v): return v
        default: throw unreachable(column)
        }
    }

    func text(_ column: String, _ kind: ColumnKind = .text) throws -> String {
        guard case .text(let v) = try value(column, kind) else { throw unreachable(column) }
        return v
    }

    func date(_ column: String) throws -> Date {
        guard case .date(let v) = try value(column, .date) else { throw unreachable(column) }
        return v
    }

    func integer(_ column: String) throws -> Int {
        guard case .integer(let v) = try value(column, .integer) else { throw unreachable(column) }
        return v
    }

    private func unreachable(_ column: String) -> StoreError {
        .damagedRow(table: table, row: rowID, id: idText, column: column, reason: "unexpected value")
    }
}

extension DatabaseValue.Storage {
    var int64Value: Int64? {
        if case .int64(let i) = self { return i }
        return nil
    }
}
