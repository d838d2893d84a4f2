import ArgumentParser
import Foundation
import TreesKit
import TreesStore

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count trees by species, variety, rootstock and collection; show accuracy and captures per day.",
        discussion: """
            The accuracy histogram groups trees by accuracy class of their horizontal accuracy (the radius \
            of the 95% confidence circle): under 5 m Excellent, under 10 m Good, under 15 m Acceptable, \
            under 20 m Marginal, 20 m or more Poor, and trees without an accuracy figure. Days, and the \
            months care events are counted in, are those of the local time zone (TZ).
            """
    )

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only trees in this collection ('none': trees in no collection).", valueName: "name"))
    var collection: String?
    @Flag(help: "Print the statistics as JSON.") var json = false

    func run() async throws {
        let db = try store.open()
        let (stats, care) = try db.read { r in
            var filter = TreeFilter()
            if let scope = try resolveCollection(collection, in: r) {
                filter.collection = scope.map { .collection($0.id) } ?? .unassigned
            }
            let names = Dictionary(uniqueKeysWithValues: try r.collections().map { ($0.collection.id, $0.collection.name) })
            var stats = TreeStats()
            // Which trees have photos, from one query rather than one per tree.
            let withPhotos = try r.treeIDsWithPhotos()
            try r.forEachTree(filter, newestFirst: false) { t in
                stats.add(t, collectionName: t.collectionID.flatMap { names[$0] },
                          hasPhotos: withPhotos.contains(t.id))
            }
            let scope: UUID? = if case .collection(let id) = filter.collection { id } else { nil }
            return (stats, try CareStats.read(r, collection: scope))
        }
        if json {
            guard case .object(var pairs) = stats.json else { return }
            pairs.append(("care", care.json))
            Output.json(.object(pairs))
        } else if stats.total == 0 {
            StandardError.write("no trees\n")
        } else {
            Output.human(stats.render(terminal: .current) + (care.isEmpty ? "" : care.render(terminal: .current)))
        }
    }
}

/// Counts gathered in one pass over the trees.
struct TreeStats {
    /// Calendar days in the local time zone.
    var days = DayReckoner(zone: .current)
    /// Counts of a text attribute, grouped ignoring case; shown in the group's most used spelling.
    struct Tally {
        /// Trees per exact spelling; grouped ignoring case only when read, so each spelling is
        /// lowered once rather than once per tree.
        var spellings: [String: Int] = [:]
        var missing = 0

        mutating func add(_ value: String?) {
            guard let value else { missing += 1; return }
            spellings[value, default: 0] += 1
        }

        var counts: [String: (spellings: [String: Int], count: Int)] {
            var groups: [String: (spellings: [String: Int], count: Int)] = [:]
            for (spelling, n) in spellings {
                let key = spelling.lowercased()
                groups[key, default: ([:], 0)].count += n
                groups[key, default: ([:], 0)].spellings[spelling] = n
            }
            return groups
        }

        private static func name(_ spellings: [String: Int]) -> String {
            spellings.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key ?? ""
        }

