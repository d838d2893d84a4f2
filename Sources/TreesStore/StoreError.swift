import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// Everything that can go wrong in the tree store, each with a message that says what to do.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case cannotCreate(path: String, reason: String)
    case notATreesDatabase(path: String, reason: String)
    case newerSchema(path: String, migration: String)
    case invalidID(String)
    case unknownTree(String)
    case unknownCareEvent(String)
    case ambiguousCareEvent(prefix: String, candidates: [String])
    case ambiguousTree(prefix: String, candidates: [String])
    case unknownCollection(String, known: [String])
    case duplicateCollection(String)
    /// A name that is, ignoring case, the name of more than one collection (of a store from before
    /// names were compared beyond ASCII); `candidates` are their names.
    case ambiguousCollection(String, candidates: [String])
    case invalidCollectionName(String)
    case database(String)
    /// The database file could not be written: the disk is full, the file system failed or is read-only.
    case storage(String)
    /// Another process kept the store locked for longer than a command waits (SQLite's reason).
    case busy(String)
    /// The database file is damaged: SQLite finds its pages inconsistent (SQLite's reason, with the path when known).
    case damagedFile(String)
    /// A value already in the store cannot be read as what its column holds (written by hand, by an
    /// older version, or damaged): the table, SQLite's row id, the row's id text when it has one,
    /// the column and why.
    case damagedRow(table: String, row: Int64, id: String?, column: String, reason: String)
    /// A value that would be stored as something other than itself (a date outside years 0000 to 9999).
    case unstorable(String)
    /// A tree the store refuses as it is: a position off the Earth, a negative accuracy, an empty
    /// species, a height that is not a finite number. The text says which.
    case invalidTree(String)
    /// A photo file that cannot be read, stored or found.
    case photo(PhotoProblem)
    /// No remote by that name.
    case unknownRemote(String, known: [String])
    /// A remote by that name exists already.
    case duplicateRemote(String)

    /// The error for a failed SQLite call: `storage` for a full disk or an I/O failure, else `database`.
    static func sqlite(code: Int32, message: String) -> StoreError {
        switch code & 0xFF {
        case 5, 6: .busy(message) // SQLITE_BUSY, SQLITE_LOCKED
        case 11: .damagedFile(message) // SQLITE_CORRUPT
        default: isStorageFailure(code: code) ? .storage(message) : .database(message)
        }
    }

    /// The error for a failed GRDB call, with `context` (a path and how it was opened) before
    /// SQLite's message when given.
    static func sqlite(_ error: DatabaseError, context: String? = nil) -> StoreError {
        let message = error.message ?? error.description
        return sqlite(code: error.extendedResultCode.rawValue, message: context.map { "\($0): \(message)" } ?? message)
    }

    /// Any error of a store operation as the store reports it: its own errors as they are, a GRDB
    /// error as `sqlite(_:context:)`, anything else as a database error with its reason.
    static func wrapping(_ error: any Error, context: String? = nil) -> StoreError {
        switch error {
        case let error as StoreError: error
        case let error as DatabaseError: sqlite(error, context: context)
        default: .database(TreeStore.reason(error))
        }
    }

    /// The error for the last failed call on a raw SQLite connection.
    static func sqlite(connection: OpaquePointer?) -> StoreError {
        sqlite(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
    }

    /// True for SQLite result codes (primary or extended) that say the files could not be written
    /// or opened: a full disk, an I/O failure, a read-only file system, files beside the database
    /// that cannot be created. They say nothing about what the database holds.
    static func isStorageFailure(code: Int32) -> Bool {
        switch code & 0xFF {
        case 13, 10, 8, 14: true // SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN
        default: false
        }
    }

    /// `text` as one word of a shell command: as it is when it holds only letters, digits and
    /// `. _ - + , : / @ %`, else in double quotes (single quotes when it holds `" $ \` ` or `!`).
    static func shellWord(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { s in
            (s.isASCII && (CharacterSet.alphanumerics.contains(s) || "._-+,:/@%".unicodeScalars.contains(s)))
        }
        if plain { return text }
        if !text.contains(where: { "\"$`\\!".contains($0) }) { return "\"" + text + "\"" }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    public var description: String {
        switch self {
        case .cannotCreate(let path, let reason):
            "cannot create the database at \(path): \(reason); choose another path with --db or TREES_DB"
        case .notATreesDatabase(let path, let reason):
            "\(path) is not a trees database (\(reason)); choose another path with --db or TREES_DB"
        case .newerSchema(let path, let migration):
            "\(path) was written by a newer trees (unknown migration \(migration)); upgrade trees"
        case .invalidID(let text):
            "'\(TextTools.clipped(text))' is not a tree id; expected hex digits of an id as shown by 'trees list'"
        case .unknownTree(let prefix):
            "no tree with id \(TextTools.clipped(prefix)); 'trees list' shows the ids"
        case .unknownCareEvent(let prefix):
            "no care event with id \(TextTools.clipped(prefix)); 'trees care list' shows the ids"
        case .ambiguousCareEvent(let prefix, let candidates):
            "care event id \(TextTools.clipped(prefix)) is ambiguous; it matches \(candidates.joined(separator: ", ")); type more digits"
        case .ambiguousTree(let prefix, let candidates):
            "id \(TextTools.clipped(prefix)) is ambiguous; it matches \(candidates.joined(separator: ", ")); type more digits"
        case .unknownCollection(let name, let known):
            known.isEmpty
                ? "no collection named '\(TextTools.clipped(name))'" + (name.count > 80 ? "" : "; create it with 'trees collection create \(Self.shellWord(name))'")
                : "no collection named '\(TextTools.clipped(name))'; known: \(known.joined(separator: ", "))"
        case .duplicateCollection(let name):
            "a collection named '\(TextTools.clipped(name))' already exists (names are compared ignoring case)"
        case .ambiguousCollection(let name, let candidates):
            "collection name '\(TextTools.clipped(name))' is ambiguous; it is, ignoring case, the name of "
                + candidates.map { "'\(TextTools.clipped($0))'" }.joined(separator: ", ") + "; type one as it is written ('trees doctor --repair' renames all but one)"
        case .invalidCollectionName(let name):
            "'\(TextTools.clipped(name))' is not a usable collection name; expected non-empty text other than 'none'"
        case .database(let message):
            "database error: \(message)"
        case .storage(let message):
            "cannot write the database: \(message)"
        case .busy(let message):
            "the store is busy (\(message)): another process is writing to it; try again when it has finished"
        case .damagedFile(let message):
            "the store file is damaged (\(message)); restore it from a backup, or save what can still be read "
                + "with: sqlite3 DAMAGED.sqlite .recover | sqlite3 RECOVERED.sqlite"
        case .damagedRow(let table, let row, let id, let column, let reason):
            "the store holds a damaged value: \(table) row \(row)\(id.map { " (id \($0.prefix(40)))" } ?? ""), column \(column): "
                + "\(reason); 'trees doctor' lists damaged rows and 'trees doctor --repair' mends what it can"
        case .unstorable(let reason):
            "cannot store \(reason)"
        case .invalidTree(let problem):
            problem
        case .photo(let problem):
            problem.description
        case .unknownRemote(let name, let known):
            known.isEmpty
                ? "no remote named '\(name)'; add one with 'trees remote add NAME URL'"
                : "no remote named '\(name)'; known: \(known.joined(separator: ", "))"
        case .duplicateRemote(let name):
            "a remote named '\(name)' already exists; remove it first with 'trees remote rm \(name)'"
        }
    }
}
