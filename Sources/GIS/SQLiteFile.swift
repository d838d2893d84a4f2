import Foundation
import GRDBSQLite

/// One SQLite connection to a GeoPackage, through the C API of the SQLite the store uses, with
/// statements prepared once and bound per row (a million rows stream through one statement).
final class SQLiteFile {
    let handle: OpaquePointer
    /// The file as errors name it.
    let name: String

    /// Opens `path`; `create` makes a new database there (an empty file counts as new).
    ///
    /// A file only read is left as it was found: a WAL-mode file whose whole content is in the
    /// file itself (no `-wal` beside it, or an empty one) is opened as immutable, so that SQLite
    /// makes no `-wal` and `-shm` files beside it, and a file on read-only media or in a folder
    /// this user may not write to can be read too.
    init(path: String, name: String, create: Bool) throws(GISError) {
        var db: OpaquePointer?
        var flags = create ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY
        var target = path
        if !create, Self.isWALModeWithoutLog(path), let uri = Self.immutableURI(path) {
            target = uri
            flags |= SQLITE_OPEN_URI
        }
        let rc = sqlite3_open_v2(target, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw .sqlite(file: name, reason: reason)
        }
        handle = db
        self.name = name
    }

    deinit { sqlite3_close_v2(handle) }

    /// Whether `path` is an SQLite file in WAL mode (bytes 18 and 19 of its header are 2) with
    /// no write-ahead log holding changes beside it.
    static func isWALModeWithoutLog(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        guard let header = try? file.read(upToCount: 20), header.count == 20,
              header.starts(with: Array("SQLite format 3\0".utf8)), header[18] == 2, header[19] == 2 else { return false }
        return logBytes(path) == 0
    }

    /// The size of the write-ahead log beside `path` (0 when there is none).
    static func logBytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
    }

    /// `path` as an SQLite URI that opens it read-only and immutable.
    static func immutableURI(_ path: String) -> String? {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        guard let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) else { return nil }
        return "file:" + escaped + "?mode=ro&immutable=1"
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }

    func execute(_ sql: String) throws(GISError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let reason = message.map { String(cString: $0) } ?? lastError
            sqlite3_free(message)
            throw .sqlite(file: name, reason: reason)
        }
    }

    func prepare(_ sql: String) throws(GISError) -> Statement {
        var s: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &s, nil) == SQLITE_OK, let s else {
            throw .sqlite(file: name, reason: lastError)
        }
        return Statement(s, file: self)
    }

    /// A prepared statement: bind, step, read columns, reset.
    final class Statement {
        let handle: OpaquePointer
        private unowned let file: SQLiteFile

        init(_ handle: OpaquePointer, file: SQLiteFile) { self.handle = handle; self.file = file }
        deinit { sqlite3_finalize(handle) }

        func bind(_ index: Int32, _ text: String?) {
            guard let text else { sqlite3_bind_null(handle, index); return }
            var t = text
            t.withUTF8 { p in
                _ = p.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), transient) }
            }
        }

        /// Binds UTF-8 text from bytes (copied by SQLite at once).
        func bind(_ index: Int32, utf8 bytes: UnsafePointer<UInt8>, count: Int) {
            bytes.withMemoryRebound(to: CChar.self, capacity: count) { _ = sqlite3_bind_text(handle, index, $0, Int32(count), transient) }
        }

        func bind(_ index: Int32, _ value: Double?) {
            guard let value, value.isFinite else { sqlite3_bind_null(handle, index); return }
            sqlite3_bind_double(handle, index, value)
        }

        func bind(_ index: Int32, _ value: Int?) {
            guard let value else { sqlite3_bind_null(handle, index); return }
            sqlite3_bind_int64(handle, index, Int64(value))
        }

        func bind(_ index: Int32, blob: [UInt8]) {
            blob.withUnsafeBytes { _ = sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
        }

        /// Runs a statement that returns no rows, then resets it for the next.
        func run() throws(GISError) {
            let rc = sqlite3_step(handle)
            sqlite3_reset(handle)
            guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw .sqlite(file: file.name, reason: file.lastError) }
        }

        /// Steps to the next row; false at the end.
        func next() throws(GISError) -> Bool {
            switch sqlite3_step(handle) {
            case SQLITE_ROW: return true
            case SQLITE_DONE: return false
            default: throw .sqlite(file: file.name, reason: file.lastError)
            }
        }

        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

        func text(_ column: Int32) -> String? {
            guard let p = sqlite3_column_text(handle, column) else { return nil }
            return String(cString: p)
        }

        func double(_ column: Int32) -> Double? {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER, SQLITE_FLOAT: sqlite3_column_double(handle, column)
            case SQLITE_TEXT: text(column).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            default: nil
            }
        }

        func int(_ column: Int32) -> Int64? {
            switch sqlite3_column_type(handle, column) {
            case SQLITE_INTEGER: sqlite3_column_int64(handle, column)
            case SQLITE_FLOAT: Int64(exactly: sqlite3_column_double(handle, column))
            case SQLITE_TEXT: text(column).flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            default: nil
            }
        }

        /// The column's text as bytes, valid until the next step; nil for NULL.
        func textBytes(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
            guard let p = sqlite3_column_text(handle, column) else { return nil }
            return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, column)))
        }

        /// The column's bytes as a blob, valid until the next step.
        func blob(_ column: Int32) -> UnsafeRawBufferPointer? {
            guard sqlite3_column_type(handle, column) == SQLITE_BLOB else { return nil }
            let n = Int(sqlite3_column_bytes(handle, column))
            guard let p = sqlite3_column_blob(handle, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
            return UnsafeRawBufferPointer(start: p, count: n)
        }
    }
}

/// SQLite's "copy the bytes now" destructor.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

extension String {
    /// The name quoted as an SQL identifier.
    var sqlIdentifier: String { "\"" + replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    /// The text quoted as an SQL string literal.
    var sqlLiteral: String { "'" + replacingOccurrences(of: "'", with: "''") + "'" }
}
