import Foundation
import TreesKit
import TreesStore

/// `trees-bench care [--count N] [--events M] [--keep PATH]`: a store of N trees (default 100,000)
/// in 20 blocks with M care events (default 2,000,000) over two seasons and schedules on every
/// block; times `trees due`, `trees care list ID`, `trees show ID` and `trees stats`. With `--keep`
/// the store is made at PATH once and measured again on later runs.
func runCareBenchmark(arguments: [String]) throws {
    let count = Int(Harness.option("--count", in: arguments) ?? "") ?? 100_000
    let eventCount = Int(Harness.option("--events", in: arguments) ?? "") ?? 2_000_000
    let trees = Harness.treesBinary(arguments)
    let kept = Harness.option("--keep", in: arguments)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-care-\(getpid())").path
    defer { if kept == nil { try? FileManager.default.removeItem(atPath: folder) } }
    let path = kept ?? folder + "/trees.sqlite"
    let now = Date(timeIntervalSince1970: 1_780_000_000) // 2026-05-28, "today" for every command
    if kept != nil, FileManager.default.fileExists(atPath: path) {
        let store = try TreeStore(path: path, clock: .fixed(now))
        let ids = try store.trees().map(\.id)
        try measureCare(store: store, path: path, trees: trees, ids: ids, now: now)
        return
    }
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let store = try TreeStore(path: path, clock: .fixed(now))
    let species = ["Apple", "Pear", "Plum", "Cherry", "Walnut", "Quince", "Apricot", "Peach", "Fig", "Medlar"]
    let varieties = ["Gala", "Cox", "Braeburn", "Conference", "Victoria", "Stella", "Morello", "Franquette"]
    let kinds = try ["water", "water", "water", "spray", "prune", "fertilise", "inspect", "harvest"].map { try CareKind($0) }
    let health: [HealthStatus] = [.healthy, .healthy, .healthy, .stressed, .diseased, .pest]
    var generator = TrackRandom(seed: 7)
    let span = 2 * 365 * 86_400.0
    let start = DispatchTime.now().uptimeNanoseconds
    var ids: [UUID] = []
    var collections: [TreeCollection] = []
    try store.write { w in
        try w.reserveBulkCache(megabytes: 1024)
        collections = try (0..<20).map { try w.createCollection(named: "Block \($0)") }
        for i in 0..<count {
            let t = Tree(coordinate: Coordinate(latitude: 50 + generator.unit() * 0.1, longitude: 8 + generator.unit() * 0.1),
                         horizontalAccuracy: 1 + generator.unit() * 25, accuracySource: .gst, species: species[i % species.count],
                         variety: varieties[Int(generator.next() % UInt64(varieties.count))],
                         collectionID: collections[i % collections.count].id, createdAt: now - span)
            try w.insert(t)
            ids.append(t.id)
        }
    }
    let treeSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let eventStart = DispatchTime.now().uptimeNanoseconds
    var written = 0
    while written < eventCount {
        let batch = min(200_000, eventCount - written)
        var events: [CareEvent] = []
        events.reserveCapacity(batch)
        for j in 0..<batch {
            let n = written + j
            let kind = kinds[Int(generator.next() % UInt64(kinds.count))]
            let date = now - generator.unit() * span
            events.append(CareEvent(
                treeID: ids[n % ids.count], kind: kind, date: date,
                notes: n % 50 == 0 ? "row \(n % 400) checked" : nil,
                quantity: kind == .harvest ? CareQuantity(value: (generator.unit() * 40).rounded(), unit: "kg")
                    : kind.name == "water" ? CareQuantity(value: 40, unit: "l") : nil,
                health: kind == .inspect ? health[Int(generator.next() % UInt64(health.count))] : nil,
                who: "crew \(n % 7)", createdAt: date))
        }
        try store.write { w in
            try w.reserveBulkCache(megabytes: 1024)
            try w.insert(careEvents: events)
        }
        written += batch
    }
    // Watering every 14 days in season on every block, spraying every 21 days on one block, and
    // a tree's own pruning schedule on a hundred trees.
    try store.write { w in
        for c in collections {
            try w.setSchedule(CareSchedule(target: .collection(c.id), kind: try CareKind("water"), everyDays: 14,
                                           from: Day(year: 2025, month: 1, day: 1), season: try Season(parsing: "04-01..09-30"), createdAt: now))
        }
        try w.setSchedule(CareSchedule(target: .collection(collections[0].id), kind: try CareKind("spray"), everyDays: 21,
                                       from: Day(year: 2025, month: 1, day: 1), createdAt: now))
        for id in ids.prefix(100) {
            try w.setSchedule(CareSchedule(target: .tree(id), kind: try CareKind("prune"), everyDays: 365,
                                           from: Day(year: 2025, month: 1, day: 1), createdAt: now))
        }
    }
    let eventSeconds = Double(DispatchTime.now().uptimeNanoseconds - eventStart) / 1e9
    print("care: \(count) trees in \(String(format: "%.1f", treeSeconds)) s, \(eventCount) events in \(String(format: "%.1f", eventSeconds)) s "
        + "(\(Int(Double(eventCount) / eventSeconds)) events/s), database \(Harness.fileSize(path) / 1_048_576) MB")
    try measureCare(store: store, path: path, trees: trees, ids: ids, now: now)
}

private func measureCare(store: TreeStore, path: String, trees: String, ids: [UUID], now: Date) throws {
    let count = ids.count
    let eventCount = try store.read { r in try r.careCountsByMonth().reduce(0) { $0 + $1.count } }
    let due = try store.read { r in try r.dueCare(today: Day(now, in: .gmt), within: 0, zone: .gmt) }.count
    print("care: \(count) trees, \(eventCount) events, \(due) cares due")
    let id = ShortID.of(ids[count / 2])
    let cases: [(String, [String], Double)] = [
        ("due (\(due) lines)", ["due"], 0.1),
        ("due --json", ["due", "--json"], 0),
        ("due --collection 'Block 3' --within 7d", ["due", "--collection", "Block 3", "--within", "7d"], 0),
        ("care list ID (\(eventCount / count) events)", ["care", "list", String(id)], 0.1),
        ("care list ID --kind water --json", ["care", "list", String(id), "--kind", "water", "--json"], 0.1),
        ("show ID (care section)", ["show", String(id)], 0),
        ("list --limit 20 (with a health column)", ["list", "--limit", "20"], 0),
        ("stats", ["stats"], 1),
    ]
    print(Harness.row(["command", "median of 5 (s)", "target (s)", "peak memory (MB)"]))
    // The first `due` in a time zone builds the table of what is due (once; writes keep it).
    try store.write { try $0.resetDueCare() }
    let first = try Harness.measure(trees, ["due", "--db", path], environment: ["TREES_NOW": "2026-05-28T20:26:40Z", "TZ": "UTC"])
    print(Harness.row(["due, first run in a zone (builds the table; once)", String(format: "%.3f", first.seconds), "-", String(format: "%.1f", first.peakMB)]))
    for (name, args, target) in cases {
        let m = try Harness.median(of: 5) { try Harness.measure(trees, args + ["--db", path], environment: ["TREES_NOW": "2026-05-28T20:26:40Z", "TZ": "UTC"]) }
        // A target of 0: none is set for that command.
        print(Harness.row([name, String(format: "%.3f", m.seconds), target > 0 ? String(format: "%.1f", target) : "-", String(format: "%.1f", m.peakMB)]))
    }
}
