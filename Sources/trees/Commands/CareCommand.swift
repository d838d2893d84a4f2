import ArgumentParser
import Foundation
import TreesKit
import TreesStore

struct CareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "care",
        abstract: "Keep the care log: what was done to each tree and how it is.",
        discussion: """
            Kinds: water, fertilise, prune, spray, graft, harvest, inspect, plant, remove, or any other word. \
            An inspect event may set the tree's health (--health): \
            \(HealthStatus.allCases.map { $0.rawValue }.joined(separator: ", ")). \
            Dates are calendar days in the local time zone (TZ), or ISO 8601 times.
            """,
        subcommands: [CareAddCommand.self, CareListCommand.self, CareEditCommand.self, CareRemoveCommand.self]
    )
}

/// Typed care values turned into model values, every refusal a usage error (exit 64).
enum CareValues {
    static var zone: TimeZone { TimeZone.current }

    static func usage<T>(_ body: () throws(CareInputError) -> T) throws -> T {
        do { return try body() } catch { throw CLIError(error.message, status: .usage) }
    }

    static func kind(_ text: String) throws -> CareKind { try usage { () throws(CareInputError) in try CareKind(text) } }

    static func quantity(_ text: String) throws -> CareQuantity {
        try usage { () throws(CareInputError) in try CareQuantity(parsing: text) }
    }

    static func health(_ text: String) throws -> HealthStatus {
        try usage { () throws(CareInputError) in try HealthStatus(parsing: text) }
    }

    /// A day typed as `YYYY-MM-DD`, within `Day.careRange`.
    static func day(_ text: String) throws -> Day {
        let day = try usage { () throws(CareInputError) in try Day(parsing: text) }
        if let problem = Day.careRangeProblem(day, text: text) { throw CLIError(problem, status: .usage) }
        return day
    }

    /// A moment typed as `YYYY-MM-DD` (the start of that local day) or an ISO 8601 time, on a
    /// local day within `Day.careRange`.
    static func moment(_ text: String, option: String) throws -> Date {
        if text.count > 10, let date = ISOTime.parse(text) {
            if let problem = Day.careRangeProblem(Day(date, in: zone), text: text) { throw CLIError(problem, status: .usage) }
            return date
        }
        return try day(text).start(in: zone)
    }

    /// The date of a care done: on or before today in the local time zone.
    static func doneDate(_ text: String?, now: Date) throws -> Date {
        guard let text else { return now }
        let date = try moment(text, option: "--date")
        let today = Day(now, in: zone)
        if Day(date, in: zone) > today {
            throw CLIError("date '\(text)' is in the future; a care done takes today (\(today)) or an earlier date", status: .usage)
        }
        return date
    }

    /// Unknown or ambiguous trees named on a care command are bad input (64), as the other values are.
    static func tree(_ prefix: String, in reader: StoreReader) throws -> Tree {
        do {
            return try reader.tree(matching: prefix)
        } catch let e as StoreError {
            switch e {
            case .unknownTree, .ambiguousTree, .invalidID: throw CLIError(e.description, status: .usage)
            default: throw e
            }
        }
    }

    /// `--collection NAME` for a care command; an unknown name is bad input.
    static func collection(_ name: String, in reader: StoreReader) throws -> TreeCollection {
        do {
            return try reader.collection(named: name)
        } catch let e as StoreError {
            if case .unknownCollection = e { throw CLIError(e.description, status: .usage) }
            throw e
        }
    }

    /// An event as JSON; `photos` (with their paths in the library) only when it has some.
    static func json(_ e: CareEvent, species: String? = nil, photos: [(Photo, String)] = []) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .string(e.id.lowercaseText)), ("treeId", .string(e.treeID.lowercaseText)),
        ]
        if let species { pairs.append(("species", .string(species))) }
        pairs += [
            ("kind", .string(e.kind.name)), ("date", .string(ISOTime.string(e.date))),
            ("day", .string(Day(e.date, in: zone).description)), ("notes", .optional(e.notes)),
            ("quantity", .optional(e.quantity?.value)), ("unit", .optional(e.quantity?.unit)),
            ("health", .optional(e.health?.rawValue)), ("who", .optional(e.who)),
            ("createdAt", .string(ISOTime.string(e.createdAt))), ("updatedAt", .string(ISOTime.string(e.updatedAt))),
        ]
        if !photos.isEmpty { pairs.append(("photos", .array(photos.map { $0.0.json(path: $0.1) }))) }
        return .object(pairs)
    }
}

