import Foundation
import TreesStore

/// `trees-bench imports [--sizes 100000,500000,1000000] [--runs N] [--trees PATH]`: whether
/// imports stay linear and flat as the input grows.
///
/// For each size it writes a surveyed GPX file (one waypoint a tree with name, desc, ele and time,
/// no ids: what a survey delivers), then times, in the same run: `xmllint --stream` merely parsing
/// it and GPSBabel's GPX→CSV as yardsticks; `trees import` of it into an empty store; the same
/// import again into that store (every tree a duplicate, found by position and species); the same
/// trees shuffled (times and positions in no order) into an empty store; and
/// imports of the same trees as our JSON, CSV and GeoJSON (exported from the first store, so with ids, GeoJSON beside `ogr2ogr` reading it) into
/// empty stores; and an import of as many trees in the iOS Tree Tracker app's JSON (ids made at
/// random, in no order); after the survey's import and the Tree Tracker file's, what SQLite alone
/// takes to store the rows they stored (`SQLiteFloor`). Prints seconds, µs a tree, the µs a tree relative to the smallest size, the ratio
/// to xmllint and GPSBabel, and the child's peak memory (wait4). Median of `runs` (default 3).
/// Targets: µs a tree at the largest size within 10% of the smallest; peak under 50 MB.
///
/// With `--peaks` it measures peak memory alone, across the sizes a small file's import spans
/// (see `runImportPeaks`). With `--rounds N` it measures linearity alone, in rounds: each round
/// imports every file once at the smallest size and once at the largest, one after the other, so
/// that a machine slower in one part of the run than in another moves both sizes of a round alike.
/// See `runLinearityRounds`.
func runImportSeriesBenchmark(arguments: [String]) throws {
    if let rounds = Harness.option("--rounds", in: arguments).flatMap({ Int($0) }) {
        return try runLinearityRounds(arguments: arguments, rounds: max(1, rounds))
    }
    if arguments.contains("--peaks") { return try runImportPeaks(arguments: arguments) }
    let sizes = (Harness.option("--sizes", in: arguments) ?? "100000,500000,1000000")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 3
    let trees = Harness.treesBinary(arguments)
    let folder = try Harness.scratchFolder("imports")
    defer { try? FileManager.default.removeItem(atPath: folder) }

    func median(_ body: () throws -> Measurement) throws -> Measurement {
        var all: [Measurement] = []
        for _ in 0..<runs {
            let m = try body()
            guard m.status == 0 else { throw BenchError("a measured command exited with \(m.status)") }
            all.append(m)
        }
        let sorted = all.sorted { $0.seconds < $1.seconds }
        var m = sorted[sorted.count / 2]
        m.peakBytes = all.map(\.peakBytes).max() ?? m.peakBytes
        return m
    }

    let floor = try SQLiteFloor(trees: trees, folder: folder, arguments: arguments)
    print(Harness.row(["size", "step", "seconds (median)", "µs/tree", "vs smallest", "vs xmllint", "vs gpsbabel", "peak MB (max)"]))
    var firstPerTree: [String: Double] = [:]
    for n in sizes {
        let gpx = folder + "/survey-\(n).gpx"
        try writeSurveyGPX(count: n, path: gpx)
        let lint = try median { try Harness.measure("/usr/bin/xmllint", ["--stream", "--noout", gpx]) }
        let babel = try median { try Harness.measure("/usr/bin/gpsbabel", ["-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", folder + "/babel.csv"]) }
        func report(_ step: String, _ m: Measurement) {
            let perTree = m.seconds / Double(n) * 1e6
            let first = firstPerTree[step] ?? perTree
            if firstPerTree[step] == nil { firstPerTree[step] = perTree }
            print(Harness.row([String(n), step, String(format: "%.3f", m.seconds), String(format: "%.2f", perTree),
                               String(format: "%.2f×", perTree / first), String(format: "%.2f×", m.seconds / lint.seconds),
                               String(format: "%.1f×", babel.seconds / m.seconds), String(format: "%.1f", m.peakMB)]))
        }
        report("xmllint --stream (parse only)", lint)
        report("gpsbabel gpx→unicsv", babel)

        let db = folder + "/survey-\(n).sqlite"
        let imported = try median {
            removeStore(db)
            return try Harness.measure(trees, ["import", gpx, "--db", db])
        }
        report("trees import gpx (survey, no ids)", imported)
        report("sqlite3 alone: the survey's rows into an empty store" + floor.cacheNote, try median { try floor.measure(from: db) })
        let again = try median { try Harness.measure(trees, ["import", gpx, "--db", db]) }
        report("trees import gpx again (all duplicates)", again)
        /// Imports `file` into an empty store `runs` times, reports the median as `step`, and
        /// removes the file and the store.
        /// With `floorStep`, also what SQLite alone takes to store the rows the import stored.
        func importOnce(_ file: String, as step: String, floorStep: String? = nil) throws {
            let store = file + ".sqlite"
            report(step, try median {
                removeStore(store)
                return try Harness.measure(trees, ["import", file, "--db", store])
            })
            if let floorStep { report(floorStep + floor.cacheNote, try median { try floor.measure(from: store) }) }
            removeStore(store)
            try? FileManager.default.removeItem(atPath: file)
        }
        // The same trees in no order: their times land all over the creation-time index.
        let shuffled = folder + "/shuffled-\(n).gpx"
        try writeSurveyGPX(count: n, path: shuffled, inNoOrder: true)
        try importOnce(shuffled, as: "trees import gpx (survey in no order)")

        for format in ["json", "csv", "geojson"] {
            let file = folder + "/survey-\(n).\(format)"
            let exported = try Harness.measure(trees, ["export", "--format", format, "--out", file, "--db", db])
            guard exported.status == 0 else { throw BenchError("export to \(format) exited with \(exported.status)") }
            let other = folder + "/\(format)-\(n).sqlite"
            let m = try median {
                removeStore(other)
                return try Harness.measure(trees, ["import", file, "--db", other])
            }
            report("trees import \(format) (with ids)", m)
            // GDAL reading the same GeoJSON (into CSV, the least it can write), in the same run.
            if format == "geojson", FileManager.default.isExecutableFile(atPath: "/usr/bin/ogr2ogr") {
                let csv = folder + "/ogr-\(n).csv"
                let ogr = try median {
                    try? FileManager.default.removeItem(atPath: csv)
                    return try Harness.measure("/usr/bin/ogr2ogr", ["-f", "CSV", csv, file])
                }
                report("ogr2ogr geojson→csv (GDAL; trees \(String(format: "%.1f", ogr.seconds / m.seconds))× its speed)", ogr)
                try? FileManager.default.removeItem(atPath: csv)
            }
            removeStore(other)
            try? FileManager.default.removeItem(atPath: file)
        }
        removeStore(db)
        try? FileManager.default.removeItem(atPath: gpx)

        // The iOS Tree Tracker app's export: ids made at random, so they come in no order.
        let app = folder + "/tracker-\(n).json"
        try writeTreeTrackerJSON(count: n, path: app)
        try importOnce(app, as: "trees import json (Tree Tracker, random ids)", floorStep: "sqlite3 alone: the Tree Tracker rows into an empty store")
    }
}

