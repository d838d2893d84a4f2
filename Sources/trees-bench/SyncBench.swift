import Foundation

/// `trees-bench sync [--url postgres://USER@HOST:PORT/DB]`: team sync against a real PostgreSQL
/// with PostGIS, each step a whole `trees sync` process timed with its peak memory. Without `--url`
/// the benchmark starts a server of its own; a database given by `--url` is emptied first (its
/// `trees` tables dropped), so give it one of its own.
///
/// Laptop a imports `--first` trees (100,000) and pushes them; laptop b pulls them all. Then, with
/// the server at that size, `--rounds` times (5) each: trees change on a straight after its own
/// bulk push (its store put back as the push left it, each round) and a syncs; trees change on b,
/// which is caught up, and b syncs; b's changes are pulled by a. Laptop c grows the server to
/// `--server` trees (1,000,000), b catches up, and the rounds of b's changes, pulled by c, run
/// again. Each change is one transaction editing the notes of `--changes` (100) random trees. Times
/// are medians of the rounds, peak memory their largest; every line says what `trees sync --json`
/// reported moving.
///
/// Last, with `--care N` (default 1,000,000; 0 skips it), laptop d imports `--first` trees of its
/// own into a collection and syncs them (laptop e pulls them), logs N care events over them with
/// `trees care add --collection` (a tenth of them a day over ten days), pushes them all in one
/// sync and laptop e pulls them: a season's care log going up and down at once.
func runSyncBenchmark(arguments: [String]) throws {
    let trees = Harness.treesBinary(arguments)
    let first = Int(Harness.option("--first", in: arguments) ?? "") ?? 100_000
    let serverSize = Int(Harness.option("--server", in: arguments) ?? "") ?? 1_000_000
    let changes = Int(Harness.option("--changes", in: arguments) ?? "") ?? 100
    let rounds = max(1, Int(Harness.option("--rounds", in: arguments) ?? "") ?? 5)
    let care = Int(Harness.option("--care", in: arguments) ?? "") ?? 1_000_000
    let folder = try Harness.scratchFolder("sync")
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let scratch: ScratchPostgres?
    let url: String
    if let given = Harness.option("--url", in: arguments) {
        scratch = nil
        url = given
        let drop = ["DROP VIEW IF EXISTS trees_layer", "DROP TABLE IF EXISTS tree, collection, photo, photo_file, photo_chunk, care_event, care_schedule, tombstone, tree_conflict, change, trees_schema",
                    "DROP FUNCTION IF EXISTS trees_time_text(timestamptz)"]
        for sql in drop {
            let m = try Harness.measure("/usr/bin/psql", ["-X", "-q", "-d", url, "-c", "SET client_min_messages = warning; " + sql])
            guard m.status == 0 else { throw BenchError("psql could not reset the database: \(sql)") }
        }
    } else {
        let server = try ScratchPostgres(folder: folder + "/server")
        scratch = server
        url = server.url
        print("server: PostgreSQL 15 of its own on port \(server.port), fsync off")
    }
    defer { scratch?.stop() }

    let a = BenchLaptop(name: "a", folder: folder, trees: trees)
    let b = BenchLaptop(name: "b", folder: folder, trees: trees)
    let c = BenchLaptop(name: "c", folder: folder, trees: trees)
    let d = BenchLaptop(name: "d", folder: folder, trees: trees)
    let e = BenchLaptop(name: "e", folder: folder, trees: trees)
    _ = try a.run(["server", "init", url])
    for laptop in [a, b, c, d, e] { _ = try laptop.run(["remote", "add", "office", url]) }

    func report(_ what: String, _ m: Measurement, _ counts: SyncCounts) {
        print(Harness.row([what, String(format: "%.2f s", m.seconds), String(format: "peak %.1f MB", m.peakMB), counts.description]))
    }
    /// Runs `body` `rounds` times; prints the median time, every time, the largest peak and the counts
    /// (those of every round when they differ).
    func median(_ what: String, _ body: () throws -> (Measurement, SyncCounts)) throws {
        var runs: [(Measurement, SyncCounts)] = []
        for _ in 0..<rounds { runs.append(try body()) }
        let times = runs.map(\.0.seconds).sorted()
        let counts = Set(runs.map(\.1.description))
        print(Harness.row([what, String(format: "median %.2f s", times[times.count / 2]), "(" + runs.map { String(format: "%.2f", $0.0.seconds) }.joined(separator: " ") + ")",
                           String(format: "peak %.1f MB", runs.map(\.0.peakMB).max() ?? 0), counts.sorted().joined(separator: " | ")]))
    }

    /// Laptop d's care log going up, and down into laptop e's empty store.
    func careLog() throws {
        guard care > 0 else { return }
        // d's trees are its own, pushed first, so that its next sync moves the care log alone.
        let block = folder + "/block-d.csv"
        try writeTreesCSV(count: first, seed: 3, path: block)
        _ = try d.run(["import", block, "--collection", "Block D"])
        _ = try d.sync()
        _ = try e.sync()
        // Ten days of work over the block, each a tenth of the log.
        let days = 10, eachDay = max(1, care / days / first)
        var logged = 0
        for day in 0..<days {
            for _ in 0..<eachDay where logged < care {
                _ = try d.run(["care", "add", "--collection", "Block D", "water", "--date", String(format: "2026-06-%02d", day + 1),
                               "--quantity", "40 l", "--who", "crew \(day % 3)", "--notes", "drip line checked, row \(day)"])
                logged += first
            }
        }
        print("care log: \(logged) events on \(first) trees")
        let up = try d.sync(counting: "careEvents")
        report("care log push (laptop d)", up.0, up.1)
        let down = try e.sync(counting: "careEvents")
        report("care log pull (laptop e, its trees already pulled)", down.0, down.1)
    }

    let csv = folder + "/first.csv"
    try writeTreesCSV(count: first, seed: 1, path: csv)
    _ = try a.run(["import", csv])
    print("first sync: \(first) trees")
    let push = try a.sync()
    report("push (laptop a)", push.0, push.1)
    let pull = try b.sync()
    report("pull (laptop b, empty store)", pull.0, pull.1)

    print("\(rounds) rounds of \(changes) changed trees, server of \(first) trees")
    try a.keepStore()
    try median("a: straight after its own bulk push") {
        try a.restoreStore()
        try a.edit(changes)
        return try a.sync()
    }
    _ = try b.sync()
    try median("b: caught up") {
        try b.edit(changes)
        return try b.sync()
    }
    _ = try a.sync()
    try median("a: pull of b's changes") {
        try b.edit(changes)
        _ = try b.sync()
        return try a.sync()
    }

    guard serverSize > first else { return try careLog() }
    let more = folder + "/more.csv"
    try writeTreesCSV(count: serverSize - first, seed: 2, path: more)
    _ = try c.run(["import", more])
    try FileManager.default.removeItem(atPath: more)
    let grow = try c.sync()
    report("server grown to \(serverSize) trees: push (laptop c)", grow.0, grow.1)
    let catchUp = try b.sync()
    report("catch-up pull (laptop b)", catchUp.0, catchUp.1)

    print("\(rounds) rounds of \(changes) changed trees, server of \(serverSize) trees")
    try median("b: caught up") {
        try b.edit(changes)
        return try b.sync()
    }
    _ = try c.sync()
    try median("c: pull of b's changes") {
        try b.edit(changes)
        _ = try b.sync()
        return try c.sync()
    }
    try careLog()
}

