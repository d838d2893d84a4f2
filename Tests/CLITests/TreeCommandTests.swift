import Foundation
import Testing
import TreesTestSupport

/// End-to-end: the built `trees` binary, exact output and exit status, store unchanged after refusals.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct TreeCommandTests {
    @Test func addListShowEditRemove() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let added = try t.run(["add", "--lat", "51.5", "--lon", "-0.12", "--species", "Apple", "--variety", "Gala",
                               "--accuracy", "4.2", "--altitude", "35", "--rootstock", "M9", "--notes", "by the gate"])
        #expect(added.status == 0, "\(added)")
        let id = added.stdout.trimmingCharacters(in: .newlines)
        #expect(id.count == 8 && id.allSatisfy(\.isHexDigit))
        #expect(added.stderr == "")

        let list = try t.run(["list"])
        #expect(list.status == 0)
        #expect(list.stdout == """
            ID        SPECIES  VARIETY  ACCURACY         COLLECTION  CREATED
            \(id)  Apple    Gala     Excellent 4.2 m              2026-05-01 10:00

            """)

        let json = try t.run(["show", String(id.prefix(5)), "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["latitude"] as? Double == 51.5)
        #expect(object["longitude"] as? Double == -0.12)
        #expect(object["horizontalAccuracy"] as? Double == 4.2)
        #expect(object["accuracySource"] as? String == "manual")
        #expect(object["altitude"] as? Double == 35)
        #expect(object["species"] as? String == "Apple")
        #expect(object["rootstock"] as? String == "M9")
        #expect(object["notes"] as? String == "by the gate")
        #expect(object["createdAt"] as? String == "2026-05-01T10:00:00Z")
        #expect(object["collectionId"] == nil)
        #expect((object["id"] as? String)?.lowercased().hasPrefix(id) == true)

        let edited = try t.run(["edit", id, "--variety", "Braeburn", "--notes", ""],
                               environment: ["TREES_NOW": "2026-05-02T08:30:00Z"])
        #expect(edited.status == 0, "\(edited)")
        let after = try t.run(["show", id, "--json"])
        let changed = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect(changed["variety"] as? String == "Braeburn")
        #expect(changed["notes"] as? String == "")
        #expect(changed["updatedAt"] as? String == "2026-05-02T08:30:00Z")
        #expect(changed["createdAt"] as? String == "2026-05-01T10:00:00Z")

        let human = try t.run(["show", id])
        #expect(human.stdout.contains("species     Apple\n"))
        #expect(human.stdout.contains("accuracy    Excellent 4.2 m (manual) — radius of the 95% circle\n"))

        let refused = try t.run(["rm", id])
        #expect(refused.status == 64)
        #expect(refused.stderr == "trees: refusing to delete 1 tree(s) without confirmation; add --yes\n")
        let removed = try t.run(["rm", id, "--yes"])
        #expect(removed.status == 0)
        #expect(removed.stdout == "deleted 1 tree\n")
        #expect(try t.run(["list", "--json"]).stdout == "[]\n")
    }

    /// Standard output on a full device: each command says so on standard error and exits 74,
    /// instead of crashing.
    @Test func outputThatCannotBeWrittenIsAnIOError() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let added = try t.run(["add", "--lat", "51.5", "--lon", "-0.12", "--species", "Apple"])
        let id = added.stdout.trimmingCharacters(in: .newlines)
        let track = Repository.path("SampleTracks/orchard-walk.nmea")
        for arguments in [["list"], ["show", id, "--json"], ["stats"], ["export", "--format", "csv", "--out", "-"],
                          ["replay", track, "--speed", "max", "--jsonl"]] {
            let r = try t.run(arguments, standardOutput: try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full")))
            #expect(r.status == 74, "\(arguments): \(r.stderr)")
            #expect(r.stderr == "trees: cannot write standard output: No space left on device\n", "\(arguments)")
        }
    }

    @Test func listFiltersSearchAndLimitNewestFirst() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let rows: [(String, String, String?, String?)] = [
            ("2026-05-01T10:00:00.000Z", "Apple", "Gala", nil),
            ("2026-05-01T10:01:00.000Z", "Pear", "Conference", "leaning, near the GATE"),
            ("2026-05-01T10:02:00.000Z", "apple", "Cox", nil),
            ("2026-05-01T10:03:00.000Z", "Plum", nil, "Äste geschnitten"),
        ]
        for (now, species, variety, notes) in rows {
            var args = ["add", "--lat", "50", "--lon", "8", "--species", species, "--collection", "none"]
            if let variety { args += ["--variety", variety] }
            if let notes { args += ["--notes", notes] }
            #expect(try t.run(args, environment: ["TREES_NOW": now]).status == 0)
        }
        func species(_ args: [String]) throws -> [String] {
            let r = try t.run(["list", "--json"] + args)
            let array = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
            return array.compactMap { $0["species"] as? String }
        }
        #expect(try species([]) == ["Plum", "apple", "Pear", "Apple"])
        #expect(try species(["--species", "APPLE"]) == ["apple", "Apple"])
        #expect(try species(["--search", "gate"]) == ["Pear"])
        #expect(try species(["--search", "CONFER"]) == ["Pear"])
        #expect(try species(["--search", "äSTE"]) == ["Plum"])
        #expect(try species(["--search", "100%"]) == [])
        #expect(try species(["--limit", "2"]) == ["Plum", "apple"])
    }

    @Test func collectionsAndTheRememberedCollection() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "North Block"]).stdout == "created collection 'North Block'\n")
        let dup = try t.run(["collection", "create", "north block"])
        #expect(dup.status == 1)
        #expect(dup.stderr == "trees: a collection named 'North Block' already exists (names are compared ignoring case)\n")
        // Beyond ASCII letters too.
        #expect(try t.run(["collection", "create", "Äpfel Süd"]).status == 0)
        let accented = try t.run(["collection", "create", "ÄPFEL SÜD"])
        #expect(accented.status == 1)
        #expect(accented.stderr == "trees: a collection named 'Äpfel Süd' already exists (names are compared ignoring case)\n")
        #expect(try t.run(["collection", "rm", "äpfel süd", "--yes"]).stdout == "deleted collection 'Äpfel Süd'; its 0 trees are now in no collection\n")
        #expect(try t.run(["collection", "create", "apricots"]).status == 0)

        let a = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple", "--collection", "NORTH BLOCK"]).stdout.trimmingCharacters(in: .newlines)
        let b = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Pear"]).stdout.trimmingCharacters(in: .newlines)
        let c = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Plum", "--collection", "none"]).stdout.trimmingCharacters(in: .newlines)
        let d = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Fig"]).stdout.trimmingCharacters(in: .newlines)

        let list = try t.run(["collection", "list"])
        #expect(list.stdout == """
            NAME         TREES  CREATED
            apricots     0      2026-05-01 10:00
            North Block  2      2026-05-01 10:00

            """)
        func collectionOf(_ id: String) throws -> String? {
            let r = try t.run(["show", id, "--json"])
            let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            return o?["collection"] as? String
        }
        #expect(try collectionOf(b) == "North Block")
        #expect(try collectionOf(c) == nil)
        #expect(try collectionOf(d) == nil)

        #expect(try t.run(["collection", "add", "apricots", c, d]).stdout == "added 2 trees to 'apricots'\n")
        #expect(try t.run(["collection", "remove", "apricots", d]).stdout == "removed 1 tree from 'apricots'\n")
        let notIn = try t.run(["collection", "remove", "apricots", a])
        #expect(notIn.status == 1)
        #expect(notIn.stderr == "trees: tree \(a) is not in 'apricots'; nothing changed\n")
        #expect(try t.run(["collection", "rename", "apricots", "Apricot Row"]).stdout == "renamed 'apricots' to 'Apricot Row'\n")

        let rm = try t.run(["collection", "rm", "north block", "--yes"])
        #expect(rm.stdout == "deleted collection 'North Block'; its 2 trees are now in no collection\n")
        #expect(try collectionOf(a) == nil)
        #expect(try collectionOf(b) == nil)
        #expect(try t.run(["list", "--json"]).stdout.components(separatedBy: "\"species\"").count == 5)
        let shown = try t.run(["collection", "show", "apricot row", "--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect((o["trees"] as? [Any])?.count == 1)
        // A tree that was moved into the collection before (its move is versioned for sync) leaves
        // it with the collection.
        let moved = try t.run(["collection", "rm", "Apricot Row", "--yes"])
        #expect(moved.status == 0)
        #expect(moved.stdout == "deleted collection 'Apricot Row'; its 1 tree is now in no collection\n")
        #expect(try collectionOf(c) == nil)
    }

    @Test func ambiguousAndUnknownIDs() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        var ids: [String] = []
        for _ in 0..<40 {
            ids.append(try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Oak", "--json"]).stdout)
        }
        let full = ids.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String }
            .map { $0.lowercased() }
        // 40 random ids over 16 first digits: some first digit is shared.
        let byFirst = Dictionary(grouping: full, by: { $0.prefix(1) })
        let shared = try #require(byFirst.first { $0.value.count > 1 })
        let r = try t.run(["show", String(shared.key)])
        #expect(r.status == 1)
        let candidates = shared.value.sorted().map { "\($0.prefix(8)) (Oak)" }.joined(separator: ", ")
        #expect(r.stderr == "trees: id \(shared.key) is ambiguous; it matches \(candidates); type more digits\n")
        let unique = try t.run(["show", String(shared.value[0].prefix(13)).uppercased()])
        #expect(unique.status == 0)
        let bad = try t.run(["show", "xyz"])
        #expect(bad.status == 64)
        #expect(bad.stderr == "trees: 'xyz' is not a tree id; expected hex digits of an id as shown by 'trees list'\n")
    }

    /// A survey imported in one go: every tree's id starts with the same time, yet `list` shows each
    /// a different short id, and `show`, `care add` and `care rm` take what it shows.
    @Test func importedTreesHaveShortIdsThatFindThem() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        var gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"survey\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        for i in 0..<60 { gpx += "<wpt lat=\"52.\(1000 + i)\" lon=\"0.\(2000 + i)\"><name>Oak-\(i)</name></wpt>\n" }
        gpx += "</gpx>\n"
        let file = try t.scratch.write("survey.gpx", gpx)
        #expect(try t.run(["import", file]).status == 0)
        let listed = try t.run(["list"]).stdout.split(separator: "\n").dropFirst().map { $0.split(separator: " ").map(String.init) }
        #expect(listed.count == 60)
        let shorts = listed.map { $0[0] }
        #expect(Set(shorts).count == 60)
        #expect(shorts.allSatisfy { $0.count == 8 && $0.allSatisfy(\.isHexDigit) })
        for (row, short) in zip(listed, shorts).prefix(5) {
            let shown = try t.run(["show", short])
            #expect(shown.status == 0)
            #expect(shown.stdout.contains("species     \(row[1])\n"))
            let full = try #require(shown.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
            #expect(full.hasSuffix(short))
        }
        let logged = try t.run(["care", "add", shorts[3], "water"])
        #expect(logged.status == 0)
        let event = logged.stdout.trimmingCharacters(in: .newlines)
        let care = try t.run(["care", "list", "--json"]).stdout
        #expect(care.contains("\(shorts[3])\",\n") && care.contains("\"species\": \"\(listed[3][1])\""))
        let removed = try t.run(["care", "rm", event, "--yes"])
        #expect(removed.status == 0)
        #expect(removed.stdout == "deleted care event \(event) (water of \(shorts[3]))\n")
        let start = try t.run(["show", String(try #require(try t.run(["list", "--json"]).stdout.firstMatch(of: /"id" *: *"([0-9a-fA-F]{8})/)?.1))])
        #expect(start.status == 1)
        #expect(start.stderr.contains("is ambiguous; it matches "))
    }

    /// Each bad input: non-zero exit, one line naming the bad value and what would be right, store unchanged.
    @Test(arguments: [
        (["add", "--lat", "91", "--lon", "0", "--species", "X"], 64, "latitude 91 is out of range; expected degrees between -90 and 90"),
        (["add", "--lat", "-90.5", "--lon", "0", "--species", "X"], 64, "latitude -90.5 is out of range; expected degrees between -90 and 90"),
        (["add", "--lat", "10", "--lon", "180.01", "--species", "X"], 64, "longitude 180.01 is out of range; expected degrees between -180 and 180"),
        (["add", "--lat", "abc", "--lon", "0", "--species", "X"], 64, "latitude 'abc' is not a number; expected degrees between -90 and 90"),
        (["add", "--lat", "nan", "--lon", "0", "--species", "X"], 64, "latitude 'nan' is not a number; expected degrees between -90 and 90"),
        (["add", "--lat", "1", "--lon", "inf", "--species", "X"], 64, "longitude 'inf' is not a number; expected degrees between -180 and 180"),
        (["add", "--lat", "1", "--lon", "2", "--species", "X", "--accuracy", "-3"], 64, "accuracy -3 is negative; expected metres, 0 or more"),
        (["add", "--lat", "1", "--lon", "2", "--species", "X", "--accuracy", "ten"], 64, "accuracy 'ten' is not a number; expected metres, 0 or more"),
        (["add", "--lat", "1", "--lon", "2", "--species", "  "], 64, "species is empty; expected a name such as 'Apple' or 'Quercus robur'"),
        (["add", "--lat", "1", "--lon", "2"], 64, "--species is required; name what grows there, e.g. --species Apple"),
        (["add", "--lat", "1", "--lon", "2", "--species", "X", "--collection", "Nowhere"], 1, "no collection named 'Nowhere'; known: Orchard"),
        (["show", "ffffffff"], 1, "no tree with id ffffffff; 'trees list' shows the ids"),
        (["edit", "ffffffff", "--species", "Fig"], 1, "no tree with id ffffffff; 'trees list' shows the ids"),
        (["rm", "ffffffff", "--yes"], 1, "no tree with id ffffffff; 'trees list' shows the ids"),
        (["list", "--collection", "Nowhere"], 1, "no collection named 'Nowhere'; known: Orchard"),
        (["collection", "create", "none"], 64, "'none' is not a usable collection name; expected non-empty text other than 'none'"),
        (["collection", "rename", "Nowhere", "B"], 1, "no collection named 'Nowhere'; known: Orchard"),
        (["collection", "rm", "Orchard"], 64, "refusing to delete collection 'Orchard' without confirmation; add --yes"),
    ] as [([String], Int32, String)])
    func badInputIsRefusedAndChangesNothing(arguments: [String], status: Int32, message: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Orchard"]).status == 0)
        #expect(try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple"]).status == 0)
        let before = try t.dump()
        let r = try t.run(arguments)
        #expect(r.status == status, "\(r)")
        #expect(r.stderr == "trees: \(message)\n")
        #expect(r.stdout == "")
        #expect(try t.dump() == before)
    }

    @Test func editRefusesBadValuesWithoutChangingTheTree() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let id = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple"]).stdout.trimmingCharacters(in: .newlines)
        let before = try t.dump()
        for (args, message) in [
            (["--lat", "95", "--lon", "2"], "latitude 95 is out of range; expected degrees between -90 and 90"),
            (["--lat", "5"], "--lat and --lon go together; give both to move a tree"),
            (["--species", ""], "species is empty; expected a name such as 'Apple' or 'Quercus robur'"),
            (["--collection", "Nowhere"], "no collection named 'Nowhere'; create it with 'trees collection create Nowhere'"),
            (["--collection", "North Block"], "no collection named 'North Block'; create it with 'trees collection create \"North Block\"'"),
            (["--collection", "Bob's $5 row"], "no collection named 'Bob's $5 row'; create it with 'trees collection create 'Bob'\\''s $5 row''"),
            // A long value is quoted by its start and its length.
            (["--collection", String(repeating: "x", count: 100_000)], "no collection named '\(String(repeating: "x", count: 80))… (100000 characters)'"),
            (["--lat", String(repeating: "a", count: 5_000), "--lon", "2"],
             "latitude '\(String(repeating: "a", count: 80))… (5000 characters)' is not a number; expected degrees between -90 and 90"),
        ] {
            let r = try t.run(["edit", id] + args)
            #expect(r.status != 0)
            #expect(r.stderr == "trees: \(message)\n")
        }
        let longID = try t.run(["show", String(repeating: "z", count: 5_000)])
        #expect(longID.stderr == "trees: '\(String(repeating: "z", count: 80))… (5000 characters)' is not a tree id; expected hex digits of an id as shown by 'trees list'\n")
        #expect(try t.dump() == before)
    }

    /// An empty `--accuracy` or `--altitude` clears it, as the help says of every optional field;
    /// a cleared accuracy has no source either.
    @Test func editClearsAccuracyAndAltitude() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let id = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple", "--accuracy", "4", "--altitude", "120"])
            .stdout.trimmingCharacters(in: .newlines)
        let r = try t.run(["edit", id, "--accuracy", "", "--altitude", " ", "--json"])
        #expect(r.status == 0, "\(r)")
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(tree["horizontalAccuracy"] == nil && tree["altitude"] == nil && tree["accuracySource"] == nil, "\(tree)")
        let row = try Program.run("/usr/bin/sqlite3", [t.database, "SELECT quote(horizontalAccuracy), quote(accuracySource), quote(altitude) FROM tree"])
        #expect(row.stdout == "NULL|NULL|NULL\n")
    }

    /// Notes of several lines continue under the first, indented: a line of notes cannot pass
    /// for a field of `show`'s own.
    @Test func showIndentsTheLinesOfNotes() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let id = try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple", "--notes", "pruned\nrootstock   FAKE"])
            .stdout.trimmingCharacters(in: .newlines)
        let r = try t.run(["show", id])
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let notes = try #require(lines.firstIndex { $0.hasPrefix("notes") })
        let width = lines[notes].distance(from: lines[notes].startIndex, to: try #require(lines[notes].range(of: "pruned")).lowerBound)
        #expect(lines[notes + 1] == String(repeating: " ", count: width) + "rootstock   FAKE", "\(r.stdout)")
        #expect(lines.filter { $0.hasPrefix("rootstock") }.count == 1, "only the real field starts a line")
    }

    @Test func databasePathProblems() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let notDB = t.folder.appendingPathComponent("notes.txt")
        try Data("just some text, not a database at all\n".utf8).write(to: notDB)
        let r1 = try t.run(["list", "--db", notDB.path])
        #expect(r1.status == 73)
        #expect(r1.stderr == "trees: \(notDB.path) is not a trees database (file is not a database); choose another path with --db or TREES_DB\n")
        #expect(try Data(contentsOf: notDB) == Data("just some text, not a database at all\n".utf8))

        let other = t.folder.appendingPathComponent("other.sqlite")
        try Program.run("/usr/bin/sqlite3", [other.path, "CREATE TABLE invoices (id INTEGER);"])
        let otherBytes = try Data(contentsOf: other)
        let r2 = try t.run(["list"], environment: ["TREES_DB": other.path])
        #expect(r2.status == 73)
        #expect(r2.stderr == "trees: \(other.path) is not a trees database (it holds tables invoices); choose another path with --db or TREES_DB\n")
        #expect(try Data(contentsOf: other) == otherBytes)

        let blocked = t.folder.appendingPathComponent("file-not-folder")
        try Data().write(to: blocked)
        let r3 = try t.run(["collection", "create", "North", "--db", blocked.path + "/sub/trees.sqlite"])
        #expect(r3.status == 73)
        #expect(r3.stderr.hasPrefix("trees: cannot create the database at \(blocked.path)/sub/trees.sqlite: "))
        #expect(r3.stderr.hasSuffix("; choose another path with --db or TREES_DB\n"))
    }

    /// A new store that cannot be written whole (here the file-size limit stops it at 64 KiB, as a
    /// full disk would) is an I/O failure that leaves no file: not half a store, which every later
    /// command would refuse as not a trees database, nor the file it was being built in.
    @Test func aNewStoreThatCannotBeWrittenLeavesNothing() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let folder = t.folder.appendingPathComponent("full")
        let database = folder.path + "/trees.sqlite"
        let refused = try InterchangeCLITests.runLimited(t, fileKiB: 64, ["collection", "create", "North", "--db", database])
        #expect(refused.status == 74, "\(refused)")
        #expect(refused.stderr == "trees: cannot write the database: \(database): File too large\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        // An import into the new store, which is built unseen, is refused the same way.
        let gpx = t.folder.appendingPathComponent("one.gpx")
        try #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><wpt lat="47.1" lon="8.5"><name>Fig</name></wpt></gpx>"#
            .write(to: gpx, atomically: true, encoding: .utf8)
        let imported = try InterchangeCLITests.runLimited(t, fileKiB: 64, ["import", "--db", database, gpx.path])
        #expect(imported.status == 74, "\(imported)")
        #expect(imported.stderr.hasPrefix("trees: cannot write the database: \(database): File too large"), "\(imported.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        let listed = try t.run(["list", "--db", database])
        #expect(listed.status == 66, "\(listed)")
        #expect(listed.stderr.hasPrefix("trees: no store at \(database) "), "\(listed.stderr)")
    }

    @Test func defaultLocationFollowsXDGAndHome() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        var env = ["TREES_DB": ""]
        #expect(try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple"], environment: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: t.folder.path + "/.local/share/trees/trees.sqlite"))
        env["XDG_DATA_HOME"] = t.folder.path + "/xdg"
        #expect(try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Apple"], environment: env).status == 0)
        #expect(FileManager.default.fileExists(atPath: t.folder.path + "/xdg/trees/trees.sqlite"))
    }
}

@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct ConcurrentProcessTests {
    /// Two `trees` processes adding at the same time share the store through WAL and the busy timeout.
    @Test func twoProcessesAddingAtOnce() throws {
        let t = try TreesProcess(now: nil)
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Shared"]).status == 0)
        let script = """
            for i in $(seq 1 25); do "$TREES" add --lat 1 --lon 2 --species "$1-$i" --collection Shared >/dev/null || exit 1; done
            """
        let environment = t.environment.merging(["TREES": TreesProcess.executable.path]) { $1 }
        let processes = try ["first", "second"].map { name in
            try Program.start("/bin/sh", ["-c", script, "sh", name], environment: environment)
        }
        for p in processes { #expect(p.wait().status == 0) }
        let list = try t.run(["collection", "list", "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(array.first?["treeCount"] as? Int == 50)
    }

    /// Processes that find no store and make it at the same moment end up sharing one: each adds its
    /// tree to it, and no file any of them built the store in is left beside it.
    @Test func processesMakingTheStoreAtOnceShareOne() throws {
        let t = try TreesProcess(now: nil)
        defer { t.cleanUp() }
        for round in 0..<4 {
            let folder = t.folder.appendingPathComponent("round-\(round)")
            let database = folder.path + "/trees.sqlite"
            let processes = try (0..<3).map { n in
                try t.start(["add", "--lat", "1", "--lon", "2", "--species", "Tree \(n)", "--db", database])
            }
            for p in processes {
                let r = p.wait()
                #expect(r.status == 0, "\(r)")
            }
            let species = try Program.run("/usr/bin/sqlite3", [database, "SELECT species FROM tree ORDER BY species"]).stdout
            #expect(species == "Tree 0\nTree 1\nTree 2\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["trees.sqlite"])
        }
    }

    /// The first import into a store it makes writes it in rollback-journal mode; imports and a
    /// listing started at the same moment wait for it rather than fail, and every tree is stored once.
    @Test func importsAndAListingStartedOnANewStoreAtOnceAllSucceed() throws {
        let t = try TreesProcess(now: nil)
        defer { t.cleanUp() }
        let rows = (0..<3000).map { "\(47 + Double($0) / 10_000),8.5,Oak \($0 % 7)" }
        let csv = t.folder.appendingPathComponent("survey.csv")
        try ("latitude,longitude,species\n" + rows.joined(separator: "\n") + "\n").write(to: csv, atomically: true, encoding: .utf8)
        for round in 0..<3 {
            let folder = t.folder.appendingPathComponent("round-\(round)")
            let database = folder.path + "/trees.sqlite"
            let imports = try (0..<3).map { _ in try t.start(["import", csv.path, "--db", database]) }
            let listing = try t.start(["list", "--limit", "1", "--db", database])
            var imported: [String] = []
            for p in imports {
                let r = p.wait()
                #expect(r.status == 0, "\(r)")
                imported.append(r.stdout)
            }
            // The listing finds the store made, or none yet (then it makes none).
            let listed = listing.wait()
            #expect(listed.status == 0 || (listed.status == 66 && listed.stderr.hasPrefix("trees: no store at \(database) ")), "\(listed)")
            // One of them stored the trees; the others found each already there.
            #expect(imported.filter { $0.hasPrefix("Imported 3000 trees") }.count == 1, "\(imported)")
            #expect(imported.filter { $0.hasPrefix("Imported 0 trees") && $0.contains("3000 already present") }.count == 2, "\(imported)")
            let state = try Program.run("/usr/bin/sqlite3", [database, "SELECT count(*) FROM tree; PRAGMA journal_mode; PRAGMA integrity_check"]).stdout
            #expect(state == "3000\nwal\nok\n")
        }
    }
}
