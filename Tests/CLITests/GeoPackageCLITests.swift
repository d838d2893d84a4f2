import Foundation
import Testing
import TreesTestSupport

/// GeoPackage export through the built `trees`, checked by GDAL's validator, `ogrinfo` and
/// `ogr2ogr`, with positions compared against PROJ's `cs2cs`.
@Suite(.enabled(if: Tool.ogrinfo.shouldRun && Tool.ogr2ogr.shouldRun && Tool.validateGPKG.shouldRun && Tool.cs2cs.shouldRun && Tool.sqlite3.shouldRun))
struct GeoPackageCLITests {
    /// Trees across Great Britain (latitude, longitude, species, variety).
    static let trees: [(Double, Double, String, String?)] = [
        (51.4787, -0.2956, "Malus domestica", "Bramley's Seedling"),
        (50.0663, -5.7147, "Quercus robur", nil),
        (57.4778, -4.2247, "Pinus sylvestris", "Caledonian"),
        (52.9300, 0.3500, "Pyrus communis", "Conference"),
    ]

    func populated() throws -> TreesProcess {
        let t = try TreesProcess()
        #expect(try t.run(["collection", "create", "Kew Block"]).status == 0)
        for (i, p) in Self.trees.enumerated() {
            var args = ["add", "--lat", "\(p.0)", "--lon", "\(p.1)", "--species", p.2, "--accuracy", "\(2.5 + Double(i))",
                        "--collection", i == 0 ? "Kew Block" : "none"]
            if let v = p.3 { args += ["--variety", v] }
            let r = try t.run(args, environment: ["TREES_NOW": "2026-05-01T10:00:0\(i).250Z"])
            #expect(r.status == 0, "\(r)")
        }
        return t
    }

    static func validate(_ path: String) throws {
        let v = try Program.run("/usr/bin/python3", [Tool.validateGPKG.require(), path])
        #expect(v.status == 0 && v.stdout.isEmpty && v.stderr.isEmpty, "validate_gpkg.py: \(v)")
    }

    /// Easting, northing of each test tree in `crs` as `cs2cs` gives them.
    static func cs2cs(_ crs: String) throws -> [(Double, Double)] {
        let input = trees.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        let out = try Program.run(Tool.cs2cs.require(), ["-f", "%.6f", "EPSG:4326", crs], stdin: Data(input.utf8))
        return out.stdout.split(separator: "\n").map { line in
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            return (f[0], f[1])
        }
    }

    @Test func nationalGridExportIsAValidGeoPackageGDALReads() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let path = t.scratch.path("orchard.gpkg")
        let r = try t.run(["export", "--format", "gpkg", "--crs", "EPSG:27700", "--out", path])
        #expect(r.status == 0 && r.stdout == "Exported 4 trees to \(path)\n", "\(r)")
        try Self.validate(path)

        let expected = try Self.cs2cs("EPSG:27700")
        let info = try Program.run(Tool.ogrinfo.require(), ["-so", path, "trees"])
        #expect(info.stdout.contains("Layer name: trees\n"))
        #expect(info.stdout.contains("Geometry: Point\n"))
        #expect(info.stdout.contains("Feature Count: 4\n"))
        #expect(info.stdout.contains("PROJCRS[\"OSGB36 / British National Grid\""))
        #expect(info.stdout.contains("ID[\"EPSG\",27700]]"))
        let extent = String(format: "Extent: (%.6f, %.6f) - (%.6f, %.6f)\n",
                            expected.map(\.0).min()!, expected.map(\.1).min()!, expected.map(\.0).max()!, expected.map(\.1).max()!)
        #expect(info.stdout.contains(extent), "\(info.stdout)")
        // QGIS uses the spatial index when ogrinfo reports one.
        let index = try Program.run(Tool.ogrinfo.require(), [path, "-sql", "SELECT HasSpatialIndex('trees', 'geom')", "-q"])
        #expect(index.stdout.contains("= 1"), "\(index)")

