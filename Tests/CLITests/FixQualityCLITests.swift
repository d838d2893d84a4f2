import Foundation
import Testing
import TreesTestSupport

/// A captured tree's fix quality (status, correction age, vertical accuracy and its source,
/// antenna height) through the built `trees` binary: shown by `list`, `show` and `stats`, carried
/// by every format from one store to another, and refused, with its line, when a file holds one
/// no tree can have.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct FixQualityCLITests {
    /// An RTK fixed tree, an RTK float one, and a plain one with no fix quality.
    static let surveyed = """
        {"trees":[
        {"id":"5A1B2C3D-0000-4000-8000-000000000001","latitude":47.5,"longitude":8.25,"horizontalAccuracy":0.018,"accuracySource":"gst",\
        "altitude":412.3,"ellipsoidHeight":460.1,"species":"Apple","variety":"Gala","createdAt":"2026-05-01T10:00:00Z",\
        "updatedAt":"2026-05-01T10:00:00Z","capture":{"fixTime":"2026-05-01T09:59:59Z","fixMode":"3d","satellites":21,"hdop":0.6,\
        "locationSource":"serial:/dev/ttyACM0","fixStatus":"rtk-fixed","correctionAge":1.2,"verticalAccuracy":0.031,\
        "verticalAccuracySource":"gst","antennaHeight":1.8}},
        {"id":"5A1B2C3D-0000-4000-8000-000000000002","latitude":47.5001,"longitude":8.2501,"horizontalAccuracy":0.35,\
        "accuracySource":"receiver","species":"Pear","createdAt":"2026-05-01T10:01:00Z","updatedAt":"2026-05-01T10:01:00Z",\
        "capture":{"fixMode":"3d","fixStatus":"rtk-float","correctionAge":4}},
        {"id":"5A1B2C3D-0000-4000-8000-000000000003","latitude":47.5002,"longitude":8.2502,"horizontalAccuracy":6.2,\
        "accuracySource":"dop","species":"Plum","createdAt":"2026-05-01T10:02:00Z","updatedAt":"2026-05-01T10:02:00Z"}
        ]}

        """

    func store() throws -> TreesProcess {
        let t = try TreesProcess()
        let file = t.folder.appendingPathComponent("surveyed.json")
        try Self.surveyed.write(to: file, atomically: true, encoding: .utf8)
        let r = try t.run(["import", file.path])
        #expect(r.status == 0, "\(r)")
        return t
    }

    @Test func listShowAndStatsShowTheFixQuality() throws {
        let t = try store()
        defer { t.cleanUp() }
        let list = try t.run(["list"], environment: ["TZ": "UTC"])
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout == """
            ID        SPECIES  VARIETY  ACCURACY         FIX  COLLECTION  CREATED
            5a1b2c3d  Plum              Good 6.2 m                        2026-05-01 10:02
            5a1b2c3d  Pear              Excellent 35 cm  FLT              2026-05-01 10:01
            5a1b2c3d  Apple    Gala     Survey 2 cm      RTK              2026-05-01 10:00

            """)

        let show = try t.run(["show", "5a1b2c3d-0000-4000-8000-000000000001"])
        #expect(show.status == 0, "\(show)")
        #expect(show.stdout.contains("accuracy           Survey 2 cm (gst) — radius of the 95% circle\n"), "\(show.stdout)")
        #expect(show.stdout.contains("""
            fix                RTK fixed, corrections 1.2 s old
            vertical accuracy  3 cm (gst) — half-width of the 95% interval
            antenna height     1.80 m above the ground, subtracted from the heights

            """), "\(show.stdout)")
        #expect(show.stdout.contains("21 satellites"))
        let plain = try t.run(["show", "5a1b2c3d-0000-4000-8000-000000000003"])
        #expect(!plain.stdout.contains("fix ") && !plain.stdout.contains("antenna"))

        // Machine output keeps metres and seconds.
        let json = try t.run(["show", "5a1b2c3d-0000-4000-8000-000000000001", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let capture = try #require(object["capture"] as? [String: Any])
        #expect(capture["fixStatus"] as? String == "rtk-fixed")
        #expect(capture["correctionAge"] as? Double == 1.2)
        #expect(capture["verticalAccuracy"] as? Double == 0.031)
        #expect(capture["verticalAccuracySource"] as? String == "gst")
        #expect(capture["antennaHeight"] as? Double == 1.8)
        #expect(object["horizontalAccuracy"] as? Double == 0.018)

        let stats = try t.run(["stats"])
        #expect(stats.status == 0, "\(stats)")
        #expect(stats.stdout.contains("best 2 cm"), "\(stats.stdout)")
    }

    /// Each format a store exports and imports carries every field of the fix quality.
    @Test(arguments: ["json", "gpx", "csv", "gpkg"])
    func everyFormatCarriesTheFixQuality(format: String) throws {
        let a = try store()
        defer { a.cleanUp() }
        let file = a.scratch.path("trees.\(format)")
        let exported = try a.run(["export", "--format", format, "--out", file])
        #expect(exported.status == 0, "\(exported)")
        if format == "gpx", Tool.xmllint.shouldRun {
            let r = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", Corpus.path("schema/gpx11.xsd"), file])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let b = try TreesProcess()
        defer { b.cleanUp() }
        let imported = try b.run(["import", file])
        #expect(imported.status == 0, "\(imported)")
        let query = "SELECT id, fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight, altitude FROM tree ORDER BY id"
        let expected = try Program.run("/usr/bin/sqlite3", [a.database, query])
        let back = try Program.run("/usr/bin/sqlite3", [b.database, query])
        #expect(back.stdout == expected.stdout)
        #expect(expected.stdout.contains("|rtk-fixed|1.2|0.031|gst|1.8|412.3\n"))
    }

    /// A fix quality no tree can have refuses the whole file, with its line (a GeoPackage: its
    /// row), and leaves the store as it was.
    @Test(arguments: [
        ("bad.json", "{\"trees\":[\n{\"id\":\"5A1B2C3D-0000-4000-8000-00000000000A\",\"latitude\":1,\"longitude\":2,\"species\":\"x\"},\n"
            + "{\"id\":\"5A1B2C3D-0000-4000-8000-00000000000B\",\"latitude\":1,\"longitude\":2,\"species\":\"x\",\n"
            + "\"capture\":{\"antennaHeight\":-1.8}}]}\n",
         ":4: \"antennaHeight\" -1.8 is negative; expected 0 or more"),
        ("bad.gpx", "<?xml version=\"1.0\"?>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" "
            + "xmlns:trees=\"https://trees.invalid/xmlns/trees/1\" version=\"1.1\" creator=\"t\">\n"
            + "<wpt lat=\"1\" lon=\"2\"><name>Apple</name></wpt>\n"
            + "<wpt lat=\"1\" lon=\"2\"><name>Pear</name><extensions>\n<trees:fixStatus>rtk</trees:fixStatus>\n</extensions></wpt>\n</gpx>\n",
         ":5: <trees:fixStatus> \"rtk\" is not a fix status; expected one of unknown, gps, dgps, rtk-fixed, rtk-float, "
            + "dead-reckoning, gnss-dead-reckoning, time-only, simulated, pps"),
        ("bad.csv", "species,lat,lon,correctionAge\nApple,1,2,3\nPear,1,2,-3\n",
         ":3: column 4 (correctionAge): \"-3\" is not a finite number, 0 or more"),
    ])
    func anImpossibleFixQualityIsRefusedWithItsLine(name: String, content: String, message: String) throws {
        let t = try store()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent(name)
        try content.write(to: file, atomically: true, encoding: .utf8)
        let before = try t.dump()
        let r = try t.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stdout == "")
        #expect(r.stderr == "trees: \(file.path)\(message)\n")
        #expect(try t.dump() == before)
    }

    @Test(arguments: [("fixStatus", "'RTK-FIX'", "fixStatus \"RTK-FIX\" is not a fix status; expected one of unknown, gps, dgps, "
                        + "rtk-fixed, rtk-float, dead-reckoning, gnss-dead-reckoning, time-only, simulated, pps"),
                      ("antennaHeight", "-2", "antennaHeight -2 is negative; expected 0 or more"),
                      ("verticalAccuracySource", "'guess'", "verticalAccuracySource \"guess\" is not an accuracy source; expected one of "
                        + "receiver, gst, gbs, dop, manual, averaged, imported, phone")])
    func aGeoPackageWithAnImpossibleFixQualityIsRefused(column: String, value: String, reason: String) throws {
        let a = try store()
        defer { a.cleanUp() }
        let gpkg = a.scratch.path("trees.gpkg")
        #expect(try a.run(["export", "--format", "gpkg", "--out", gpkg]).status == 0)
        // The spatial index's update triggers call functions only GDAL and SpatiaLite define.
        let triggers = (1...4).map { "DROP TRIGGER rtree_trees_geom_update\($0);" }.joined(separator: " ")
        let changed = try Program.run("/usr/bin/sqlite3", [gpkg, "\(triggers) UPDATE trees SET \(column) = \(value) WHERE species = 'Apple'"])
        #expect(changed.status == 0, "\(changed)")
        let row = try Program.run("/usr/bin/sqlite3", [gpkg, "SELECT fid FROM trees WHERE species = 'Apple'"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let before = try a.dump()
        let r = try a.run(["import", gpkg])
        #expect(r.status == 65, "\(r)")
        #expect(r.stderr == "trees: \(gpkg): layer trees, row \(row): \(reason)\n")
        #expect(try a.dump() == before)
    }
}
