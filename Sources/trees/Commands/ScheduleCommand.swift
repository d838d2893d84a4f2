import ArgumentParser
import Foundation
import Interchange
import TreesKit
import TreesStore

struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Say how often a care is due, for a tree or a whole collection.",
        discussion: "A tree's own schedule of a kind stands in for its collection's.",
        subcommands: [ScheduleSetCommand.self, ScheduleListCommand.self, ScheduleRemoveCommand.self]
    )
}

/// `ID` or `--collection NAME`, as schedule commands name what they apply to.
struct ScheduleTarget: ParsableArguments {
    @Option(help: ArgumentHelp("Every tree of this collection.", valueName: "name"))
    var collection: String?

    func resolve(_ id: String?, in reader: StoreReader) throws -> (CareSchedule.Target, String) {
        switch (id, collection) {
        case (let id?, nil):
            let t = try CareValues.tree(id, in: reader)
            return (.tree(t.id), "tree \(t.shortID)")
        case (nil, let name?):
            let c = try CareValues.collection(name, in: reader)
            return (.collection(c.id), "collection \(c.name)")
        default:
            throw CLIError("name a tree id or --collection NAME, one of them", status: .usage)
        }
    }
}

struct ScheduleSetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set how often a care is due (replaces the schedule of that kind).")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The tree's id (leave out with --collection), then the kind of care.", valueName: "id kind"))
    var words: [String] = []
    @OptionGroup var target: ScheduleTarget
    @Option(help: ArgumentHelp("The interval: days (14d) or weeks (2w).", valueName: "interval"))
    var every: String
    @Option(help: ArgumentHelp("The first day it is due when never done (YYYY-MM-DD; default: today).", valueName: "date"))
    var from: String?
    @Option(help: ArgumentHelp("Only due within this window of the year, MM-DD..MM-DD, e.g. 04-01..09-30.", valueName: "window"))
    var season: String?

    func run() async throws {
        guard let kindText = words.last, words.count <= 2 else {
            throw CLIError("expected 'trees schedule set ID KIND' or 'trees schedule set --collection NAME KIND'", status: .usage)
        }
        let kind = try CareValues.kind(kindText)
        let days = try CareValues.usage { () throws(CareInputError) in try CareSchedule.interval(parsing: every) }
        let window = try season.map { text in try CareValues.usage { () throws(CareInputError) in try Season(parsing: text) } }
        let first = try from.map(CareValues.day)
        let db = try store.open(forWriting: true)
        let description = try db.write { w -> String in
            let (t, name) = try target.resolve(words.count == 2 ? words[0] : nil, in: w.reader)
            let schedule = CareSchedule(target: t, kind: kind, everyDays: days, from: first ?? Day(w.now, in: CareValues.zone),
                                        season: window, createdAt: w.now)
            try w.setSchedule(schedule)
            return "\(name): \(kind.name) every \(days) day\(days == 1 ? "" : "s") from \(schedule.from)"
                + (window.map { " in \($0)" } ?? "")
        }
        Output.line(TerminalText.escaped(description))
    }
}

struct ScheduleListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List schedules.", aliases: ["ls"])

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let db = try store.open()
        let rows = try db.read { r -> [[String]] in
            let names = Dictionary(uniqueKeysWithValues: try r.collections().map { ($0.collection.id, $0.collection.name) })
            return try r.careSchedules().map { s in
                let target = switch s.target {
                case .tree(let id): "tree \(ShortID.of(id))"
                case .collection(let id): "collection \(TerminalText.escaped(names[id] ?? "?"))"
                }
                return [target, TerminalText.escaped(s.kind.name), "\(s.everyDays)d", s.from.description, s.season?.description ?? ""]
            }
        }
        guard !rows.isEmpty else { StandardError.write("no schedules\n"); return }
        var table = TextTable(headers: ["FOR", "KIND", "EVERY", "FROM", "SEASON"])
        table.rows = rows
        Output.human(table.render(terminal: .current))
    }
}

struct ScheduleRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove a schedule.", aliases: ["remove"])

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The tree's id (leave out with --collection), then the kind of care.", valueName: "id kind"))
    var words: [String] = []
    @OptionGroup var target: ScheduleTarget

    func run() async throws {
        guard let kindText = words.last, words.count <= 2 else {
            throw CLIError("expected 'trees schedule rm ID KIND' or 'trees schedule rm --collection NAME KIND'", status: .usage)
        }
        let kind = try CareValues.kind(kindText)
        let db = try store.open(forWriting: true)
        let name = try db.write { w -> String in
            let (t, name) = try target.resolve(words.count == 2 ? words[0] : nil, in: w.reader)
            guard try w.removeSchedule(t, kind: kind) else { throw CLIError("\(name) has no \(kind.name) schedule") }
            return name
        }
        Output.line(TerminalText.escaped("\(name): no longer scheduled for \(kind.name)"))
    }
}

