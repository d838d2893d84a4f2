import Foundation
import Testing
import TreesTestSupport

/// End-to-end import, export and inspect through the built `trees` binary.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct InterchangeCLITests {
    /// A store with two collections and trees with every field the command line can set.
    func populated() throws -> TreesProcess {
        let t = try TreesProcess()
        for name in ["Victoria's Orchard", "Street"] {
            let r = try t.run(["collection", "create", name])
            #expect(r.status == 0, "\(r)")
        }
        let adds: [[String]] = [
            ["--lat", "47.3769123", "--lon", "-8.5417456", "--species", "Malus domestica", "--variety", "Boskoop & <Rote>",
             "--rootstock", "M9", "--notes", "=SUM(A1) \"quoted\", 'x'\nline two — Grüße", "--accuracy", "3.25",
             "--altitude", "408.5", "--collection", "Victoria's Orchard"],
            ["--lat", "-33.8688", "--lon", "151.2093", "--species", "Eucalyptus", "--collection", "Street"],
            ["--lat", "0.00001", "--lon", "-179.9999999", "--species", "Quercus robur", "--accuracy", "25", "--collection", "none"],
        ]
        for (i, a) in adds.enumerated() {
            let r = try t.run(["add"] + a, environment: ["TREES_NOW": "2026-05-01T10:00:0\(i).250Z"])
            #expect(r.status == 0, "\(r)")
        }
        return t
    }

    func read(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    @Test func jsonExportImportExportIsIdenticalApartFromExportedAt() throws {
        let a = try populated()
        defer { a.cleanUp() }
        let first = a.folder.appendingPathComponent("first.json")
        #expect(try a.run(["export", "--format", "json", "--out", first.path]).status == 0)
        let b = try TreesProcess(now: "2027-01-01T00:00:00.000Z")
        defer { b.cleanUp() }
        let imported = try b.run(["import", first.path])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout == "Imported 3 trees from \(first.path); 0 already present, 0 skipped.\n  new collections: Street, Victoria's Orchard\n")
        let second = b.folder.appendingPathComponent("second.json")
        #expect(try b.run(["export", "--format", "json", "--out", second.path]).status == 0)
        let text1 = try read(first), text2 = try read(second)
        #expect(text1.contains("\"exportedAt\":\"2026-05-01T10:00:00Z\""))
        #expect(text2.replacingOccurrences(of: "\"exportedAt\":\"2027-01-01T00:00:00Z\"", with: "\"exportedAt\":\"2026-05-01T10:00:00Z\"") == text1)

        // Re-importing adds nothing.
        let again = try b.run(["import", first.path, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(summary["imported"] as? Int == 0)
        #expect(summary["alreadyPresent"] as? Int == 3)
    }

    @Test func gpxExportImportRestoresEveryField() throws {
        let a = try populated()
        defer { a.cleanUp() }
        let gpx = a.folder.appendingPathComponent("trees.gpx")
        #expect(try a.run(["export", "--format", "gpx", "--out", gpx.path]).status == 0)
        let b = try TreesProcess()
        defer { b.cleanUp() }
        let imported = try b.run(["import", gpx.path])
        #expect(imported.status == 0, "\(imported)")
        let ja = try a.run(["export", "--format", "json", "--out", "-"])
        let jb = try b.run(["export", "--format", "json", "--out", "-"])
        #expect(ja.stdout == jb.stdout)
        #expect(ja.stdout.contains("\"variety\":\"Boskoop & <Rote>\""))
        let again = try b.run(["import", gpx.path])
        #expect(again.stdout == "Imported 0 trees from \(gpx.path); 3 already present, 0 skipped.\n")
    }

    @Test(.enabled(if: Tool.xmllint.shouldRun && Tool.gpsbabel.shouldRun && Tool.ogr2ogr.shouldRun)) func exportedGPXValidatesAndOtherToolsReadIt() throws {
        let a = try populated()
        defer { a.cleanUp() }
        let gpx = a.folder.appendingPathComponent("trees.gpx")
        #expect(try a.run(["export", "--format", "gpx", "--out", gpx.path]).status == 0)
        let lint = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", Corpus.path("schema/gpx11.xsd"), gpx.path])
        #expect(lint.status == 0, "\(lint.stderr)")
        let babel = try Program.run("/usr/bin/gpsbabel", ["-i", "gpx", "-f", gpx.path, "-o", "unicsv", "-F", "-"])
        #expect(babel.status == 0, "\(babel.stderr)")
        #expect(babel.stdout.contains("47.376912,-8.541746,\"Malus domestica 'Boskoop & <Rote>'\",408.5,"), "\(babel.stdout)")
        #expect(babel.stdout.contains("-33.868800,151.209300,\"Eucalyptus\""))
        let csv = a.folder.appendingPathComponent("ogr.csv")
        let ogr = try Program.run("/usr/bin/ogr2ogr", ["-f", "CSV", csv.path, gpx.path, "waypoints", "-lco", "GEOMETRY=AS_XY"])
        #expect(ogr.status == 0, "\(ogr.stderr)")
        let text = try read(csv)
        #expect(text.contains("-8.5417456,47.3769123"))
        #expect(text.contains("151.2093,-33.8688"))
    }

    @Test func gpxWithoutIdsIsDeduplicatedByPositionAndSpecies() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("survey.gpx")
        try """
            <?xml version="1.0" encoding="ISO-8859-1"?>
            <gpx xmlns="http://www.topografix.com/GPX/1/0" version="1.0" creator="survey">
            <wpt lat="47.1" lon="8.2"><name>Pyrus communis</name><desc>Birnbaum</desc></wpt>
            <wpt lat="47.1000001" lon="8.2"><type>Pyrus communis</type></wpt>
            <rte><rtept lat="1" lon="2"><name>Route point</name></rtept></rte>
            </gpx>
            """.write(to: file, atomically: true, encoding: .isoLatin1)
        let first = try t.run(["import", file.path])
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == "Imported 2 trees from \(file.path); 0 already present, 0 skipped.\n")
        let second = try t.run(["import", file.path, "--species-from", "type", "--include", "routes"])
        #expect(second.stdout.hasPrefix("Imported 1 tree from \(file.path); 2 already present, 0 skipped.\n"), "\(second)")
        let list = try t.run(["list"])
        #expect(list.stdout.contains("Pyrus communis"))
        #expect(list.stdout.contains("Route point"))
    }

    /// A GPX 1.1 document whose third line holds a good waypoint, then `points`.
    static func gpxPoints(_ points: String) -> String {
        "<?xml version=\"1.0\"?>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" version=\"1.1\" creator=\"t\">\n"
            + "<wpt lat=\"1\" lon=\"2\"><name>Pear</name></wpt>" + points + "\n</gpx>\n"
    }

    @Test(arguments: [
        ("bad.gpx", "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" version=\"1.1\">\n<wpt lat=\"1\" lon=\"2\"></trk>\n</gpx>\n",
         ":2: mismatched end tag </trk>; expected </wpt>"),
        ("notxml.gpx", "track: init: Found track point without time!\n", ":1: this is not XML: the document does not start with '<'"),
        ("xxe.gpx", "<?xml version=\"1.0\"?>\n<!DOCTYPE gpx [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> ]>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/1\" version=\"1.1\"><wpt lat=\"1\" lon=\"2\"><name>&xxe;</name></wpt></gpx>\n",
         ":2: the document type declaration declares entities; entity declarations are refused for safety"),
        ("kml.gpx", "<kml xmlns=\"http://www.opengis.net/kml/2.2\"/>\n", ":1: the root element is <kml>, not <gpx>"),
        ("lat91.gpx", Self.gpxPoints("<wpt lat=\"91\" lon=\"2\"><name>Apple</name></wpt>"),
         ":3: <wpt> latitude 91 is out of range; expected degrees between -90 and 90"),
        ("lon200.gpx", Self.gpxPoints("<trk><trkseg><trkpt lat=\"1\" lon=\"200\"/></trkseg></trk>"),
         ":3: <trkpt> longitude 200 is out of range; expected degrees between -180 and 180"),
        ("nolat.gpx", Self.gpxPoints("<wpt lon=\"2\"><name>Apple</name></wpt>"), ":3: <wpt> has no lat attribute"),
        ("ele.gpx", Self.gpxPoints("<wpt lat=\"1\" lon=\"2\">\n<ele>tall</ele><name>Apple</name></wpt>"),
         ":4: <ele> \"tall\" is not a number"),
        ("time.gpx", Self.gpxPoints("<wpt lat=\"1\" lon=\"2\"><time>yesterday</time><name>Apple</name></wpt>"),
         ":3: <time> \"yesterday\" is not an ISO 8601 time"),
        ("noid.json", "{\"trees\":[\n{\"latitude\":1,\"longitude\":2,\"species\":\"x\"}]}\n", ":2: the tree at line 2 is missing the required field \"id\""),
        ("broken.json", "{\"trees\":[{\"id\":1,}]}\n", ":1: unexpected '}'; expected a key in double quotes"),
        ("bad.csv", "species,lat,lon\nApple,1,2\nPear,x,2\n", ":3: column 2 (lat): \"x\" is not a number"),
    ])
    func badInputIsRefusedAndTheStoreIsUnchanged(name: String, content: String, message: String) throws {
        let t = try populated()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent(name)
        try content.write(to: file, atomically: true, encoding: .utf8)
        let before = try t.dump()
        let r = try t.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stdout == "")
        #expect(r.stderr == "trees: \(file.path)\(message)\n")
        #expect(!r.stderr.contains("root:"))
        #expect(try t.dump() == before)
    }

    /// An import into a store the command makes is written straight into the store's file, not
    /// through the WAL: the store holds the same trees as one imported into an existing store, is
    /// left in WAL mode with no journal beside it, and a refused file leaves it empty and sound.
    @Test func anImportIntoANewStoreIsTheSameAsIntoAnExistingOne() throws {
        let a = try populated()
        defer { a.cleanUp() }
        let file = a.folder.appendingPathComponent("orchard.json")
        #expect(try a.run(["export", "--format", "json", "--out", file.path]).status == 0)
        let fresh = try TreesProcess()
        defer { fresh.cleanUp() }
        let existing = try TreesProcess()
        defer { existing.cleanUp() }
        try existing.makeEmptyStore()
        #expect(FileManager.default.fileExists(atPath: existing.database))
        #expect(!FileManager.default.fileExists(atPath: fresh.database))
        for t in [fresh, existing] {
            let r = try t.run(["import", file.path])
            #expect(r.status == 0, "\(r)")
        }
        func rows(_ t: TreesProcess) throws -> String {
            try Program.run("/usr/bin/sqlite3", [t.database, "SELECT * FROM tree ORDER BY id; SELECT name FROM collection ORDER BY name;"]).stdout
        }
        #expect(try rows(fresh) == rows(existing))
        #expect(try Program.run("/usr/bin/sqlite3", [fresh.database, "SELECT count(*) FROM tree"]).stdout == "3\n")
        for t in [fresh, existing] {
            #expect(try Program.run("/usr/bin/sqlite3", [t.database, "PRAGMA journal_mode; PRAGMA integrity_check"]).stdout == "wal\nok\n")
            #expect(!FileManager.default.fileExists(atPath: t.database + "-journal"))
        }

        let refused = try TreesProcess()
        defer { refused.cleanUp() }
        let bad = refused.folder.appendingPathComponent("bad.csv")
        try "species,lat,lon\nApple,1,2\nPear,x,2\n".write(to: bad, atomically: true, encoding: .utf8)
        let r = try refused.run(["import", bad.path])
        #expect(r.status == 65)
        // Refused into a new store: no store is left, nor any file of one.
        for suffix in ["", "-journal", "-wal", "-shm"] { #expect(!FileManager.default.fileExists(atPath: refused.database + suffix)) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: refused.database).deletingLastPathComponent().path)
            .filter { $0.contains("trees") } == [], "no unseen file is left either")
    }

    @Test func dryRunStoresNothing() throws {
        let a = try populated()
        defer { a.cleanUp() }
        let file = a.folder.appendingPathComponent("t.csv")
        #expect(try a.run(["export", "--format", "csv", "--out", file.path]).status == 0)
        let b = try TreesProcess()
        defer { b.cleanUp() }
        _ = try b.run(["collection", "create", "Other"])
        let before = try b.dump()
        let r = try b.run(["import", file.path, "--dry-run"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.hasPrefix("Dry run: would import 3 trees from \(file.path); 0 already present, 0 skipped. Nothing was stored.\n"))
        #expect(try b.dump() == before)
    }

    @Test func exportNamesFilesAndWritesNoPartialFiles() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let out = t.folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let r = try t.run(["export", "--format", "kml", "--collection", "Victoria's Orchard", "--out", out.path])
        #expect(r.status == 0, "\(r)")
        let expected = out.appendingPathComponent("victorias_orchard_2026-05-01_100000.kml").path
        #expect(r.stdout == "Exported 1 tree to \(expected)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["victorias_orchard_2026-05-01_100000.kml"])
        let plain = try t.run(["export", "--format", "geojson"], currentDirectory: out)
        #expect(plain.stdout == "Exported 3 trees to trees_2026-05-01_100000.geojson\n")
        let missing = try t.run(["export", "--format", "csv", "--out", t.folder.appendingPathComponent("no/such/dir/x.csv").path])
        #expect(missing.status == 73)
        let bad = try t.run(["export", "--format", "xls"])
        #expect(bad.status == 64)
    }

    /// `--collection none` exports the trees in no collection, as `list` lists them, in every format.
    @Test func exportOfTreesInNoCollection() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let r = try t.run(["export", "--format", "json", "--collection", "None", "--out", "-"])
        #expect(r.status == 0, "\(r)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let trees = try #require(json["trees"] as? [[String: Any]])
        #expect(trees.map { $0["species"] as? String } == ["Quercus robur"])
        #expect((json["collections"] as? [Any])?.isEmpty == true)
        let named = try t.run(["export", "--format", "csv", "--collection", "none"], currentDirectory: t.folder)
        #expect(named.stdout == "Exported 1 tree to no_collection_2026-05-01_100000.csv\n", "\(named)")
        let care = try t.run(["export", "--format", "csv", "--care", "--collection", "none"])
        #expect(care.status == 64, "\(care)")
        #expect(care.stderr.contains("'none' is not one"), "\(care)")
    }

    /// A record without a species is skipped in every format, and the summary counts it; the
    /// reason names the option that chooses where the species is read from in that format.
    @Test func aRecordWithoutASpeciesIsSkippedWithTheOptionOfItsFormat() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let gpx = try t.scratch.write("a.gpx", """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="51" lon="0"><name>Oak</name></wpt>
            <wpt lat="51.1" lon="0"></wpt>
            </gpx>

            """)
        let csv = try t.scratch.write("a.csv", "latitude,longitude,species\n52,0,Oak\n52.1,0,\n")
        let cases = [(gpx, 4, "no species; choose the field with --species-from"),
                     (csv, 3, "no species: the row's species cell is empty (name the species column with --columns species=COLUMN)")]
        for (file, line, reason) in cases {
            let r = try t.run(["import", file])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout == "Imported 1 tree from \(file); 0 already present, 1 skipped.\n  skipped \(file):\(line): \(reason)\n", "\(r)")
        }
        let exported = try t.run(["export", "--format", "json", "--out", "-"])
        let blank = exported.stdout.replacingOccurrences(of: "\"Oak\"", with: "\"\"")
        let other = try TreesProcess()
        defer { other.cleanUp() }
        let json = try other.scratch.write("blank.json", blank)
        let r = try other.run(["import", json, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let skipped = try #require(summary["skipped"] as? [[String: Any]])
        #expect(skipped.count == 2 && skipped.allSatisfy { $0["reason"] as? String == "no species: the tree's \"species\" is empty" }, "\(r)")
    }

    /// Characters XML cannot carry are left out of a GPX or KML export, and the export says so on
    /// standard error: how many values, and the first tree with one. Other formats keep them.
    @Test func anXMLExportSaysWhenItLeavesCharactersOut() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "51.5", "--lon", "-0.1", "--species", "Oak"]).status == 0)
        let added = try t.run(["add", "--lat", "51.6", "--lon", "-0.2", "--species", "Ash\u{1}", "--notes", "bell\u{7}\u{FFFE}", "--json"])
        #expect(added.status == 0, "\(added)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let short = String(id.lowercased().prefix(8))
        for format in ["gpx", "kml"] {
            let file = t.scratch.path("controls.\(format)")
            let r = try t.run(["export", "--format", format, "--out", file])
            #expect(r.status == 0, "\(r)")
            #expect(r.stderr == "trees: warning: 2 values held characters \(format.uppercased()) cannot carry (control characters other than "
                + "tab, newline and return, U+FFFE, U+FFFF), left out of the file; the first in tree \(short) (trees show \(short))\n", "\(r)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("bell<") && !text.contains("\u{7}"))
        }
        let json = try t.run(["export", "--format", "json", "--out", "-"])
        #expect(json.status == 0 && json.stderr.isEmpty, "\(json)")
    }

    /// An export of a few megabytes (written in blocks, handed to writeback as it goes, bounds
    /// patched in at the end) is complete; a full device is reported as such and leaves no files.
    @Test func largeExportIsCompleteAndAFullDiskIsReported() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let count = 4000
        var gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        for i in 0..<count {
            gpx += "<wpt lat=\"47.\(String(format: "%04d", i))\" lon=\"8.\(String(format: "%05d", i * 5))\"><name>Tree \(i)</name>"
            gpx += "<desc>\(String(repeating: "notes ", count: 60))</desc></wpt>\n"
        }
        gpx += "</gpx>\n"
        let source = t.folder.appendingPathComponent("survey.gpx")
        try gpx.write(to: source, atomically: true, encoding: .utf8)
        let imported = try t.run(["import", source.path])
        #expect(imported.status == 0, "\(imported)")

        let out = t.folder.appendingPathComponent("all.gpx")
        let r = try t.run(["export", "--format", "gpx", "--out", out.path])
        #expect(r.status == 0, "\(r)")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int)
        #expect(size > 2 << 20)
        let text = try read(out)
        #expect(text.hasSuffix("</wpt>\n</gpx>\n"))
        #expect(text.contains("<bounds minlat=\"47\" minlon=\"8\" maxlat=\"47.3999\" maxlon=\"8.19995\"/>"))
        let inspected = try t.run(["inspect", out.path, "--json"])
        #expect(inspected.stdout.contains("\"waypoints\": \(count),"), "\(inspected)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path).filter { $0.hasSuffix(".tmp") }.isEmpty)

        let full = try t.run(["export", "--format", "csv", "--out", "/dev/full"])
        #expect(full.status == 74, "\(full)")
        #expect(full.stderr == "trees: cannot write /dev/full: No space left on device\n")
    }

    /// When the store cannot be written (here the file-size limit stops the write-ahead log
    /// growing, as a full disk would), the import is refused as an I/O failure, not blamed on a
    /// line of the file, and the store is exactly as it was.
    /// Runs `trees` with files limited to `fileKiB` KiB (and the limit's signal ignored, so writes
    /// beyond it fail with EFBIG as they would on a full disk).
    static func runLimited(_ t: TreesProcess, fileKiB: Int, _ arguments: [String]) throws -> TreesProcess.Result {
        try t.run(arguments, launcher: ["/bin/bash", "-c", "ulimit -f \(fileKiB); trap '' XFSZ; exec \"$0\" \"$@\""])
    }

    @Test func anImportThatCannotBeWrittenChangesNothing() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("many.gpx")
        var gpx = "<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        for i in 0..<5000 {
            gpx += "<wpt lat=\"47.\(String(format: "%04d", i))\" lon=\"8.5\"><name>Tree \(i)</name><desc>\(String(repeating: "x", count: 200))</desc></wpt>\n"
        }
        try (gpx + "</gpx>\n").write(to: source, atomically: true, encoding: .utf8)
        let before = try t.dump()

        let refused = try Self.runLimited(t, fileKiB: 256, ["import", source.path])
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr == "trees: cannot write the database: disk I/O error; nothing was imported\n")
        // Not a byte to spare: the store is not even opened, and is not called "not a trees database".
        let full = try Self.runLimited(t, fileKiB: 0, ["add", "--lat", "1", "--lon", "2", "--species", "Fig"])
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr == "trees: cannot write the database: \(t.database): disk I/O error\n")
        #expect(try t.dump() == before)
        let list = try t.run(["list", "--json"])
        #expect(list.status == 0)
        #expect(!list.stdout.contains("Tree 1"))
    }

    /// A first import of a file too large to be held until its commit (over 16 MiB), into a store
    /// not made yet, on a disk that fills up: refused as an I/O failure, and nothing is left in the
    /// store's folder, not even an empty store: the path holds no store, as before.
    @Test func aLargeFirstImportThatCannotBeWrittenLeavesNoStore() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let source = t.folder.appendingPathComponent("large.gpx")
        let padding = String(repeating: "x", count: 400)
        var gpx = "<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        for i in 0..<36_000 {
            gpx += "<wpt lat=\"47.\(String(format: "%06d", i))\" lon=\"8.5\"><name>Tree \(i)</name><desc>\(padding)</desc></wpt>\n"
        }
        try (gpx + "</gpx>\n").write(to: source, atomically: true, encoding: .utf8)
        #expect(try Self.size(source.path) > 16 << 20)
        let folder = t.folder.appendingPathComponent("first")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = folder.appendingPathComponent("trees.sqlite").path

        let refused = try Self.runLimited(t, fileKiB: 4096, ["import", "--db", store, source.path])
        #expect(refused.status == 74, "\(refused.stderr)")
        #expect(refused.stderr == "trees: cannot write the database: disk I/O error; nothing was imported\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        let list = try t.run(["list", "--json", "--db", store])
        #expect(list.status == 66, "\(list)")
        #expect(list.stderr == "trees: no store at \(store) (named by --db); trees import, add or capture makes one\n")
        // With room, the same import makes the store.
        let imported = try t.run(["import", "--db", store, source.path])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.hasPrefix("Imported 36000 trees"), "\(imported)")
    }

    /// An import refused for its file (malformed GPX, JSON or CSV) into a store not made yet leaves
    /// no store, and no folder it would have made for one; into a folder that was there, the folder
    /// stays, empty. A reading command then finds no store there.
    @Test(arguments: [
        ("bad.gpx", #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="47.1" lon="8.5"><name>Fig</name></wpt><wpt lat="x"#),
        ("bad.json", #"{"collections": [], "trees": [{"species": "Fig", "latitude": 47.1, "longitude": 8.5,}]}"#),
        ("bad.csv", "latitude,longitude,species\n47.1,8.5,Fig\n\"47.2,8.5,Plum\n"),
    ])
    func aRefusedFirstImportLeavesNoStore(name: String, content: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = try t.scratch.write(name, content)
        let store = t.folder.appendingPathComponent("new/deeper/trees.sqlite").path
        let refused = try t.run(["import", file, "--db", store])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.hasPrefix("trees: \(file):"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: t.folder.appendingPathComponent("new").path))
        let there = t.folder.appendingPathComponent("there")
        try FileManager.default.createDirectory(at: there, withIntermediateDirectories: true)
        #expect(try t.run(["import", file, "--db", there.path + "/trees.sqlite"]).status == 65)
        #expect(try FileManager.default.contentsOfDirectory(atPath: there.path) == [])
        let list = try t.run(["list", "--db", store])
        #expect(list.status == 66, "\(list)")
    }

    static func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test func inspectCountsGPX() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["inspect", "--json", Corpus.path("gpx/gdb-sample.gpx")])
        #expect(r.status == 0, "\(r)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let counts = try #require(object["counts"] as? [String: Int])
        #expect(counts == ["waypoints": 9, "routes": 1, "routePoints": 9, "tracks": 9, "trackSegments": 9, "trackPoints": 747])
        let human = try t.run(["inspect", Corpus.path("gpx/gdb-sample.gpx")])
        #expect(human.stdout.contains("  tracks     9 (9 segments, 747 points)\n"), "\(human.stdout)")
        let broken = Corpus.path("gpx/track/trackfilter_discard_err.gpx")
        let bad = try t.run(["inspect", broken])
        #expect(bad.status == 65)
        #expect(bad.stderr == "trees: \(broken):1: this is not XML: the document does not start with '<'\n")
    }
}