        /// Most frequent first, then alphabetical; trees without a value last.
        var rows: [(name: String?, count: Int)] {
            var rows: [(name: String?, count: Int)] = counts.values
                .map { (name: Self.name($0.spellings), count: $0.count) }
                .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name.lowercased() < $1.name.lowercased() }
                .map { ($0.name, $0.count) }
            if missing > 0 { rows.append((nil, missing)) }
            return rows
        }
    }

    var total = 0
    var withPhotos = 0
    var species = Tally(), varieties = Tally(), rootstocks = Tally(), collections = Tally()
    var classes: [AccuracyClass: Int] = [:]
    var accuracies: [Double] = []
    var perDay: [Day: Int] = [:]

    mutating func add(_ t: Tree, collectionName: String?, hasPhotos: Bool) {
        total += 1
        if hasPhotos { withPhotos += 1 }
        species.add(t.species)
        varieties.add(t.variety)
        rootstocks.add(t.rootstock)
        collections.add(collectionName)
        classes[t.accuracyClass, default: 0] += 1
        if let a = t.horizontalAccuracy, a.isFinite { accuracies.append(a) }
        perDay[days.day(t.createdAt), default: 0] += 1
    }

    /// The classes in order, with the range each covers.
    static let classRows: [(AccuracyClass, String)] = [
        (.survey, "< 0.1 m"), (.excellent, "0.1–5 m"), (.good, "5–10 m"), (.acceptable, "10–15 m"), (.marginal, "15–20 m"),
        (.poor, "≥ 20 m"), (.unknown, "no figure"),
    ]

    var median: Double? {
        guard !accuracies.isEmpty else { return nil }
        let s = accuracies.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    // MARK: Output

    func render(terminal: Terminal) -> String {
        var out = "\(total) tree\(total == 1 ? "" : "s"), \(withPhotos) with photos\n"
        func section(_ title: String, _ tally: Tally, none: String) {
            var table = TextTable(headers: [title, "TREES"])
            for row in tally.rows { table.rows.append([row.name.map(TerminalText.escaped) ?? none, String(row.count)]) }
            out += "\n" + table.render(terminal: terminal)
        }
        section("SPECIES", species, none: "—")
        section("VARIETY", varieties, none: "(no variety)")
        section("ROOTSTOCK", rootstocks, none: "(no rootstock)")
        section("COLLECTION", collections, none: "(no collection)")

        out += "\n" + terminal.bold("ACCURACY (radius of the 95% circle)") + "\n"
        let maxClass = classes.values.max() ?? 0
        let titleWidth = Self.classRows.map { $0.0.treeTitle.count }.max() ?? 0
        let rangeWidth = Self.classRows.map { $0.1.count }.max() ?? 0
        let countWidth = String(maxClass).count
        for (c, range) in Self.classRows {
            let n = classes[c] ?? 0
            let bar = Self.bar(n, of: maxClass, width: Self.barWidth)
            let line = Self.pad(c.treeTitle, titleWidth) + "  " + Self.pad(range, rangeWidth) + "  "
                + Self.pad(String(n), countWidth, right: true) + (bar.isEmpty ? "" : "  " + terminal.paint(bar, c.colour))
            out += line + "\n"
        }
        if let median, let best = accuracies.min(), let worst = accuracies.max() {
            out += "median \(Format.accuracy(median)), best \(Format.accuracy(best)), worst \(Format.accuracy(worst))\n"
        }

        out += "\n" + terminal.bold("CAPTURED PER DAY") + "\n"
        let maxDay = perDay.values.max() ?? 0
        let dayWidth = String(maxDay).count
        for day in perDay.keys.sorted() {
            let n = perDay[day] ?? 0
            out += day.description + "  " + Self.pad(String(n), dayWidth, right: true) + "  " + Self.bar(n, of: maxDay, width: Self.barWidth) + "\n"
        }
        return out
    }

    static let barWidth = 30

    /// A horizontal bar `width` cells long at `max`, in eighths of a cell; at least a sliver for non-zero counts.
    static func bar(_ n: Int, of max: Int, width: Int) -> String {
        guard n > 0, max > 0 else { return "" }
        let eighths = Swift.max(1, Int((Double(n) / Double(max) * Double(width * 8)).rounded()))
        let partials = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + partials[eighths % 8]
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: Swift.max(0, width - text.count))
        return right ? fill + text : text + fill
    }

    var json: JSON {
        func tally(_ t: Tally) -> JSON {
            .array(t.rows.map { .object([("name", .optional($0.name)), ("count", .int($0.count))]) })
        }
        return .object([
            ("trees", .int(total)),
            ("treesWithPhotos", .int(withPhotos)),
            ("species", tally(species)),
            ("varieties", tally(varieties)),
            ("rootstocks", tally(rootstocks)),
            ("collections", tally(collections)),
            ("accuracy", .object([
                ("classes", .array(Self.classRows.map { c, _ in
                    .object([("class", .string(c.rawValue)), ("title", .string(c.treeTitle)), ("count", .int(classes[c] ?? 0))])
                })),
                ("medianMetres", .optional(median)),
                ("bestMetres", .optional(accuracies.min())),
                ("worstMetres", .optional(accuracies.max())),
            ])),
            ("perDay", .array(perDay.keys.sorted().map { .object([("date", .string($0.description)), ("count", .int(perDay[$0] ?? 0))]) })),
        ])
    }
}
