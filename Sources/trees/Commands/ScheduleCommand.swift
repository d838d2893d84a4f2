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
    @Option(help: ArgumentHelp("Only due within this window of the year, MM-DD..MM-DD, e.g. 04-01..09-30; 11-01..02-28 runs over the new year; 02-29 is 02-28 in other years.", valueName: "window"))
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
    @Flag(help: "Print a JSON array of schedules.") var json = false

    func run() async throws {
        let db = try store.open()
        let (schedules, names) = try db.read { r in
            (try r.careSchedules(), Dictionary(uniqueKeysWithValues: try r.collections().map { ($0.collection.id, $0.collection.name) }))
        }
        if json {
            Output.json(.array(schedules.map { Self.json($0, collection: names) }))
            return
        }
        let rows = schedules.map { s -> [String] in
            let target = switch s.target {
            case .tree(let id): "tree \(ShortID.of(id))"
            case .collection(let id): "collection \(TerminalText.escaped(names[id] ?? "?"))"
            }
            return [target, TerminalText.escaped(s.kind.name), "\(s.everyDays)d", s.from.description, s.season?.description ?? ""]
        }
        guard !rows.isEmpty else { StandardError.write("no schedules\n"); return }
        var table = TextTable(headers: ["FOR", "KIND", "EVERY", "FROM", "SEASON"])
        table.rows = rows
        Output.human(table.render(terminal: .current))
    }

    /// A schedule as JSON, with the fields collection JSON gives it and what it is for.
    static func json(_ s: CareSchedule, collection names: [UUID: String]) -> JSON {
        let (tree, collection): (UUID?, UUID?) = switch s.target {
        case .tree(let id): (id, nil)
        case .collection(let id): (nil, id)
        }
        return .object([
            ("id", .string(s.id.lowercaseText)), ("treeId", .optional(tree?.lowercaseText)),
            ("collectionId", .optional(collection?.lowercaseText)), ("collection", .optional(collection.flatMap { names[$0] })),
            ("kind", .string(s.kind.name)), ("everyDays", .int(s.everyDays)), ("from", .string(s.from.description)),
            ("season", .optional(s.season?.description)),
            ("createdAt", .string(ISOTime.string(s.createdAt))), ("updatedAt", .string(ISOTime.string(s.updatedAt))),
        ])
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
            days in the local time zone (TZ). Overdue cares show in red on a terminal. The first due in a time \
            zone builds the store's table of what is due (once; every change keeps it after that).
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
        do {
            try db.keepDueCare(zone: zone)
        } catch {
            // The table only saves time: a store that is busy, full or damaged is answered from
            // the log, as a read-only one is, and the listing is the same.
        }
        var scope = CareFilter.Scope.all
        if json || ics {
            let (items, names) = try db.read { r -> ([DueCare], [UUID: String]) in
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
        var table = DueTable(terminal: Terminal.current)
        try db.read { r in
            if let collection { scope = .collection(try CareValues.collection(collection, in: r).id) }
            try r.forEachDueCare(today: today, within: days, zone: zone, scope: scope) { d in
                try table.add(d) { try r.collection(id: $0)?.name }
            }
        }
        guard !table.isEmpty else {
            StandardError.write("nothing due\n")
            return
        }
        table.write { Output.write($0) }
    }
}

/// `trees due` as a table, written as bytes: a whole orchard's cares are tens of thousands of rows.
///
/// Cares are added one by one as the store hands them over and kept in a compact form (text from
/// the store is escaped once per distinct species, collection and kind); the table is written once
/// the widths of its columns are known, a buffer at a time.
struct DueTable {
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

    /// One listed care: its tree, positions in `cells`, last day (nil: never) and run of due day.
    private struct Row {
        var tree: UUID
        var species: Int32
        var collection: Int32
        var kind: Int32
        var day: Int32
        var last: Day?
    }

    let terminal: Terminal
    private var cells: [Cell] = [Cell("")]
    private var speciesAt = FewKeys<String, Int32>()
    private var kindAt = FewKeys<String, Int32>()
    private var collectionAt = FewKeys<UUID, Int32>()
    private var rows: [Row] = []
    private var widths = headers.map(\.count)
    /// Each run of one due day (cares come by due day): its day, and the day and status as written.
    private var dayNumbers: [Int] = []
    private var dayTexts: [[UInt8]] = []

    init(terminal: Terminal) {
        self.terminal = terminal
        widths[0] = max(widths[0], ShortID.length)
        widths[5] = max(widths[5], 10)
    }

    var isEmpty: Bool { rows.isEmpty }

    /// Adds a care; `collectionName` names a collection the first time one is met.
    mutating func add(_ d: DueCare, collectionName: (UUID) throws -> String?) rethrows {
        var s = speciesAt[d.species] ?? -1
        if s < 0 {
            s = Int32(cells.count)
            speciesAt.add(d.species, s)
            cells.append(Cell(d.species))
        }
        var k = kindAt[d.kind.name] ?? -1
        if k < 0 {
            k = Int32(cells.count)
            kindAt.add(d.kind.name, k)
            cells.append(Cell(d.kind.name))
        }
        var c: Int32 = 0
        if let id = d.collectionID {
            if let known = collectionAt[id] {
                c = known
            } else {
                c = Int32(cells.count)
                collectionAt.add(id, c)
                cells.append(Cell(try collectionName(id) ?? ""))
            }
        }
        widths[1] = max(widths[1], cells[Int(s)].width)
        widths[2] = max(widths[2], cells[Int(c)].width)
        widths[3] = max(widths[3], cells[Int(k)].width)
        widths[4] = max(widths[4], d.lastDone == nil ? 5 : 10)
        if dayNumbers.last != d.due.number {
            var bytes: [UInt8] = []
            d.due.append(to: &bytes)
            bytes.append(contentsOf: repeatElement(0x20, count: widths[5] - 10 + 2))
            if d.isOverdue && terminal.colour {
                bytes.append(contentsOf: terminal.paint(DueText.status(d), .red).utf8)
            } else {
                DueText.appendStatus(d, to: &bytes)
            }
            bytes.append(0x0A)
            dayNumbers.append(d.due.number)
            dayTexts.append(bytes)
        }
        rows.append(Row(tree: d.treeID, species: s, collection: c, kind: k, day: Int32(dayNumbers.count - 1), last: d.lastDone))
    }

    /// Writes the table, handing `write` a buffer of whole rows at a time.
    func write(_ write: (UnsafeRawBufferPointer) -> Void) {
        var header: [UInt8] = []
        TextTable.appendHeader(Self.headers, widths: widths, terminal: terminal, to: &header)
        header.withUnsafeBytes { write($0) }
        let fixed = widths[0...4].reduce(0, +) + 2 * 5
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        var used = 0
        for row in rows {
            let (sc, cc, kc) = (cells[Int(row.species)], cells[Int(row.collection)], cells[Int(row.kind)])
            let day = dayTexts[Int(row.day)]
            let lastText: [UInt8]? = row.last.flatMap { Self.tenByteDays.contains($0.number) ? nil : Self.dayBytes($0) }
            let cellBytes: Int = sc.bytes.count - sc.width + cc.bytes.count - cc.width + kc.bytes.count - kc.width
            let length: Int = fixed + cellBytes + (lastText.map { $0.count - 10 } ?? 0) + day.count
            if used + length > buffer.count {
                buffer.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[0..<used])) }
                used = 0
                if length > buffer.count { buffer = [UInt8](repeating: 0, count: length) }
            }
            buffer.withUnsafeMutableBufferPointer { out in
                guard let start = out.baseAddress else { return }
                var p = start + used
                func put(_ bytes: [UInt8]) {
                    bytes.withUnsafeBufferPointer { b in
                        guard let source = b.baseAddress else { return }
                        p.update(from: source, count: b.count)
                        p += b.count
                    }
                }
                func spaces(_ n: Int) {
                    p.initialize(repeating: 0x20, count: n)
                    p += n
                }
                p = Self.writeShortID(row.tree, at: p); spaces(widths[0] - ShortID.length + 2)
                put(sc.bytes); spaces(widths[1] - sc.width + 2)
                put(cc.bytes); spaces(widths[2] - cc.width + 2)
                put(kc.bytes); spaces(widths[3] - kc.width + 2)
                if let last = row.last {
                    if let lastText { put(lastText) } else { p = Self.writeDay(last, at: p) }
                    spaces(widths[4] - 10 + 2)
                } else {
                    put(Self.never); spaces(widths[4] - 5 + 2)
                }
                put(day)
                precondition(p - start == used + length, "a due table row is not the length it was counted")
            }
            used += length
        }
        buffer.withUnsafeBytes { write(UnsafeRawBufferPointer(rebasing: $0[0..<used])) }
    }

    private static let never = Array("never".utf8)

    /// The days written in ten bytes: those of years 0 to 9999.
    private static let tenByteDays = Day(year: 0, month: 1, day: 1).number...Day(year: 9999, month: 12, day: 31).number

    private static func dayBytes(_ day: Day) -> [UInt8] {
        var bytes: [UInt8] = []
        day.append(to: &bytes)
        return bytes
    }

    /// Writes the id's short id (`ShortID.of`: the first or, for a time-ordered id, the last
    /// `ShortID.length` hex digits of its text); returns the byte after it.
    private static func writeShortID(_ id: UUID, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let hex: StaticString = "0123456789abcdef"
        let first = ShortID.isTimeOrdered(id) ? 16 - ShortID.length / 2 : 0
        withUnsafeBytes(of: id.uuid) { bytes in
            for i in 0..<ShortID.length {
                let b = bytes[first + i / 2]
                p[i] = hex.utf8Start[Int(i % 2 == 0 ? b >> 4 : b & 0x0F)]
            }
        }
        return p + ShortID.length
    }

    /// Writes a day of a year from 0 to 9999 as `YYYY-MM-DD` (ten bytes); returns the byte after it.
    private static func writeDay(_ day: Day, at p: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let f = day.fields
        func digits(_ n: Int, _ width: Int, at offset: Int) {
            var n = n
            for i in stride(from: width - 1, through: 0, by: -1) {
                p[offset + i] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            }
        }
        digits(f.year, 4, at: 0); p[4] = UInt8(ascii: "-")
        digits(f.month, 2, at: 5); p[7] = UInt8(ascii: "-")
        digits(f.day, 2, at: 8)
        return p + 10
    }
}

/// A map for keys that are few and repeat row after row (species, kinds, collections): the first
/// 16 keys are found by comparing, which costs less than hashing, the rest by hashing.
struct FewKeys<Key: Hashable, Value> {
    private var keys: [Key] = []
    private var values: [Value] = []
    private var more: [Key: Value] = [:]

    subscript(key: Key) -> Value? {
        if let i = keys.firstIndex(of: key) { return values[i] }
        return more.isEmpty ? nil : more[key]
    }

    /// Sets the value of a key not yet held.
    mutating func add(_ key: Key, _ value: Value) {
        if keys.count < 16 {
            keys.append(key); values.append(value)
        } else {
            more[key] = value
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