struct CareAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Log a care done to one or more trees (the same day, the same work).",
        discussion: "Prints the new events' short ids, one a line. Who did it defaults to the preference 'operator'.")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("Tree short ids (or ids, or unique id prefixes), then the kind of care.", valueName: "id... kind"))
    var words: [String] = []
    @Option(help: ArgumentHelp("Every tree of this collection.", valueName: "name"))
    var collection: String?
    @Option(help: ArgumentHelp("When it was done: YYYY-MM-DD or an ISO 8601 time, today or earlier (default: now).", valueName: "date"))
    var date: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Free-text notes.", valueName: "text"))
    var notes: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("An amount and its unit, e.g. '12 kg' or '40 l'.", valueName: "amount"))
    var quantity: String?
    @Option(help: ArgumentHelp("The health found (inspect events): \(HealthStatus.allCases.map { $0.rawValue }.joined(separator: ", ")).", valueName: "status"))
    var health: String?
    @Option(help: ArgumentHelp("Who did it.", valueName: "name"))
    var who: String?
    @Option(name: .customLong("photo"), help: ArgumentHelp("A photo taken for it (JPEG, PNG or HEIC); repeat for more. Each tree's event gets it.", valueName: "file"))
    var photos: [String] = []
    @Flag(help: "Print the new events as JSON.") var json = false

    func run() async throws {
        guard let kindText = words.last else {
            throw CLIError("name the kind of care, e.g. 'trees care add ID water'", status: .usage)
        }
        let ids = words.dropLast()
        if ids.isEmpty && collection == nil {
            throw CLIError("name the trees: ids before the kind, or --collection NAME", status: .usage)
        }
        let kind = try CareValues.kind(kindText)
        let q = try quantity.map(CareValues.quantity)
        let status = try health.map(CareValues.health)
        if status != nil && kind != .inspect {
            throw CLIError("--health goes with an inspect event, not '\(kind.name)'; log it as 'inspect'", status: .usage)
        }
        let db = try store.open(forWriting: true)
        let when = try CareValues.doneDate(date, now: db.now())
        // Photos are copied into the library first, outside the transaction; rows follow with the events.
        let library = db.photoLibrary
        let staged = try PhotoErrors.mapped { try library.stage(files: photos) }
        for warning in staged.warnings { StandardError.write("warning: \(warning)\n") }
        var attached: [UUID: [Photo]] = [:]
        // What is printed once the transaction has committed: each event's id, or with --json the
        // whole events. A block's trees are read and logged a chunk at a time, so a million-tree
        // block holds ids, not trees.
        var logged: [UUID] = []
        var events: [CareEvent] = []
        do { try db.write { w in
            let named = try ids.map { try CareValues.tree($0, in: w.reader).id }
            let person = try Values.text(who) ?? w.preference(.operatorName)
            let text = try Values.text(notes)
            // Time-ordered ids: a block's events go to the end of the id index together, where
            // random ids would touch a page of it for each (and again on every laptop that pulls them).
            var made = TimeOrderedIDs()
            var chunk: [UUID] = []
            var seen = Set<UUID>()
            func log() throws {
                let batch = chunk.map { tree in
                    CareEvent(id: made.next(at: w.now), treeID: tree, kind: kind, date: when, notes: text, quantity: q, health: status,
                              who: person, createdAt: w.now)
                }
                chunk.removeAll(keepingCapacity: true)
                // One batch: each tree's last care and health are brought up to date once, at the end.
                try w.insert(careEvents: batch)
                if !photos.isEmpty {
                    for e in batch { attached[e.id] = try library.attach(staged, to: e.treeID, careEvent: e.id, in: w).added }
                }
                if json { events += batch } else { logged += batch.map(\.id) }
            }
            for tree in named where seen.insert(tree).inserted {
                chunk.append(tree)
            }
            if let collection {
                let c = try CareValues.collection(collection, in: w.reader)
                try w.reader.forEachTree(TreeFilter(collection: .collection(c.id))) { tree in
                    guard !seen.contains(tree.id) else { return }
                    chunk.append(tree.id)
                    if chunk.count == 10_000 { try log() }
                }
            }
            try log()
            if logged.isEmpty && events.isEmpty {
                throw CLIError("collection '\(collection ?? "")' has no trees; nothing logged", status: .usage)
            }
        } } catch {
            library.discard(staged, store: db)
            throw error
        }
        if json {
            Output.json(.array(events.map { e in CareValues.json(e, photos: (attached[e.id] ?? []).map { ($0, library.path(of: $0)) }) }))
        } else {
            for id in logged { Output.line(ShortID.of(id)) }
        }
    }
}

