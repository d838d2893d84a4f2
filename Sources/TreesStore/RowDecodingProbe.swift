import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// The store's row decoding, driven with values of one's choosing, for coverage-guided fuzzing
/// (`Fuzz/Sources/FuzzStore`). Rows go into an in-memory database with the store's own schema
/// (every migration) and are read back by the very code `trees list`, `show` and `export` use,
/// so each input costs a few statements instead of a store file's transactions.
///
/// Every call checks the promises the store makes about what it reads back, and reports a broken
/// one as a `Violation` (a fuzzer turns it into a crash):
/// - decoding never traps: a damaged value is a `StoreError.damagedRow` naming its column;
/// - decoding and `trees doctor`'s column checks agree on every row: a row that reads is one the
///   doctor finds sound, and a row that does not read is one the doctor finds damaged, in the
///   column the error names (else `doctor --repair` could leave a store that cannot be listed);
/// - what reads back can be written back: it passes the checks every write makes, and writing
///   and reading it again gives the same value;
/// - a tree read as one of many rows, its texts matched against those of the row read before it
///   (the tree of the call before), is the tree read alone.
@_spi(Fuzzing)
public final class RowDecodingProbe {
    /// A promise the store's reading broke, with what broke it.
    public struct Violation: Error, CustomStringConvertible {
        public let description: String
    }

    /// How a row read back.
    public enum Outcome: Equatable, Sendable {
        case read
        case damaged(column: String)
        /// SQLite itself refused to keep the row (a constraint of the schema).
        case refusedByTheSchema
    }

    private let queue: DatabaseQueue
    /// The texts of the last tree read as one of many rows: every call's tree is read once so, as
    /// the row after the one before, beside being read alone.
    private var texts = RepeatedTreeTexts()

    public init() throws {
        var config = Configuration()
        // The rows stand alone: a tree's collection or a photo's tree need not exist.
        config.foreignKeysEnabled = false
        queue = try DatabaseQueue(configuration: config)
        try Schema.migrator.migrate(queue)
    }

    /// The number of columns a tree row has (`Tree.storageColumns`, in that order).
    public static var treeColumnCount: Int { TreeColumn.allCases.count }
    /// The column names of a collection row, in order.
    public static var collectionColumns: [String] { TreeCollection.columns.map(\.0) }
    /// The column names of a photo row, in order.
    public static var photoColumns: [String] { Photo.columns.map(\.0) }

    /// Stores `values` as the only tree row and reads it back.
    public func tree(_ values: [DatabaseValue]) throws -> Outcome {
        precondition(values.count == Self.treeColumnCount)
        return try queue.inDatabase { db in
            guard try replace(db, table: "tree", sql: Tree.insertSQL, values) else { return .refusedByTheSchema }
            let (read, stored) = try readTree(db)
            let problems = try columnProblems(db, table: "tree", columns: Array(zip(Tree.storageColumns, Tree.columnKinds)))
            switch read {
            case .success(let tree):
                let inSequence = try readTree(db, texts: &texts)
                guard case .success(let same) = inSequence.0, same == tree else {
                    throw Violation(description: "a tree read after another reads as \(inSequence.0), alone as \(tree): \(stored)")
                }
                guard problems.isEmpty else {
                    throw Violation(description: "a tree read back although the doctor finds \(problems) damaged: \(stored)")
                }
                do { try StoreWriter.check(tree) } catch {
                    throw Violation(description: "a tree read back that no write accepts (\(error)): \(stored)")
                }
                guard try replace(db, table: "tree", sql: Tree.insertSQL, tree.storageValues.map { $0?.databaseValue ?? .null }) else {
                    throw Violation(description: "the schema refuses a tree that read back: \(tree)")
                }
                let (again, written) = try readTree(db)
                guard case .success(let back) = again, back == tree else {
                    let changed = Tree.storageColumns.indices.filter { written[$0] != stored[$0] }
                        .map { "\(Tree.storageColumns[$0]): \(stored[$0]) became \(written[$0])" }
                    let fields = { (t: Tree) in Mirror(reflecting: t).children.map { "\($0.label ?? ""): \($0.value)" } }
                    let differing = again.map { b in zip(fields(tree), fields(b)).filter { $0.0 != $0.1 }.map { "\($0.0) became \($0.1)" } }
                    throw Violation(description: "a tree written back reads as another: \(differing); stored \(changed.joined(separator: "; "))")
                }
                return .read
            case .failure(let error):
                guard case .damagedRow(let table, _, _, let column, _) = error, table == "tree" else {
                    throw Violation(description: "a damaged tree row gave \(error), not a damaged row: \(stored)")
                }
                guard problems.contains(column) else {
                    throw Violation(description: "reading names \(column) but the doctor finds \(problems) damaged: \(stored)")
                }
                return .damaged(column: column)
            }
        }
    }

