import Foundation
import Testing
import TreesTestSupport

/// GeoJSON import through the built `trees`: our own export read back whole, a layer `ogr2ogr`
/// writes in a national grid (with GDAL's legacy `crs` member), a GIS layer of other names, and
/// refused files that leave the store as it was.
@Suite struct GeoJSONImportCLITests {
    /// The trees of `export --format json`, without the time of the export.
    static func trees(_ t: TreesProcess) throws -> [[String: Any]] {
        let r = try t.run(["export", "--format", "json", "--out", "-"])
        try #require(r.status == 0, "\(r)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require(doc["trees"] as? [[String: Any]])
    }

    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func ourGeoJSONExportReadsBackWhole() throws {
        let a = try InterchangeCLITests().populated()
        defer { a.cleanUp() }
        let file = a.scratch.path("orchard.geojson")
        #expect(try a.run(["export", "--format", "geojson", "--out", file]).status == 0)
        let b = try TreesProcess(now: "2027-01-01T00:00:00.000Z")
        defer { b.cleanUp() }
        let r = try b.run(["import", file])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Imported 3 trees from \(file); 0 already present, 0 skipped.\n  new collections: Street, Victoria's Orchard\n", "\(r)")
        #expect(try Self.canonical(try Self.trees(a)) == (try Self.canonical(try Self.trees(b))))
        // Again: every tree is already there, and the file's name need not say what it is.
        let renamed = b.scratch.path("orchard.txt")
        try FileManager.default.copyItem(atPath: file, toPath: renamed)
        let again = try b.run(["import", renamed])
        #expect(again.stdout == "Imported 0 trees from \(renamed); 3 already present, 0 skipped.\n", "\(again)")
        let inspected = try b.run(["inspect", file])
        #expect(inspected.stdout.hasPrefix("\(file): GeoJSON (WGS 84)\n  trees      3\n  not trees  0 features\n"), "\(inspected)")
    }