struct CareListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List care events, newest first.", aliases: ["ls"])

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("Only this tree's events.", valueName: "id"))
    var id: String?
    @Option(help: ArgumentHelp("Only events of trees in this collection.", valueName: "name"))
    var collection: String?
    @Option(help: ArgumentHelp("Only events of this kind.", valueName: "kind"))
    var kind: String?
    @Option(help: ArgumentHelp("Only events on or after this date (YYYY-MM-DD or an ISO 8601 time).", valueName: "date"))
    var since: String?
    @Option(help: ArgumentHelp("Show at most this many events.", valueName: "n"))
    var limit: Int?
    @Flag(help: "Print a JSON array of events.") var json = false

    func run() async throws {
        if let limit, limit < 0 { throw CLIError("--limit '\(limit)' is negative; expected 0 or more", status: .usage) }
        if id != nil && collection != nil { throw CLIError("give a tree id or --collection, not both", status: .usage) }
        var filter = CareFilter(kind: try kind.map(CareValues.kind), since: try since.map { try CareValues.moment($0, option: "--since") },
                                limit: limit)
        let db = try store.open()
        // Events are written as they are read (twice for the table: once to measure its columns,
        // once to write them, in one snapshot), never held all at once: a log may hold millions.
        try db.read { r in
            if let id { filter.scope = .tree(try CareValues.tree(id, in: r).id) }
            if let collection { filter.scope = .collection(try CareValues.collection(collection, in: r).id) }
            if json {
                let library = db.photoLibrary
                var array = JSONArrayStream()
                try r.forEachCareEntry(filter) { entry in
                    let photos = entry.photoCount > 0 ? try r.photos(ofCareEvent: entry.event.id) : []
                    array.append(CareValues.json(entry.event, species: entry.species, photos: photos.map { ($0, library.path(of: $0)) }))
                }
                array.finish()
                return
            }
            // A photos column once any listed event has photos.
            let photosColumn = 8
            func cells(_ entry: CareEntry) -> [String] {
                let e = entry.event
                return [
                    ShortID.of(e.id), ShortID.of(e.treeID), TerminalText.escaped(entry.species), Format.date(e.date),
                    TerminalText.escaped(e.kind.name), TerminalText.escaped(e.quantity?.text ?? ""), e.health?.rawValue ?? "",
                    TerminalText.escaped(e.who ?? ""), entry.photoCount == 0 ? "" : String(entry.photoCount), TerminalText.escaped(e.notes ?? ""),
                ]
            }
            var table = StreamedTable(headers: ["EVENT", "TREE", "SPECIES", "DATE", "KIND", "QUANTITY", "HEALTH", "WHO", "PHOTOS", "NOTES"],
                                      terminal: .current)
            var withPhotos = false
            try r.forEachCareEntry(filter) { entry in
                if entry.photoCount > 0 { withPhotos = true }
                table.measure(cells(entry))
            }
            guard table.count > 0 else {
                StandardError.write("no care events\n")
                return
            }
            if !withPhotos { table.remove(column: photosColumn) }
            table.writeHeader()
            try r.forEachCareEntry(filter) { entry in
                var row = cells(entry)
                if !withPhotos { row.remove(at: photosColumn) }
                table.write(row)
            }
            table.flush()
        }
    }
}

