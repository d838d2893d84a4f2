import Foundation

/// `trees-bench listings [--sizes 10000,100000,1000000] [--runs N]`: what a store of many trees
/// costs the commands that show them all, as whole processes with their peak memory: `list`
/// (table and JSON), `collection show`, `care list` (an event a tree), `map`, and `doctor`, which
/// reads every value of every row. Beside them, the `sqlite3` shell printing the same trees' rows
/// from the same store (`-column`, `-json`): the least any listing of them takes; and SQLite's own
/// `PRAGMA quick_check`, which `doctor` runs before it checks the values. Every listing is written to a file, as a user's redirect
/// would. The trees are the surveyed GPX of `imports` (name, desc, ele, time a point), imported
/// into one collection.
///
/// Memory must stay flat as the store grows: each listing holds one tree at a time.
func runListingsBenchmark(arguments: [String]) throws {
    let sizes = (Harness.option("--sizes", in: arguments) ?? "10000,100000,1000000")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 3
    let trees = Harness.treesBinary(arguments)
    let sqlite3 = "/usr/bin/sqlite3"
    let folder = try Harness.scratchFolder("listings")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let output = folder + "/out"
    let rowsSQL = """
        SELECT substr(id, 29, 8) AS id, species, variety, horizontalAccuracy, collectionId, createdAt
        FROM tree ORDER BY createdAt DESC, id DESC
        """
    let jsonSQL = "SELECT * FROM tree ORDER BY createdAt DESC, id DESC"

    print(Harness.row(["trees", "step", "median s", "µs a tree", "MB/s out", "peak MB", "vs sqlite3"]))
    for n in sizes {
        let gpx = folder + "/survey-\(n).gpx", db = folder + "/listings-\(n).sqlite"
        try writeSurveyGPX(count: n, path: gpx)
        let imported = try Harness.measure(trees, ["import", gpx, "--collection", "Survey", "--db", db])
        guard imported.status == 0 else { throw BenchError("import of \(n) trees exited with \(imported.status)") }
        try? FileManager.default.removeItem(atPath: gpx)
        let logged = try Harness.measure(trees, ["care", "add", "--collection", "Survey", "water", "--date", "2026-05-01", "--db", db])
        guard logged.status == 0 else { throw BenchError("care add for \(n) trees exited with \(logged.status)") }

        func measured(_ executable: String, _ args: [String], to path: String = output) throws -> (Measurement, Int) {
            let m = try Harness.median(of: runs) { try Harness.measure(executable, args, stdoutPath: path) }
            guard m.status == 0 else { throw BenchError("\(executable) \(args.joined(separator: " ")) exited with \(m.status)") }
            return (m, Harness.fileSize(path))
        }
        func report(_ step: String, _ result: (Measurement, Int), yardstick: Measurement?) {
            let (m, bytes) = result
            print(Harness.row([String(n), step, String(format: "%.3f", m.seconds), String(format: "%.2f", m.seconds / Double(n) * 1e6),
                               String(format: "%.1f", Double(bytes) / 1_048_576 / m.seconds), String(format: "%.1f", m.peakMB),
                               yardstick.map { String(format: "%.2f×", m.seconds / $0.seconds) } ?? ""]))
        }
        let table = try measured(sqlite3, ["-readonly", "-column", db, rowsSQL])
        report("sqlite3 -column (the rows)", table, yardstick: nil)
        let json = try measured(sqlite3, ["-readonly", "-json", db, jsonSQL])
        report("sqlite3 -json (the rows)", json, yardstick: nil)
        report("trees list", try measured(trees, ["list", "--db", db]), yardstick: table.0)
        report("trees list --json", try measured(trees, ["list", "--json", "--db", db]), yardstick: json.0)
        report("trees collection show", try measured(trees, ["collection", "show", "Survey", "--db", db]), yardstick: table.0)
        report("trees care list", try measured(trees, ["care", "list", "--db", db]), yardstick: table.0)
        let page = folder + "/map.html"
        let map = try measured(trees, ["map", "--out", page, "--db", db])
        report("trees map", (map.0, Harness.fileSize(page)), yardstick: nil)
        let quickCheck = try measured(sqlite3, ["-readonly", db, "PRAGMA quick_check"])
        report("sqlite3 PRAGMA quick_check", quickCheck, yardstick: nil)
        report("trees doctor", try measured(trees, ["doctor", "--db", db]), yardstick: quickCheck.0)
        for path in [db, db + "-wal", db + "-shm", page, output] { try? FileManager.default.removeItem(atPath: path) }
    }
}