    /// GDAL writes a layer in a national grid with its CRS in the legacy `crs` member: the trees
    /// come back to within a millimetre, whatever else GDAL added.
    @Test(.enabled(if: Tool.ogr2ogr.shouldRun)) func aLayerOgr2ogrWritesInANationalGridComesBackToAMillimetre() throws {
        let a = try InterchangeCLITests().populated()
        defer { a.cleanUp() }
        // The Swiss grid covers only Switzerland: one tree there, the others left out of the layer.
        #expect(try a.run(["add", "--lat", "46.9480123", "--lon", "7.4474456", "--species", "Juglans regia", "--variety", "Franquette",
                           "--collection", "Street"]).status == 0)
        let geojson = a.scratch.path("bern.geojson")
        let source = a.scratch.path("all.gpkg")
        #expect(try a.run(["export", "--format", "gpkg", "--out", source]).status == 0)
        let converted = try Program.run(Tool.ogr2ogr.require(), ["-f", "GeoJSON", geojson, source, "trees", "-t_srs", "EPSG:2056",
                                                                 "-where", "species = 'Juglans regia'"])
        #expect(converted.status == 0, "\(converted)")
        let text = try String(contentsOfFile: geojson, encoding: .utf8)
        #expect(text.contains("urn:ogc:def:crs:EPSG::2056"), "GDAL names the grid: \(text.prefix(300))")
        let b = try TreesProcess()
        defer { b.cleanUp() }
        let r = try b.run(["import", geojson])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "trees: \(geojson): read with positions in EPSG:2056, carried to WGS 84\n", "\(r)")
        let got = try Self.trees(b)
        #expect(got.count == 1)
        let tree = try #require(got.first)
        #expect(tree["species"] as? String == "Juglans regia" && tree["variety"] as? String == "Franquette")
        let lat = try #require(tree["latitude"] as? Double), lon = try #require(tree["longitude"] as? Double)
        #expect(GeoPackageImportCLITests.metres((lat, lon), (46.9480123, 7.4474456)) < 0.001, "\(lat), \(lon)")
        let original = try #require(try Self.trees(a).first { $0["species"] as? String == "Juglans regia" })
        #expect(tree["id"] as? String == original["id"] as? String)
    }

    /// A `crs` after the features (a program that writes the members in another order): the file
    /// is read again, carried from that CRS from its first feature, to the same trees as when it
    /// comes first. Standard input cannot be read again: refused, the store as it was.
    @Test func aCRSAfterTheFeaturesIsReadAsIfItCameFirst() throws {
        let crs = #""crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2056"}}"#
        let features = """
            "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2600670.25, 1199655.5, 548.2]}, "properties": {"species": "Juglans regia"}},
            {"type": "Feature", "geometry": null, "properties": {"species": "lost"}},
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2683153.0, 1247946.75]}, "properties": {"species": "Tilia cordata"}}
            ]
            """
        let a = try TreesProcess(), b = try TreesProcess()
        defer { a.cleanUp(); b.cleanUp() }
        let first = try a.scratch.write("first.geojson", "{\"type\": \"FeatureCollection\", \(crs),\n\(features)}\n")
        let last = try b.scratch.write("last.geojson", "{\"type\": \"FeatureCollection\",\n\(features),\n\(crs)}\n")
        let ra = try a.run(["import", first]), rb = try b.run(["import", last])
        #expect(ra.status == 0 && rb.status == 0, "\(ra) \(rb)")
        #expect(rb.stdout == "Imported 2 trees from \(last); 0 already present, 1 skipped.\n  skipped \(last):4: a feature without geometry is not a tree\n", "\(rb)")
        #expect(rb.stderr == "trees: \(last): read with positions in EPSG:2056, carried to WGS 84\n", "\(rb)")
        func positions(_ t: TreesProcess) throws -> [String] {
            try Self.trees(t).map { "\($0["species"] ?? "") \($0["latitude"] ?? "") \($0["longitude"] ?? "") \($0["altitude"] ?? "-")" }.sorted()
        }
        let got = try positions(b)
        #expect(got == (try positions(a)))
        #expect(got.count == 2 && got[0].hasPrefix("Juglans regia 46.9") && got[0].hasSuffix(" 548.2"), "\(got)")

        let inspected = try b.run(["inspect", last])
        #expect(inspected.stdout.hasPrefix("\(last): GeoJSON (positions in EPSG:2056)\n  trees      2\n  not trees  1 feature\n"), "\(inspected)")
        let before = try b.dump()
        let piped = try b.run(["import", "-", "--format", "geojson"], stdin: Data(try String(contentsOfFile: last, encoding: .utf8).utf8))
        #expect(piped.status == 65, "\(piped)")
        let refusal = "7: \"crs\" (EPSG:2056) comes after the features, and a stream (standard input, a pipe) cannot be read twice: "
            + "read it from a file, or put the crs first (or convert it to WGS 84: ogr2ogr -t_srs EPSG:4326)\n"
        #expect(piped.stderr == "trees: <stdin>:" + refusal, "\(piped)")
        #expect(try b.dump() == before)
        let inspectedPiped = try b.run(["inspect", "-", "--format", "geojson"], stdin: Data(try String(contentsOfFile: last, encoding: .utf8).utf8))
        #expect(inspectedPiped.status == 65 && inspectedPiped.stderr == "trees: <stdin>:" + refusal, "\(inspectedPiped)")
        // A named pipe (as `trees import <(curl …)` gives) is a stream too, though it has a path.
        let fifo = b.scratch.path("late.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let content = Data(try String(contentsOfFile: last, encoding: .utf8).utf8)
        let writer = Thread {
            guard let h = FileHandle(forWritingAtPath: fifo) else { return }
            h.write(content)
            try? h.close()
        }
        writer.start()
        let fromFIFO = try b.run(["import", fifo, "--format", "geojson"])
        #expect(fromFIFO.status == 65 && fromFIFO.stderr == "trees: \(fifo):" + refusal, "\(fromFIFO)")
        #expect(try b.dump() == before)
        // Into a new store, a dry run of it leaves none.
        let fresh = b.scratch.path("new/trees.sqlite")
        let dry = try b.run(["import", last, "--dry-run", "--db", fresh])
        #expect(dry.status == 0 && dry.stdout.contains("2 trees"), "\(dry)")
        #expect(!FileManager.default.fileExists(atPath: fresh))
    }

    @Test func aGISLayerOfOtherNamesIsReadByThem() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = try t.scratch.write("orchard.geojson", GeoJSONReaderFixture.qgis)
        let r = try t.run(["import", file, "--map", "notes=Remark", "--collection", "North"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == """
            Imported 2 trees from \(file); 0 already present, 3 skipped.
              new collection: North
              skipped \(file):7: a LineString is not a tree (a Point is)
              skipped \(file):8: a feature without geometry is not a tree
              skipped \(file):9: no species: the feature has none, or an empty one (name its property with --map species=PROPERTY)

            """, "\(r)")
        let got = try Self.trees(t).sorted { ($0["species"] as? String ?? "") < ($1["species"] as? String ?? "") }
        #expect(got.map { $0["species"] as? String } == ["Malus domestica", "Pyrus communis"])
        #expect(got.map { $0["variety"] as? String } == ["Gala", nil])
        #expect(got.map { $0["notes"] as? String } == ["near the gate", ""])
        #expect(got.map { $0["altitude"] as? Double } == [410.5, 412.25])
        #expect(got.map { $0["collection"] as? String } == ["North", "North"])
    }

    @Test(arguments: [
        ("bad-coordinate.geojson", GeoJSONReaderFixture.badCoordinate, ":3: a coordinate must be a number, found a string"),
        ("cut.geojson", GeoJSONReaderFixture.cut, ":4: unexpected end of file"),
        // Read again, carried from the crs at its end: the point is not in the Swiss grid's area.
        ("late-crs.geojson", GeoJSONReaderFixture.lateCRS, ":2: 8.5, 47.3 is outside the area of use of EPSG:2056"),
    ])
    func aMalformedFileIsRefusedAndTheStoreLeftAsItWas(name: String, content: String, message: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "47.1", "--lon", "8.5", "--species", "Fig"]).status == 0)
        let before = try t.dump()
        let file = try t.scratch.write(name, content)
        let r = try t.run(["import", file])
        #expect(r.status == 65, "\(r)")
        #expect(r.stderr.hasPrefix("trees: \(file)\(message)"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        #expect(try t.dump() == before)
    }

    @Test func optionsOfOtherFormatsAreRefused() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = try t.scratch.write("orchard.geojson", GeoJSONReaderFixture.qgis)
        let layer = try t.run(["import", file, "--layer", "trees"])
        #expect(layer.status == 64 && layer.stderr.contains("--layer"), "\(layer)")
        let csv = try t.scratch.write("trees.csv", "lat,lon,species\n47.1,8.5,Fig\n")
        let map = try t.run(["import", csv, "--map", "species=Spp"])
        #expect(map.status == 64 && map.stderr.contains("--map"), "\(map)")
    }
}