struct DueCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "due",
        abstract: "List the cares that are due or overdue, most overdue first.",
        discussion: """
            A care is next due its interval after the last event of its kind (or on the schedule's first day \
            when never done), moved to the start of its season when it falls outside it. Days are calendar \
            days in the local time zone (TZ). Overdue cares show in red on a terminal.
            """
    )

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Also cares due within this many days (7d, 2w; default: due today or before).", valueName: "interval"))
    var within: String?
    @Option(help: ArgumentHelp("Only trees of this collection.", valueName: "name"))
    var collection: String?
    @Flag(help: "Print a JSON array.") var json = false
    @Flag(help: "Write an iCalendar (RFC 5545) file of to-dos to standard output.") var ics = false

    /// `--within`: 0 (due today or before) or an interval.
    static func window(_ text: String) throws -> Int {
        if ["0", "0d", "0w"].contains(text.trimmingCharacters(in: .whitespaces).lowercased()) { return 0 }
        return try CareValues.usage { () throws(CareInputError) in try CareSchedule.interval(parsing: text) }
    }

    func run() async throws {
        if json && ics { throw CLIError("choose --json or --ics, not both", status: .usage) }
        let days = try within.map(Self.window) ?? 0
        let zone = CareValues.zone
        let db = try store.open()
        let now = db.now()
        let today = Day(now, in: zone)
        let (items, names) = try db.read { r -> ([DueCare], [UUID: String]) in
            var scope = CareFilter.Scope.all
            if let collection { scope = .collection(try CareValues.collection(collection, in: r).id) }
            let items = try r.dueCare(today: today, within: days, zone: zone, scope: scope)
            // The names of the listed trees' collections, by collection id.
            var names: [UUID: String] = [:]
            for id in Set(items.compactMap(\.collectionID)) { names[id] = try r.collection(id: id)?.name }
            return (items, names)
        }
        if ics {
            let bytes = ICSWriter.calendar(items.map { ICSWriter.Item(due: $0, collection: $0.collectionID.flatMap { names[$0] }) }, now: now)
            bytes.withUnsafeBytes { Output.write($0) }
            return
        }
        if json {
            var kindParts: [String: String] = [:]
            Output.json(.array(items.map { d in
                let kindPart = kindParts[d.kind.name] ?? { let p = DueCare.stableIDPart(d.kind); kindParts[d.kind.name] = p; return p }()
                return .object([
                    ("treeId", .string(d.treeID.lowercaseText)), ("species", .string(d.species)),
                    ("variety", .optional(d.variety)), ("collection", .optional(d.collectionID.flatMap { names[$0] })), ("kind", .string(d.kind.name)),
                    ("lastDone", .optional(d.lastDone?.description)), ("due", .string(d.due.description)),
                    ("daysOverdue", .int(d.daysOverdue)), ("uid", .string(DueCare.stableID(d.treeID, kindPart: kindPart))),
                ])
            }))
            return
        }
        guard !items.isEmpty else {
            StandardError.write("nothing due\n")
            return
        }
        let table = DueTable.render(items, collections: names, terminal: Terminal.current)
        table.withUnsafeBytes { Output.write($0) }
    }
}

/// `trees due` as a table, written as bytes: a whole orchard's cares are tens of thousands of rows.
/// Text from the store is escaped once per distinct species, collection and kind.
enum DueTable {
    static let headers = ["TREE", "SPECIES", "COLLECTION", "KIND", "LAST", "DUE", "STATUS"]

    private struct Cell {
        var bytes: [UInt8]
        var width: Int
        init(_ text: String) {
            let escaped = TerminalText.escaped(text)
            bytes = Array(escaped.utf8)
            width = TextTable.visibleWidth(escaped)
        }
    }

