import ArgumentParser
import Foundation
import TreesKit
import TreesStore

/// `--db PATH`, shared by every command that touches the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The trees database (default: $TREES_DB, else $XDG_DATA_HOME/trees/trees.sqlite, else ~/.local/share/trees/trees.sqlite).",
        valueName: "path"))
    var db: String?

    /// The database path after --db, TREES_DB and the XDG default.
    var resolvedPath: String { resolved.path }

    /// The database path, and where it was named: `--db`, `$TREES_DB`, or nil for the default.
    private var resolved: (path: String, namedBy: String?) {
        let env = ProcessInfo.processInfo.environment
        if let db, !db.isEmpty { return (db, "--db") }
        if let path = env["TREES_DB"], !path.isEmpty { return (path, "$TREES_DB") }
        return (TreeStore.defaultPath(environment: env), nil)
    }

    /// Opens the store. A store this user may read but not write opens for reading; `forWriting`
    /// refuses it at once instead of at the first write. With `unseenWhenNew`, a store that does not
    /// exist yet is made for one bulk write to fill and publish (see
    /// `TreeStore.init(path:clock:busyTimeout:unseenWhenNew:)`).
    ///
    /// Only a command that brings something in (`creating`: capture, add, import without
    /// `--dry-run`, a collection, a remote) makes a store where none is. Any other refuses a path named by `--db` or
    /// `$TREES_DB` that holds no store (exit 66) and leaves nothing there: a mistyped path is not
    /// an empty store. The default store is made on first use by every command.
    func open(forWriting: Bool = false, unseenWhenNew: Bool = false, creating: Bool = false) throws -> TreeStore {
        let (path, namedBy) = resolved
        if !creating, let namedBy, !FileManager.default.fileExists(atPath: path) {
            throw CLIError("no store at \(path) (named by \(namedBy)); trees import, add or capture makes one",
                           status: .noInput)
        }
        let store = try openStore(unseenWhenNew: unseenWhenNew)
        if forWriting && store.isReadOnly {
            throw CLIError.from(StoreError.storage("\(store.path) is read-only for this user (the file or its folder cannot be written)"))
        }
        return store
    }

    private func openStore(unseenWhenNew: Bool) throws -> TreeStore {
        do {
            return try TreeStore(path: resolvedPath, clock: Self.clock, unseenWhenNew: unseenWhenNew)
        } catch {
            throw CLIError.from(error)
        }
    }

    /// Record time stamps come from the system clock, or from `TREES_NOW` (ISO 8601) for reproducible runs.
    /// For tests only, `TREES_CLOCK_OFFSET` (seconds, may be negative) moves the system clock, to play a
    /// laptop whose clock is wrong.
    static var clock: WallClock {
        let env = ProcessInfo.processInfo.environment
        if let text = env["TREES_NOW"], let date = ISOTime.parse(text) {
            return .fixed(date)
        }
        if let text = env["TREES_CLOCK_OFFSET"], let offset = Double(text), offset.isFinite {
            return WallClock { Date().addingTimeInterval(offset) }
        }
        return .system
    }
}