/// GeoJSON files of the CLI tests.
enum GeoJSONReaderFixture {
    static let qgis = """
        {
        "type": "FeatureCollection",
        "name": "orchard",
        "crs": { "type": "name", "properties": { "name": "urn:ogc:def:crs:OGC:1.3:CRS84" } },
        "features": [
        { "type": "Feature", "id": 1, "properties": { "fid": 1, "Species": "Malus domestica", "Cultivar": "Gala", "Remark": "near the gate", "ele": 410.5 }, "geometry": { "type": "Point", "coordinates": [ 8.54, 47.37 ] } },
        { "type": "Feature", "id": 2, "properties": { "name": "hedge" }, "geometry": { "type": "LineString", "coordinates": [ [8.5, 47.3], [8.6, 47.4] ] } },
        { "type": "Feature", "id": 3, "properties": { "name": "lost" }, "geometry": null },
        { "type": "Feature", "id": 4, "properties": { "Remark": "no species here" }, "geometry": { "type": "Point", "coordinates": [ 8.542, 47.372 ] } },
        { "type": "Feature", "id": 5, "properties": { "NAME": "Pyrus communis" }, "geometry": { "type": "Point", "coordinates": [ 8.541, 47.371, 412.25 ] } }
        ]
        }
        """
    static let badCoordinate = """
        {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.5, 47.3]}, "properties": {"species": "Oak"}},
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.5, "47.3"]}, "properties": {"species": "Oak"}}
        ]}
        """
    static let cut = """
        {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.5, 47.3]}, "properties": {"species": "Oak"}},
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.6, 47.3]}, "properties": {"species": "Oak"}}

        """
    static let lateCRS = """
        {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.5, 47.3]}, "properties": {"species": "Oak"}}
        ],
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2056"}}}
        """
}