    static func render(_ items: [DueCare], collections names: [UUID: String], terminal: Terminal) -> [UInt8] {
        var species: [String: Cell] = [:]
        var kinds: [String: Cell] = [:]
        var collections = names.mapValues(Cell.init)
        let none = Cell("")
        // Cells of each row in order, and the widths of the padded columns.
        var rows: [(species: Cell, collection: Cell, kind: Cell)] = []
        rows.reserveCapacity(items.count)
        var widths = headers.map(\.count)
        widths[0] = max(widths[0], ShortID.length)
        widths[5] = max(widths[5], 10)
        for d in items {
            let s = species[d.species] ?? { let c = Cell(d.species); species[d.species] = c; return c }()
            let k = kinds[d.kind.name] ?? { let c = Cell(d.kind.name); kinds[d.kind.name] = c; return c }()
            let c = d.collectionID.flatMap { collections[$0] } ?? none
            widths[1] = max(widths[1], s.width); widths[2] = max(widths[2], c.width); widths[3] = max(widths[3], k.width)
            widths[4] = max(widths[4], d.lastDone == nil ? 5 : 10)
            rows.append((s, c, k))
        }
        collections = [:]
        var out: [UInt8] = []
        out.reserveCapacity((widths.reduce(0, +) + 2 * widths.count + 20) * (items.count + 1))
        func pad(_ width: Int, _ column: Int) {
            out.append(contentsOf: repeatElement(0x20, count: widths[column] - width + 2))
        }
        TextTable.appendHeader(headers, widths: widths, terminal: terminal, to: &out)
        // Items come by due day: the due day and status are written once per day; last days are few.
        var dueDay: Int?
        var dueBytes: [UInt8] = []
        var lastBytes: [Int: [UInt8]] = [:]
        for (d, row) in zip(items, rows) {
            if d.due.number != dueDay {
                dueDay = d.due.number
                dueBytes = []
                d.due.append(to: &dueBytes)
                dueBytes.append(contentsOf: repeatElement(0x20, count: widths[5] - 10 + 2))
                if d.isOverdue && terminal.colour {
                    dueBytes.append(contentsOf: terminal.paint(DueText.status(d), .red).utf8)
                } else {
                    DueText.appendStatus(d, to: &dueBytes)
                }
                dueBytes.append(0x0A)
            }
            appendShortID(d.treeID, to: &out); pad(ShortID.length, 0)
            out.append(contentsOf: row.species.bytes); pad(row.species.width, 1)
            out.append(contentsOf: row.collection.bytes); pad(row.collection.width, 2)
            out.append(contentsOf: row.kind.bytes); pad(row.kind.width, 3)
            if let last = d.lastDone {
                if let bytes = lastBytes[last.number] {
                    out.append(contentsOf: bytes)
                } else {
                    var bytes: [UInt8] = []
                    last.append(to: &bytes)
                    bytes.append(contentsOf: repeatElement(0x20, count: widths[4] - 10 + 2))
                    lastBytes[last.number] = bytes
                    out.append(contentsOf: bytes)
                }
            } else {
                out.append(contentsOf: "never".utf8); pad(5, 4)
            }
            out.append(contentsOf: dueBytes)
        }
        return out
    }

    /// The first `ShortID.length` characters of the id's lower-case text.
    static func appendShortID(_ id: UUID, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var written = 0
        withUnsafeBytes(of: id.uuid) { bytes in
            var i = 0
            while written < ShortID.length {
                if written == 8 || written == 13 || written == 18 || written == 23 {
                    out.append(UInt8(ascii: "-"))
                } else {
                    let b = bytes[i / 2]
                    out.append(hex.utf8Start[Int(i % 2 == 0 ? b >> 4 : b & 0x0F)])
                    i += 1
                }
                written += 1
            }
        }
    }
}

/// How a due care reads: `overdue 3 days`, `due today`, `in 2 days`.
enum DueText {
    static func status(_ d: DueCare) -> String {
        switch d.daysOverdue {
        case 0: "due today"
        case 1...: "overdue \(d.daysOverdue) day\(d.daysOverdue == 1 ? "" : "s")"
        default: "in \(-d.daysOverdue) day\(d.daysOverdue == -1 ? "" : "s")"
        }
    }

    /// `status(d)`'s bytes.
    static func appendStatus(_ d: DueCare, to out: inout [UInt8]) {
        let n = abs(d.daysOverdue)
        switch d.daysOverdue {
        case 0: out.append(contentsOf: "due today".utf8); return
        case 1...: out.append(contentsOf: "overdue ".utf8)
        default: out.append(contentsOf: "in ".utf8)
        }
        TextCodec.appendInteger(n, to: &out)
        out.append(contentsOf: (n == 1 ? " day" : " days").utf8)
    }
}
