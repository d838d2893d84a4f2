import Foundation

/// `trees-bench interchange [--sizes 10000,100000,1000000] [--runs N] [--keep]`: generates GPX files of
/// N waypoints (as `trees export` writes them, with the `trees` extension), then measures
/// `trees import` into an empty store (of that file, and of a survey's GPX of as many trees),
/// `trees export` of the same trees to each format, and the yardsticks
/// `gpsbabel -i gpx -f X -o FORMAT -F Y` and `xmllint --stream --noout X`.
///
/// Reports seconds, records/s, MB/s (of the GPX file for readers, of the output for exports) and the
/// peak resident memory of the child (wait4's rusage). Targets: import ≥ 3× GPSBabel's throughput
/// with peak memory under 100 MB at any size; each export ≥ 5× faster than GPSBabel writing the same
/// format from the GPX (`gpx`, `unicsv` for CSV, `geojson`, `kml`; collection JSON, which GPSBabel
/// does not write, against its unicsv).
func runInterchangeBenchmark(arguments: [String]) async throws {
    let sizes = (Harness.option("--sizes", in: arguments) ?? "10000,100000,1000000")
        .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 1
    let trees = Harness.treesBinary(arguments)
    let gpsbabel = "/usr/bin/gpsbabel"
    let xmllint = "/usr/bin/xmllint"
    let keep = arguments.contains("--keep")
    let folder = try Harness.scratchFolder("interchange")
    defer { if !keep { try? FileManager.default.removeItem(atPath: folder) } }
    if keep { print("files kept in \(folder)") }

    print(Harness.row(["size", "step", "seconds", "records/s", "MB/s", "peak MB", "vs gpsbabel"]))
    for n in sizes {
        let gpx = folder + "/waypoints-\(n).gpx"
        try generateGPX(count: n, path: gpx)
        let gpxMB = Double(Harness.fileSize(gpx)) / 1_048_576

        func measured(_ executable: String, _ args: [String], before: () -> Void = {}) throws -> Measurement {
            let m = try Harness.median(of: runs) {
                before()
                return try Harness.measure(executable, args)
            }
            guard m.status == 0 else { throw BenchError("\(executable) \(args.joined(separator: " ")) exited with \(m.status)") }
            return m
        }
        func report(_ step: String, _ m: Measurement, megabytes: Double, yardstick: Measurement?) {
            let ratio = yardstick.map { String(format: "%.1f×", $0.seconds / m.seconds) } ?? ""
            print(Harness.row([String(n), step, String(format: "%.3f", m.seconds), String(format: "%.0f", Double(n) / m.seconds),
                               String(format: "%.1f", megabytes / m.seconds), String(format: "%.1f", m.peakMB), ratio]))
        }

        let babelOut = folder + "/babel-\(n).csv"
        let babel = try measured(gpsbabel, ["-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", babelOut])
        report("gpsbabel gpx→unicsv", babel, megabytes: gpxMB, yardstick: nil)
        let lint = try measured(xmllint, ["--stream", "--noout", gpx])
        report("xmllint --stream", lint, megabytes: gpxMB, yardstick: nil)

        let db = folder + "/bench-\(n).sqlite"
        let imported = try measured(trees, ["import", gpx, "--db", db], before: { removeStore(db) })
        report("trees import gpx", imported, megabytes: gpxMB, yardstick: babel)

        // The other GPX a user imports: a survey's (name, desc, ele and time a point, no ids), where
        // each tree is a third of the bytes and GPSBabel has less to read.
        let survey = folder + "/survey-\(n).gpx", surveyDB = folder + "/survey-\(n).sqlite"
        try writeSurveyGPX(count: n, path: survey)
        let surveyMB = Double(Harness.fileSize(survey)) / 1_048_576
        let surveyBabel = try measured(gpsbabel, ["-i", "gpx", "-f", survey, "-o", "unicsv", "-F", babelOut])
        report("gpsbabel gpx→unicsv (survey)", surveyBabel, megabytes: surveyMB, yardstick: nil)
        let surveyImported = try measured(trees, ["import", survey, "--db", surveyDB], before: { removeStore(surveyDB) })
        report("trees import gpx (survey)", surveyImported, megabytes: surveyMB, yardstick: surveyBabel)

        // Each export against GPSBabel writing the same format from the GPX the store was made from;
        // collection JSON, which GPSBabel does not write, against its unicsv. For both stores: the
        // one of our GPX, and the survey's.
        func exports(from store: String, source: String, unicsv: Measurement, label: String) throws {
            for (format, babelFormat) in [("gpx", "gpx"), ("json", "unicsv"), ("csv", "unicsv"), ("geojson", "geojson"), ("kml", "kml")] {
                let yardstick: Measurement
                if babelFormat == "unicsv" {
                    yardstick = unicsv
                } else {
                    let babelExport = folder + "/babel-\(n).\(format)"
                    yardstick = try measured(gpsbabel, ["-i", "gpx", "-f", source, "-o", babelFormat, "-F", babelExport])
                    report("gpsbabel gpx→\(babelFormat)\(label)", yardstick, megabytes: Double(Harness.fileSize(babelExport)) / 1_048_576, yardstick: nil)
                    if !keep { try? FileManager.default.removeItem(atPath: babelExport) }
                }
                let out = folder + "/export-\(n).\(format)"
                let m = try measured(trees, ["export", "--format", format, "--out", out, "--db", store])
                report("trees export \(format)\(label)", m, megabytes: Double(Harness.fileSize(out)) / 1_048_576, yardstick: yardstick)
                if !keep { try? FileManager.default.removeItem(atPath: out) }
            }
        }
        try exports(from: db, source: gpx, unicsv: babel, label: "")
        try exports(from: surveyDB, source: survey, unicsv: surveyBabel, label: " (survey)")
        removeStore(surveyDB)
        if !keep { try? FileManager.default.removeItem(atPath: survey) }
        if !keep {
            removeStore(db)
            try? FileManager.default.removeItem(atPath: babelOut)
            try? FileManager.default.removeItem(atPath: gpx)
        }
    }
}

