import Foundation
import TreesKit
import TreesStore

/// The "care" lines of `trees show`: health, the last event of each kind, and what is due.
enum CareDetails {
    static func lines(_ t: Tree, reader r: StoreReader, now: Date, terminal: Terminal) throws -> [(String, String)] {
        let zone = CareValues.zone
        let today = Day(now, in: zone)
        var lines: [(String, String)] = []
        if let h = try r.health(of: t.id) {
            lines.append(("health", "\(h.status.rawValue) since \(Day(h.date, in: zone))"))
        }
        let last = try r.lastCare(of: t.id)
        let schedules = try r.careSchedules(of: t)
        guard !last.isEmpty || !schedules.isEmpty else { return lines }
        let width = (last.map(\.kind) + schedules.map(\.kind)).map { TerminalText.escaped($0.name).count }.max() ?? 0
        func kind(_ k: CareKind) -> String { TerminalText.escaped(k.name).padding(toLength: width, withPad: " ", startingAt: 0) }
        lines.append(("care", last.isEmpty ? "none logged" : ""))
        for e in last {
            var text = "\(kind(e.kind))  last \(Day(e.date, in: zone))"
            if let q = e.quantity { text += "  \(TerminalText.escaped(q.text))" }
            if let n = e.notes { text += "  \(TerminalText.escaped(n))" }
            lines.append(("", text))
        }
        if !schedules.isEmpty {
            lines.append(("due", ""))
            for s in schedules {
                let lastDay = last.first { $0.kind == s.kind }.map { Day($0.date, in: zone) }
                let next = s.nextDue(lastDone: lastDay)
                let d = DueCare(treeID: t.id, species: t.species, variety: t.variety, kind: s.kind, lastDone: lastDay, due: next, today: today)
                let status = DueText.status(d)
                var text = "\(kind(s.kind))  \(next)  \(d.isOverdue ? terminal.paint(status, .red) : status)"
                text += "  (every \(s.everyDays)d\(s.season.map { " in \($0)" } ?? ""))"
                lines.append(("", text))
            }
        }
        // The first line of a section holds its first entry.
        var merged: [(String, String)] = []
        for (k, v) in lines {
            if k.isEmpty, let previous = merged.last, !previous.0.isEmpty, previous.1.isEmpty {
                merged[merged.count - 1].1 = v
            } else {
                merged.append((k, v))
            }
        }
        return merged
    }
}

/// The care part of `trees stats`: events per kind per calendar month in the local time zone, harvest totals, health.
struct CareStats {
    var perMonth: [(month: String, kind: String, count: Int)] = []
    var byVariety: [(group: String?, unit: String?, total: Double, events: Int)] = []
    var byCollection: [(group: String?, unit: String?, total: Double, events: Int)] = []
    var health: [(status: HealthStatus, count: Int)] = []

    static func read(_ r: StoreReader, collection: UUID?) throws -> CareStats {
        CareStats(perMonth: try r.careCountsByMonth(zone: CareValues.zone, collection: collection), byVariety: try r.harvestTotals(byCollection: false, collection: collection),
                  byCollection: try r.harvestTotals(byCollection: true, collection: collection), health: try r.healthCounts(collection: collection))
    }

    var isEmpty: Bool { perMonth.isEmpty && health.isEmpty }

    func render(terminal: Terminal) -> String {
        var out = ""
        if !health.isEmpty {
            var table = TextTable(headers: ["HEALTH", "TREES"])
            table.rows = health.map { [$0.status.rawValue, String($0.count)] }
            out += "\n" + table.render(terminal: terminal)
        }
        if !perMonth.isEmpty {
            var table = TextTable(headers: ["MONTH", "CARE", "EVENTS"])
            table.rows = perMonth.map { [$0.month, TerminalText.escaped($0.kind), String($0.count)] }
            out += "\n" + table.render(terminal: terminal)
        }
        for (title, rows, none) in [("VARIETY", byVariety, "(no variety)"), ("COLLECTION", byCollection, "(no collection)")] where !rows.isEmpty {
            var table = TextTable(headers: [title, "HARVEST", "EVENTS"])
            table.rows = rows.map { [TerminalText.escaped($0.group ?? none), TerminalText.escaped(CareQuantity(value: $0.total, unit: $0.unit).text),
                                     String($0.events)] }
            out += "\n" + table.render(terminal: terminal)
        }
        return out
    }

    var json: JSON {
        func harvest(_ rows: [(group: String?, unit: String?, total: Double, events: Int)], key: String) -> JSON {
            .array(rows.map { .object([(key, .optional($0.group)), ("unit", .optional($0.unit)), ("total", .number($0.total)), ("events", .int($0.events))]) })
        }
        return .object([
            ("health", .array(health.map { .object([("status", .string($0.status.rawValue)), ("trees", .int($0.count))]) })),
            ("perMonth", .array(perMonth.map { .object([("month", .string($0.month)), ("kind", .string($0.kind)), ("count", .int($0.count))]) })),
            ("harvestByVariety", harvest(byVariety, key: "variety")),
            ("harvestByCollection", harvest(byCollection, key: "collection")),
        ])
    }
}

/// "Log care?" after a capture is saved: a kind (Enter for none) and notes, logged as done now.
enum CareAfterCapture {
    static func offer(for tree: Tree, store: TreeStore) throws {
        guard let answer = InteractiveCapture.ask("Log care? Kind, e.g. plant or water (Enter for none): "),
              let kind = try? CareKind(answer) else { return }
        let notes = InteractiveCapture.ask("Care notes: ").flatMap(Values.text)
        let event = try store.write { w -> CareEvent in
            let e = CareEvent(treeID: tree.id, kind: kind, date: w.now, notes: notes, who: try w.preference(.operatorName), createdAt: w.now)
            try w.insert(e)
            return e
        }
        InteractiveCapture.say("Logged \(kind.name) (\(ShortID.of(event.id))).")
    }
}
