import Foundation
import Testing
import TreesTestSupport

/// GeoPackage import through the built `trees`: files `ogr2ogr` writes (from the corpus's GPX
/// files and from generated layers in national grids), the round trip through a projected
/// GeoPackage, and files refused with the store left as it was.
@Suite(.enabled(if: Tool.ogr2ogr.shouldRun && Tool.cs2cs.shouldRun && Tool.sqlite3.shouldRun))
struct GeoPackageImportCLITests {
    /// A tree as `export --format json` gives it: id, position, species and what else is compared.
    struct Exported: Equatable {
        var id: String
        var latitude: Double, longitude: Double
        var fields: [String]
    }

    static func exported(_ t: TreesProcess) throws -> [Exported] {
        let r = try t.run(["export", "--format", "json", "--out", "-"])
        try #require(r.status == 0, "\(r)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let trees = try #require(doc["trees"] as? [[String: Any]])
        return trees.map { t in
            let fields = ["species", "variety", "rootstock", "notes", "horizontalAccuracy", "accuracySource", "altitude",
                          "createdAt", "updatedAt", "collectionId"].map { k in t[k].map { "\($0)" } ?? "-" }
            return Exported(id: t["id"] as? String ?? "", latitude: t["latitude"] as? Double ?? .nan,
                            longitude: t["longitude"] as? Double ?? .nan, fields: fields)
        }.sorted { ($0.latitude, $0.longitude, $0.fields[0]) < ($1.latitude, $1.longitude, $1.fields[0]) }
    }

