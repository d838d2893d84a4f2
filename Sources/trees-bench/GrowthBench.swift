import Foundation

/// `trees-bench growth [--base N] [--runs R]`: hostile shapes of input grown 10× and 100×, read by
/// `trees inspect`; prints the median time and peak memory at each size and the growth of time per
/// 10× of input, which must stay at or below 11× (a reader that is linear in its input). Python's
/// `json`/`csv` modules and `xmllint --stream` read the same files in the same run as yardsticks.
func runGrowthBenchmark(arguments: [String]) throws {
    let trees = Harness.treesBinary(arguments)
    let base = Int(Harness.option("--base", in: arguments) ?? "") ?? 10_000
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 5
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-growth-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    struct Shape {
        var name: String
        var ext: String
        var yardstick: (name: String, executable: String, arguments: (String) -> [String])
        var write: (Int, FileHandle) -> Void
    }
    let python = (name: "python3", executable: "/usr/bin/python3", arguments: { (path: String) in
        ["-c", "import json,sys; json.load(open(sys.argv[1]))", path]
    })
    let tree = #""id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 47.3769123, "longitude": 8.5417456, "horizontalAccuracy": 3.2, "species": "Malus domestica", "variety": "Gala", "rootstock": "M9", "notes": "north row", "photoCount": 0, "createdAt": "2025-05-01T10:00:00Z", "updatedAt": "2025-05-01T10:00:00Z""#
    func put(_ h: FileHandle, _ s: String) { h.write(Data(s.utf8)) }
    let shapes: [Shape] = [
        Shape(name: "JSON, one tree with n keys", ext: "json", yardstick: python) { n, h in
            put(h, #"{"collections": [], "trees": [{"# + tree)
            var chunk = ""
            for i in 0..<n {
                chunk += ", \"extra\(i)\": \(i)"
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk + "}]}\n")
        },
        Shape(name: "JSON, a nested array of n items", ext: "json", yardstick: python) { n, h in
            put(h, #"{"collections": [], "trees": [{"# + tree + #", "extra": ["#)
            var chunk = ""
            for i in 0..<n {
                chunk += (i == 0 ? "" : ", ") + "[\(i), [\(i), \"\(i)\"]]"
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk + "]}]}\n")
        },
        Shape(name: "JSON, n trees", ext: "json", yardstick: python) { n, h in
            put(h, #"{"collections": [], "trees": ["# + "\n")
            var chunk = ""
            for i in 0..<n {
                let id = String(format: "4F1C2E1A-1111-4222-8333-%012X", i)
                chunk += (i == 0 ? "" : ",\n") + "{" + tree.replacingOccurrences(of: "4F1C2E1A-1111-4222-8333-944455556666", with: id) + "}"
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk + "]}\n")
        },
        Shape(name: "CSV, n rows", ext: "csv",
              yardstick: (name: "python3", executable: "/usr/bin/python3", arguments: { path in
                  ["-c", "import csv,sys; sum(1 for _ in csv.reader(open(sys.argv[1], newline='')))", path]
              })) { n, h in
            put(h, "id,latitude,longitude,horizontalAccuracy,species,variety,rootstock,notes,createdAt,updatedAt\n")
            var chunk = ""
            for i in 0..<n {
                chunk += String(format: "4f1c2e1a-1111-4222-8333-%012x", i)
                    + ",47.3769123,8.5417456,3.2,Malus domestica,Gala,M9,\"north row, \"\"old\"\"\",2025-05-01T10:00:00Z,2025-05-01T10:00:00Z\n"
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk)
        },
        Shape(name: "GPX, n waypoints", ext: "gpx",
              yardstick: (name: "xmllint --stream", executable: "/usr/bin/xmllint", arguments: { ["--stream", "--noout", $0] })) { n, h in
            put(h, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"bench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n")
            var chunk = ""
            for i in 0..<n {
                chunk += "<wpt lat=\"47.3769123\" lon=\"8.5417456\"><ele>408.5</ele><time>2025-05-01T10:00:00Z</time>"
                    + "<name>Malus domestica \(i)</name><desc>Gala on M9 &amp; north row</desc><sym>Park</sym></wpt>\n"
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk + "</gpx>\n")
        },
        // Markup longer than a read: it arrives in many pieces and must not be rescanned from its
        // start each time one comes.
        Shape(name: "GPX, a comment of n lines", ext: "gpx",
              yardstick: (name: "xmllint --stream", executable: "/usr/bin/xmllint", arguments: { ["--stream", "--noout", $0] })) { n, h in
            put(h, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"bench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<!--\n")
            var chunk = ""
            for i in 0..<n {
                chunk += "row \(i)\n"
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk + "-->\n<wpt lat=\"47.3769123\" lon=\"8.5417456\"><name>Malus domestica</name></wpt>\n</gpx>\n")
        },
        Shape(name: "GPX, a waypoint tag of n attributes", ext: "gpx",
              yardstick: (name: "xmllint --stream", executable: "/usr/bin/xmllint", arguments: { ["--stream", "--noout", $0] })) { n, h in
            put(h, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\"bench\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n<wpt lat=\"47.3769123\" lon=\"8.5417456\"")
            var chunk = ""
            for i in 0..<n {
                chunk += " k\(i)=\"1\""
                if chunk.utf8.count > 60_000 { put(h, chunk); chunk = "" }
            }
            put(h, chunk + "><name>Malus domestica</name></wpt>\n</gpx>\n")
        },
    ]

    func measure(_ executable: String, _ args: [String]) throws -> (seconds: Double, peakMB: Double) {
        var times: [Double] = []
        var peak = 0.0
        for _ in 0..<max(1, runs) {
            let m = try Harness.measure(executable, args)
            guard m.status == 0 else { throw BenchError("\(executable) \(args.joined(separator: " ")) exited \(m.status)") }
            times.append(m.seconds)
            peak = max(peak, m.peakMB)
        }
        return (Harness.median(times), peak)
    }

    print("growth: median of \(runs) runs; time ratio per 10x input must be <= 11x")
    print(Harness.row(["shape", "n", "MB", "trees s", "trees MB/s", "trees peak MB", "ratio", "yardstick", "yardstick s", "yardstick peak MB"]))
    var worst = 0.0
    for shape in shapes {
        var previous: Double?
        for n in [base, base * 10, base * 100] {
            let path = folder.appendingPathComponent("input.\(shape.ext)").path
            FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            shape.write(n, handle)
            try handle.close()
            let mb = Double(Harness.fileSize(path)) / 1_048_576
            let ours = try measure(trees, ["inspect", path])
            let theirs = try measure(shape.yardstick.executable, shape.yardstick.arguments(path))
            let ratio = previous.map { ours.seconds / $0 }
            if let ratio, n > base * 10 { worst = max(worst, ratio) }
            print(Harness.row([
                shape.name, String(n), String(format: "%.1f", mb), String(format: "%.3f", ours.seconds),
                String(format: "%.1f", mb / ours.seconds), String(format: "%.1f", ours.peakMB),
                ratio.map { String(format: "%.2fx%@", $0, $0 > 11 ? " (over 11x)" : "") } ?? "-",
                shape.yardstick.name, String(format: "%.3f", theirs.seconds), String(format: "%.1f", theirs.peakMB),
            ]))
            previous = ours.seconds
        }
    }
    print(String(format: "largest growth per 10x of input (10n -> 100n, past start-up): %.2fx %@", worst, worst <= 11 ? "(linear)" : "(NOT linear)"))
}
