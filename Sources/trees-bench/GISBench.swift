import Foundation

/// `trees-bench gis [--size 1000000] [--runs N] [--crs EPSG:2056] [--trees PATH]`: GeoPackage
/// export and import of a large store, side by side with GDAL.
///
/// It builds a store of `size` surveyed trees (the GPX of `imports`, near Zurich), then times in
/// the same run: `trees export --format gpkg` in WGS 84 and in `crs` (the Swiss national grid by
/// default); `ogr2ogr -f GPKG` converting our GeoJSON export of the same trees, in WGS 84 and
/// reprojected into `crs` (`-t_srs`); and `trees import` of both GeoPackages into empty stores.
/// Prints seconds, µs a tree, the speed relative to the matching ogr2ogr run and the child's peak
/// memory (wait4). Median of `runs` (default 3); each run measures every step once, ogr2ogr and
/// trees one after the other, so that a change in the machine's load falls on both. Targets: at
/// least 3× ogr2ogr's speed, under 100 MB.
func runGISBenchmark(arguments: [String]) throws {
    let n = Int(Harness.option("--size", in: arguments) ?? "") ?? 1_000_000
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 3
    let crs = Harness.option("--crs", in: arguments) ?? "EPSG:2056"
    let trees = Harness.treesBinary(arguments)
    let ogr2ogr = "/usr/bin/ogr2ogr"
    guard FileManager.default.isExecutableFile(atPath: ogr2ogr) else { throw BenchError("ogr2ogr is missing (Debian package gdal-bin)") }
    let folder = try Harness.scratchFolder("gis")
    defer { try? FileManager.default.removeItem(atPath: folder) }

    func median(_ all: [Measurement]) -> Measurement {
        let sorted = all.sorted { $0.seconds < $1.seconds }
        var m = sorted[sorted.count / 2]
        m.peakBytes = all.map(\.peakBytes).max() ?? m.peakBytes
        return m
    }
    func checked(_ m: Measurement) throws -> Measurement {
        guard m.status == 0 else { throw BenchError("a measured command exited with \(m.status)") }
        return m
    }
    func remove(_ paths: String...) {
        for p in paths { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: p + suffix) } }
    }

    let gpx = folder + "/survey.gpx"
    let db = folder + "/store.sqlite"
    try writeSurveyGPX(count: n, path: gpx)
    let setup = try Harness.measure(trees, ["import", gpx, "--db", db])
    guard setup.status == 0 else { throw BenchError("importing the survey exited with \(setup.status)") }
    remove(gpx)
    let geojson = folder + "/trees.geojson"
    let exported = try Harness.measure(trees, ["export", "--format", "geojson", "--out", geojson, "--db", db])
    guard exported.status == 0 else { throw BenchError("the GeoJSON export exited with \(exported.status)") }

    print("\(n) trees, \(crs); median of \(runs)")
    print(Harness.row(["step", "seconds (median)", "µs/tree", "vs ogr2ogr", "peak MB (max)", "file MB"]))
    func report(_ step: String, _ m: Measurement, against: Measurement?, file: String?) {
        print(Harness.row([step, String(format: "%.3f", m.seconds), String(format: "%.2f", m.seconds / Double(n) * 1e6),
                           against.map { String(format: "%.1f×", $0.seconds / m.seconds) } ?? "",
                           String(format: "%.1f", m.peakMB), file.map { String(format: "%.1f", Double(Harness.fileSize($0)) / 1_048_576) } ?? ""]))
    }

    let gdalPlain = folder + "/gdal.gpkg", gdalGrid = folder + "/gdal-grid.gpkg"
    let plain = folder + "/plain.gpkg", grid = folder + "/grid.gpkg"
    let other = folder + "/imported.sqlite"
    var steps: [String: [Measurement]] = [:]
    func measure(_ step: String, _ executable: String, _ arguments: [String], removing: String? = nil) throws {
        if let removing { remove(removing) }
        steps[step, default: []].append(try checked(try Harness.measure(executable, arguments)))
    }
    for _ in 0..<max(1, runs) {
        try measure("ogr", ogr2ogr, ["-f", "GPKG", gdalPlain, geojson], removing: gdalPlain)
        try measure("export", trees, ["export", "--format", "gpkg", "--out", plain, "--db", db])
        try measure("import", trees, ["import", plain, "--db", other], removing: other)
        try measure("ogr grid", ogr2ogr, ["-f", "GPKG", gdalGrid, geojson, "-t_srs", crs], removing: gdalGrid)
        try measure("export grid", trees, ["export", "--format", "gpkg", "--crs", crs, "--out", grid, "--db", db])
        try measure("import grid", trees, ["import", grid, "--db", other], removing: other)
    }
    remove(gdalPlain, gdalGrid)
    let ogrPlain = median(steps["ogr"] ?? []), ogrGrid = median(steps["ogr grid"] ?? [])
    report("ogr2ogr GeoJSON → GPKG (WGS 84)", ogrPlain, against: nil, file: nil)
    report("trees export gpkg (WGS 84)", median(steps["export"] ?? []), against: ogrPlain, file: plain)
    report("ogr2ogr GeoJSON → GPKG -t_srs \(crs)", ogrGrid, against: nil, file: nil)
    report("trees export gpkg --crs \(crs)", median(steps["export grid"] ?? []), against: ogrGrid, file: grid)
    report("trees import gpkg (WGS 84)", median(steps["import"] ?? []), against: ogrPlain, file: nil)
    report("trees import gpkg (\(crs) → WGS 84)", median(steps["import grid"] ?? []), against: ogrGrid, file: nil)
    // Each run's own ratio, ogr2ogr and trees measured one after the other.
    for (step, against) in [("export", "ogr"), ("import", "ogr"), ("export grid", "ogr grid"), ("import grid", "ogr grid")] {
        let ratios = zip(steps[against] ?? [], steps[step] ?? []).map { String(format: "%.1f×", $0.seconds / $1.seconds) }
        print("\(step) vs \(against), each run: \(ratios.joined(separator: " "))")
    }
    remove(other, plain, grid, geojson, db)
}