struct CareEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Change a care event.",
        discussion: "An empty value clears an optional field (--notes '').")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The event's short id as 'trees care list' shows it, its id, or any unique prefix of its id.", valueName: "event-id"))
    var id: String
    @Option(help: ArgumentHelp("The kind of care.", valueName: "kind")) var kind: String?
    @Option(help: ArgumentHelp("When it was done: YYYY-MM-DD or an ISO 8601 time, today or earlier.", valueName: "date"))
    var date: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Free-text notes.", valueName: "text")) var notes: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("An amount and its unit, e.g. '12 kg'.", valueName: "amount")) var quantity: String?
    @Option(help: ArgumentHelp("The health found (inspect events).", valueName: "status")) var health: String?
    @Option(help: ArgumentHelp("Who did it.", valueName: "name")) var who: String?
    @Flag(help: "Print the event as JSON.") var json = false

    func run() async throws {
        let newKind = try kind.map(CareValues.kind)
        let newQuantity = try quantity.map { $0.isEmpty ? nil : try CareValues.quantity($0) }
        let newHealth = try health.map { $0.isEmpty ? nil : try CareValues.health($0) }
        let db = try store.open(forWriting: true)
        let newDate = try date.map { try CareValues.doneDate($0, now: db.now()) }
        let (before, saved) = try db.write { w -> (CareEvent, CareEvent) in
            var e: CareEvent
            do { e = try w.reader.careEvent(matching: id) } catch let error as StoreError { throw CLIError(error.description, status: .usage) }
            let before = e
            if let newKind { e.kind = newKind }
            if let newDate { e.date = newDate }
            if let notes { e.notes = Values.text(notes) }
            if let newQuantity { e.quantity = newQuantity }
            if let newHealth { e.health = newHealth }
            if let who { e.who = Values.text(who) }
            if e.health != nil && e.kind != .inspect {
                throw CLIError("health goes with an inspect event, not '\(e.kind.name)'; clear it with --health ''", status: .usage)
            }
            guard e != before else { return (before, e) }
            return (before, try w.update(e))
        }
        if json { Output.json(CareValues.json(saved)) } else { Output.line(TerminalText.escaped(Self.summary(before, saved))) }
    }

    /// `care event 1a2b3c4d (water of 5e6f7a8b): quantity 40 l → 50 l, notes cleared`, or that nothing changed.
    static func summary(_ a: CareEvent, _ b: CareEvent) -> String {
        let fields: [(String, String?, String?)] = [
            ("kind", a.kind.name, b.kind.name), ("date", Format.date(a.date), Format.date(b.date)),
            ("quantity", a.quantity?.text, b.quantity?.text), ("health", a.health?.rawValue, b.health?.rawValue),
            ("who", a.who, b.who), ("notes", a.notes, b.notes),
        ]
        let changes = fields.compactMap { name, old, new -> String? in
            guard old != new else { return nil }
            switch (old, new) {
            case (nil, let new?): return "\(name) set to \(Self.shown(new))"
            case (_?, nil): return "\(name) cleared"
            default: return "\(name) \(Self.shown(old ?? "")) → \(Self.shown(new ?? ""))"
            }
        }
        let event = "care event \(ShortID.of(b.id)) (\(b.kind.name) of \(ShortID.of(b.treeID)))"
        return changes.isEmpty ? "\(event): nothing changed" : "\(event): " + changes.joined(separator: ", ")
    }

    /// A value as the summary shows it: one line, at most 60 characters.
    private static func shown(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.count > 60 ? "'\(line.prefix(57))...'" : "'\(line)'"
    }
}

struct CareRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a care event.",
        discussion: "Asks for confirmation on a terminal unless --yes is given; without a terminal --yes is required.",
        aliases: ["remove"])

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The event's short id as 'trees care list' shows it, its id, or any unique prefix of its id.", valueName: "event-id"))
    var id: String
    @Flag(name: [.short, .long], help: "Do not ask for confirmation.") var yes = false

    func run() async throws {
        let db = try store.open(forWriting: true)
        func event(in r: StoreReader) throws -> CareEvent {
            do { return try r.careEvent(matching: id) } catch let error as StoreError { throw CLIError(error.description, status: .usage) }
        }
        if !yes {
            let e = try db.read { try event(in: $0) }
            guard Terminal.current.stdinIsTTY else {
                throw CLIError("refusing to delete care event \(ShortID.of(e.id)) without confirmation; add --yes", status: .usage)
            }
            let what = TerminalText.escaped("\(e.kind.name) of \(ShortID.of(e.treeID)) on \(Format.date(e.date))")
            guard Confirm.ask("Delete care event \(ShortID.of(e.id)) (\(what))?") else {
                StandardError.write("nothing deleted\n")
                return
            }
        }
        let (removed, photos) = try db.write { w -> (CareEvent, Int) in
            let e = try event(in: w.reader)
            let photos = try w.reader.photos(ofCareEvent: e.id).count
            return (try w.deleteCareEvent(e.id), photos)
        }
        let kept = photos == 0 ? "" : "; its \(photos) photo\(photos == 1 ? "" : "s") stay\(photos == 1 ? "s" : "") with the tree"
        Output.line(TerminalText.escaped("deleted care event \(ShortID.of(removed.id)) (\(removed.kind.name) of \(ShortID.of(removed.treeID)))\(kept)"))
    }
}