        // ogr2ogr reads every row back with its attributes and the positions cs2cs gives.
        let csv = t.scratch.path("back.csv")
        let back = try Program.run(Tool.ogr2ogr.require(), ["-f", "CSV", csv, path, "trees", "-lco", "GEOMETRY=AS_XY"])
        #expect(back.status == 0, "\(back)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = rows[0].split(separator: ",").map(String.init)
        #expect(Array(header.prefix(6)) == ["X", "Y", "id", "species", "variety", "rootstock"])
        #expect(rows.count == 5)
        // Newest first: the store lists the last added tree first.
        for (row, i) in zip(rows.dropFirst(), [3, 2, 1, 0]) {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let x = try #require(Double(cells[0])), y = try #require(Double(cells[1]))
            #expect(abs(x - expected[i].0) < 0.001 && abs(y - expected[i].1) < 0.001, "\(row) against \(expected[i])")
            #expect(cells[3] == Self.trees[i].2)
            #expect(cells[header.firstIndex(of: "horizontalAccuracy")!] == "\(2.5 + Double(i))")
            #expect(cells[header.firstIndex(of: "collection")!] == (i == 0 ? "Kew Block" : ""))
            #expect(cells[header.firstIndex(of: "createdAt")!] == "2026/05/01 10:00:0\(i).250+00")
        }
        let collections = try Program.run(Tool.ogrinfo.require(), [path, "collections", "-q"])
        #expect(collections.stdout.contains("name (String) = Kew Block"), "\(collections)")
    }

    /// A GeoPackage in WGS 84 needs nothing of PROJ (its libraries and database are 12 MB of the
    /// process): the dynamic loader's own log shows no libproj, where an export in a grid shows it.
    @Test func aWGS84ExportLoadsNoPROJ() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let plain = try t.run(["export", "--format", "gpkg", "--out", t.scratch.path("plain.gpkg")], environment: ["LD_DEBUG": "files"])
        #expect(plain.status == 0, "\(plain.stderr.suffix(500))")
        #expect(!plain.stderr.contains("libproj"))
        #expect(plain.stderr.contains("libsqlite3"), "the loader's log is there to read")
        let grid = try t.run(["export", "--format", "gpkg", "--crs", "EPSG:27700", "--out", t.scratch.path("grid.gpkg")],
                             environment: ["LD_DEBUG": "files"])
        #expect(grid.status == 0 && grid.stderr.contains("libproj"))
        // GDAL still knows the file's CRS as EPSG:4326 (`wgs84AndUTMExportsAreValid`).
    }

    @Test func wgs84AndUTMExportsAreValid() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let plain = t.scratch.path("plain.gpkg")
        #expect(try t.run(["export", "--format", "gpkg", "--out", plain]).status == 0)
        try Self.validate(plain)
        let info = try Program.run(Tool.ogrinfo.require(), ["-so", plain, "trees"])
        #expect(info.stdout.contains("ID[\"EPSG\",4326]]"))
        #expect(info.stdout.contains("Extent: (-5.714700, 50.066300) - (0.350000, 57.477800)\n"), "\(info.stdout)")
        let inspected = try t.run(["inspect", plain])
        #expect(inspected.stdout == """
            \(plain): GeoPackage, 2 layers
              trees: point, 4 rows, EPSG:4326 (WGS 84 geodetic)
                extent -5.714700, 50.066300 … 0.350000, 57.477800
              collections: attributes, 1 row

            """, "\(inspected)")
        let json = try t.run(["inspect", plain, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let layers = try #require(doc["layers"] as? [[String: Any]])
        #expect(doc["format"] as? String == "gpkg" && layers.count == 2)
        #expect(layers[0]["name"] as? String == "trees" && layers[0]["geometryType"] as? String == "POINT")
        #expect(layers[0]["rows"] as? Int == 4 && layers[0]["crs"] as? String == "EPSG:4326 (WGS 84 geodetic)")
        #expect((layers[0]["extent"] as? [String: Double])?["maxY"] == 57.4778)

        // One collection's trees, with that collection alone in the collections table.
        #expect(try t.run(["collection", "create", "Street"]).status == 0)
        let kew = t.scratch.path("kew.gpkg")
        #expect(try t.run(["export", "--format", "gpkg", "--collection", "Kew Block", "--out", kew]).status == 0)
        let rows = try Program.run(Tool.sqlite3.require(), [kew, "SELECT name FROM collections; SELECT count(*), collection FROM trees"])
        #expect(rows.stdout == "Kew Block\n1|Kew Block\n", "\(rows)")

        // The trees' centre (about 53.8°N, 2.7°W) is in UTM zone 30N.
        let utm = t.scratch.path("utm.gpkg")
        #expect(try t.run(["export", "--format", "gpkg", "--crs", "utm", "--out", utm]).status == 0)
        try Self.validate(utm)
        let u = try Program.run(Tool.ogrinfo.require(), ["-so", utm, "trees"])
        #expect(u.stdout.contains("ID[\"EPSG\",32630]]"), "\(u.stdout)")
    }

    /// A GeoPackage in WAL mode, as QGIS leaves one, is read as it is: no -wal or -shm file is
    /// left beside it, and it is read from a folder this user may not write to as well.
    @Test func aWALModeGeoPackageIsReadWithoutWritingBesideIt() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let folder = t.folder.appendingPathComponent("survey")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { chmod(folder.path, 0o755) }
        let file = folder.appendingPathComponent("wal.gpkg").path
        #expect(try t.run(["export", "--format", "gpkg", "--out", file]).status == 0)
        #expect(try Program.run(Tool.sqlite3.require(), [file, "PRAGMA journal_mode = wal"]).stdout == "wal\n")
        let expected = """
            \(file): GeoPackage, 2 layers
              trees: point, 4 rows, EPSG:4326 (WGS 84 geodetic)
                extent -5.714700, 50.066300 … 0.350000, 57.477800
              collections: attributes, 1 row

            """
        let inspected = try t.run(["inspect", file])
        #expect(inspected.stdout == expected, "\(inspected)")
        let imported = try t.run(["import", file, "--dry-run"])
        #expect(imported.status == 0 && imported.stdout.contains("4 already present"), "\(imported)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["wal.gpkg"])
        #expect(chmod(folder.path, 0o555) == 0 && chmod(file, 0o444) == 0)
        let readOnly = try getuid() == 0 ? StoreTrustTests.runAsNobody(t, ["inspect", file]) : t.run(["inspect", file])
        #expect(readOnly.status == 0 && readOnly.stdout == expected, "\(readOnly)")
    }

    @Test func refusals() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let geojson = try t.run(["export", "--format", "geojson", "--crs", "EPSG:27700", "--out", t.scratch.path("x.geojson")])
        #expect(geojson.status == 64)
        #expect(geojson.stderr.contains("--crs does not work with --format geojson: GeoJSON positions are WGS 84 longitude and latitude (RFC 7946)"))
        let stdout = try t.run(["export", "--format", "gpkg", "--out", "-"])
        #expect(stdout.status == 64 && stdout.stderr.contains("cannot be written to standard output"), "\(stdout)")
        let unknown = try t.run(["export", "--format", "gpkg", "--crs", "EPSG:999999", "--out", t.scratch.path("x.gpkg")])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.stderr == "trees: unknown coordinate reference system EPSG:999999: PROJ does not know it\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: t.scratch.path).filter { $0.hasPrefix("x.") || $0.hasPrefix(".x.") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func photosAreCopiedBesideTheFileWithRelativePaths() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tree = try t.run(["add", "--lat", "51.5", "--lon", "-0.12", "--species", "Apple"]).stdout.trimmingCharacters(in: .newlines)
        let jpeg = t.scratch.path("blossom.jpg"), png = t.scratch.path("leaf.png")
        let jpegBytes = TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")
        #expect(FileManager.default.createFile(atPath: jpeg, contents: Data(jpegBytes)))
        #expect(FileManager.default.createFile(atPath: png, contents: Data(TestImages.png())))
        let added = try t.run(["photo", "add", tree, jpeg, png, "--json"])
        let photos = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [[String: Any]])
        let names = photos.map { "\($0["sha256"] as? String ?? "?").\($0["format"] as? String ?? "?")" }

        let out = t.scratch.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let path = out + "/orchard.gpkg"
        #expect(try t.run(["export", "--format", "gpkg", "--out", path]).status == 0)
        try Self.validate(path)
        let copied = try FileManager.default.contentsOfDirectory(atPath: out + "/orchard_photos").sorted()
        #expect(copied == names.sorted())
        #expect(FileManager.default.contents(atPath: out + "/orchard_photos/" + names[0]) == Data(jpegBytes))
        let row = try Program.run(Tool.sqlite3.require(), [path, "SELECT photoCount, photo, photos FROM trees"])
        let stored = Set(row.stdout.trimmingCharacters(in: .newlines).split(separator: "|")[2].split(separator: ";").map(String.init))
        #expect(row.stdout.hasPrefix("2|orchard_photos/"))
        #expect(stored == Set(names.map { "orchard_photos/" + $0 }))
    }

    /// 3,000 trees: an R-tree of three levels, packed by the writer rather than grown by SQLite.
    @Test func packedSpatialIndexIsOneSQLiteAndGDALUse() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        var csv = "species,latitude,longitude\n"
        var generator = SplitMix64(seed: 7)
        for i in 0..<3000 {
            let lat = 51.4 + Double(generator.next() % 100_000) / 1e6, lon = -0.3 + Double(generator.next() % 100_000) / 1e6
            csv += "Tree \(i % 7),\(lat),\(lon)\n"
        }
        let file = try t.scratch.write("many.csv", csv)
        #expect(try t.run(["import", file]).status == 0)
        let path = t.scratch.path("many.gpkg")
        #expect(try t.run(["export", "--format", "gpkg", "--crs", "EPSG:27700", "--out", path]).status == 0)
        try Self.validate(path)
        let sqlite = try Tool.sqlite3.require()
        let check = try Program.run(sqlite, [path, "SELECT rtreecheck('rtree_trees_geom')"])
        #expect(check.stdout == "ok\n", "\(check)")
        let depth = try Program.run(sqlite, [path, "SELECT hex(substr(data, 1, 2)) FROM rtree_trees_geom_node WHERE nodeno = 1"])
        #expect(depth.stdout == "0002\n", "\(depth)")
        // Queries through the tree find what a scan of its entries finds; every row has its entry.
        let window = "maxx >= 520000 AND minx <= 523000 AND maxy >= 172000 AND miny <= 175000"
        let counts = try Program.run(sqlite, [path, """
            CREATE TEMP TABLE entries AS SELECT * FROM rtree_trees_geom;
            SELECT (SELECT count(*) FROM entries WHERE \(window)), (SELECT count(*) FROM rtree_trees_geom WHERE \(window)),
                   (SELECT count(*) FROM trees t JOIN rtree_trees_geom r ON r.id = t.fid);
            """])
        let fields = counts.stdout.trimmingCharacters(in: .newlines).split(separator: "|").compactMap { Int($0) }
        #expect(fields.count == 3 && fields[0] == fields[1] && fields[0] > 10 && fields[2] == 3000, "\(counts)")
        // GDAL's spatial filter goes through the index and agrees with an exact count.
        let filtered = try Program.run(Tool.ogrinfo.require(), [path, "trees", "-spat", "520000", "172000", "523000", "175000", "-q"])
        let exact = try Program.run(Tool.ogrinfo.require(), [path, "-q", "-sql",
            "SELECT count(*) AS n FROM trees WHERE ST_X(geom) BETWEEN 520000 AND 523000 AND ST_Y(geom) BETWEEN 172000 AND 175000"])
        let n = filtered.stdout.components(separatedBy: "OGRFeature(trees)").count - 1
        #expect(n > 10 && exact.stdout.contains("n (Integer) = \(n)\n"), "\(n) features; \(exact)")
    }
}