/// `trees-bench imports --rounds N [--sizes SMALL,LARGE]` (100000,1000000): the µs a tree at the
/// large size over that at the small one, for each import, round by round.
///
/// The inputs are written once: the surveyed GPX, our JSON, CSV and GeoJSON of the same trees (with ids),
/// and the Tree Tracker app's JSON (ids made at random). Each round then runs, for the small size
/// and then the large one: the survey into an empty store, the same file again into that store
/// (all duplicates), the JSON and CSV into empty stores, the Tree Tracker file into an empty
/// store, the survey again from standard input into an empty store, and the survey shuffled (times
/// and positions in no order) into an empty store; and what SQLite alone takes to store the
/// survey's rows and the Tree Tracker rows (`SQLiteFloor`). Prints every round's
/// ratio for each import, their median, the median seconds at each size and the largest peak.
func runLinearityRounds(arguments: [String], rounds: Int) throws {
    let sizes = (Harness.option("--sizes", in: arguments) ?? "100000,1000000")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    guard let small = sizes.min(), let large = sizes.max(), small < large else {
        throw BenchError("--rounds needs two sizes, e.g. --sizes 100000,1000000")
    }
    let trees = Harness.treesBinary(arguments)
    let folder = try Harness.scratchFolder("rounds")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    func run(_ arguments: [String]) throws -> Measurement { try runTrees(trees, arguments) }

    // The inputs, written once for each size.
    for n in [small, large] {
        let gpx = folder + "/survey-\(n).gpx", db = folder + "/source-\(n).sqlite"
        try writeSurveyGPX(count: n, path: gpx)
        _ = try run(["import", gpx, "--db", db])
        for format in ["json", "csv", "geojson"] {
            _ = try run(["export", "--format", format, "--out", folder + "/survey-\(n).\(format)", "--db", db])
        }
        removeStore(db)
        try writeTreeTrackerJSON(count: n, path: folder + "/tracker-\(n).json")
        try writeSurveyGPX(count: n, path: folder + "/shuffled-\(n).gpx", inNoOrder: true)
    }

    let floor = try SQLiteFloor(trees: trees, folder: folder, arguments: arguments)
    let steps = ["import gpx (survey, no ids)", "import gpx again (all duplicates)", "import json (with ids)",
                 "import csv (with ids)", "import json (Tree Tracker, random ids)", "import gpx from standard input (survey)",
                 "import geojson (with ids)", "import gpx (survey in no order)",
                 "sqlite3 alone: the survey's rows" + floor.cacheNote, "sqlite3 alone: the Tree Tracker rows" + floor.cacheNote]
    // seconds[step][size]: one figure a round.
    var seconds = [[Int: [Double]]](repeating: [:], count: steps.count)
    var cpu = [[Int: [Double]]](repeating: [:], count: steps.count)
    var peak = [Double](repeating: 0, count: steps.count)
    for round in 1...rounds {
        for n in [small, large] {
            let db = folder + "/store-\(n).sqlite"
            func record(_ step: Int, _ m: Measurement) {
                seconds[step][n, default: []].append(m.seconds)
                cpu[step][n, default: []].append(m.cpuSeconds)
                peak[step] = max(peak[step], m.peakMB)
            }
            removeStore(db)
            record(0, try run(["import", folder + "/survey-\(n).gpx", "--db", db]))
            record(1, try run(["import", folder + "/survey-\(n).gpx", "--db", db]))
            record(8, try floor.measure(from: db))
            for (step, file) in [(2, "survey-\(n).json"), (3, "survey-\(n).csv"), (4, "tracker-\(n).json")] {
                removeStore(db)
                record(step, try run(["import", folder + "/" + file, "--db", db]))
            }
            record(9, try floor.measure(from: db))
            // Standard input has no size: no estimate of its trees, no direct write.
            removeStore(db)
            let piped = try Harness.measure("/bin/sh", ["-c", "exec \"$0\" import - --format gpx --db \"$1\" < \"$2\"", trees, db, folder + "/survey-\(n).gpx"])
            guard piped.status == 0 else { throw BenchError("trees import - < survey-\(n).gpx exited with \(piped.status)") }
            record(5, piped)
            removeStore(db)
            record(6, try run(["import", folder + "/survey-\(n).geojson", "--db", db]))
            removeStore(db)
            record(7, try run(["import", folder + "/shuffled-\(n).gpx", "--db", db]))
            removeStore(db)
        }
        FileHandle.standardError.write(Data("round \(round) of \(rounds) done\n".utf8))
    }

    print("\(rounds) rounds of (\(small), \(large)); ratio = µs a tree at \(large) over µs a tree at \(small), within a round;"
          + " cpu ratio = the same of processor time (user and system), which other work on the machine moves less")
    print(Harness.row(["step", "ratio (median of rounds)", "rounds", "cpu ratio (median)", "cpu rounds",
                       "s at \(small) (median)", "s at \(large) (median)", "peak MB (max)"]))
    func ratios(_ of: [[Int: [Double]]], _ i: Int) -> [Double] {
        zip(of[i][small] ?? [], of[i][large] ?? []).map { ($1 / Double(large)) / ($0 / Double(small)) }
    }
    for (i, step) in steps.enumerated() {
        let wall = ratios(seconds, i), processor = ratios(cpu, i)
        print(Harness.row([step, String(format: "%.2f×", Harness.median(wall)), wall.map { String(format: "%.2f", $0) }.joined(separator: " "),
                           String(format: "%.2f×", Harness.median(processor)), processor.map { String(format: "%.2f", $0) }.joined(separator: " "),
                           String(format: "%.3f", Harness.median(seconds[i][small] ?? [])), String(format: "%.3f", Harness.median(seconds[i][large] ?? [])),
                           String(format: "%.1f", peak[i])]))
    }
}

