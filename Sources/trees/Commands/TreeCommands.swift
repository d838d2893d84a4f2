import ArgumentParser
import Foundation
import TreesKit
import TreesStore
import TreesSync

/// Options for a tree's attributes, shared by `add`, `edit` and `capture`.
struct AttributeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Species, e.g. Apple or 'Quercus robur'.", valueName: "text"))
    var species: String?
    @Option(help: ArgumentHelp("Variety (cultivar), e.g. Gala.", valueName: "text"))
    var variety: String?
    @Option(help: ArgumentHelp("Rootstock, e.g. M9.", valueName: "text"))
    var rootstock: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Free-text notes.", valueName: "text"))
    var notes: String?
    @Option(help: ArgumentHelp("Collection name, or 'none' for no collection (default: the last used).", valueName: "name"))
    var collection: String?
}

/// Resolves `--collection NAME|none`: `.some(nil)` means none, `nil` means not given.
func resolveCollection(_ name: String?, in reader: StoreReader) throws -> TreeCollection?? {
    guard let name else { return nil }
    if TreeCollection.meansNone(name) { return .some(nil) }
    return .some(try reader.collection(named: name))
}

struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a tree measured elsewhere.",
        discussion: "Prints the new tree's short id. The collection defaults to the one a tree was last added to."
    )

    @OptionGroup var store: StoreOptions
    @Option(name: .customLong("lat"), parsing: .unconditional, help: ArgumentHelp("Latitude in degrees (-90…90, south negative).", valueName: "deg"))
    var latitude: String
    @Option(name: .customLong("lon"), parsing: .unconditional, help: ArgumentHelp("Longitude in degrees (-180…180, west negative).", valueName: "deg"))
    var longitude: String
    @Option(parsing: .unconditional, help: ArgumentHelp("Horizontal accuracy: radius of the 95% circle, in metres.", valueName: "m"))
    var accuracy: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Altitude above mean sea level, in metres.", valueName: "m"))
    var altitude: String?
    @OptionGroup var attributes: AttributeOptions
    @Flag(help: "Print the tree as JSON.") var json = false

    func run() async throws {
        let lat = try Values.latitude(latitude)
        let lon = try Values.longitude(longitude)
        let acc = try accuracy.map(Values.accuracy)
        let alt = try altitude.map(Values.altitude)
        guard let speciesText = attributes.species else {
            throw CLIError("--species is required; name what grows there, e.g. --species Apple", status: .usage)
        }
        let species = try Values.species(speciesText)
        let db = try store.open(creating: true)
        let (tree, collectionName) = try db.write { w -> (Tree, String?) in
            let chosen: TreeCollection?
            if let explicit = try resolveCollection(attributes.collection, in: w.reader) {
                chosen = explicit
            } else if let last = try w.preference(.lastCollection), let id = UUID(uuidString: last) {
                chosen = try w.reader.collection(id: id)
            } else {
                chosen = nil
            }
            let tree = Tree(
                coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: acc,
                accuracySource: acc == nil ? nil : .manual, altitude: alt, species: species,
                variety: Values.text(attributes.variety), rootstock: Values.text(attributes.rootstock),
                notes: Values.text(attributes.notes), collectionID: chosen?.id, createdAt: w.now
            )
            try w.insert(tree)
            try w.setPreference(.lastCollection, chosen?.id.lowercaseText)
            return (tree, chosen?.name)
        }
        if json {
            Output.json(tree.json(collectionName: collectionName))
        } else {
            Output.line(tree.shortID)
        }
    }
}

struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List trees, newest first.", aliases: ["ls"])

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only trees in this collection ('none': trees in no collection).", valueName: "name"))
    var collection: String?
    @Option(help: ArgumentHelp("Only trees of this species (ignoring case).", valueName: "text"))
    var species: String?
    @Option(help: ArgumentHelp("Only trees whose species, variety, rootstock or notes contain this text (ignoring case).", valueName: "text"))
    var search: String?
    @Option(help: ArgumentHelp("Show at most this many trees.", valueName: "n"))
    var limit: Int?
    @Flag(help: "Print a JSON array of trees.") var json = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() async throws {
        let db = try store.open()
        let terminal = Terminal.current
        try db.read { r in
            var filter = TreeFilter(species: species, search: search)
            if let scope = try resolveCollection(collection, in: r) {
                filter.collection = scope.map { .collection($0.id) } ?? .unassigned
            }
            let names = Dictionary(uniqueKeysWithValues: try r.collections().map { ($0.collection.id, $0.collection.name) })
            // Trees are written as they are read (twice, for a table: once to measure its
            // columns, once to write its rows, in one snapshot): a listing of a million trees
            // holds one tree at a time.
            if json {
                let withPhotos = try r.treeIDsWithPhotos()
                var array = JSONArrayStream()
                try r.forEachTree(filter, limit: limit) { t in
                    let photos = withPhotos.contains(t.id) ? try r.photos(of: t.id) : []
                    array.append(t.json(collectionName: t.collectionID.flatMap { names[$0] }, photos: photos))
                }
                array.finish()
                return
            }
            // The health column whenever any tree of the store has a status, filled for the trees listed.
            let healthColumn = try r.hasHealthStatus()
            // The fix quality's column (`RTK`, `FLT`, `DGPS` …) only when a listed tree has a marker:
            // a list of plain GPS trees reads as it always did.
            let fixColumn = 4
            func cells(_ t: Tree, _ health: HealthStatus?) -> [String] {
                [
                    t.shortID, TerminalText.escaped(t.species), TerminalText.escaped(t.variety ?? ""),
                    terminal.badge(metres: t.horizontalAccuracy), FixQuality.marker(t.capture.fixStatus) ?? "",
                    TerminalText.escaped(t.collectionID.flatMap { names[$0] } ?? ""), Format.date(t.createdAt),
                ] + (healthColumn ? [health?.rawValue ?? ""] : [])
            }
            var table = StreamedTable(headers: ["ID", "SPECIES", "VARIETY", "ACCURACY", "FIX", "COLLECTION", "CREATED"] + (healthColumn ? ["HEALTH"] : []),
                                      terminal: terminal)
            var markers = false
            try r.forEachTree(filter, limit: limit) { t in
                let row = cells(t, nil)
                if !row[fixColumn].isEmpty { markers = true }
                table.measure(row)
            }
            guard table.count > 0 else {
                StandardError.write("no trees\n")
                return
            }
            if !markers { table.remove(column: fixColumn) }
            table.writeHeader()
            try r.forEachTreeBatch(filter, limit: limit) { batch, health in
                for t in batch {
                    var row = cells(t, health[t.id])
                    if !markers { row.remove(at: fixColumn) }
                    table.write(row)
                }
            }
            table.flush()
        }
    }
}

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show everything about one tree.")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The tree's short id as 'trees list' shows it, its id, or any unique prefix of its id.", valueName: "id"))
    var id: String
    @Flag(help: "Print the tree as JSON.") var json = false
    @Flag(help: "Also show the tree's history: position changes, and values that lost to a later version or a deletion in a sync.")
    var history = false

    func run() async throws {
        let db = try store.open()
        let terminal = Terminal.current
        try db.read { r in
            let tree = try r.tree(matching: id)
            guard history else {
                try TreeDetails.print(tree, reader: r, store: db, json: json, terminal: terminal)
                return
            }
            let changes = try r.history(of: tree.id)
            let conflicts = try r.conflicts(of: tree.id)
            if json {
                let collectionName = try tree.collectionID.flatMap { try r.collection(id: $0) }?.name
                Output.json(.object([
                    ("tree", tree.json(collectionName: collectionName, photos: try r.photos(of: tree.id))),
                    ("history", .array(changes.map { c in
                        .object([("changedAt", .string(c.changedAt)), ("change", .string(c.change)), ("latitude", .optional(c.latitude)),
                                 ("longitude", .optional(c.longitude)), ("horizontalAccuracy", .optional(c.accuracy))])
                    })),
                    ("losingValues", .array(conflicts.map(SyncRendering.conflict))),
                ]))
                return
            }
            try TreeDetails.print(tree, reader: r, store: db, json: false, terminal: terminal)
            Output.line(terminal.dim("history"))
            if changes.isEmpty && conflicts.isEmpty { Output.line("  none") }
            for c in changes {
                let position = c.latitude.map { lat in "\(Format.degrees(lat)), \(c.longitude.map(Format.degrees) ?? "—")" } ?? ""
                Output.line("  \(c.changedAt.prefix(19))  \(TerminalText.escaped(c.change))  \(position)")
            }
            for c in conflicts {
                let why = c.reason == "deleted" ? "lost to a deletion" : "lost to a later version"
                let value = try Self.readable(c.loserValue, reader: r)
                Output.line("  \(c.field): \(TerminalText.escaped(value))  \(why) (device \(c.loser.device.prefix(8)))")
            }
        }
    }
}

