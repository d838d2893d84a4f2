import ArgumentParser
import Foundation
import TreesKit
import TreesStore
import TreesSync

struct RemoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Manage the PostgreSQL servers this store syncs with. Passwords are never stored.",
        discussion: """
            A remote is a postgres:// URL without a password (postgres://user@host:5432/db?sslmode=verify-full) \
            or a libpq service name from pg_service.conf. Passwords come from PGPASSWORD, ~/.pgpass or the service file; \
            a URL that carries one is refused.
            """,
        subcommands: [Add.self, List.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a remote.")
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("A name for the remote.", valueName: "name")) var name: String
        @Argument(help: ArgumentHelp("A postgres:// URL (no password) or a libpq service name.", valueName: "url-or-service")) var target: String

        func validate() throws {
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
                throw ValidationError("remote names are letters, digits, '-', '_' and '.'")
            }
        }

        func run() async throws {
            let parsed = try RemoteTarget(parsing: target)
            let db = try store.open(forWriting: true, creating: true)
            try db.write { w in try w.addRemote(name: name, target: parsed.stored) }
            Output.line("added remote '\(name)' → \(TerminalText.escaped(parsed.display))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List remotes and when each was last synced.", aliases: ["ls"])
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print a JSON array of remotes.") var json = false

        func run() async throws {
            let db = try store.open()
            let remotes = try db.read { try $0.remotes() }
            if json {
                Output.json(.array(remotes.map { r in
                    .object([("name", .string(r.name)), ("target", .string(RemoteDisplay.masked(r.target))), ("lastSyncAt", .optional(r.lastSyncAt))])
                }))
                return
            }
            guard !remotes.isEmpty else { StandardError.write("no remotes; add one with 'trees remote add NAME URL'\n"); return }
            var table = TextTable(headers: ["NAME", "TARGET", "LAST SYNC"])
            for r in remotes {
                table.rows.append([TerminalText.escaped(r.name), TerminalText.escaped(RemoteDisplay.masked(r.target)), r.lastSyncAt.map { $0.prefix(19) + " UTC" } ?? "never"])
            }
            Output.human(table.render(terminal: .current))
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a remote (the server keeps its data).", aliases: ["remove"])
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The remote's name.", valueName: "name")) var name: String

        func run() async throws {
            let db = try store.open(forWriting: true)
            try db.write { w in try w.removeRemote(named: name) }
            Output.line("removed remote '\(name)'")
        }
    }
}

struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract: "Prepare a PostgreSQL/PostGIS server for team sync.",
        subcommands: [Init.self]
    )

    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Create or upgrade the server's schema (PostGIS, trees, collections, photos, care events and schedules, history, the QGIS layer trees_layer). Safe to run again.")
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("A remote's name, a postgres:// URL (no password) or a libpq service name.", valueName: "remote")) var target: String

        func run() async throws {
            let resolved = try SyncErrors.resolve(target, store: store)
            let (from, to) = try Synchronizer.initServer(resolved)
            if from == to {
                Output.line("\(TerminalText.escaped(resolved.display)): schema version \(to), up to date")
            } else {
                Output.line("\(TerminalText.escaped(resolved.display)): schema version \(from) → \(to); QGIS layer: trees_layer")
            }
        }
    }
}

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Push local changes to a remote and pull everyone else's.",
        discussion: """
            Each field of a tree (position, species, variety, rootstock, notes, collection) keeps the later version; \
            a deleted tree stays deleted. A value is lost only when it was replaced by an edit made without seeing it: \
            an edit made over a pulled value replaces it quietly. Values that lose are kept in the tree's history \
            (trees show ID --history) and listed here. Collections, photos, care events and care schedules travel \
            too (a photo taken for a care event as that event's): a care event, and a schedule of a tree or \
            collection and kind, keep their later version whole. \
            A sync cut short carries on where it stopped when run again.
            """
    )

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The remote (default: the only one).", valueName: "name")) var name: String?
    @Flag(help: "Count what would be pushed and pulled, changing nothing.") var dryRun = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        // A store made here would hold no remote to sync with: a named path must hold a store.
        let db = try store.open(forWriting: !dryRun)
        let remotes = try db.read { try $0.remotes() }
        let remote: String
        if let name {
            remote = name
        } else if remotes.count == 1 {
            remote = remotes[0].name
        } else if remotes.isEmpty {
            throw CLIError("no remotes; add one with 'trees remote add NAME URL'")
        } else {
            throw CLIError("several remotes (\(remotes.map(\.name).joined(separator: ", "))); name the one to sync", status: .usage)
        }
        let showProgress = !json && isatty(STDERR_FILENO) == 1
        var synchronizer = Synchronizer()
        if showProgress {
            synchronizer.progress = { (p: SyncProgress) in
                let total = p.total.map { " of \($0)" } ?? ""
                StandardError.write("\r\(p.phase.rawValue): \(p.done)\(total)   ")
            }
        }
        let report = try synchronizer.sync(db, remote: remote, dryRun: dryRun)
        if showProgress { StandardError.write("\r\u{1B}[K") }
        if json { Output.json(SyncRendering.json(report)) } else { SyncRendering.human(report) }
    }
}