/// What SQLite alone takes to store the trees an import stored: the `sqlite3` shell copies the
/// rows of a store an import made (`source`) into a copy of an empty store, as the import stores
/// them. With the same library, cache (12 MiB), journal in memory, no sync, exclusive lock and
/// foreign keys checked at the commit, it inserts the collections, then the trees in the
/// source's rowid order (the file's), then their version rows in id order, in one transaction;
/// the triggers the import stands in for are dropped first. No parsing, no checks, no duplicate
/// search, no publishing: a floor under the import, not a rival to it. It reads the rows from
/// the source as it goes, which the import does not (it reads its file instead).
///
/// `--floor-cache MIB` gives it another cache than the import's 12 MiB, to see what ids made at
/// random would need for the floor itself to stay linear.
struct SQLiteFloor {
    let shell = "/usr/bin/sqlite3"
    /// An empty store, as `trees import` of a GPX file with no trees leaves it.
    let template: String
    /// Where each copy of it is filled, and removed after.
    let store: String
    /// The page cache, in MiB: the import's own unless `--floor-cache` says otherwise.
    let cacheMiB: Int

    init(trees: String, folder: String, arguments: [String]) throws {
        cacheMiB = Harness.option("--floor-cache", in: arguments).flatMap { Int($0) } ?? StoreWriter.largeImportCacheMegabytes
        let empty = folder + "/no-trees.gpx"
        try writeSurveyGPX(count: 0, path: empty)
        template = folder + "/empty-store.sqlite"
        store = folder + "/floor.sqlite"
        removeStore(template)
        _ = try runTrees(trees, ["import", empty, "--db", template])
        try? FileManager.default.removeItem(atPath: empty)
    }