extension ShowCommand {
    /// A lost value as a person reads it: a collection by its name (as it is called here, or
    /// "a removed collection"), not by its id.
    static func readable(_ json: String, reader r: StoreReader) throws -> String {
        guard json.contains("\"collectionId\""),
              var object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else { return json }
        let id = object.removeValue(forKey: "collectionId")
        if let text = id as? String {
            let name = try UUID(uuidString: text).flatMap { try r.collection(id: $0) }?.name
            object["collection"] = name ?? "a removed collection"
        } else {
            object["collection"] = NSNull()
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return json }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Everything about one tree, as `trees show` prints it (also after a capture).
enum TreeDetails {
    static func print(_ t: Tree, reader r: StoreReader, store db: TreeStore, json: Bool, terminal: Terminal) throws {
            let collectionName = try t.collectionID.flatMap { try r.collection(id: $0) }?.name
            let photos = try r.photos(of: t.id)
            if json {
                Output.json(t.json(collectionName: collectionName, photos: photos))
                return
            }
            var lines: [(String, String)] = [
                ("id", t.id.lowercaseText),
                ("species", TerminalText.escaped(t.species)),
                ("variety", TerminalText.escaped(t.variety ?? "—")),
                ("rootstock", TerminalText.escaped(t.rootstock ?? "—")),
                ("collection", TerminalText.escaped(collectionName ?? "—")),
                ("position", "\(Format.degrees(t.latitude)), \(Format.degrees(t.longitude))"),
                ("accuracy", terminal.badge(metres: t.horizontalAccuracy)
                    + (t.accuracySource.map { " (\($0.rawValue))" } ?? "") + " — radius of the 95% circle"),
                ("altitude", t.altitude.map { String(format: "%.1f m above mean sea level", $0) } ?? "—"),
            ]
            if let h = t.ellipsoidHeight { lines.append(("ellipsoid height", String(format: "%.1f m", h))) }
            if let v = FixQuality.summary(t.capture) { lines.append(("fix", v)) }
            if let v = FixQuality.vertical(t.capture) { lines.append(("vertical accuracy", v)) }
            if let v = FixQuality.antenna(t.capture) { lines.append(("antenna height", v)) }
            lines.append(("notes", TerminalText.escapedKeepingLayout(t.notes ?? "—")))
            let c = t.capture
            if !c.isEmpty {
                var parts: [String] = []
                if let time = c.fixTime { parts.append("fix at \(ISOTime.string(time))") }
                if let mode = c.fixMode { parts.append(mode.title) }
                if let s = c.satellites { parts.append("\(s) satellites") }
                if let h = c.hdop { parts.append(String(format: "HDOP %.1f", h)) }
                if let n = c.averagedEpochs, n > 1 { parts.append("averaged over \(n) epochs") }
                if let src = c.locationSource { parts.append("from \(TerminalText.escaped(src))") }
                lines.append(("captured", parts.joined(separator: ", ")))
            }
            lines.append(("photos", photos.isEmpty ? "none" : "\(photos.count)"))
            for p in photos {
                lines.append(("", "\(ShortID.of(p.id))  \(p.format)  taken \(Format.date(p.capturedAt))  \(db.photoLibrary.path(of: p))"))
            }
            lines += try CareDetails.lines(t, reader: r, now: db.now(), terminal: terminal)
            lines.append(("created", Format.dateTime(t.createdAt)))
            lines.append(("updated", Format.dateTime(t.updatedAt)))
            let width = lines.map(\.0.count).max() ?? 0
            // A value of several lines (notes) continues under its first line, so no line of it
            // can read as a field of its own.
            let continuation = "\n" + String(repeating: " ", count: width + 2)
            for (k, v) in lines {
                Output.line(terminal.dim(k.padding(toLength: width, withPad: " ", startingAt: 0)) + "  "
                            + v.replacingOccurrences(of: "\n", with: continuation))
            }
    }
}

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change a tree's attributes or position.",
        discussion: "An empty value clears an optional field (--notes ''). Updates the tree's updatedAt.")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The tree's short id as 'trees list' shows it, its id, or any unique prefix of its id.", valueName: "id"))
    var id: String
    @OptionGroup var attributes: AttributeOptions
    @Option(name: .customLong("lat"), parsing: .unconditional, help: ArgumentHelp("New latitude in degrees.", valueName: "deg"))
    var latitude: String?
    @Option(name: .customLong("lon"), parsing: .unconditional, help: ArgumentHelp("New longitude in degrees.", valueName: "deg"))
    var longitude: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("New horizontal accuracy (95% radius), in metres.", valueName: "m"))
    var accuracy: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("New altitude above mean sea level, in metres.", valueName: "m"))
    var altitude: String?
    @Flag(help: "Print the tree as JSON.") var json = false

    func run() async throws {
        let lat = try latitude.map(Values.latitude)
        let lon = try longitude.map(Values.longitude)
        // nil: not given; .some(nil): cleared with an empty value.
        let acc: Double?? = try accuracy.map { Values.isCleared($0) ? nil : try Values.accuracy($0) }
        let alt: Double?? = try altitude.map { Values.isCleared($0) ? nil : try Values.altitude($0) }
        let species = try attributes.species.map(Values.species)
        if (lat == nil) != (lon == nil) {
            throw CLIError("--lat and --lon go together; give both to move a tree", status: .usage)
        }
        let db = try store.open()
        let (tree, name) = try db.write { w -> (Tree, String?) in
            var t = try w.reader.tree(matching: id)
            let before = t
            if let species { t.species = species }
            if let v = attributes.variety { t.variety = Values.text(v) }
            if let v = attributes.rootstock { t.rootstock = Values.text(v) }
            if let v = attributes.notes { t.notes = Values.text(v) }
            if let scope = try resolveCollection(attributes.collection, in: w.reader) { t.collectionID = scope?.id }
            if let lat, let lon { t.coordinate = Coordinate(latitude: lat, longitude: lon) }
            if let acc { t.horizontalAccuracy = acc; t.accuracySource = acc == nil ? nil : .manual }
            if let alt { t.altitude = alt }
            guard t != before else { return (t, try t.collectionID.flatMap { try w.reader.collection(id: $0) }?.name) }
            if t.coordinate != before.coordinate || t.horizontalAccuracy != before.horizontalAccuracy {
                try w.recordHistory(of: before, change: "edited position")
            }
            let saved = try w.update(t)
            return (saved, try saved.collectionID.flatMap { try w.reader.collection(id: $0) }?.name)
        }
        if json {
            Output.json(tree.json(collectionName: name, photos: try db.read { try $0.photos(of: tree.id) }))
        } else {
            Output.line(tree.shortID)
        }
    }
}

