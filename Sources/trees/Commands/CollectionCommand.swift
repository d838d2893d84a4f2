import ArgumentParser
import Foundation
import TreesKit
import TreesStore

struct CollectionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collection",
        abstract: "Manage collections (orchard blocks, streets, surveys). Names are unique ignoring case, in any script.",
        subcommands: [Create.self, List.self, Show.self, Rename.self, Remove.self, AddTrees.self, RemoveTrees.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create", abstract: "Create a collection.")
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The new collection's name.", valueName: "name")) var name: String
        @Flag(help: "Print the collection as JSON.") var json = false

        func run() async throws {
            // A name that cannot be is refused before a store is made for it.
            do { _ = try StoreWriter.validName(name) } catch { throw CLIError.from(error) }
            let db = try store.open(creating: true)
            let c = try db.write { w in try w.createCollection(named: name) }
            if json { Output.json(c.json(treeCount: 0)) } else { Output.line("created collection '\(c.name)'") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List collections alphabetically, with tree counts.", aliases: ["ls"])
        @OptionGroup var store: StoreOptions
        @Flag(help: "Print a JSON array of collections.") var json = false

        func run() async throws {
            let db = try store.open()
            let all = try db.collections()
            if json {
                Output.json(.array(all.map { $0.collection.json(treeCount: $0.treeCount) }))
                return
            }
            guard !all.isEmpty else { StandardError.write("no collections\n"); return }
            var table = TextTable(headers: ["NAME", "TREES", "CREATED"])
            for s in all { table.rows.append([TerminalText.escaped(s.collection.name), String(s.treeCount), Format.date(s.collection.createdAt)]) }
            Output.human(table.render(terminal: .current))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show a collection and its trees.")
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The collection's name.", valueName: "name")) var name: String
        @Flag(help: "Print the collection and its trees as JSON.") var json = false

        func run() async throws {
            let db = try store.open()
            let terminal = Terminal.current
            try db.read { r in
                let c = try r.collection(named: name)
                // Its trees are written as they are read (twice for the table: once to measure its
                // columns, once to write them), never held all at once: a collection may hold a
                // million surveyed trees.
                let filter = TreeFilter(collection: .collection(c.id))
                if json {
                    var head = Array("{\n  \"collection\": ".utf8)
                    c.json(treeCount: try r.count(filter)).write(to: &head, indent: 2, level: 1)
                    head.append(contentsOf: ",\n  \"trees\": ".utf8)
                    var array = JSONArrayStream(level: 1, after: head)
                    try r.forEachTree(filter) { array.append($0.json(collectionName: c.name)) }
                    array.finish(then: "\n}\n")
                    return
                }
                func cells(_ t: Tree) -> [String] {
                    [t.shortID, TerminalText.escaped(t.species), TerminalText.escaped(t.variety ?? ""), terminal.badge(metres: t.horizontalAccuracy),
                     Format.date(t.createdAt)]
                }
                var table = StreamedTable(headers: ["ID", "SPECIES", "VARIETY", "ACCURACY", "CREATED"], terminal: terminal)
                var counts: [String: Int] = [:]
                try r.forEachTree(filter) { t in
                    counts[t.species, default: 0] += 1
                    table.measure(cells(t))
                }
                let n = table.count
                Output.line("\(terminal.bold(TerminalText.escaped(c.name))): \(n) tree\(n == 1 ? "" : "s"), created \(Format.date(c.createdAt))")
                if !counts.isEmpty {
                    Output.line(counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\(TerminalText.escaped($0.key)) \($0.value)" }.joined(separator: ", "))
                    table.writeHeader()
                    try r.forEachTree(filter) { table.write(cells($0)) }
                    table.flush()
                }
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename a collection.")
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The current name.", valueName: "old")) var old: String
        @Argument(help: ArgumentHelp("The new name.", valueName: "new")) var new: String

        func run() async throws {
            let db = try store.open()
            let c = try db.write { w in try w.renameCollection(old, to: new) }
            Output.line("renamed '\(old)' to '\(c.name)'")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm", abstract: "Delete a collection; its trees stay, in no collection.", aliases: ["remove-collection"])
        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The collection's name.", valueName: "name")) var name: String
        @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

        func run() async throws {
            let db = try store.open()
            let c = try db.collection(named: name)
            if !yes {
                guard Terminal.current.stdinIsTTY else {
                    throw CLIError("refusing to delete collection '\(c.name)' without confirmation; add --yes", status: .usage)
                }
                guard Confirm.ask("Delete collection '\(c.name)'? Its trees stay, in no collection.") else {
                    StandardError.write("nothing deleted\n")
                    return
                }
            }
            let count = try db.write { w in try w.deleteCollection(named: c.name) }
            Output.line("deleted collection '\(c.name)'; its \(count) \(count == 1 ? "tree is" : "trees are") now in no collection")
        }
    }

    struct AddTrees: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Put trees into a collection.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var members: CollectionMembers

        func run() async throws {
            let (c, changed) = try members.change(in: store.open()) { w, c, trees in
                let changed = try w.assign(trees.map(\.id), to: c.id)
                try w.setPreference(.lastCollection, c.id.lowercaseText)
                return changed
            }
            Output.line("added \(changed) tree\(changed == 1 ? "" : "s") to '\(c.name)'")
        }
    }

    struct RemoveTrees: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Take trees out of a collection (the trees stay).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var members: CollectionMembers

        func run() async throws {
            let (c, changed) = try members.change(in: store.open()) { w, c, trees in
                let outside = trees.filter { $0.collectionID != c.id }.map(\.shortID)
                if !outside.isEmpty {
                    throw CLIError("tree \(outside.joined(separator: ", ")) is not in '\(c.name)'; nothing changed")
                }
                return try w.assign(trees.map(\.id), to: nil)
            }
            Output.line("removed \(changed) tree\(changed == 1 ? "" : "s") from '\(c.name)'")
        }
    }
}

/// A collection and trees named on the command line (`collection add|remove NAME ID...`).
struct CollectionMembers: ParsableArguments {
    @Argument(help: ArgumentHelp("The collection's name.", valueName: "name")) var name: String
    @Argument(help: ArgumentHelp("Short ids, ids or unique id prefixes of the trees.", valueName: "id")) var ids: [String]

    func validate() throws { if ids.isEmpty { throw ValidationError("name at least one tree id") } }

    /// Resolves the collection and the trees and runs `body` on them, all in one transaction;
    /// returns the collection and what `body` counted.
    func change(in db: TreeStore, _ body: (StoreWriter, TreeCollection, [Tree]) throws -> Int) throws -> (TreeCollection, Int) {
        try db.write { w in
            let c = try w.reader.collection(named: name)
            let trees = try ids.map { try w.reader.tree(matching: $0) }
            return (c, try body(w, c, trees))
        }
    }
}
