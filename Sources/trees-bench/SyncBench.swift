import Foundation

/// `trees-bench sync --url postgres://USER@HOST:PORT/DB`: team sync against a real PostgreSQL with
/// PostGIS. The database is emptied first (its `trees` tables dropped), so give it one of its own.
///
/// Measures, with peak memory of the `trees` process: the first sync of 100,000 trees up (one
/// laptop pushes them) and down (a second laptop pulls them); then, with the server grown to
/// 1,000,000 trees, an incremental sync of 100 changed trees (push 100, pull nothing new). Sizes
/// are options: `--first N` (100000), `--server N` (1000000), `--changes N` (100).
func runSyncBenchmark(arguments: [String]) throws {
    guard let url = Harness.option("--url", in: arguments) else {
        throw BenchError("trees-bench sync needs --url postgres://USER@HOST:PORT/DB (a database it may empty)")
    }
    let trees = Harness.treesBinary(arguments)
    let first = Int(Harness.option("--first", in: arguments) ?? "") ?? 100_000
    let serverSize = Int(Harness.option("--server", in: arguments) ?? "") ?? 1_000_000
    let changes = Int(Harness.option("--changes", in: arguments) ?? "") ?? 100
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-sync-\(getpid())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let drop = ["DROP VIEW IF EXISTS trees_layer", "DROP TABLE IF EXISTS tree, collection, photo, photo_file, photo_chunk, tombstone, tree_conflict, change, trees_schema",
                "DROP FUNCTION IF EXISTS trees_time_text(timestamptz)"]
    for sql in drop {
        let m = try Harness.measure("/usr/bin/psql", ["-X", "-q", "-d", url, "-c", sql])
        guard m.status == 0 else { throw BenchError("psql could not reset the database: \(sql)") }
    }

    func store(_ name: String) -> [String: String] { ["TREES_DB": folder + "/" + name + ".sqlite"] }
    func run(_ name: String, _ args: [String]) throws -> Measurement {
        let m = try Harness.measure(trees, args, environment: store(name))
        guard m.status == 0 else { throw BenchError("trees \(args.joined(separator: " ")) exited \(m.status)") }
        return m
    }
    func report(_ what: String, _ m: Measurement, count: Int) {
        print(Harness.row([what, String(format: "%.2f s", m.seconds), String(format: "%.0f trees/s", Double(count) / m.seconds),
                           String(format: "peak %.1f MB", m.peakMB)]))
    }

    _ = try run("a", ["server", "init", url])
    for name in ["a", "b", "c"] { _ = try run(name, ["remote", "add", "office", url]) }

    let csv = folder + "/first.csv"
    try writeTreesCSV(count: first, seed: 1, path: csv)
    _ = try run("a", ["import", csv])
    print("first sync: \(first) trees")
    report("push (laptop a)", try run("a", ["sync", "office"]), count: first)
    report("pull (laptop b)", try run("b", ["sync", "office"]), count: first)

    if serverSize > first {
        let more = folder + "/more.csv"
        try writeTreesCSV(count: serverSize - first, seed: 2, path: more)
        _ = try run("c", ["import", more])
        let grow = try run("c", ["sync", "office"])
        print("server grown to \(serverSize) trees (laptop c pushed \(serverSize - first) in \(String(format: "%.1f", grow.seconds)) s, peak \(String(format: "%.1f", grow.peakMB)) MB)")
        let catchUp = try run("a", ["sync", "office"])
        print("laptop a pulled them in \(String(format: "%.1f", catchUp.seconds)) s, peak \(String(format: "%.1f", catchUp.peakMB)) MB")
    }
    // Changes as a user's edits would make them: one transaction, one tick of the store's clock.
    let edit = "BEGIN; UPDATE syncState SET hlc = hlc + 65536, seq = seq + 1; "
        + "UPDATE tree SET notes = 'checked ' || hex(randomblob(4)), updatedAt = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE rowid IN (SELECT rowid FROM tree ORDER BY random() LIMIT \(changes)); COMMIT;"
    let sqlite = try Harness.measure("/usr/bin/sqlite3", [folder + "/a.sqlite", edit])
    guard sqlite.status == 0 else { throw BenchError("sqlite3 could not edit the store") }
    print("incremental sync: \(changes) changed trees, server of \(max(serverSize, first)) trees")
    report("push + pull (laptop a)", try run("a", ["sync", "office"]), count: changes)
    report("pull (laptop b)", try run("b", ["sync", "office"]), count: changes + max(0, serverSize - first))
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