struct RemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete trees.",
        discussion: "Asks for confirmation on a terminal unless --yes is given; without a terminal --yes is required.",
        aliases: ["remove"])

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("Short ids, ids or unique id prefixes of the trees to delete.", valueName: "id"))
    var ids: [String]
    @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

    func validate() throws {
        if ids.isEmpty { throw ValidationError("name at least one tree id") }
    }

    func run() async throws {
        let db = try store.open()
        let trees = try db.read { r in try ids.map { try r.tree(matching: $0) } }
        let unique = Array(Dictionary(trees.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }).values)
            .sorted { $0.id.uuidString < $1.id.uuidString }
        if !yes {
            guard Terminal.current.stdinIsTTY else {
                throw CLIError("refusing to delete \(unique.count) tree(s) without confirmation; add --yes", status: .usage)
            }
            let names = unique.map { "\($0.shortID) (\($0.species))" }.joined(separator: ", ")
            guard Confirm.ask("Delete \(names)?") else {
                StandardError.write("nothing deleted\n")
                return
            }
        }
        let orphaned = try db.write { w in try w.deleteTrees(unique.map(\.id)) }
        db.photoLibrary.removeFiles(of: orphaned)
        Output.line("deleted \(unique.count) tree\(unique.count == 1 ? "" : "s")")
    }
}