    /// The distance in metres between two nearby positions (an equirectangular approximation).
    static func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let north = (a.0 - b.0) * 111_320, east = (a.1 - b.1) * 111_320 * cos(a.0 * .pi / 180)
        return (north * north + east * east).squareRoot()
    }

    @Test func roundTripThroughANationalGridGeoPackageKeepsEveryTreeToAMillimetre() throws {
        let a = try TreesProcess()
        defer { a.cleanUp() }
        #expect(try a.run(["collection", "create", "Kew Block"]).status == 0)
        let adds: [[String]] = [
            ["--lat", "51.4787123", "--lon", "-0.2956456", "--species", "Malus domestica", "--variety", "Bramley's Seedling",
             "--rootstock", "M26", "--notes", "by the gate; \"old\"", "--accuracy", "3.25", "--altitude", "12.5", "--collection", "Kew Block"],
            ["--lat", "57.4778", "--lon", "-4.2247", "--species", "Pinus sylvestris", "--collection", "none"],
            ["--lat", "50.0663", "--lon", "-5.7147", "--species", "Quercus robur", "--accuracy", "25", "--collection", "none"],
        ]
        for (i, args) in adds.enumerated() {
            #expect(try a.run(["add"] + args, environment: ["TREES_NOW": "2026-05-01T10:00:0\(i).250Z"]).status == 0)
        }
        let gpkg = a.scratch.path("kew.gpkg")
        #expect(try a.run(["export", "--format", "gpkg", "--crs", "EPSG:27700", "--out", gpkg]).status == 0)

        let b = try TreesProcess(now: "2027-01-01T00:00:00.000Z")
        defer { b.cleanUp() }
        // A dry run reads and checks everything and stores nothing.
        let dry = try b.run(["import", gpkg, "--dry-run"])
        #expect(dry.stdout == "Dry run: would import 3 trees from \(gpkg); 0 already present, 0 skipped. Nothing was stored.\n  new collection: Kew Block\n", "\(dry)")
        #expect(!FileManager.default.fileExists(atPath: b.database), "a dry run made the store")
        let r = try b.run(["import", gpkg])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Imported 3 trees from \(gpkg); 0 already present, 0 skipped.\n  new collection: Kew Block\n")
        let before = try Self.exported(a), after = try Self.exported(b)
        #expect(before.count == 3 && after.count == 3)
        for (x, y) in zip(before, after) {
            #expect(x.id == y.id)
            #expect(x.fields.dropLast() == y.fields.dropLast(), "\(x) against \(y)")
            #expect(Self.metres((x.latitude, x.longitude), (y.latitude, y.longitude)) < 0.001, "\(x) against \(y)")
        }
        // Again: every tree is already there.
        let again = try b.run(["import", gpkg])
        #expect(again.stdout == "Imported 0 trees from \(gpkg); 3 already present, 0 skipped.\n")
    }

    @Test(arguments: ["expertgps", "gdb-sample", "lowrance-v2", "spb_metro_norm_ru~gpi", "umsonstdraussen"])
    func corpusGPXThroughOgr2ogrImportsAsTheGPXDoes(name: String) throws {
        let direct = try TreesProcess(), through = try TreesProcess()
        defer { direct.cleanUp(); through.cleanUp() }
        let gpx = Corpus.path("gpx/\(name).gpx")
        let gpkg = through.scratch.path("\(name).gpkg")
        let converted = try Program.run(Tool.ogr2ogr.require(), ["-f", "GPKG", gpkg, gpx, "waypoints"])
        #expect(converted.status == 0, "\(converted)")
        let one = try direct.run(["import", gpx]), two = try through.run(["import", gpkg])
        #expect(one.status == 0 && two.status == 0, "\(one)\n\(two)")
        let expected = try Self.exported(direct), got = try Self.exported(through)
        #expect(expected.count == got.count && !got.isEmpty)
        for (x, y) in zip(expected, got) {
            #expect(x.fields[0] == y.fields[0])
            #expect(Self.metres((x.latitude, x.longitude), (y.latitude, y.longitude)) < 0.001, "\(x) against \(y)")
        }
    }

    /// A layer `ogr2ogr` projects from WGS 84 into `crs`, imported back to the same positions.
    @Test(arguments: ["EPSG:27700", "EPSG:32630"])
    func generatedProjectedLayerImportsAtTheRightPositions(crs: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let points = [(51.5074, -0.1278, "Platanus × hispanica"), (53.4808, -2.2426, "Tilia cordata"), (55.9533, -3.1883, "Acer pseudoplatanus"),
                      (52.2053, 0.1218, "Aesculus hippocastanum")]
        var csv = "lon,lat,Spp,Cultivar,Remarks\n"
        for p in points { csv += "\(p.1),\(p.0),\(p.2),,planted \(p.0)\n" }
        csv += "-1.5,52.5,,,no species recorded\n"
        let source = try t.scratch.write("trees.csv", csv)
        let gpkg = t.scratch.path("survey.gpkg")
        let converted = try Program.run(Tool.ogr2ogr.require(), [
            "-f", "GPKG", gpkg, source, "-nln", "survey", "-s_srs", "EPSG:4326", "-t_srs", crs,
            "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-oo", "KEEP_GEOM_COLUMNS=NO",
        ])
        #expect(converted.status == 0, "\(converted)")
        let inspect = try t.run(["inspect", gpkg])
        #expect(inspect.stdout.contains("  survey: point, 5 rows, \(crs) ("), "\(inspect)")
        let r = try t.run(["import", gpkg, "--map", "notes=Remarks"])
        #expect(r.status == 0 && r.stdout == "Imported 4 trees from \(gpkg); 0 already present, 1 skipped.\n  skipped \(gpkg), row 5: no species: the row's species is empty (name the species column with --map species=COLUMN)\n", "\(r)")
        let got = try Self.exported(t)
        for p in points {
            let match = try #require(got.first { $0.fields[0] == p.2 }, "\(p.2) missing from \(got)")
            #expect(Self.metres((match.latitude, match.longitude), (p.0, p.1)) < 0.001, "\(match) against \(p)")
            #expect(match.fields[3] == "planted \(p.0)")
        }
    }

    @Test func refusedFilesLeaveTheStoreAsItWas() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "51.5", "--lon", "-0.12", "--species", "Apple"]).status == 0)
        let before = try t.dump()

        // Tracks only: a line layer.
        let lines = t.scratch.path("tracks.gpkg")
        #expect(try Program.run(Tool.ogr2ogr.require(), ["-f", "GPKG", lines, Corpus.path("gpx/expertgps.gpx"), "tracks"]).status == 0)
        let noPoints = try t.run(["import", lines])
        #expect(noPoints.status == 65)
        #expect(noPoints.stderr == "trees: \(lines): no point layer to import trees from (layers: tracks MULTILINESTRING)\n", "\(noPoints)")
        let wrongLayer = try t.run(["import", lines, "--layer", "tracks"])
        #expect(wrongLayer.stderr == "trees: \(lines): layer tracks holds MULTILINESTRING, not points\n", "\(wrongLayer)")

        // A CRS PROJ does not know, by code or by definition.
        let unknown = t.scratch.path("unknown.gpkg")
        let csv = try t.scratch.write("p.csv", "lon,lat,species\n-0.1,51.5,Oak\n")
        #expect(try Program.run(Tool.ogr2ogr.require(), ["-f", "GPKG", unknown, csv, "-nln", "p", "-oo", "X_POSSIBLE_NAMES=lon",
                                                         "-oo", "Y_POSSIBLE_NAMES=lat", "-a_srs", "EPSG:27700"]).status == 0)
        let sql = "UPDATE gpkg_spatial_ref_sys SET organization = 'ACME', organization_coordsys_id = 99, definition = 'PROJCS[\"nothing\"]' WHERE srs_id = 27700"
        #expect(try Program.run(Tool.sqlite3.require(), [unknown, sql]).status == 0)
        let noCRS = try t.run(["import", unknown])
        #expect(noCRS.status == 65)
        #expect(noCRS.stderr == "trees: \(unknown): layer p: its CRS ACME:99 is unknown to PROJ, and so is its definition\n", "\(noCRS)")

        // Not a GeoPackage: an SQLite file without its tables.
        let plain = t.scratch.path("plain.gpkg")
        #expect(try Program.run(Tool.sqlite3.require(), [plain, "CREATE TABLE x (a)"]).status == 0)
        let notGPKG = try t.run(["import", plain])
        #expect(notGPKG.status == 65)
        #expect(notGPKG.stderr == "trees: \(plain): not a GeoPackage: it has no gpkg_contents and gpkg_spatial_ref_sys tables\n", "\(notGPKG)")

        // A point blob cut short in row 1: nothing of the file is stored.
        let cut = t.scratch.path("cut.gpkg")
        #expect(try Program.run(Tool.ogr2ogr.require(), ["-f", "GPKG", cut, Corpus.path("gpx/gdb-sample.gpx"), "waypoints"]).status == 0)
        // The R-tree's triggers call functions only GDAL has: they go first.
        let drop = (1...7).map { "DROP TRIGGER IF EXISTS rtree_waypoints_geom_update\($0);" }.joined()
        let damage = try Program.run(Tool.sqlite3.require(), [cut, drop + "UPDATE waypoints SET geom = substr(geom, 1, 20) WHERE fid = 3"])
        #expect(damage.status == 0, "\(damage)")
        let bad = try t.run(["import", cut])
        #expect(bad.status == 65)
        #expect(bad.stderr == "trees: \(cut): layer waypoints, row 3: a point cut short\n", "\(bad)")

        // A row without a position (NULL geometry, or an empty point) refuses the file, even after rows that read well.
        let three = try t.scratch.write("three.csv", "lon,lat,species\n-0.1,51.5,Oak\n-0.2,51.6,Ash\n-0.3,51.7,Elm\n")
        let noGeometry: [(sql: String, reason: String)] = [
            ("UPDATE p SET geom = NULL WHERE fid = 2", "no geometry (NULL in geom); give the row a point or delete it"),
            ("UPDATE p SET geom = X'47500011E6100000010100000000000000000000F87F000000000000F87F' WHERE fid = 2",
             "an empty point; give the row a position or delete it"),
        ]
        for (i, damage) in noGeometry.enumerated() {
            let file = t.scratch.path("empty\(i).gpkg")
            #expect(try Program.run(Tool.ogr2ogr.require(), ["-f", "GPKG", file, three, "-nln", "p", "-oo", "X_POSSIBLE_NAMES=lon",
                                                             "-oo", "Y_POSSIBLE_NAMES=lat", "-a_srs", "EPSG:4326"]).status == 0)
            let triggers = (1...7).map { "DROP TRIGGER IF EXISTS rtree_p_geom_update\($0);" }.joined()
            let damaged = try Program.run(Tool.sqlite3.require(), [file, triggers + damage.sql])
            #expect(damaged.status == 0, "\(damaged)")
            let refused = try t.run(["import", file])
            #expect(refused.status == 65)
            #expect(refused.stderr == "trees: \(file): layer p, row 2: \(damage.reason)\n", "\(refused)")
            #expect(try t.run(["import", file, "--dry-run"]).status == 65)
        }

        #expect(try t.dump() == before)
    }
}