/// What `trees sync --json` says it moved.
private struct SyncCounts: CustomStringConvertible {
    var what = ""
    var pushed = 0, pulled = 0
    var description: String { "pushed\(what) \(pushed), pulled \(pulled)" }
}

/// One laptop of the benchmark: a store in the benchmark's folder and the `trees` that uses it.
private struct BenchLaptop {
    let name: String
    let folder: String
    let trees: String

    var store: String { folder + "/" + name + ".sqlite" }
    private var kept: String { folder + "/" + name + "-kept.sqlite" }

    func run(_ args: [String], stdoutPath: String = "/dev/null") throws -> Measurement {
        let m = try Harness.measure(trees, args, stdoutPath: stdoutPath, environment: ["TREES_DB": store])
        guard m.status == 0 else { throw BenchError("trees \(args.joined(separator: " ")) on laptop \(name) exited \(m.status)") }
        return m
    }

    /// `trees sync office --json`, timed as a whole process, and the counts of `what` (trees,
    /// careEvents …) it reports.
    func sync(counting what: String = "trees") throws -> (Measurement, SyncCounts) {
        let output = folder + "/" + name + "-sync.json"
        let m = try run(["sync", "office", "--json"], stdoutPath: output)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any]
        func count(_ direction: String) -> Int { ((report?[direction] as? [String: Any])?[what] as? Int) ?? -1 }
        return (m, SyncCounts(what: what == "trees" ? "" : " " + what, pushed: count("pushed"), pulled: count("pulled")))
    }

    /// Changes the notes of `count` random trees in one transaction with one tick of the store's
    /// clock (its wall-clock reading, or one more than the last), as `trees edit` would.
    func edit(_ count: Int) throws {
        let sql = "BEGIN; UPDATE syncState SET hlc = max(hlc + 1, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) << 16), seq = seq + 1; "
            + "UPDATE tree SET notes = 'checked ' || hex(randomblob(4)), updatedAt = strftime('%Y-%m-%d %H:%M:%f', 'now') "
            + "WHERE rowid IN (SELECT rowid FROM tree ORDER BY random() LIMIT \(count)); COMMIT;"
        let m = try Harness.measure("/usr/bin/sqlite3", [store, sql])
        guard m.status == 0 else { throw BenchError("sqlite3 could not edit the store of laptop \(name)") }
    }

    /// Keeps a copy of the store (closed: `trees` leaves no write-ahead log behind) to put back later.
    func keepStore() throws {
        try? FileManager.default.removeItem(atPath: kept)
        try FileManager.default.copyItem(atPath: store, toPath: kept)
    }

    func restoreStore() throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        try FileManager.default.copyItem(atPath: kept, toPath: store)
    }
}

