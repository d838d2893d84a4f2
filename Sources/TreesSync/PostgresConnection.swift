import CPQ
import Foundation
import TreesKit

/// One connection to a PostgreSQL server through libpq, speaking only bound parameters.
///
/// libpq finds the password and TLS settings exactly as `psql` does (`PGPASSWORD`, `~/.pgpass`,
/// `PGSERVICE` and `pg_service.conf`, `sslmode` in the URL or the service), so `trees` never
/// holds a password. Statements take their values as text parameters (`$1`, `$2`, …), never
/// spliced into the SQL; bulk rows go through `COPY … FROM STDIN`.
package final class PostgresConnection {
    private let connection: OpaquePointer
    private let pq: trees_pq
    /// What the connection was opened with, without any password (for messages).
    package let displayName: String

    /// Opens a connection. `target` is a `postgres://` or `postgresql://` URL, or a libpq service name.
    package init(target: RemoteTarget) throws(SyncError) {
        displayName = target.display
        // libpq applies the keywords in order, a later one replacing an earlier: trees' defaults
        // come first so that what the URL sets wins. A service file only fills in what no keyword
        // set, so the name shown to the server is a fallback that yields to the service's own.
        var keys = ["fallback_application_name", "connect_timeout", "keepalives_idle"]
        var values = ["trees", "10", "30"]
        switch target {
        case .url(let url):
            // expand_dbname = 1: a URL given as dbname is parsed as a connection string.
            keys.append("dbname"); values.append(url)
        case .service(let name):
            keys.append("service"); values.append(name)
        }
        let pq = try LibPQ.functions(connecting: target)
        self.pq = pq
        let conn: OpaquePointer? = Self.withCStrings(keys) { k in
            Self.withCStrings(values) { v in pq.PQconnectdbParams(k, v, 1) }
        }
        guard let conn else { throw .connection(target: target.display, reason: "out of memory") }
        if pq.PQstatus(conn) != CONNECTION_OK {
            let reason = Self.message(pq.PQerrorMessage(conn))
            pq.PQfinish(conn)
            throw .connection(target: target.display, reason: reason)
        }
        connection = conn
        // Notices (a server shutting down says so) are not printed on standard error: what matters
        // arrives as the error of the statement that failed.
        _ = pq.PQsetNoticeProcessor(conn, { _, _ in }, nil)
        _ = try? execute("SET client_min_messages = warning")
        _ = try? execute("SET TIME ZONE 'UTC'")
    }

    /// Runs several statements that take no values (schema migrations).
    package func executeScript(_ sql: String) throws(SyncError) {
        _ = try rows(of: pq.PQexec(connection, sql))
    }

    deinit { pq.PQfinish(connection) }

    /// Runs one statement with text parameters (nil is NULL) and returns its rows as text.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?] = []) throws(SyncError) -> PostgresRows {
        let result = Self.withOptionalCStrings(parameters) { values in
            pq.PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try rows(of: result)
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            if pq.PQstatus(connection) == CONNECTION_OK { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Sends rows to `COPY … FROM STDIN` (text format): `write` is called with a sink that takes one row of values at a time.
    package func copyIn(_ sql: String, _ write: (inout CopyRows) throws(SyncError) -> Void) throws(SyncError) {
        let started = pq.PQexec(connection, sql)
        guard pq.PQresultStatus(started) == PGRES_COPY_IN else { _ = try rows(of: started); throw .protocolError("COPY did not start") }
        pq.PQclear(started)
        var sink = CopyRows()
        do {
            try write(&sink)
        } catch {
            _ = pq.PQputCopyEnd(connection, "trees stopped sending")
            drainResults()
            throw error
        }
        try sink.flush(to: connection, pq)
        guard pq.PQputCopyEnd(connection, nil) == 1 else { throw serverError() }
        var last: OpaquePointer?
        while let r = pq.PQgetResult(connection) {
            if let previous = last { pq.PQclear(previous) }
            last = r
        }
        _ = try rows(of: last)
    }

    private func drainResults() { while let r = pq.PQgetResult(connection) { pq.PQclear(r) } }

    private func rows(of result: OpaquePointer?) throws(SyncError) -> PostgresRows {
        guard let result else { throw serverError() }
        defer { pq.PQclear(result) }
        let status = pq.PQresultStatus(result)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let state = pq.PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let primary = pq.PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let text = primary ?? Self.message(pq.PQresultErrorMessage(result))
            // No SQLSTATE means libpq itself failed (the socket closed); class 08 is a connection
            // exception and 57P01–57P03 an administrator's shutdown: the connection is gone either way.
            if pq.PQstatus(connection) != CONNECTION_OK || state.isEmpty || state.hasPrefix("08") || state.hasPrefix("57P") {
                throw .connectionLost(target: displayName, reason: text)
            }
            throw .server(sqlState: state, message: text)
        }
        let rowCount = Int(pq.PQntuples(result)), columnCount = Int(pq.PQnfields(result))
        var values: [String?] = []
        values.reserveCapacity(rowCount * columnCount)
        for r in 0..<Int32(rowCount) {
            for c in 0..<Int32(columnCount) {
                if pq.PQgetisnull(result, r, c) == 1 { values.append(nil) } else { values.append(pq.PQgetvalue(result, r, c).map { String(cString: $0) } ?? "") }
            }
        }
        let affected = pq.PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
        return PostgresRows(columnCount: columnCount, values: values, affected: affected)
    }

    private func serverError() -> SyncError {
        let reason = Self.message(pq.PQerrorMessage(connection))
        if pq.PQstatus(connection) != CONNECTION_OK { return .connectionLost(target: displayName, reason: reason) }
        return .server(sqlState: "", message: reason)
    }

    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        // libpq ends lines with a line feed and indents hints with a tab: one line, no control characters.
        let lines = String(cString: text).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.joined(separator: "; ").replacingOccurrences(of: "\t", with: " ")
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// libpq, opened when the first connection is made (see the CPQ module).
enum LibPQ {
    private static let loaded = LoadedLibrary.load { trees_pq_load($0) }

    /// The functions, or why libpq cannot be used, as a failure to connect to `target`.
    static func functions(connecting target: RemoteTarget) throws(SyncError) -> trees_pq {
        switch loaded {
        case .success(let functions): return functions
        case .failure(let failure):
            throw .connection(target: target.display, reason: "PostgreSQL's client library (libpq) cannot be loaded: \(failure.why)")
        }
    }
}

/// Rows of a result, as text (nil for NULL).
package struct PostgresRows {
    package let columnCount: Int
    let values: [String?]
    /// Rows a command inserted, updated or deleted.
    package let affected: Int

    package var count: Int { columnCount == 0 ? 0 : values.count / columnCount }
    package subscript(row: Int, column: Int) -> String? { values[row * columnCount + column] }
    package var first: [String?]? { count == 0 ? nil : Array(values[0..<columnCount]) }
}

/// Rows for `COPY … FROM STDIN` in text format, buffered and sent in chunks of about 256 KiB.
package struct CopyRows {
    private var buffer: [UInt8] = []

    /// Appends one row; nil is NULL (`\N`), text is escaped as COPY's text format requires.
    package mutating func append(_ row: [String?]) {
        for (i, value) in row.enumerated() {
            if i > 0 { buffer.append(0x09) }
            guard let value else { buffer.append(contentsOf: [0x5C, 0x4E]); continue }
            for byte in value.utf8 {
                switch byte {
                case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
                case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
                default: buffer.append(byte)
                }
            }
        }
        buffer.append(0x0A)
    }

    var pending: Int { buffer.count }
    /// What is buffered, as text (for tests).
    var pendingText: String { String(decoding: buffer, as: UTF8.self) }

    mutating func flush(to connection: OpaquePointer, _ pq: trees_pq) throws(SyncError) {
        guard !buffer.isEmpty else { return }
        let ok = buffer.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { pq.PQputCopyData(connection, $0, Int32(b.count)) }
        }
        buffer.removeAll(keepingCapacity: true)
        if ok != 1 { throw .connectionLost(target: "server", reason: PostgresConnection.message(pq.PQerrorMessage(connection))) }
    }
}