enum SyncRendering {
    static func counts(_ c: SyncReport.Counts) -> JSON {
        .object([("trees", .int(c.trees)), ("collections", .int(c.collections)), ("photos", .int(c.photos)), ("careEvents", .int(c.careEvents)),
                 ("careSchedules", .int(c.careSchedules)), ("deletions", .int(c.deletions))])
    }

    static func json(_ r: SyncReport) -> JSON {
        .object([
            ("remote", .string(r.remote)), ("dryRun", .bool(r.dryRun)),
            ("pushed", counts(r.pushed)), ("pulled", counts(r.pulled)),
            ("photoFiles", .object([("uploaded", .int(r.photoFilesUploaded)), ("downloaded", .int(r.photoFilesDownloaded))])),
            ("conflicts", .array(r.conflicts.map(conflict))),
        ])
    }

    static func conflict(_ c: SyncConflict) -> JSON {
        .object([("tree", .string(c.treeId)), ("field", .string(c.field)), ("reason", .string(c.reason)),
                 ("losingValue", .raw(Array(c.loserValue.utf8))), ("losingDevice", .string(c.loser.device)),
                 ("winningDevice", .string(c.winner.device))])
    }

    static func human(_ r: SyncReport) {
        if r.dryRun {
            Output.line("\(r.remote): would push \(r.pushed.trees) local change\(r.pushed.trees == 1 ? "" : "s") and pull up to \(r.pulled.trees)")
            return
        }
        func text(_ c: SyncReport.Counts) -> String {
            "\(c.trees) tree\(c.trees == 1 ? "" : "s"), \(c.collections) collection\(c.collections == 1 ? "" : "s"), "
                + "\(c.photos) photo\(c.photos == 1 ? "" : "s"), \(c.careEvents) care event\(c.careEvents == 1 ? "" : "s"), "
                + "\(c.careSchedules) care schedule\(c.careSchedules == 1 ? "" : "s"), \(c.deletions) deletion\(c.deletions == 1 ? "" : "s")"
        }
        Output.line("\(TerminalText.escaped(r.remote)): pushed \(text(r.pushed)); pulled \(text(r.pulled))")
        if r.photoFilesUploaded + r.photoFilesDownloaded > 0 {
            Output.line("photo files: \(r.photoFilesUploaded) uploaded, \(r.photoFilesDownloaded) downloaded")
        }
        if !r.conflicts.isEmpty {
            Output.line("\(r.conflicts.count) losing value\(r.conflicts.count == 1 ? "" : "s") kept in history:")
            for c in r.conflicts {
                Output.line("  \(ShortID.of(storageKey: c.treeId))  \(c.field)  \(TerminalText.escaped(c.loserValue))  (\(c.reason == "deleted" ? "tree deleted" : "a later version won"))")
            }
        }
    }
}

/// The remote as shown: a password in a stored target (there should never be one, but an older
/// `trees` took `sslpassword=`) is masked, in the URL's user part or in its query.
enum RemoteDisplay {
    static let secrets: Set<String> = ["password", "sslpassword"]

    static func masked(_ target: String) -> String {
        guard var parts = URLComponents(string: target) else { return target }
        let isSecret = { (item: URLQueryItem) in secrets.contains((item.name.removingPercentEncoding ?? item.name).lowercased()) }
        let query = parts.percentEncodedQueryItems ?? []
        guard parts.password != nil || query.contains(where: isSecret) else { return target }
        if parts.password != nil { parts.password = "****" }
        if query.contains(where: isSecret) {
            parts.percentEncodedQueryItems = query.map { isSecret($0) ? URLQueryItem(name: $0.name, value: "****") : $0 }
        }
        return parts.string ?? "a URL that holds a password"
    }
}

enum SyncErrors {
    /// A remote's name, else a URL or service name.
    static func resolve(_ text: String, store: StoreOptions) throws -> RemoteTarget {
        if FileManager.default.fileExists(atPath: store.resolvedPath), let db = try? store.open(),
           let remote = try? db.read({ try $0.remote(named: text) }) {
            return try RemoteTarget(stored: remote.target)
        }
        return try RemoteTarget(parsing: text)
    }
}