/// A CSV of `count` trees with every text column filled, positions along rows of an orchard block.
private func writeTreesCSV(count: Int, seed: UInt64, path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw BenchError("cannot create \(path)")
    }
    defer { try? handle.close() }
    let species = ["Malus domestica", "Pyrus communis", "Prunus avium", "Juglans regia"]
    let varieties = ["Boskoop", "Gala", "Williams", "Stella", "Franquette"]
    var text = "id,latitude,longitude,horizontalAccuracy,species,variety,rootstock,notes,createdAt\n"
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    for i in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let id = String(format: "%08x-%04x-4%03x-8%03x-%012llx", UInt32(truncatingIfNeeded: state >> 32), UInt16(truncatingIfNeeded: state >> 16),
                        Int(seed) & 0xfff, (i >> 16) & 0xfff, UInt64(i))
        let lat = 48.0 + Double(i / 1000) * 0.00004 + Double(seed) * 0.5
        let lon = 11.0 + Double(i % 1000) * 0.00006
        text += "\(id),\(String(format: "%.7f", lat)),\(String(format: "%.7f", lon)),\(Double(i % 180) / 10 + 1),"
            + "\(species[i % species.count]),\(varieties[i % varieties.count]),M9,row \(i / 1000) tree \(i % 1000),2026-03-02T07:00:00Z\n"
        if text.utf8.count > 1 << 20 {
            handle.write(Data(text.utf8))
            text = ""
        }
    }
    handle.write(Data(text.utf8))
}
