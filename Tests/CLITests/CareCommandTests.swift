import Foundation
import Testing
import TreesKit
import TreesTestSupport

/// End-to-end: `trees care`, `trees schedule` and `trees due` through the built binary, exact output.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct CareCommandTests {
    /// Adds a tree and returns its short id.
    static func add(_ t: TreesProcess, _ arguments: [String]) throws -> String {
        let r = try t.run(["add", "--lat", "51.5", "--lon", "-0.12"] + arguments)
        #expect(r.status == 0, "\(r)")
        return r.stdout.trimmingCharacters(in: .newlines)
    }

    static func lines(_ r: TreesProcess.Result) -> [String] { r.stdout.split(separator: "\n").map(String.init) }

    @Test func logListShowAndDue() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Block A"]).status == 0)
        let apple = try Self.add(t, ["--species", "Apple", "--variety", "Gala", "--collection", "Block A"])
        let pear = try Self.add(t, ["--species", "Pear", "--collection", "Block A"])

        let water = try t.run(["care", "add", apple, "water", "--date", "2026-04-10", "--quantity", "40 l", "--who", "Ana"])
        #expect(water.status == 0, "\(water)")
        let waterID = water.stdout.trimmingCharacters(in: .newlines)
        #expect(waterID.count == 8 && waterID.allSatisfy(\.isHexDigit))
        let inspect = try t.run(["care", "add", apple, "inspect", "--health", "diseased", "--notes", "fire blight, north limbs",
                                 "--date", "2026-04-20T16:30:00Z"])
        #expect(inspect.status == 0, "\(inspect)")
        let both = try t.run(["care", "add", "--collection", "block a", "Prune"])
        #expect(Self.lines(both).count == 2, "\(both)")

        let list = try t.run(["care", "list", apple])
        #expect(list.status == 0)
        let inspectID = inspect.stdout.trimmingCharacters(in: .newlines)
        let pruneID = try #require(Self.lines(try t.run(["care", "list", apple, "--kind", "prune"])).dropFirst().first?.prefix(8))
        #expect(list.stdout == """
            EVENT     TREE      SPECIES  DATE              KIND     QUANTITY  HEALTH    WHO  NOTES
            \(pruneID)  \(apple)  Apple    2026-05-01 10:00  prune                             \("")
            \(inspectID)  \(apple)  Apple    2026-04-20 16:30  inspect            diseased       fire blight, north limbs
            \(waterID)  \(apple)  Apple    2026-04-10 00:00  water    40 l                Ana  \("")

            """)
        let since = try t.run(["care", "list", "--collection", "Block A", "--since", "2026-04-15", "--json"])
        let events = try #require(try JSONSerialization.jsonObject(with: Data(since.stdout.utf8)) as? [[String: Any]])
        #expect(events.map { $0["kind"] as? String } == ["prune", "prune", "inspect"])
        #expect(events.last?["health"] as? String == "diseased")
        #expect(events.last?["date"] as? String == "2026-04-20T16:30:00.000Z")

        #expect(try t.run(["schedule", "set", "--collection", "Block A", "water", "--every", "14d", "--from", "2026-04-01",
                           "--season", "04-01..09-30"]).stdout == "collection Block A: water every 14 days from 2026-04-01 in 04-01..09-30\n")
        #expect(try t.run(["schedule", "set", pear, "spray", "--every", "2w", "--from", "2026-05-05"]).stdout
            == "tree \(pear): spray every 14 days from 2026-05-05\n")

        let due = try t.run(["due"])
        #expect(due.status == 0)
        #expect(due.stdout == """
            TREE      SPECIES  COLLECTION  KIND   LAST        DUE         STATUS
            \(pear)  Pear     Block A     water  never       2026-04-01  overdue 30 days
            \(apple)  Apple    Block A     water  2026-04-10  2026-04-24  overdue 7 days

            """)
        let week = try t.run(["due", "--within", "7d", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(week.stdout.utf8)) as? [[String: Any]])
        #expect(items.map { "\($0["kind"] ?? "") \($0["due"] ?? "") \($0["daysOverdue"] ?? "")" }
            == ["water 2026-04-01 30", "water 2026-04-24 7", "spray 2026-05-05 -4"])

        let show = try t.run(["show", apple])
        #expect(show.stdout.contains("""
            health      diseased since 2026-04-20
            care        inspect  last 2026-04-20  fire blight, north limbs
                        prune    last 2026-05-01
                        water    last 2026-04-10  40 l
            due         water    2026-04-24  overdue 7 days  (every 14d in 04-01..09-30)

            """), "\(show.stdout)")
        #expect(try t.run(["list"]).stdout.hasPrefix("ID        SPECIES  VARIETY  ACCURACY  COLLECTION  CREATED           HEALTH\n"))
        // A shorter listing keeps the column (a tree of the store has a status) and fills it for
        // the trees it lists.
        let pears = try t.run(["list", "--species", "Pear"]).stdout.split(separator: "\n")
        #expect(pears.count == 2 && pears[0].hasSuffix("HEALTH") && pears[1].hasPrefix(pear) && !pears[1].contains("diseased"), "\(pears)")
        let apples = try t.run(["list", "--species", "Apple", "--limit", "1"]).stdout.split(separator: "\n")
        #expect(apples.count == 2 && apples[0].hasSuffix("HEALTH") && apples[1].hasPrefix(apple) && apples[1].hasSuffix("diseased"), "\(apples)")

        // Watering today clears it; deleting that event brings it back.
        let today = try t.run(["care", "add", apple, "water"])
        #expect(Self.lines(try t.run(["due"])).count == 2)
        // Without a terminal, deleting needs --yes (as 'trees rm' does) and asks nothing.
        let todayID = today.stdout.trimmingCharacters(in: .newlines)
        let before = try t.dump()
        let refused = try t.run(["care", "rm", todayID])
        #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr == "trees: refusing to delete care event \(todayID) without confirmation; add --yes\n")
        #expect(try t.dump() == before)
        let removed = try t.run(["care", "rm", "--yes", todayID])
        #expect(removed.stdout == "deleted care event \(today.stdout.prefix(8)) (water of \(apple))\n")
        #expect(Self.lines(try t.run(["due"])).count == 3)

        let edited = try t.run(["care", "edit", waterID, "--date", "2026-04-25", "--notes", "after rain", "--quantity", "", "--who", "Ana"])
        #expect(edited.status == 0, "\(edited)")
        #expect(edited.stdout == "care event \(waterID) (water of \(apple)): date '2026-04-10 00:00' → '2026-04-25 00:00', "
            + "quantity cleared, notes set to 'after rain'\n")
        #expect(try t.run(["care", "edit", waterID, "--who", "Ana"]).stdout == "care event \(waterID) (water of \(apple)): nothing changed\n")
        #expect(Self.lines(try t.run(["due"])).count == 2)

        let stats = try t.run(["stats"])
        #expect(stats.stdout.hasSuffix("""

            HEALTH    TREES
            diseased  1

            MONTH    CARE     EVENTS
            2026-04  inspect  1
            2026-04  water    1
            2026-05  prune    2

            """), "\(stats.stdout)")
    }

    /// Calendar days are the user's: an evening watering in UTC is the next morning in Auckland.
    @Test func dueDaysFollowTheTimeZone() throws {
        let t = try TreesProcess(now: "2026-05-10T12:00:00.000Z")
        defer { t.cleanUp() }
        let tree = try Self.add(t, ["--species", "Apple"])
        #expect(try t.run(["care", "add", tree, "water", "--date", "2026-04-20T20:00:00Z"]).status == 0)
        #expect(try t.run(["schedule", "set", tree, "water", "--every", "14d", "--from", "2026-01-01"]).status == 0)
        let utc = try t.run(["due", "--json"])
        let auckland = try t.run(["due", "--json"], environment: ["TZ": "Pacific/Auckland"])
        func dueDay(_ r: TreesProcess.Result) throws -> String? {
            (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])?.first?["due"] as? String
        }
        #expect(try dueDay(utc) == "2026-05-04")
        #expect(try dueDay(auckland) == "2026-05-05")
    }

    /// The first and last days the care log takes work alike in every zone: `due` lists them and
    /// the doctor finds nothing wrong.
    @Test func theFirstAndLastCareDaysWorkInEveryZone() throws {
        for zone in ["Pacific/Kiritimati", "America/New_York", "Asia/Kolkata"] {
            let t = try TreesProcess(now: "9999-12-20T12:00:00.000Z")
            defer { t.cleanUp() }
            let env = ["TZ": zone]
            let tree = try Self.add(t, ["--species", "Apple"])
            let first = try t.run(["care", "add", tree, "water", "--date", "0001-01-01"], environment: env)
            #expect(first.status == 0, "\(zone): \(first)")
            #expect(try t.run(["schedule", "set", tree, "water", "--every", "14d", "--from", "0001-01-01"], environment: env).status == 0)
            #expect(try t.run(["schedule", "set", tree, "prune", "--every", "14d", "--from", "9999-12-31"], environment: env).status == 0)
            let due = try t.run(["due", "--within", "2w", "--json"], environment: env)
            #expect(due.status == 0, "\(zone): \(due)")
            let items = try #require(try JSONSerialization.jsonObject(with: Data(due.stdout.utf8)) as? [[String: Any]])
            #expect(items.map { "\($0["kind"] ?? "") \($0["due"] ?? "")" } == ["water 0001-01-15", "prune 9999-12-31"], "\(zone)")
            let doctor = try t.run(["doctor"], environment: env)
            #expect(doctor.status == 0 && doctor.stdout == "The store is sound.\n", "\(zone): \(doctor)")
        }
    }

    /// The doctor's line for a damaged schedule or health names the command that sets it again.
    @Test func doctorNamesTheCommandForCareDamage() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Block A"]).status == 0)
        let tree = try Self.add(t, ["--species", "Apple", "--collection", "Block A"])
        #expect(try t.run(["schedule", "set", tree, "water", "--every", "7d", "--from", "2026-04-01", "--season", "04-01..09-30"]).status == 0)
        #expect(try t.run(["schedule", "set", "--collection", "Block A", "spray", "--every", "2w", "--from", "2026-04-01"]).status == 0)
        let event = try t.run(["care", "add", tree, "inspect", "--health", "pest"]).stdout.trimmingCharacters(in: .newlines)
        let damage = try Program.run("/usr/bin/sqlite3", [t.database, """
            UPDATE careSchedule SET season = '13-01..02-01' WHERE kind = 'water';
            UPDATE careSchedule SET fromDay = 'soon' WHERE kind = 'spray';
            UPDATE careEvent SET health = 'poorly';
            """])
        #expect(damage.status == 0, "\(damage)")
        let doctor = try t.run(["doctor"])
        #expect(doctor.status == 65)
        let lines = Self.lines(doctor)
        #expect(lines.contains { $0.hasSuffix("'poorly' is not a health status; repairable: cleared; "
            + "then set it again with 'trees care edit \(event) --health STATUS'") }, "\(doctor.stdout)")
        #expect(lines.contains { $0.hasSuffix("'13-01..02-01' is not a MM-DD..MM-DD season; repairable: cleared; "
            + "then set it again with 'trees schedule set \(tree) water --every 7d --from 2026-04-01 --season MM-DD..MM-DD'") },
            "\(doctor.stdout)")
        #expect(lines.contains { $0.hasSuffix("not repairable: 'trees doctor --repair --remove-unrepairable' removes the row; "
            + "then set it again with 'trees schedule set --collection 'Block A' spray --every 14d --from YYYY-MM-DD'") },
            "\(doctor.stdout)")
    }

    /// A season over the new year is taken and what is due follows it.
    @Test func seasonsOverTheNewYearAreTaken() throws {
        let t = try TreesProcess(now: "2026-05-01T10:00:00.000Z")
        defer { t.cleanUp() }
        let tree = try Self.add(t, ["--species", "Apple"])
        let set = try t.run(["schedule", "set", tree, "prune", "--every", "30d", "--from", "2026-01-01", "--season", "11-01..02-29"])
        #expect(set.stdout == "tree \(tree): prune every 30 days from 2026-01-01 in 11-01..02-29\n", "\(set)")
        #expect(try t.run(["care", "add", tree, "prune", "--date", "2026-02-20"]).status == 0)
        let due = try t.run(["due", "--within", "36500d", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(due.stdout.utf8)) as? [[String: Any]])
        #expect(items.map { $0["due"] as? String } == ["2026-11-01"], "\(due)")
    }

    /// `schedule list --json`: an array like the other listings', one object per schedule with
    /// what it is for; an empty array when there are none.
    /// Notes and quantities that start with a dash are values, not options: a frost of -2 °C is a
    /// note, and a negative quantity is refused for being negative.
    @Test func textsThatStartWithADashAreValues() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tree = try Self.add(t, ["--species", "Apple", "--notes", "-2 °C frost on the blossom"])
        let shown = try t.run(["show", tree, "--json"])
        #expect(shown.stdout.contains(#""notes": "-2 °C frost on the blossom""#), "\(shown)")
        let added = try t.run(["care", "add", tree, "water", "--notes", "-10 l: the hose leaked"])
        #expect(added.status == 0, "\(added)")
        let listed = try t.run(["care", "list", "--json"])
        #expect(listed.stdout.contains(#""notes": "-10 l: the hose leaked""#), "\(listed)")
        let id = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        let edited = try t.run(["care", "edit", shortID(id), "--notes", "-"])
        #expect(edited.status == 0, "\(edited)")
        #expect(try t.run(["care", "list", "--json"]).stdout.contains(#""notes": "-""#))
        let negative = try t.run(["care", "add", tree, "harvest", "--quantity", "-3 kg"])
        #expect(negative.status == 64)
        #expect(negative.stderr == "trees: quantity '-3 kg' is negative; expected 0 or more\n", "\(negative)")
    }

    @Test func schedulesListAsJSON() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Block A"]).status == 0)
        #expect(try t.run(["schedule", "list", "--json"]).stdout == "[]\n")
        let tree = try Self.add(t, ["--species", "Apple"])
        #expect(try t.run(["schedule", "set", "--collection", "Block A", "water", "--every", "2w", "--from", "2026-04-01",
                           "--season", "04-01..09-30"]).status == 0)
        #expect(try t.run(["schedule", "set", tree, "prune", "--every", "365d"]).status == 0)
        let r = try t.run(["schedule", "list", "--json"])
        #expect(r.status == 0, "\(r)")
        let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 2)
        #expect((items[0]["treeId"] as? String)?.hasPrefix(tree) == true && items[0]["collection"] is NSNull)
        #expect(items[0]["kind"] as? String == "prune" && items[0]["everyDays"] as? Int == 365 && items[0]["from"] as? String == "2026-05-01")
        #expect(items[1]["collection"] as? String == "Block A" && items[1]["treeId"] is NSNull && items[1]["season"] as? String == "04-01..09-30")
        #expect(items[1]["everyDays"] as? Int == 14 && (items[1]["id"] as? String)?.count == 36 && items[1]["createdAt"] as? String == "2026-05-01T10:00:00.000Z")
    }

    /// `stats` counts care per month in the local time zone: 23:30 on 31 March is March.
    @Test func statsMonthsFollowTheTimeZone() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tree = try Self.add(t, ["--species", "Apple"])
        let env = ["TZ": "America/New_York"]
        #expect(try t.run(["care", "add", tree, "water", "--date", "2026-03-31T23:30:00-04:00"], environment: env).status == 0)
        let stats = try t.run(["stats"], environment: env)
        #expect(stats.stdout.hasSuffix("""
            MONTH    CARE   EVENTS
            2026-03  water  1

            """), "\(stats.stdout)")
        let json = try t.run(["stats", "--json"], environment: ["TZ": "Asia/Tokyo"])
        let care = (try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["care"] as? [String: Any]
        let months = try #require(care?["perMonth"] as? [[String: Any]])
        #expect(months.map { "\($0["month"] ?? "") \($0["kind"] ?? "") \($0["count"] ?? "")" } == ["2026-04 water 1"])
    }

    /// `export --format csv --care`: one row per event, newest first, quoted and neutralised as the trees' CSV.
    @Test func careExportsAsCSV() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "North"]).status == 0)
        let tree = try Self.add(t, ["--species", "Apple", "--variety", "Gala", "--collection", "North"])
        #expect(try t.run(["care", "add", tree, "harvest", "--date", "2026-04-10", "--quantity", "12.5 kg", "--who", "Ana"]).status == 0)
        #expect(try t.run(["care", "add", tree, "inspect", "--date", "2026-04-20", "--health", "pest",
                           "--notes", "=aphids, \"many\""]).status == 0)
        let json = try t.run(["care", "list", "--json"])
        let events = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        let ids = events.compactMap { ($0["id"] as? String)?.uppercased() }
        let treeID = try #require(events.first?["treeId"] as? String).uppercased()
        #expect(ids.count == 2)
        let csv = try t.run(["export", "--format", "csv", "--care", "--out", "-"])
        #expect(csv.status == 0, "\(csv)")
        #expect(csv.stdout == "eventId,treeId,species,variety,collection,kind,date,quantity,unit,health,who,notes,createdAt,updatedAt\r\n"
            + "\(ids[0]),\(treeID),Apple,Gala,North,inspect,2026-04-20T00:00:00Z,,,pest,,\"'=aphids, \"\"many\"\"\",2026-05-01T10:00:00Z,2026-05-01T10:00:00Z\r\n"
            + "\(ids[1]),\(treeID),Apple,Gala,North,harvest,2026-04-10T00:00:00Z,12.5,kg,,Ana,,2026-05-01T10:00:00Z,2026-05-01T10:00:00Z\r\n")
        let refused = try t.run(["export", "--format", "gpx", "--care", "--out", "-"])
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("trees: --care works with --format csv only\n"))
    }

    /// Collection JSON carries events (with the health they found), trees' and collections' schedules:
    /// importing it into an empty store gives the same rows, and exporting that the same bytes.
    @Test func careRoundTripsThroughCollectionJSON() throws {
        let a = try TreesProcess()
        defer { a.cleanUp() }
        #expect(try a.run(["collection", "create", "North"]).status == 0)
        let tree = try Self.add(a, ["--species", "Apple", "--collection", "North"])
        let other = try Self.add(a, ["--species", "Pear", "--collection", "none"])
        #expect(try a.run(["care", "add", tree, "water", "--date", "2026-04-10T06:30:00.250Z", "--quantity", "40 l", "--who", "Ana"]).status == 0)
        #expect(try a.run(["care", "add", tree, "inspect", "--date", "2026-04-12", "--health", "stressed", "--notes", "dry, \"curled\" leaves"]).status == 0)
        #expect(try a.run(["care", "add", tree, other, "mulch and weed"]).status == 0)
        #expect(try a.run(["schedule", "set", "--collection", "North", "water", "--every", "14d", "--from", "2026-04-01", "--season", "04-01..09-30"]).status == 0)
        #expect(try a.run(["schedule", "set", other, "prune", "--every", "365d", "--from", "2026-12-01"]).status == 0)
        let first = try a.run(["export", "--format", "json", "--out", "-"])
        #expect(first.status == 0)
        #expect(first.stdout.contains("\"health\":\"stressed\""))

        let b = try TreesProcess()
        defer { b.cleanUp() }
        let file = b.folder.appendingPathComponent("orchard.json")
        try Data(first.stdout.utf8).write(to: file)
        let imported = try b.run(["import", file.path])
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.contains("  4 care events\n"))
        for table in ["careEvent", "careSchedule", "careLatest", "treeHealth"] {
            let query = "SELECT * FROM \(table) ORDER BY 1, 2"
            let left = try Program.run("/usr/bin/sqlite3", [a.database, query]).stdout
            #expect(!left.isEmpty, "\(table)")
            #expect(try Program.run("/usr/bin/sqlite3", [b.database, query]).stdout == left, "\(table)")
        }
        #expect(try b.run(["export", "--format", "json", "--out", "-"]).stdout == first.stdout)
        // Again: every tree and event is already there; nothing changes.
        let before = try b.dump()
        let again = try b.run(["import", file.path])
        #expect(again.stdout == "Imported 0 trees from \(file.path); 2 already present, 0 skipped.\n")
        #expect(try b.dump() == before)
    }

    /// A photo taken for a care goes to each tree's event, is listed with it, travels with it
    /// through collection JSON, and stays with the tree when the event is removed.
    @Test func photosTakenForACareGoWithTheEvent() throws {
        let a = try TreesProcess()
        defer { a.cleanUp() }
        let tree = try Self.add(a, ["--species", "Apple"])
        let other = try Self.add(a, ["--species", "Pear"])
        let file = a.folder.appendingPathComponent("blight.jpg")
        let bytes = TestImages.jpeg(dateTimeOriginal: "2026:04:20 09:15:00")
        try Data(bytes).write(to: file)
        let added = try a.run(["care", "add", tree, other, "inspect", "--date", "2026-04-20", "--health", "diseased",
                               "--notes", "fire blight", "--photo", file.path, "--json"])
        #expect(added.status == 0, "\(added)")
        let events = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [[String: Any]])
        #expect(events.count == 2)
        let hash = SHA256.hex(bytes)
        for e in events {
            let photos = try #require(e["photos"] as? [[String: Any]])
            #expect(photos.map { $0["path"] as? String } == ["\(a.folder.path)/photos/\(hash).jpeg"])
            #expect(photos.map { $0["capturedAt"] as? String } == ["2026-04-20T09:15:00.000Z"])
        }
        let eventID = try #require(events.first?["id"] as? String)
        let list = try a.run(["care", "list", tree])
        #expect(Self.lines(list) == [
            "EVENT     TREE      SPECIES  DATE              KIND     QUANTITY  HEALTH    WHO  PHOTOS  NOTES",
            "\(shortID(eventID))  \(tree)  Apple    2026-04-20 00:00  inspect            diseased       1       fire blight",
        ])
        // One file in the library for both trees' events.
        #expect(try FileManager.default.contentsOfDirectory(atPath: a.folder.appendingPathComponent("photos").path) == ["\(hash).jpeg"])

        // Through collection JSON: the event's photo is a position among the tree's photos.
        let json = try a.run(["export", "--format", "json", "--photos", "--out", "-"])
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"photos\":[0],"))
        let b = try TreesProcess()
        defer { b.cleanUp() }
        let copy = b.folder.appendingPathComponent("orchard.json")
        try Data(json.stdout.utf8).write(to: copy)
        #expect(try b.run(["import", copy.path]).status == 0)
        #expect(try b.run(["care", "list", tree]).stdout == list.stdout)
        #expect(try b.run(["export", "--format", "json", "--photos", "--out", "-"]).stdout.replacingOccurrences(
            of: #""exportedAt":"[^"]*""#, with: "", options: .regularExpression)
            == json.stdout.replacingOccurrences(of: #""exportedAt":"[^"]*""#, with: "", options: .regularExpression))

        // Removing the event keeps the photo as the tree's.
        let removed = try a.run(["care", "rm", "-y", eventID])
        #expect(removed.stdout == "deleted care event \(shortID(eventID)) (inspect of \(tree)); its 1 photo stays with the tree\n")
        #expect(Self.lines(try a.run(["photo", "list", tree])).count == 2)
        #expect(!(try a.run(["care", "list", tree, "--json"]).stdout.contains("\"photos\"")))

        // A position that is not one of the tree's photos refuses the file; the store is unchanged.
        let bad = b.folder.appendingPathComponent("bad.json")
        try Data(json.stdout.replacingOccurrences(of: "\"photos\":[0],", with: "\"photos\":[3],").utf8).write(to: bad)
        let c = try TreesProcess()
        defer { c.cleanUp() }
        _ = try Self.add(c, ["--species", "Quince"])
        let before = try c.dump()
        let refused = try c.run(["import", bad.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("care event photo 3 is not one of the tree's 1 photos"), "\(refused)")
        #expect(try c.dump() == before)
    }

    /// GPX carries a tree's events and own schedules in our namespace: the file stays valid GPX 1.1,
    /// and another store reads back the same log. An event whose attributes cannot be read is
    /// left out with a warning; the rest of the file imports.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func careTravelsInGPX() throws {
        let a = try TreesProcess()
        defer { a.cleanUp() }
        let tree = try Self.add(a, ["--species", "Apple"])
        #expect(try a.run(["care", "add", tree, "harvest", "--date", "2026-04-10T06:30:00.250Z", "--quantity", "12.5 kg",
                           "--who", "Ana \"& co\" <north>", "--notes", "two lines\nand <markup> & more"]).status == 0)
        #expect(try a.run(["care", "add", tree, "inspect", "--date", "2026-04-12", "--health", "pest"]).status == 0)
        #expect(try a.run(["schedule", "set", tree, "prune", "--every", "365d", "--from", "2026-12-01", "--season", "11-01..03-31"]).status == 0)
        let gpx = a.folder.appendingPathComponent("orchard.gpx")
        #expect(try a.run(["export", "--format", "gpx", "--out", gpx.path]).status == 0)
        let text = try String(contentsOf: gpx, encoding: .utf8)
        #expect(text.components(separatedBy: "<trees:care ").count - 1 == 2)
        #expect(text.contains(" quantity=\"12.5\" unit=\"kg\" who=\"Ana &quot;&amp; co&quot; &lt;north&gt;\" "))
        #expect(text.contains(">two lines\nand &lt;markup&gt; &amp; more</trees:care>"))
        #expect(text.contains("<trees:schedule ") && text.contains(" everyDays=\"365\" from=\"2026-12-01\" season=\"11-01..03-31\" "))
        let lint = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", Corpus.path("schema/gpx11.xsd"), gpx.path])
        #expect(lint.status == 0, "\(lint)")

        let b = try TreesProcess()
        defer { b.cleanUp() }
        let imported = try b.run(["import", gpx.path])
        #expect(imported.stdout == "Imported 1 tree from \(gpx.path); 0 already present, 0 skipped.\n  2 care events\n", "\(imported)")
        for table in ["careEvent", "careSchedule", "careLatest", "treeHealth"] {
            let query = "SELECT * FROM \(table) ORDER BY 1, 2"
            let left = try Program.run("/usr/bin/sqlite3", [a.database, query]).stdout
            #expect(!left.isEmpty, "\(table)")
            #expect(try Program.run("/usr/bin/sqlite3", [b.database, query]).stdout == left, "\(table)")
        }

        // An event with a kind of spaces only refuses the file with its line, as in collection JSON: nothing is imported.
        let damaged = a.folder.appendingPathComponent("damaged.gpx")
        try Data(text.replacingOccurrences(of: "kind=\"inspect\"", with: "kind=\"  \"").utf8).write(to: damaged)
        let c = try TreesProcess()
        defer { c.cleanUp() }
        let refused = try c.run(["import", damaged.path])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.hasPrefix("trees: \(damaged.path):"), "\(refused)")
        #expect(refused.stderr.hasSuffix(": <trees:care> kind \"  \" is not a kind of care\n"), "\(refused)")
        // Nothing imported: not even the store the file was read against is left.
        #expect(!FileManager.default.fileExists(atPath: c.database))
        #expect(try c.run(["list", "--json"]).status == 66)
    }

    /// Every refusal names the value and what would be right, exits 64 and leaves the store as it was.
    /// A block larger than one batch of the command's work: every tree gets one event, the tree
    /// also named first gets one too, each tree's last care follows, and a bad kind changes nothing.
    @Test func aCareOverABlockLargerThanABatchLogsEveryTreeOnce() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        var csv = "latitude,longitude,species,variety\n"
        for i in 0..<10_050 { csv += "51.\(100_000 + i),-0.\(200_000 + i),Apple,Gala\n" }
        let file = try t.scratch.write("block.csv", csv)
        #expect(try t.run(["import", file, "--collection", "Block B"]).status == 0)
        let first = try #require(Self.lines(try t.run(["list", "--limit", "1"])).dropFirst().first.map { String($0.prefix(8)) })
        let logged = try t.run(["care", "add", first, "--collection", "Block B", "water", "--date", "2026-05-01", "--quantity", "40 l"])
        #expect(logged.status == 0, "\(logged.stderr)")
        let printed = Self.lines(logged)
        #expect(printed.count == 10_050)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["care", "list", "--json", "--limit", "20000"]).stdout.utf8)) as? [[String: Any]])
        #expect(listed.count == 10_050)
        let trees = listed.compactMap { $0["treeId"] as? String }
        #expect(Set(trees).count == 10_050)
        #expect(listed.compactMap { $0["id"] as? String }.map(shortID).sorted() == printed.sorted())
        let named = try #require(listed.first { shortID($0["id"] as? String ?? "") == printed[0] })
        #expect(shortID(named["treeId"] as? String ?? "") == first)
        #expect(try t.run(["show", first]).stdout.contains("care        water  last 2026-05-01"))
        let last = try #require(trees.last)
        #expect(try t.run(["show", last]).stdout.contains("care        water  last 2026-05-01"))
        let refused = try t.run(["care", "add", "--collection", "Block B", " "])
        #expect(refused.status == 64)
        #expect(try t.run(["care", "list", "--json", "--limit", "20000"]).stdout.components(separatedBy: "\"treeId\"").count == 10_051)
    }

    @Test func badInputChangesNothing() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tree = try Self.add(t, ["--species", "Apple"])
        #expect(try t.run(["care", "add", tree, "water", "--date", "2026-04-01"]).status == 0)
        let cases: [([String], String)] = [
            (["care", "add", tree, "water", "--date", "2026-02-30"], "date '2026-02-30' does not exist; expected YYYY-MM-DD with a day of that month"),
            (["care", "add", tree, "water", "--date", "2026-05-02"], "date '2026-05-02' is in the future; a care done takes today (2026-05-01) or an earlier date"),
            (["care", "add", "0000ffff", "water"], "no tree with id 0000ffff; 'trees list' shows the ids"),
            (["care", "add", tree, "0000ffff", "water"], "no tree with id 0000ffff; 'trees list' shows the ids"),
            (["care", "add", tree, "  "], "care kind '  ' is blank; expected a word such as water, fertilise, prune, spray, graft, harvest, inspect, plant, remove"),
            (["care", "add", tree, "harvest", "--quantity", "kg"], "quantity 'kg' has no number; expected a number and a unit such as '12 kg' or '40 l'"),
            (["care", "add", tree, "harvest", "--quantity", "1,5 l"], "quantity '1,5 l' has a decimal comma; write it with a point, as '1.5 l'"),
            (["care", "add", tree, "harvest", "--quantity=-3 l"], "quantity '-3 l' is negative; expected 0 or more"),
            (["care", "add", tree, "harvest", "--quantity", "-3 l"], "quantity '-3 l' is negative; expected 0 or more"),
            (["care", "edit", "abcdef12", "--quantity", "-3"], "quantity '-3' is negative; expected 0 or more"),
            (["care", "add", tree, "harvest", "--quantity", "1e999 l"], "quantity '1e999 l' is too large; expected at most 1000000000000"),
            (["care", "add", tree, "inspect", "--health", "poorly"], "health 'poorly' is not a status; expected one of healthy, stressed, diseased, pest, damaged, dead, unknown"),
            (["care", "add", tree, "water", "--health", "dead"], "--health goes with an inspect event, not 'water'; log it as 'inspect'"),
            (["care", "add", "water", "--collection", "nowhere"], "no collection named 'nowhere'; create it with 'trees collection create nowhere'"),
            (["schedule", "set", tree, "water", "--every", "0d"], "interval '0d' is no time at all; expected 1d or more"),
            (["schedule", "set", tree, "water", "--every", "14d", "--season", "09-30..04-31"],
             "season '09-30..04-31' is not a season; expected MM-DD..MM-DD such as 04-01..09-30"),
            (["schedule", "set", tree, "water", "--every", "14d", "--from", "2026-04-31"], "date '2026-04-31' does not exist; expected YYYY-MM-DD with a day of that month"),
            (["care", "rm", "abcdef12"], "no care event with id abcdef12; 'trees care list' shows the ids"),
            (["care", "edit", "abcdef12", "--notes", "x"], "no care event with id abcdef12; 'trees care list' shows the ids"),
            (["due", "--within", "soon"], "interval 'soon' is not a number of days; expected days such as 14d or weeks such as 2w"),
            (["care", "add", tree, "water", "--date", "0000-01-01"],
             "date '0000-01-01' is outside the years the care log keeps; expected a day from 0001-01-01 to 9999-12-31"),
            (["care", "add", tree, "water", "--date", "0000-12-31T23:00:00Z"],
             "date '0000-12-31T23:00:00Z' is outside the years the care log keeps; expected a day from 0001-01-01 to 9999-12-31"),
            (["schedule", "set", tree, "water", "--every", "14d", "--from", "0000-12-31"],
             "date '0000-12-31' is outside the years the care log keeps; expected a day from 0001-01-01 to 9999-12-31"),
            (["care", "list", "--since", "0000-06-01"],
             "date '0000-06-01' is outside the years the care log keeps; expected a day from 0001-01-01 to 9999-12-31"),
        ]
        let before = try t.dump()
        for (arguments, message) in cases {
            let r = try t.run(arguments)
            #expect(r.status == 64, "\(arguments): \(r)")
            #expect(r.stderr == "trees: \(message)\n", "\(arguments)")
            #expect(r.stdout == "", "\(arguments)")
        }
        #expect(try t.dump() == before)
    }
}

/// `trees due --ics` read back by a real iCalendar parser (Python's icalendar).
@Suite(.enabled(if: Tool.sqlite3.shouldRun && ICalendarParser.shouldRun)) struct CareCalendarTests {
    @Test func calendarParsesWithStableUIDs() throws {
        let python = try ICalendarParser.require()
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Verger; côté nord"]).status == 0)
        let species = "Pommier \\ «Reine des reinettes», très vieux; greffé sur franc — planté par grand-père"
        // The collection has no comma: this version of icalendar splits CATEGORIES at escaped commas too.
        let tree = try CareCommandTests.add(t, ["--species", species, "--collection", "Verger; côté nord"])
        #expect(try t.run(["care", "add", tree, "water", "--date", "2026-04-10"]).status == 0)
        #expect(try t.run(["schedule", "set", tree, "water", "--every", "14d", "--from", "2026-01-01"]).status == 0)
        #expect(try t.run(["schedule", "set", tree, "prune", "--every", "365d", "--from", "2026-05-03"]).status == 0)

        let first = try t.run(["due", "--within", "7d", "--ics"])
        #expect(first.status == 0, "\(first)")
        let bytes = Array(first.stdout.utf8)
        // Every line ends in CRLF and none is longer than 75 octets.
        #expect(first.stdout.hasSuffix("END:VCALENDAR\r\n"))
        let lines = first.stdout.components(separatedBy: "\r\n").dropLast()
        #expect(!lines.contains { $0.contains("\n") || $0.contains("\r") })
        #expect(lines.allSatisfy { $0.utf8.count <= 75 }, "\(lines.map { $0.utf8.count })")
        #expect(lines.contains { $0.hasPrefix(" ") }, "the long summary is folded")
        #expect(!bytes.isEmpty)

        let file = t.folder.appendingPathComponent("orchard.ics")
        try Data(first.stdout.utf8).write(to: file)
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            for todo in cal.walk('VTODO'):
                print('|'.join([str(todo['UID']), todo['DUE'].dt.isoformat(), str(todo['SUMMARY']), str(todo['CATEGORIES'].cats[0]) if hasattr(todo['CATEGORIES'], 'cats') else str(todo['CATEGORIES']), str(todo['STATUS'])]))
            """
        let parsed = try Program.run(python, ["-c", script, file.path])
        #expect(parsed.status == 0, "\(parsed)")
        let full = try #require(try t.run(["list", "--json"]).stdout.split(separator: "\"id\": \"").dropFirst().first?.prefix(36).lowercased())
        #expect(parsed.stdout == """
            \(full)-water@trees|2026-04-24|water: \(species) \(tree)|Verger; côté nord|NEEDS-ACTION
            \(full)-prune@trees|2026-05-03|prune: \(species) \(tree)|Verger; côté nord|NEEDS-ACTION

            """)

        // Another day, the same cares: the same UIDs, so a calendar updates what it imported.
        let later = try t.run(["due", "--within", "7d", "--ics"], environment: ["TREES_NOW": "2026-05-02T08:00:00Z"])
        let uids = { (text: String) in text.components(separatedBy: "\r\n").filter { $0.hasPrefix("UID:") } }
        #expect(uids(later.stdout) == uids(first.stdout))
        #expect(uids(first.stdout).count == 2)
    }
}

/// Python 3 with the icalendar module (Debian `python3-icalendar`).
enum ICalendarParser {
    static let python = "/usr/bin/python3"
    static let module = "/usr/lib/python3/dist-packages/icalendar/__init__.py"

    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: python) && FileManager.default.fileExists(atPath: module)
    }

    /// Runs where installed, and under `CI=true` always (failing there when it is missing).
    static var shouldRun: Bool { isInstalled || ProcessInfo.processInfo.environment["CI"] == "true" }

    static func require() throws -> String {
        guard isInstalled else {
            throw Missing()
        }
        return python
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "Python's icalendar is not installed; scripts/setup-debian installs it (Debian package python3-icalendar)" }
    }
}
