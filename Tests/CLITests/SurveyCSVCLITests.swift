import Foundation
import Testing
import TreesTestSupport

/// Surveyors' CSVs as they are delivered (national grids, `;` and tabs, decimal commas, their own
/// column names) imported through the built `trees`, positions checked against `cs2cs`; and the
/// files refused with the line and the reason, the store unchanged.
@Suite(.enabled(if: Tool.cs2cs.shouldRun && Tool.sqlite3.shouldRun))
struct SurveyCSVCLITests {
    /// WGS 84 latitude, longitude of (easting, northing) in `crs`, as `cs2cs` gives them.
    static func cs2csBack(_ crs: String, _ points: [(Double, Double)]) throws -> [(Double, Double)] {
        let input = points.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        let out = try Program.run(Tool.cs2cs.require(), ["-f", "%.11f", crs, "EPSG:4326"], stdin: Data(input.utf8))
        return out.stdout.split(separator: "\n").map { line in
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            return (f[0], f[1])
        }
    }

    static func trees(_ t: TreesProcess) throws -> [[String: Any]] {
        let r = try t.run(["export", "--format", "json", "--out", "-"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try #require(doc["trees"] as? [[String: Any]])
    }

    static func metres(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let north = (a.0 - b.0) * 111_320, east = (a.1 - b.1) * 111_320 * cos(a.0 * .pi / 180)
        return (north * north + east * east).squareRoot()
    }

    @Test func nationalGridWithSemicolonsAndDecimalCommas() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let grid = [(530028.747, 180380.094), (558054.132, 339539.653), (266700.184, 845245.424)]
        let csv = """
            Point ID;Spp;Cultivar;Rootstock;East;North;Comment;Date
            101;Malus domestica;Bramley's Seedling;M25;530028,747;180380,094;north corner;2026-04-02
            102;Pyrus communis;;;558054,132;339539,653;;2026-04-02
            103;Pinus sylvestris;;;266700,184;845245,424;"leaning; staked";2026-04-03

            """
        let file = try t.scratch.write("survey.csv", csv)
        let inspected = try t.run(["inspect", file, "--crs", "EPSG:27700"])
        #expect(inspected.stdout == """
            \(file): CSV
              trees   3
              bounds  latitude 51.5074000 … 57.4778000, longitude -4.2247000 … 0.3500000
              time    2026-04-02T00:00:00.000Z … 2026-04-03T00:00:00.000Z

            """, "\(inspected)")
        let r = try t.run(["import", file, "--crs", "EPSG:27700"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Imported 3 trees from \(file); 0 already present, 0 skipped.\n")
        #expect(r.stderr == "trees: \(file): read with separator ';', decimal commas, easting from East, northing from North in EPSG:27700\n")
        let expected = try Self.cs2csBack("EPSG:27700", grid)
        let got = try Self.trees(t)
        let notes = ["north corner (point 101)", "point 102", "leaning; staked (point 103)"]
        let species = ["Malus domestica", "Pyrus communis", "Pinus sylvestris"]
        for (i, e) in expected.enumerated() {
            let tree = try #require(got.first { $0["species"] as? String == species[i] })
            let p = (tree["latitude"] as? Double ?? .nan, tree["longitude"] as? Double ?? .nan)
            // cs2cs's own inverse of the OSGB36 Helmert transformation is about a millimetre off its forward one.
            #expect(Self.metres(p, e) < 0.0011, "\(species[i]): \(p) against \(e)")
            #expect(tree["notes"] as? String == notes[i])
        }
        let bramley = try #require(got.first { $0["species"] as? String == "Malus domestica" })
        #expect(bramley["variety"] as? String == "Bramley's Seedling")
        #expect(bramley["rootstock"] as? String == "M25")
        #expect(bramley["createdAt"] as? String == "2026-04-02T00:00:00Z")
    }

    @Test func tabsAndNamedColumnsInAUTMZone() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        // UTM 31N: Paris, and a point 8 m inside the zone's eastern edge (45°N, 5.9999°E).
        let grid = [(452_484.156, 5_411_718.542), (736_438.145, 4_987_329.213)]
        var csv = "Tree\tX1\tY1\tRemarks\n"
        for (i, g) in grid.enumerated() { csv += "Platanus\t\(g.0)\t\(g.1)\tplane \(i)\n" }
        let file = try t.scratch.write("utm.tsv", csv)
        let r = try t.run(["import", file, "--format", "csv", "--crs", "EPSG:32631", "--columns", "species=Tree,easting=X1,northing=Y1"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "trees: \(file): read with separator tab, easting from X1, northing from Y1 in EPSG:32631\n")
        let expected = try Self.cs2csBack("EPSG:32631", grid)
        let got = try Self.trees(t)
        #expect(got.count == 2)
        for (i, e) in expected.enumerated() {
            let tree = try #require(got.first { $0["notes"] as? String == "plane \(i)" })
            let p = (tree["latitude"] as? Double ?? .nan, tree["longitude"] as? Double ?? .nan)
            #expect(Self.metres(p, e) < 0.001, "\(p) against \(e)")
        }
    }

    @Test func refusalsNameTheLineAndLeaveTheStoreAsItWas() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "48.85", "--lon", "2.35", "--species", "Platanus"]).status == 0)
        let before = try t.dump()

        // Easting and northing swapped: far outside UTM 31N's area of use.
        let swappedGrid = try t.scratch.write("swapped-grid.csv", "species,easting,northing\nOak,452484.156,5411718.542\nAsh,5411718.542,452484.156\n")
        let grid = try t.run(["import", swappedGrid, "--crs", "EPSG:32631"])
        #expect(grid.status == 65)
        #expect(grid.stderr == "trees: \(swappedGrid):3: 5411718.542, 452484.156 is outside the area of use of EPSG:32631 (0.00, 0.00 to 6.00, 84.00 (longitude, latitude)); are the columns swapped, or is it another CRS?\n", "\(grid)")

        // Latitude and longitude swapped: a latitude beyond ±90.
        let swapped = try t.scratch.write("swapped.csv", "species,latitude,longitude\nOak,48.85,2.35\nAsh,151.21,-33.87\n")
        let latlon = try t.run(["import", swapped])
        #expect(latlon.status == 65)
        #expect(latlon.stderr == "trees: \(swapped):3: latitude 151.21 is out of range; expected degrees between -90 and 90\n", "\(latlon)")

        // A line separated by commas in a file whose header uses semicolons.
        let mixed = try t.scratch.write("mixed.csv", "species;lat;lon\nOak;48,85;2,35\nAsh,48.86,2.36\n")
        let m = try t.run(["import", mixed])
        #expect(m.status == 65)
        #expect(m.stderr == "trees: \(mixed):3: this line is separated by ',' but the header by ';' (mixed separators)\n", "\(m)")

        // Grid columns without their CRS, and a CRS PROJ does not know.
        let survey = try t.scratch.write("survey.csv", "species,E,N\nOak,452484.156,5411718.542\n")
        let noCRS = try t.run(["import", survey])
        #expect(noCRS.status == 65)
        #expect(noCRS.stderr == "trees: \(survey):1: columns E and N are grid positions: give their coordinate reference system with --crs (EPSG:27700 for the British National Grid)\n")
        let unknown = try t.run(["import", survey, "--crs", "EPSG:999999"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == "trees: unknown coordinate reference system EPSG:999999: PROJ does not know it\n")

        // Options of one format given to another.
        let gpx = try t.run(["import", Corpus.path("gpx/gdb-sample.gpx"), "--crs", "EPSG:27700"])
        #expect(gpx.status == 64 && gpx.stderr == "trees: --crs does not apply to GPX files, only to CSV\n", "\(gpx)")
        let layer = try t.run(["import", survey, "--layer", "trees"])
        #expect(layer.status == 64 && layer.stderr == "trees: --layer does not apply to CSV files, only to GeoPackage\n", "\(layer)")

        #expect(try t.dump() == before)
    }

    @Test func csvExportInTheNationalGridAgreesWithCS2CSAndImportsBack() throws {
        let a = try TreesProcess()
        defer { a.cleanUp() }
        let points = [(51.4787123, -0.2956456, "Malus domestica"), (57.4778, -4.2247, "Pinus sylvestris")]
        for p in points {
            #expect(try a.run(["add", "--lat", "\(p.0)", "--lon", "\(p.1)", "--species", p.2]).status == 0)
        }
        let file = a.scratch.path("grid.csv")
        let r = try a.run(["export", "--format", "csv", "--crs", "EPSG:27700", "--out", file])
        #expect(r.status == 0, "\(r)")
        let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\r\n").map(String.init)
        #expect(rows[0].hasPrefix("id,latitude,longitude,easting,northing,horizontalAccuracy,"))
        let input = points.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        let out = try Program.run(Tool.cs2cs.require(), ["-f", "%.6f", "EPSG:4326", "EPSG:27700"], stdin: Data(input.utf8))
        let expected = out.stdout.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) } }
        for row in rows.dropFirst() {
            let cells = row.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let i = try #require(points.firstIndex { $0.2 == cells[9] })
            let e = try #require(Double(cells[3])), n = try #require(Double(cells[4]))
            #expect(abs(e - expected[i][0]) <= 0.0005 && abs(n - expected[i][1]) <= 0.0005, "\(row) against \(expected[i])")
        }

        let b = try TreesProcess()
        defer { b.cleanUp() }
        let imported = try b.run(["import", file, "--crs", "EPSG:27700"])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stderr == "trees: \(file): read with separator ',', easting from easting, northing from northing in EPSG:27700\n")
        for tree in try Self.trees(b) {
            let p = try #require(points.first { $0.2 == tree["species"] as? String })
            let got = (tree["latitude"] as? Double ?? .nan, tree["longitude"] as? Double ?? .nan)
            // Written to the millimetre, so back within a millimetre.
            #expect(Self.metres(got, (p.0, p.1)) < 0.001, "\(got) against \(p)")
        }
    }
}