    /// What a step's name says of the cache: nothing for the import's own.
    var cacheNote: String { cacheMiB == StoreWriter.largeImportCacheMegabytes ? "" : " (\(cacheMiB) MiB of cache)" }

    /// Copies the rows of `source` into a new copy of the empty store, timed, and removes that copy.
    func measure(from source: String) throws -> Measurement {
        removeStore(store)
        try FileManager.default.copyItem(atPath: template, toPath: store)
        defer { removeStore(store) }
        let quoted = "'" + source.replacingOccurrences(of: "'", with: "''") + "'"
        let sql = """
            PRAGMA journal_mode = DELETE; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY;
            PRAGMA synchronous = OFF; PRAGMA cache_size = -\(cacheMiB * 1024); PRAGMA foreign_keys = ON; PRAGMA defer_foreign_keys = ON;
            DROP TRIGGER tree_sync_insert; DROP TRIGGER careDue_tree_insert;
            ATTACH \(quoted) AS source;
            BEGIN;
            INSERT INTO main.collection SELECT * FROM source.collection;
            INSERT INTO main.tree SELECT * FROM source.tree ORDER BY rowid;
            INSERT INTO main.treeVersion (treeId, seq, version, device)
                SELECT t.id, s.seq, s.hlc, s.deviceId FROM main.tree t INDEXED BY sqlite_autoindex_tree_1, main.syncState s ORDER BY t.id;
            COMMIT;
            """
        let m = try Harness.measure(shell, [store, sql])
        guard m.status == 0 else { throw BenchError("sqlite3 copying the rows of \(source) exited with \(m.status)") }
        return m
    }
}

/// Runs `trees` with `arguments`; an exit other than 0 stops the benchmark, naming the command.
func runTrees(_ trees: String, _ arguments: [String]) throws -> Measurement {
    let m = try Harness.measure(trees, arguments)
    guard m.status == 0 else { throw BenchError("trees \(arguments.joined(separator: " ")) exited with \(m.status)") }
    return m
}

/// Removes a store and the files SQLite keeps beside it.
func removeStore(_ db: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
}

