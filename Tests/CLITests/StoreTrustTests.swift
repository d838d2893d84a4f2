import Foundation
import Testing
import TreesTestSupport

/// A store stays readable and exact whatever reaches it: values it cannot hold are refused where
/// they are read, damaged rows already in a file are named (never a trap) and mended by
/// `trees doctor`, a store this user may only read can be read, photos never lock others out.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct StoreTrustTests {
    /// Runs `sqlite3` on the test store (to damage it as a hand edit or an older version would).
    @discardableResult
    func sqlite(_ t: TreesProcess, _ sql: String) throws -> String {
        let r = try Program.run("/usr/bin/sqlite3", [t.database, sql])
        #expect(r.status == 0, "sqlite3 \(sql)")
        return r.stdout
    }

    /// A store with one tree in a collection, and that tree's id.
    func store() throws -> (TreesProcess, String) {
        let t = try TreesProcess()
        #expect(try t.run(["collection", "create", "North"]).status == 0)
        let r = try t.run(["add", "--lat", "51.5", "--lon", "-0.1", "--species", "Apple", "--collection", "North"])
        #expect(r.status == 0, "\(r)")
        let id = try sqlite(t, "SELECT id FROM tree").trimmingCharacters(in: .whitespacesAndNewlines)
        return (t, id)
    }

    static let readers: [[String]] = [
        ["list"], ["list", "--json"], ["stats"], ["collection", "list"], ["export", "--format", "json", "--out", "-"],
        ["export", "--format", "gpx", "--out", "-"], ["map", "--out", "-"],
    ]

    static let damages: [(sql: String, table: String, column: String, reason: String)] = [
        ("UPDATE tree SET createdAt = '12345-01-01 00:00:00.000'", "tree", "createdAt",
         "\"12345-01-01 00:00:00.000\" is outside years 0000 to 9999 (UTC)"),
        ("UPDATE tree SET updatedAt = 'yesterday'", "tree", "updatedAt", "\"yesterday\" is not a date"),
        ("UPDATE tree SET latitude = 'north'", "tree", "latitude", "\"north\" is not a number"),
        ("UPDATE tree SET longitude = 540", "tree", "longitude", "longitude 540 is out of range; expected degrees between -180 and 180"),
        ("UPDATE tree SET hdop = 'high'", "tree", "hdop", "\"high\" is not a number"),
        ("UPDATE tree SET satellites = 'many'", "tree", "satellites", "\"many\" is not a whole number"),
        ("UPDATE tree SET collectionId = 'not-an-id'", "tree", "collectionId", "\"not-an-id\" is not a UUID"),
        ("UPDATE collection SET createdAt = '-0001-01-01 00:00:00.000'", "collection", "createdAt",
         "\"-0001-01-01 00:00:00.000\" is outside years 0000 to 9999 (UTC)"),
        ("UPDATE collection SET name = X'FFFE'", "collection", "name", "a blob of 2 bytes is not text"),
        // Text with a NUL character: statements binding Swift strings stop at it, so it would not be written back whole.
        ("UPDATE tree SET notes = CAST(X'61006200' AS TEXT)", "tree", "notes", "it contains a NUL character (U+0000)"),
        ("UPDATE tree SET species = 'Apple' || char(0)", "tree", "species", "it contains a NUL character (U+0000)"),
        ("UPDATE collection SET name = 'North' || char(0) || 'East'", "collection", "name", "it contains a NUL character (U+0000)"),
        // The fix quality: names the model does not know, numbers below zero written past the schema's checks.
        ("UPDATE tree SET fixStatus = 'rtk'", "tree", "fixStatus",
         "\"rtk\" is not a fix status; expected one of unknown, gps, dgps, rtk-fixed, rtk-float, dead-reckoning, "
            + "gnss-dead-reckoning, time-only, simulated, pps"),
        ("PRAGMA ignore_check_constraints = 1; UPDATE tree SET correctionAge = -3", "tree", "correctionAge", "-3.0 is negative; expected 0 or more"),
        ("PRAGMA ignore_check_constraints = 1; UPDATE tree SET verticalAccuracy = -0.5", "tree", "verticalAccuracy",
         "accuracy -0.5 is negative; expected metres, 0 or more"),
        ("UPDATE tree SET verticalAccuracySource = 'guess'", "tree", "verticalAccuracySource",
         "\"guess\" is not an accuracy source; expected one of receiver, gst, gbs, dop, manual, averaged, imported, phone"),
        ("UPDATE tree SET antennaHeight = 'tall'", "tree", "antennaHeight", "\"tall\" is not a number"),
    ]

    @Test(arguments: damages.indices)
    func aDamagedValueIsNamedByEveryReadNeverATrap(index: Int) throws {
        let damage = Self.damages[index]
        let (t, id) = try store()
        defer { t.cleanUp() }
        try sqlite(t, damage.sql)
        let rowID = try sqlite(t, "SELECT rowid FROM \(damage.table)").trimmingCharacters(in: .whitespacesAndNewlines)
        let rowText = damage.table == "tree" ? id : try sqlite(t, "SELECT id FROM collection").trimmingCharacters(in: .whitespacesAndNewlines)
        let expected = "trees: the store holds a damaged value: \(damage.table) row \(rowID) (id \(rowText)), column \(damage.column): "
            + "\(damage.reason); 'trees doctor' lists damaged rows and 'trees doctor --repair' mends what it can\n"
        let before = t.snapshot()
        // Reading collections alone (`collection list`) does not read tree rows.
        let readers = damage.table == "tree" ? Self.readers.filter { $0 != ["collection", "list"] } : Self.readers
        for command in readers + [["show", String(id.prefix(8))]] {
            let r = try t.run(command)
            #expect(r.status == 65, "\(command): \(r)")
            #expect(r.stderr == expected, "\(command)")
        }
        #expect(t.snapshot() == before, "reads changed the file")
    }

    @Test func doctorListsMendsAndRemoves() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        let second = try t.run(["add", "--lat", "52", "--lon", "1", "--species", "Pear", "--collection", "none"])
        #expect(second.status == 0)
        let pear = try sqlite(t, "SELECT id FROM tree WHERE species = 'Pear'").trimmingCharacters(in: .whitespacesAndNewlines)
        let collection = try sqlite(t, "SELECT id FROM collection").trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
        try sqlite(t, """
            UPDATE tree SET createdAt = '12345-01-01 00:00:00.000', hdop = 'x' WHERE species = 'Apple';
            UPDATE tree SET latitude = 'north' WHERE species = 'Pear';
            UPDATE collection SET updatedAt = 'soon';
            """)
        let apple = id
        let dump = try t.dump()
        let listed = try t.run(["doctor"])
        #expect(listed.status == 65)
        #expect(listed.stdout == """
            collection row 1 (\(collection)) updatedAt: "soon" is not a date; repairable: set to its createdAt
            tree row 1 (\(apple)) createdAt: "12345-01-01 00:00:00.000" is outside years 0000 to 9999 (UTC); repairable: set to its updatedAt
            tree row 1 (\(apple)) hdop: "x" is not a number; repairable: cleared
            tree row 2 (\(pear)) latitude: "north" is not a number; not repairable: 'trees doctor --repair --remove-unrepairable' removes the row
            4 problems found, 3 repairable: run 'trees doctor --repair'.

            """)
        #expect(try t.dump() == dump, "doctor without --repair changed the store")

        let mended = try t.run(["doctor", "--repair"])
        #expect(mended.status == 65, "\(mended)")
        #expect(mended.stdout.hasSuffix("4 problems found: 3 mended, 1 left.\n"))
        #expect(try sqlite(t, "SELECT createdAt = updatedAt, hdop IS NULL FROM tree WHERE species = 'Apple'") == "1|1\n")
        #expect(try sqlite(t, "SELECT change FROM treeHistory ORDER BY rowid") == """
            repaired: createdAt was "12345-01-01 00:00:00.000"
            repaired: hdop was "x"

            """)

        let removed = try t.run(["doctor", "--repair", "--remove-unrepairable"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stdout == """
            tree row 2 (\(pear)) latitude: "north" is not a number; row removed
            1 problem found: 0 mended, 1 row removed.

            """)
        let list = try t.run(["list", "--json"])
        #expect(list.status == 0, "\(list)")
        #expect(list.stdout.lowercased().contains(apple) && !list.stdout.lowercased().contains(pear))
        #expect(try t.run(["doctor", "--json"]).stdout == "{\n  \"findings\": [],\n  \"sound\": true\n}\n")
    }

    /// Damaged fix quality is listed column by column and cleared, each with a history line; the
    /// tree keeps its position and the rest of its fix quality.
    @Test func doctorClearsDamagedFixQuality() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        try sqlite(t, """
            UPDATE tree SET fixStatus = 'rtk-fixed', correctionAge = 1.5, verticalAccuracy = 0.04, verticalAccuracySource = 'gst', antennaHeight = 1.8;
            """)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
        try sqlite(t, """
            PRAGMA ignore_check_constraints = 1;
            UPDATE tree SET fixStatus = 'RTK', antennaHeight = -1.8;
            """)
        let listed = try t.run(["doctor"])
        #expect(listed.status == 65)
        #expect(listed.stdout == """
            tree row 1 (\(id)) fixStatus: "RTK" is not a fix status; expected one of unknown, gps, dgps, rtk-fixed, rtk-float, \
            dead-reckoning, gnss-dead-reckoning, time-only, simulated, pps; repairable: cleared
            tree row 1 (\(id)) antennaHeight: -1.8 is negative; expected 0 or more; repairable: cleared
            2 problems found, 2 repairable: run 'trees doctor --repair'.

            """)
        let mended = try t.run(["doctor", "--repair"])
        #expect(mended.status == 0, "\(mended)")
        #expect(try sqlite(t, "SELECT fixStatus IS NULL, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight IS NULL FROM tree")
                == "1|1.5|0.04|gst|1\n")
        #expect(try sqlite(t, "SELECT change FROM treeHistory ORDER BY rowid") == """
            repaired: fixStatus was "RTK"
            repaired: antennaHeight was -1.8

            """)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
        #expect(try t.run(["list"]).status == 0)
    }

    /// Text with a NUL character (an older version kept it from JSON and CSV files) reads as
    /// damaged, and the repair removes the NUL characters, keeping the rest.
    @Test func doctorRemovesNULCharactersFromText() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        try sqlite(t, "UPDATE tree SET notes = 'fire' || char(0) || 'blight', variety = 'Gala' || char(0), species = char(0)")
        let listed = try t.run(["doctor"])
        #expect(listed.status == 65)
        #expect(listed.stdout == """
            tree row 1 (\(id)) species: it contains a NUL character (U+0000); repairable: set to Unknown
            tree row 1 (\(id)) variety: it contains a NUL character (U+0000); repairable: NUL characters removed
            tree row 1 (\(id)) notes: it contains a NUL character (U+0000); repairable: NUL characters removed
            3 problems found, 3 repairable: run 'trees doctor --repair'.

            """)
        #expect(try t.run(["doctor", "--repair"]).status == 0)
        #expect(try sqlite(t, "SELECT species, variety, notes, instr(notes, char(0)) FROM tree") == "Unknown|Gala|fireblight|0\n")
        #expect(try t.run(["list"]).status == 0)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
    }

    @Test func doctorRemovesDanglingReferences() throws {
        let (t, _) = try store()
        defer { t.cleanUp() }
        try sqlite(t, "PRAGMA foreign_keys = OFF; DELETE FROM collection;")
        let r = try t.run(["doctor", "--repair"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("collectionId: it refers to a collection that does not exist; mended: cleared (no collection)"))
        #expect(try sqlite(t, "SELECT collectionId IS NULL FROM tree") == "1\n")
    }

    /// Damaged care log rows (a hand edit, an older version) never crash a reader: each read says
    /// which value is damaged, `trees doctor` lists the same, and the repair mends what it can,
    /// bringing the last events and health up to date with the mended log.
    @Test func careLogDamageIsFoundAndMended() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        let short = String(id.prefix(8))
        #expect(try t.run(["care", "add", short, "harvest", "--date", "2026-04-02", "--quantity", "12 kg"]).status == 0)
        #expect(try t.run(["care", "add", short, "inspect", "--date", "2026-04-03", "--health", "pest", "--notes", "aphids"]).status == 0)
        #expect(try t.run(["schedule", "set", short, "water", "--every", "14d"]).status == 0)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
        let harvest = try sqlite(t, "SELECT id FROM careEvent WHERE kind = 'harvest'").trimmingCharacters(in: .whitespacesAndNewlines)
        let inspect = try sqlite(t, "SELECT id FROM careEvent WHERE kind = 'inspect'").trimmingCharacters(in: .whitespacesAndNewlines)
        let schedule = try sqlite(t, "SELECT id FROM careSchedule").trimmingCharacters(in: .whitespacesAndNewlines)
        try sqlite(t, """
            UPDATE careEvent SET quantity = 'lots' WHERE kind = 'harvest';
            UPDATE careEvent SET health = 'sickly', date = 'soon' WHERE kind = 'inspect';
            UPDATE careSchedule SET fromDay = 'spring';
            """)
        for command in [["care", "list", short], ["show", short], ["due"], ["export", "--format", "json", "--out", "-"]] {
            let r = try t.run(command)
            #expect(r.status == 65, "\(command): \(r)")
            #expect(r.stderr.hasPrefix("trees: the store holds a damaged value: care"), "\(command): \(r.stderr)")
        }
        let listed = try t.run(["doctor"])
        #expect(listed.status == 65)
        #expect(listed.stdout == """
            careEvent row 1 (\(harvest)) quantity: "lots" is not a number; repairable: cleared
            careEvent row 2 (\(inspect)) date: "soon" is not a date; repairable: set to its updatedAt
            careEvent row 2 (\(inspect)) health: 'sickly' is not a health status; repairable: cleared; then set it again with 'trees care edit \(shortID(inspect)) --health STATUS'
            careSchedule row 1 (\(schedule)) fromDay: 'spring' is not a YYYY-MM-DD day; not repairable: 'trees doctor --repair --remove-unrepairable' removes the row; then set it again with 'trees schedule set \(short) water --every 14d --from YYYY-MM-DD'
            4 problems found, 3 repairable: run 'trees doctor --repair'.

            """)
        let removed = try t.run(["doctor", "--repair", "--remove-unrepairable"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stdout.hasSuffix("4 problems found: 3 mended, 1 row removed.\n"), "\(removed)")
        #expect(try sqlite(t, "SELECT kind, quantity IS NULL, notes IS NULL, health IS NULL, date = updatedAt FROM careEvent ORDER BY rowid")
                == "harvest|1|1|1|0\ninspect|1|0|1|1\n")
        // The inspection no longer sets a health; the harvest no longer counts a quantity.
        #expect(try sqlite(t, "SELECT COUNT(*) FROM treeHealth") == "0\n")
        #expect(try sqlite(t, "SELECT COUNT(*) FROM careHarvest") == "0\n")
        #expect(try sqlite(t, "SELECT COUNT(*) FROM careSchedule") == "0\n")
        #expect(try t.run(["care", "list", short]).status == 0)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
    }

    /// Summaries kept beside the care log (last care, health, monthly counts, harvest totals)
    /// that were left behind by a change made around `trees` are found, and built again.
    @Test func careSummariesThatDisagreeWithTheLogAreFoundAndRebuilt() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        let short = String(id.prefix(8))
        #expect(try t.run(["care", "add", short, "harvest", "--date", "2026-04-02", "--quantity", "12.1 kg"]).status == 0)
        #expect(try t.run(["care", "add", short, "harvest", "--date", "2026-04-03", "--quantity", "0.2 kg"]).status == 0)
        #expect(try t.run(["care", "add", short, "inspect", "--date", "2026-04-03", "--health", "pest", "--notes", "aphids"]).status == 0)
        #expect(try t.run(["care", "add", short, "water", "--date", "2026-04-04"]).status == 0)
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
        let shown = try t.run(["show", short]).stdout
        let stats = try t.run(["stats", "--json"]).stdout
        // A program writing the store by itself, with triggers and summaries left behind.
        try sqlite(t, """
            UPDATE careLatest SET date = '2020-01-01 00:00:00.000' WHERE kind = 'water';
            DELETE FROM treeHealth;
            UPDATE careMonthly SET count = count + 5 WHERE kind = 'harvest';
            UPDATE careHarvest SET total = total + 1;
            """)
        #expect(try t.run(["show", short]).stdout != shown)
        let listed = try t.run(["doctor"])
        #expect(listed.status == 65)
        #expect(listed.stdout == """
            careLatest: 1 row of each tree's last care of each kind disagrees with the care log; repairable: built again from the care log
            treeHealth: 1 row of each tree's health, from its last inspection disagrees with the care log; repairable: built again from the care log
            careMonthly: 1 row of the care counted each month disagrees with the care log; repairable: built again from the care log
            careHarvest: 1 row of each tree's harvest totals disagrees with the care log; repairable: built again from the care log
            4 problems found, 4 repairable: run 'trees doctor --repair'.

            """)
        let repaired = try t.run(["doctor", "--repair"])
        #expect(repaired.status == 0, "\(repaired)")
        #expect(repaired.stdout.hasSuffix("4 problems found: 4 mended.\n"), "\(repaired)")
        #expect(try t.run(["doctor"]).stdout == "The store is sound.\n")
        #expect(try t.run(["show", short]).stdout == shown)
        #expect(try t.run(["stats", "--json"]).stdout == stats)
        #expect(try sqlite(t, "SELECT total FROM careHarvest") == "12.3\n")
    }

    /// GPX times are kept exactly or the file is refused: never stored as another year.
    @Test(arguments: ["12345-01-01T00:00:00Z", "-0001-06-01T00:00:00Z", "999999-01-01T00:00:00Z", "9999-12-31T23:59:59.9999Z"])
    func gpxTimesOutsideTheStoreAreRefusedWithTheirLine(time: String) throws {
        let (t, _) = try store()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("far.gpx")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="51.1" lon="0.1"><time>2024-05-01T10:00:00Z</time><name>Pear</name></wpt>
              <wpt lat="51.2" lon="0.2">
                <time>\(time)</time>
                <name>Plum</name>
              </wpt>
            </gpx>
            """.write(to: file, atomically: true, encoding: .utf8)
        let dump = try t.dump()
        let r = try t.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stderr == "trees: \(file.path):5: <time> \"\(time)\" is outside years 0000 to 9999 (UTC)\n")
        #expect(try t.dump() == dump)
    }

    /// JSON and CSV values a store cannot hold refuse the file with its line; the store is as it was.
    @Test(arguments: [
        ("far.json", #"{"collections": [], "trees": [{"id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 1,"# + "\n"
            + #""longitude": 2, "species": "Apple", "createdAt": "12345-01-01T00:00:00Z"}]}"#,
         #"2: "createdAt" "12345-01-01T00:00:00Z" is outside years 0000 to 9999 (UTC)"#),
        ("far.json", #"{"collections": [{"id": "0E5C0C1E-0000-4000-8000-000000000001", "name": "None","#
            + #" "createdAt": "2024-01-01T00:00:00Z"}], "trees": []}"#,
         #"1: the collection name "None" is reserved: 'none' means no collection; rename it"#),
        ("far.json", #"[{"id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 1, "longitude": 2, "species": "Fig","#
            + #" "photos": ["iVBORw0KGgo="], "photoDates": [1e15]}]"#,
         #"1: "photoDates" 1000000000000000.0 seconds after 2001-01-01 is outside years 0000 to 9999 (UTC)"#),
        ("far.csv", "latitude,longitude,species,createdAt\n1,2,Apple,2024-01-01T00:00:00Z\n3,4,Pear,99999-01-01T00:00:00Z\n",
         #"3: column 4 (createdAt): "99999-01-01T00:00:00Z" is not a date within years 0000 to 9999 (UTC)"#),
        ("far.csv", "latitude,longitude,species,altitude\n1,2,Apple,1e999\n", #"2: column 4 (altitude): "1e999" is too large (beyond ±1.8e308)"#),
        ("far.csv", "latitude,longitude,species,altitude\n1,2,Apple,-1E400\n", #"2: column 4 (altitude): "-1E400" is too large (beyond ±1.8e308)"#),
        ("far.csv", "latitude,longitude,species,altitude\n1,2,Apple,inf\n", #"2: column 4 (altitude): "inf" is not a number"#),
        ("nul.json", #"{"collections": [], "trees": [{"id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 1,"# + "\n"
            + #""longitude": 2, "species": "Apple", "notes": "north\u0000limbs"}]}"#,
         #"2: a NUL character (\u0000) in a string; no text may hold one"#),
        ("nul.csv", "latitude,longitude,species,notes\n1,2,Apple,ok\n3,4,Pear,north\u{0}limbs\n",
         "3: a NUL byte; a CSV file is text and no field may hold one"),
    ])
    func jsonAndCSVValuesOutsideTheStoreAreRefused(name: String, content: String, message: String) throws {
        let (t, _) = try store()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent(name)
        try content.write(to: file, atomically: true, encoding: .utf8)
        let dump = try t.dump()
        let r = try t.run(["import", file.path])
        #expect(r.status == 65)
        #expect(r.stderr == "trees: \(file.path):\(message)\n")
        #expect(try t.dump() == dump)
    }

    @Test func theLastMillisecondOfYear9999IsKept() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("edge.gpx")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="51.1" lon="0.1"><time>9999-12-31T23:59:59.999Z</time><name>Pear</name></wpt>
              <wpt lat="51.2" lon="0.2"><time>0000-01-01T00:00:00Z</time><name>Plum</name></wpt>
            </gpx>
            """.write(to: file, atomically: true, encoding: .utf8)
        #expect(try t.run(["import", file.path]).status == 0)
        #expect(try sqlite(t, "SELECT createdAt FROM tree ORDER BY createdAt") == "0000-01-01 00:00:00.000\n9999-12-31 23:59:59.999\n")
        let list = try t.run(["list", "--json"])
        #expect(list.status == 0)
        #expect(list.stdout.contains("\"9999-12-31T23:59:59.999Z\""))
    }

    @Test(.enabled(if: Tool.setpriv.shouldRun)) func aStoreThisUserMayOnlyReadCanBeRead() throws {
        let (t, id) = try store()
        defer {
            chmod(t.folder.path, 0o755)
            t.cleanUp()
        }
        #expect(try t.run(["map", "--out", t.folder.appendingPathComponent("m.html").path]).status == 0)
        // The store's folder and file are made read-only; as root the commands run as nobody.
        #expect(chmod(t.database, 0o444) == 0)
        #expect(chmod(t.folder.path, 0o555) == 0)
        let before = t.snapshot()
        if getuid() == 0 {
            #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) is needed")
        }
        func run(_ args: [String]) throws -> TreesProcess.Result {
            guard getuid() == 0 else { return try t.run(args) }
            return try Self.runAsNobody(t, args)
        }
        for command in Self.readers + [["show", String(id.prefix(8))], ["doctor"]] {
            let r = try run(command)
            #expect(r.status == 0, "\(command): \(r)")
        }
        let write = try run(["add", "--lat", "1", "--lon", "1", "--species", "Fig"])
        #expect(write.status == 74)
        #expect(write.stderr == "trees: cannot write the database: \(t.database) is read-only for this user (the file or its folder cannot be written)\n")
        #expect(t.snapshot() == before)
        #expect(!FileManager.default.fileExists(atPath: t.database + "-shm"))
    }

    /// A file this user may only read is opened read-only, and checked there as any other: another
    /// program's database and a file that is no database are refused, and neither is changed.
    @Test(.enabled(if: Tool.setpriv.shouldRun)) func anotherFileThisUserMayOnlyReadIsRefusedUntouched() throws {
        let t = try TreesProcess()
        defer {
            chmod(t.folder.path, 0o755)
            t.cleanUp()
        }
        let other = t.folder.appendingPathComponent("other.sqlite").path
        try Program.run("/usr/bin/sqlite3", [other, "CREATE TABLE invoices (id INTEGER);"])
        let text = t.folder.appendingPathComponent("notes.txt").path
        try Data("just some text\n".utf8).write(to: URL(fileURLWithPath: text))
        for path in [other, text] { #expect(chmod(path, 0o444) == 0) }
        #expect(chmod(t.folder.path, 0o555) == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: t.folder.path).sorted()
        let bytes = try [other, text].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        func run(_ args: [String]) throws -> TreesProcess.Result {
            guard getuid() == 0 else { return try t.run(args) }
            return try Self.runAsNobody(t, args)
        }
        let r1 = try run(["list", "--db", other])
        #expect(r1.status == 73)
        #expect(r1.stderr == "trees: \(other) is not a trees database (it holds tables invoices); choose another path with --db or TREES_DB\n")
        let r2 = try run(["list", "--db", text])
        #expect(r2.status == 73)
        #expect(r2.stderr == "trees: \(text) is not a trees database (file is not a database); choose another path with --db or TREES_DB\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path).sorted() == before)
        #expect(try [other, text].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == bytes)
    }

    /// A store path through a file (`notes.txt/trees.sqlite`) says which part is a file.
    @Test func aStorePathThroughAFileSaysWhichPartIsAFile() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let text = t.folder.appendingPathComponent("notes.txt").path
        try Data("just some text\n".utf8).write(to: URL(fileURLWithPath: text))
        for store in [text + "/trees.sqlite", text + "/deeper/trees.sqlite"] {
            let r = try t.run(["add", "--db", store, "--lat", "1", "--lon", "2", "--species", "Oak"])
            #expect(r.status == 73)
            #expect(r.stderr == "trees: cannot create the database at \(store): \(text) is a file, not a folder; choose another path with --db or TREES_DB\n")
        }
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "just some text\n")
    }

    /// Runs the built binary as user nobody through setpriv, with the test's environment.
    static func runAsNobody(_ t: TreesProcess, _ arguments: [String]) throws -> TreesProcess.Result {
        try t.run(arguments, launcher: ["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"])
    }

    @Test func photoAddRefusesAPipeInsteadOfWaiting() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        let fifo = t.folder.appendingPathComponent("photo.jpg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Should the command ever block on the pipe again, a writer is attached after a minute so
        // the test fails instead of hanging.
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if done.wait(timeout: .now() + 60) == .timedOut {
                let fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 { close(fd) }
            }
        }
        let r = try t.run(["photo", "add", String(id.prefix(8)), fifo])
        done.signal()
        #expect(r.status == 66, "\(r)")
        #expect(r.stderr == "trees: cannot read \(fifo): it is not a regular file (a pipe, device or socket)\n")
    }

    @Test func aLargePhotoDoesNotLockOthersOut() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        // A sparse 96 MB JPEG: copying and hashing it takes seconds, long enough to overlap.
        let big = t.folder.appendingPathComponent("big.jpg").path
        let header: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]
        #expect(FileManager.default.createFile(atPath: big, contents: Data(header)))
        #expect(truncate(big, 96 << 20) == 0)
        let photo = try t.start(["photo", "add", String(id.prefix(8)), big])
        // Wait until the copy has begun (its temporary file exists in the photo folder).
        let photos = t.folder.appendingPathComponent("photos").path
        let deadline = Date().addingTimeInterval(120)
        func copying() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: photos)) ?? []).contains { $0.hasPrefix(".incoming-") }
        }
        while !copying() && photo.isRunning && Date() < deadline { usleep(2000) }
        #expect(copying(), "the photo copy never started")
        let add = try t.run(["add", "--lat", "51.6", "--lon", "-0.2", "--species", "Fig", "--collection", "none"])
        let stillCopying = photo.isRunning && copying()
        let photoAdded = photo.wait()
        #expect(add.status == 0, "\(add)")
        #expect(stillCopying, "the photo finished before the other write ran; the overlap was not tested")
        #expect(photoAdded.status == 0)
        #expect(try sqlite(t, "SELECT COUNT(*) FROM photo") == "1\n")
        #expect(try sqlite(t, "SELECT COUNT(*) FROM tree") == "2\n")
    }

    /// A photo whose file time is past year 9999 (tmpfs keeps such times; ext4 stops at 2446) is
    /// dated now with a warning, and the store stays readable.
    @Test func aPhotoFileTimeBeyondYear9999IsIgnoredWithAWarning() throws {
        let (t, id) = try store()
        defer { t.cleanUp() }
        let folder = "/dev/shm/trees-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let photo = folder + "/far.png"
        #expect(FileManager.default.createFile(atPath: photo, contents: Data(TestImages.png())))
        var times = [timespec(tv_sec: 0, tv_nsec: 0), timespec(tv_sec: 400_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, photo, &times, 0) == 0)
        var info = stat()
        #expect(stat(photo, &info) == 0)
        try #require(info.st_mtim.tv_sec == 400_000_000_000, "the file system under /dev/shm did not keep a far file time")
        let r = try t.run(["photo", "add", String(id.prefix(8)), photo])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "warning: \(photo): its modification time 14645-06-30T15:06:40Z is outside years 0000 to 9999 (UTC); ignored, the photo is dated now\n")
        #expect(try sqlite(t, "SELECT capturedAt FROM photo") == "2026-05-01 10:00:00.000\n")
        #expect(try t.run(["list"]).status == 0)
        #expect(try t.run(["photo", "list", String(id.prefix(8))]).status == 0)
    }

    @Test func controlCharactersFromFilesAreEscapedOnTheTerminal() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("hostile.json")
        // A species with a screen clear, a carriage return and a title change (ESC ] … BEL); a
        // note that would paint the terminal red; a collection name with a backspace.
        try #"""
            {"collections": [{"id": "0E5C0C1E-0000-4000-8000-000000000001", "name": "Blo\bck", "createdAt": "2024-05-01T10:00:00Z", "updatedAt": "2024-05-01T10:00:00Z"}],
             "trees": [{"id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 1, "longitude": 2,
                        "species": "Apple\u001b[2J\rX\u001b]0;owned\u0007", "notes": "bad\u001b[31mred",
                        "collectionId": "0E5C0C1E-0000-4000-8000-000000000001",
                        "createdAt": "2024-05-01T10:00:00Z", "updatedAt": "2024-05-01T10:00:00Z"}]}
            """#.write(to: file, atomically: true, encoding: .utf8)
        let imported = try t.run(["import", file.path])
        #expect(imported.status == 0, "\(imported)")
        func clean(_ text: String) -> Bool { !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F } }
        for command in [["list"], ["show", "4f1c"], ["collection", "list"], ["collection", "show", "Blo\u{8}ck"], ["stats"]] {
            let r = try t.run(command)
            #expect(r.status == 0, "\(command): \(r)")
            #expect(clean(r.stdout), "\(command): \(r.stdout.debugDescription)")
        }
        #expect(try t.run(["list"]).stdout.contains(#"Apple\u{1b}[2J\u{d}X\u{1b}]0;owned\u{7}"#))
        #expect(try t.run(["show", "4f1c"]).stdout.contains(#"notes       bad\u{1b}[31mred"# + "\n"))
        #expect(try t.run(["collection", "list"]).stdout.contains(#"Blo\u{8}ck"#))
        // Machine output keeps the text exactly (JSON escapes it its own way).
        let json = try t.run(["list", "--json"])
        #expect(json.stdout.contains(#""species": "Apple\u001b[2J\rX\u001b]0;owned\u0007""#), "\(json.stdout)")
        // An error quoting a hostile value is escaped too.
        let missing = try t.run(["collection", "show", "No\u{1B}[2Jpe"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains(#"No\u{1b}[2Jpe"#))
        #expect(!missing.stderr.contains("\u{1B}"))
    }
}