/// Writes a GPX 1.1 file of `count` waypoints shaped like a `trees` export.
private func generateGPX(count: Int, path: String) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        throw BenchError("cannot create \(path)")
    }
    defer { try? handle.close() }
    let species = ["Malus domestica", "Pyrus communis", "Prunus avium", "Juglans regia", "Cydonia oblonga", "Ficus carica"]
    let varieties = ["Boskoop", "Gala", "Williams", "Stella", "Franquette", "Vranja"]
    var generator = TrackRandom(seed: 7)
    var block = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:trees="https://trees.invalid/xmlns/trees/1" version="1.1" creator="trees-bench">
          <metadata>
            <time>2026-01-01T00:00:00Z</time>
          </metadata>

        """
    let base = 1_700_000_000
    func time(_ seconds: Int) -> String {
        let date = Date(timeIntervalSince1970: Double(seconds))
        return date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
    for i in 0..<count {
        let lat = 47 + generator.unit() * 0.5
        let lon = 8 + generator.unit() * 0.5
        let s = species[i % species.count]
        let v = varieties[(i / 7) % varieties.count]
        let accuracy = (1 + generator.unit() * 20 * 100).rounded() / 100
        let id = UUID(uuid: uuidBytes(&generator)).uuidString.lowercased()
        let t = time(base + i * 37)
        block += """
              <wpt lat="\(String(format: "%.7f", lat))" lon="\(String(format: "%.7f", lon))">
                <ele>\(String(format: "%.1f", 400 + generator.unit() * 50))</ele>
                <time>\(t)</time>
                <name>\(s) &apos;\(v)&apos;</name>
                <sym>Forest</sym>
                <type>\(s)</type>
                <extensions>
                  <trees:id>\(id)</trees:id>
                  <trees:species>\(s)</trees:species>
                  <trees:variety>\(v)</trees:variety>
                  <trees:horizontalAccuracy>\(accuracy)</trees:horizontalAccuracy>
                  <trees:accuracySource>gst</trees:accuracySource>
                  <trees:createdAt>\(t)</trees:createdAt>
                  <trees:updatedAt>\(t)</trees:updatedAt>
                </extensions>
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

private func uuidBytes(_ g: inout TrackRandom) -> uuid_t {
    let a = g.next(), b = g.next()
    var bytes = [UInt8](repeating: 0, count: 16)
    for i in 0..<8 { bytes[i] = UInt8((a >> (UInt64(i) * 8)) & 0xFF); bytes[8 + i] = UInt8((b >> (UInt64(i) * 8)) & 0xFF) }
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
}