    /// Stores `values` as the only collection row and reads it back.
    public func collection(_ values: [DatabaseValue]) throws -> Outcome {
        try other(table: "collection", columns: TreeCollection.columns, values) { try TreeCollection(row: $0) }
    }

    /// Stores `values` as the only photo row and reads it back.
    public func photo(_ values: [DatabaseValue]) throws -> Outcome {
        try other(table: "photo", columns: Photo.columns, values) { try Photo(row: $0) }
    }

    private func other<Value>(table: String, columns: [(String, ColumnKind)], _ values: [DatabaseValue],
                              decode: (Row) throws -> Value) throws -> Outcome {
        precondition(values.count == columns.count)
        let sql = "INSERT INTO \(table) (\(columns.map(\.0).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        return try queue.inDatabase { db in
            guard try replace(db, table: table, sql: sql, values) else { return .refusedByTheSchema }
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(StoredValue.selection(table, columns)) FROM \(table)")) else {
                throw Violation(description: "a stored \(table) row is gone")
            }
            let problems = try columnProblems(db, table: table, columns: columns)
            do {
                _ = try decode(row)
                guard problems.isEmpty else { throw Violation(description: "a \(table) row read back although the doctor finds \(problems) damaged: \(row)") }
                return .read
            } catch StoreError.damagedRow(let t, _, _, let column, _) where t == table {
                guard problems.contains(column) else {
                    throw Violation(description: "reading names \(column) but the doctor finds \(problems) damaged: \(row)")
                }
                return .damaged(column: column)
            }
        }
    }

    /// Makes `values` the table's only row; false when SQLite refuses them.
    private func replace(_ db: Database, table: String, sql: String, _ values: [DatabaseValue]) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM \(table)").execute()
        do {
            try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values))
            return true
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            return false
        }
    }

    /// The only tree row, decoded as every listing decodes it, and the values it holds.
    private func readTree(_ db: Database) throws -> (Result<Tree, StoreError>, [DatabaseValue]) {
        var alone = RepeatedTreeTexts()
        return try readTree(db, texts: &alone)
    }

    /// The same, its texts matched against `texts` (those of the row read before).
    private func readTree(_ db: Database, texts: inout RepeatedTreeTexts) throws -> (Result<Tree, StoreError>, [DatabaseValue]) {
        let statement = try db.cachedStatement(sql: "SELECT \(Tree.storageColumnList), rowid FROM tree")
        let s = statement.sqliteStatement
        defer { sqlite3_reset(s) }
        guard sqlite3_step(s) == SQLITE_ROW else { throw Violation(description: "a stored tree row is gone") }
        let stored = (0..<Int32(Self.treeColumnCount)).map { DatabaseValue(sqliteStatement: s, index: $0) }
        do {
            return (.success(try Tree(statement: s, texts: &texts)), stored)
        } catch let error as StoreError {
            return (.failure(error), stored)
        }
    }

    /// The columns of the table's only row that `trees doctor` finds damaged.
    private func columnProblems(_ db: Database, table: String, columns: [(String, ColumnKind)]) throws -> Set<String> {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(StoredValue.selection(table, columns)) FROM \(table)")) else { return [] }
        return Set(StoreDoctor(db: db, now: Date(timeIntervalSince1970: 0)).examine(row: row, table: table, columns: columns)
            .compactMap(\.finding.column))
    }
}