/// Photos travel inside collection JSON: imported as content-addressed files, exported again with --photos.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct InterchangePhotoTests {
    @Test func photosRoundTripThroughCollectionJSON() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0xFF, 0xD9]
        let base64 = Data(jpeg).base64EncodedString()
        let file = t.folder.appendingPathComponent("app.json")
        try """
            {"collections":[],"trees":[{"id":"D1D1D1D1-1111-4222-8333-444455556666","latitude":47.1,"longitude":8.25,
            "species":"Pyrus communis","photoCount":1,"photos":["\(base64)"],"photoDates":["2024-04-01T08:05:00Z"],
            "photoFileNames":["../../../etc/passwd"],"createdAt":"2024-04-01T08:04:00Z"}]}
            """.write(to: file, atomically: true, encoding: .utf8)
        let r = try t.run(["import", file.path])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Imported 1 tree from \(file.path); 0 already present, 0 skipped.\n  1 photo\n")
        try Data(jpeg).write(to: t.folder.appendingPathComponent("photo.bin"))
        let sum = try Program.run("/usr/bin/sha256sum", [file.path.replacingOccurrences(of: "app.json", with: "photo.bin")])
        let hash = String(sum.stdout.prefix(64))
        let photo = t.folder.appendingPathComponent("photos/\(hash).jpeg")
        #expect(FileManager.default.contents(atPath: photo.path) == Data(jpeg))
        #expect(!FileManager.default.fileExists(atPath: t.folder.appendingPathComponent("etc").path))

        let out = try t.run(["export", "--format", "json", "--photos", "--out", "-"])
        #expect(out.status == 0, "\(out)")
        #expect(out.stdout.contains("\"photoCount\":1,\"photos\":[\"\(base64)\"],\"photoDates\":[\"2024-04-01T08:05:00Z\"]"), "\(out.stdout)")
        let plain = try t.run(["export", "--format", "json", "--out", "-"])
        #expect(plain.stdout.contains("\"photoCount\":1,\"photoDates\":[\"2024-04-01T08:05:00Z\"]"))

        // A refused import leaves no new photo file behind.
        let bad = t.folder.appendingPathComponent("bad.json")
        let other: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x01]
        try """
            [{"id":"E2E2E2E2-1111-4222-8333-444455556666","latitude":1,"longitude":2,"species":"x",
              "photos":["\(Data(other).base64EncodedString())"]},
             {"id":"nope","latitude":91,"longitude":2,"species":"y"}]
            """.write(to: bad, atomically: true, encoding: .utf8)
        let before = try FileManager.default.contentsOfDirectory(atPath: t.folder.appendingPathComponent("photos").path)
        let refused = try t.run(["import", bad.path])
        #expect(refused.status == 65)
        #expect(refused.stderr == "trees: \(bad.path):3: latitude 91 is out of range; expected degrees between -90 and 90\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.appendingPathComponent("photos").path) == before)
    }

    @Test func importsFromStandardInput() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let csv = "species,lat,lon\nApple,47.5,8.25\n"
        let r = try t.run(["import", "-", "--format", "csv"], stdin: Data(csv.utf8))
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Imported 1 tree from <stdin>; 0 already present, 0 skipped.\n")
        let bad = try t.run(["import", "-"], stdin: Data("hello".utf8))
        #expect(bad.status == 65)
        #expect(bad.stderr == "trees: <stdin>: cannot tell the format from the name or content; use --format gpx|json|csv\n")
    }
}