/// A collection JSON file as the iOS Tree Tracker app exports it (its layout: pretty-printed, keys
/// sorted, upper-case random UUIDs, photo dates without photos) holding `count` trees in 20
/// collections, in the order the app lists them.
func writeTreeTrackerJSON(count: Int, path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw BenchError("cannot create \(path)")
    }
    defer { try? handle.close() }
    var generator = TrackRandom(seed: 23)
    func uuid() -> String {
        var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: Int(generator.unit() * 256)) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String(format: "%02X", $0) }.joined()
        let c = Array(hex)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-" + String(c[20..<32])
    }
    let species = ["Malus domestica", "Pyrus communis", "Prunus avium", "Juglans regia", "Cydonia oblonga", "Prunus domestica"]
    let varieties = ["Boskoop", "Gala", "Williams", "Stella", "Franquette", "Vranja", "Cox", "Conference"]
    let rootstocks = ["M9", "MM106", "Quince A", "Gisela 5", "seedling"]
    func date(_ seconds: Int) -> String {
        Date(timeIntervalSince1970: Double(seconds)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
    let base = 1_745_000_000  // April 2025
    let collections = (0..<20).map { (id: uuid(), name: "Block \($0 + 1)") }
    var block = "{\n  \"collections\" : [\n"
    block += collections.map { c in
        "    {\n      \"createdAt\" : \"\(date(base))\",\n      \"id\" : \"\(c.id)\",\n      \"name\" : \"\(c.name)\",\n      \"updatedAt\" : \"\(date(base))\"\n    }"
    }.joined(separator: ",\n")
    block += "\n  ],\n  \"trees\" : [\n"
    for i in 0..<count {
        let row = i / 400, inRow = i % 400
        let lat = 47.3 + Double(row) * 4 / 111_200 + (generator.unit() - 0.5) * 2e-6
        let lon = 8.5 + Double(inRow) * 1.5 / 75_400 + (generator.unit() - 0.5) * 2e-6
        let created = base + 3600 + i * 9
        let photos = i % 5 == 0 ? "\n        \"\(date(created + 60))\"\n      " : ""
        block += (i == 0 ? "" : ",\n") + """
                {
                  "altitude" : \(String(format: "%.1f", 412 + generator.unit() * 3)),
                  "collectionId" : "\(collections[row % collections.count].id)",
                  "createdAt" : "\(date(created))",
                  "horizontalAccuracy" : \(String(format: "%.1f", 3 + generator.unit() * 9)),
                  "id" : "\(uuid())",
                  "latitude" : \(String(format: "%.6f", lat)),
                  "longitude" : \(String(format: "%.6f", lon)),
                  "notes" : "Row \(row + 1) tree \(inRow + 1) | stem \(String(format: "%.0f", 8 + generator.unit() * 20)) cm",
                  "photoCount" : \(i % 5 == 0 ? 1 : 0),
                  "photoDates" : [\(photos)],
                  "rootstock" : "\(rootstocks[row % rootstocks.count])",
                  "species" : "\(species[row % species.count])",
                  "updatedAt" : "\(date(created + 120))",
                  "variety" : "\(varieties[(row / 3) % varieties.count])"
                }
            """
        if block.utf8.count > 1 << 20 {
            handle.write(Data(block.utf8))
            block = ""
        }
    }
    block += "\n  ]\n}\n"
    handle.write(Data(block.utf8))
}

/// A GPX 1.1 file of `count` surveyed trees: `name` (the species), `desc`, `ele` and `time`, no
/// extensions, in survey order (times increasing, positions along rows of an orchard block), or
/// with `inNoOrder` the same trees in an order shuffled once (as a file sorted by another field
/// has them: times and positions in no order).
func writeSurveyGPX(count: Int, path: String, inNoOrder: Bool = false) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw BenchError("cannot create \(path)")
    }
    defer { try? handle.close() }
    let species = ["Malus domestica", "Pyrus communis", "Prunus avium", "Juglans regia", "Cydonia oblonga", "Prunus domestica"]
    let varieties = ["Boskoop", "Gala", "Williams", "Stella", "Franquette", "Vranja", "Cox", "Conference"]
    var generator = TrackRandom(seed: 11)
    var block = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Survey controller 4.2" xmlns="http://www.topografix.com/GPX/1/1">
          <metadata><name>Orchard survey</name><time>2026-03-02T07:00:00Z</time></metadata>

        """
    let base = 1_772_434_800  // 2026-03-02T07:00:00Z
    var order: [Int] = inNoOrder ? Array(0..<count) : []
    var shuffler = TrackRandom(seed: 29)
    for k in stride(from: order.count - 1, to: 0, by: -1) {
        order.swapAt(k, Int(shuffler.next() % UInt64(k + 1)))
    }
    for written in 0..<count {
        let i = inNoOrder ? order[written] : written
        // Rows 4 m apart, trees 1.5 m apart in a row, 400 trees a row, blocks side by side.
        let row = i / 400, inRow = i % 400
        let lat = 47.3 + Double(row) * 4 / 111_200 + (generator.unit() - 0.5) * 2e-6
        let lon = 8.5 + Double(inRow) * 1.5 / 75_400 + (generator.unit() - 0.5) * 2e-6
        let s = species[row % species.count]
        let v = varieties[(row / 3) % varieties.count]
        let t = Date(timeIntervalSince1970: Double(base + i * 9)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
        block += """
              <wpt lat="\(String(format: "%.8f", lat))" lon="\(String(format: "%.8f", lon))">
                <ele>\(String(format: "%.3f", 412 + generator.unit() * 3))</ele>
                <time>\(t)</time>
                <name>\(s)</name>
                <desc>Row \(row + 1) tree \(inRow + 1), \(v), stem \(String(format: "%.0f", 8 + generator.unit() * 20)) cm</desc>
                <type>\(s)</type>
              </wpt>

            """
        if block.utf8.count > 1 << 20 {
            handle.write(Data(block.utf8))
            block = ""
        }
    }
    block += "</gpx>\n"
    handle.write(Data(block.utf8))
}

/// `trees-bench imports --peaks [--sizes 10000,20000,40000,69000,100000,1000000]`: the peak memory
/// of imports into an empty store, at sizes on both sides of 16 MB of input (up to which an import
/// into a new store keeps its pages in memory until the commit): the surveyed GPX; our JSON, CSV and GeoJSON
/// of the same trees (with ids); and a surveyor's CSV of as many trees in the Swiss grid
/// (EPSG:2056, `;` between fields and decimal commas, imported with `--crs`: PROJ loaded). One run
/// each; prints the input's size, seconds and the child's peak (wait4). Target: under 50 MB at
/// every size.
func runImportPeaks(arguments: [String]) throws {
    let sizes = (Harness.option("--sizes", in: arguments) ?? "10000,20000,40000,69000,100000,1000000")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    let trees = Harness.treesBinary(arguments)
    let folder = try Harness.scratchFolder("peaks")
    defer { try? FileManager.default.removeItem(atPath: folder) }
    func run(_ arguments: [String]) throws -> Measurement { try runTrees(trees, arguments) }
    print(Harness.row(["size", "import", "input MB", "seconds", "peak MB"]))
    var largest = 0.0
    for n in sizes {
        let gpx = folder + "/survey-\(n).gpx", source = folder + "/source-\(n).sqlite", db = folder + "/store.sqlite"
        try writeSurveyGPX(count: n, path: gpx)
        _ = try run(["import", gpx, "--db", source])
        for format in ["json", "csv", "geojson"] {
            _ = try run(["export", "--format", format, "--out", folder + "/survey-\(n).\(format)", "--db", source])
        }
        removeStore(source)
        let grid = folder + "/grid-\(n).csv"
        try writeGridCSV(count: n, path: grid)
        let imports: [(String, String, [String])] = [
            ("gpx (survey, no ids)", gpx, []), ("json (with ids)", folder + "/survey-\(n).json", []),
            ("csv (with ids)", folder + "/survey-\(n).csv", []), ("geojson (with ids)", folder + "/survey-\(n).geojson", []),
            ("csv in EPSG:2056 (no ids, --crs)", grid, ["--crs", "EPSG:2056", "--columns", "species=Art,notes=Bemerkung"]),
        ]
        for (name, file, options) in imports {
            removeStore(db)
            let m = try run(["import", file] + options + ["--db", db])
            largest = max(largest, m.peakMB)
            print(Harness.row([String(n), name, String(format: "%.1f", Double(Harness.fileSize(file)) / 1_048_576),
                               String(format: "%.3f", m.seconds), String(format: "%.1f", m.peakMB)]))
            try? FileManager.default.removeItem(atPath: file)
        }
        removeStore(db)
    }
    print("largest peak: \(String(format: "%.1f", largest)) MB")
}

/// A surveyor's CSV of `count` trees in the Swiss grid (EPSG:2056): point number, easting, northing,
/// height, species and a remark, `;` between fields and decimal commas, rows of 400 trees 4 m apart.
func writeGridCSV(count: Int, path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw BenchError("cannot create \(path)")
    }
    defer { try? handle.close() }
    var generator = TrackRandom(seed: 31)
    let species = ["Malus domestica", "Pyrus communis", "Prunus avium"]
    func comma(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value).replacingOccurrences(of: ".", with: ",")
    }
    var block = "Punkt;E;N;H;Art;Bemerkung\n"
    for i in 0..<count {
        let row = i / 400, inRow = i % 400
        let e = 2_680_000 + Double(inRow) * 1.5 + (generator.unit() - 0.5) * 0.04
        let n = 1_240_000 + Double(row) * 4 + (generator.unit() - 0.5) * 0.04
        block += "\(i + 1);\(comma(e, 3));\(comma(n, 3));\(comma(412 + generator.unit() * 3, 2));\(species[row % species.count]);Reihe \(row + 1) Baum \(inRow + 1)\n"
        if block.utf8.count > 1 << 20 {
            handle.write(Data(block.utf8))
            block = ""
        }
    }
    handle.write(Data(block.utf8))
}