/// Conflict policies and the target collection of an import.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct InterchangeConflictTests {
    static let json = """
        [{"id":"D1D1D1D1-1111-4222-8333-444455556666","latitude":47.1,"longitude":8.25,"species":"Pyrus communis",
          "variety":"Williams","createdAt":"2024-04-01T08:04:00Z","updatedAt":"2024-04-02T08:04:00Z"}]
        """

    @Test func skipReplaceAndNewID() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("one.json")
        try Self.json.write(to: file, atomically: true, encoding: .utf8)
        #expect(try t.run(["import", file.path]).status == 0)
        #expect(try t.run(["edit", "d1d1d1d1", "--variety", "Conference"]).status == 0)

        let skipped = try t.run(["import", file.path])
        #expect(skipped.stdout == "Imported 0 trees from \(file.path); 1 already present, 0 skipped.\n")
        #expect(try t.run(["show", "d1d1d1d1", "--json"]).stdout.contains("\"variety\": \"Conference\""))

        let replaced = try t.run(["import", file.path, "--on-conflict", "replace"])
        #expect(replaced.stdout == "Imported 0 trees from \(file.path); 0 already present, 1 replaced, 0 skipped.\n")
        #expect(try t.run(["show", "d1d1d1d1", "--json"]).stdout.contains("\"variety\": \"Williams\""))

        let copied = try t.run(["import", file.path, "--on-conflict", "new-id", "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(copied.stdout.utf8)) as? [String: Any])
        #expect(summary["imported"] as? Int == 1)
        let list = try t.run(["list", "--json"])
        let trees = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(trees.count == 2)

        let bad = try t.run(["import", file.path, "--on-conflict", "merge"])
        #expect(bad.status == 64)
    }

    @Test func collectionOptionAndTrackPoints() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["import", Corpus.path("gpx/gpxpassthrough11.gpx"), "--collection", "Survey 2024",
                           "--include", "tracks", "--species-from", "name", "--json"])
        #expect(r.status == 0, "\(r)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(summary["collectionsCreated"] as? [String] == ["Survey 2024"])
        // 3 waypoints with names; track points have no name and no type, so they are skipped with a reason.
        #expect(summary["imported"] as? Int == 3)
        let skipped = try #require(summary["skipped"] as? [[String: Any]])
        #expect(skipped.count == 3)
        #expect(skipped.first?["reason"] as? String == "no species; choose the field with --species-from")
        let list = try t.run(["list", "--collection", "Survey 2024", "--json"])
        let trees = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(trees.count == 3)
    }
}
