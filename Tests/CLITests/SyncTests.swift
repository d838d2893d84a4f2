import Foundation
import Testing
import TreesTestSupport

/// Team sync end to end: the built `trees` against a real PostgreSQL 15 with PostGIS that each
/// test starts for itself. Every scenario ends by comparing exports of every store (and of a fresh
/// store that pulls everything from the server), byte for byte.
@Suite(.tags(.postgres), .enabled(if: Tool.postgres.shouldRun), .serialized)
struct SyncTests {
    static let tracks = Repository.path("SampleTracks")

    /// Laptops of one team: one store each, all with the remote `office`.
    final class Team {
        let server: PostgresServer
        let url: String
        var stores: [TreesProcess] = []

        init(_ count: Int, database: String = "team") throws {
            server = try PostgresServer()
            url = try server.createDatabase(database)
            let first = try TreesProcess(now: nil)
            let r = try first.run(["server", "init", url])
            guard r.status == 0 else { throw PostgresServer.Failure(description: "server init: \(r)") }
            stores.append(first)
            for _ in 1..<max(count, 1) { stores.append(try TreesProcess(now: nil)) }
            for s in stores {
                let added = try s.run(["remote", "add", "office", url])
                guard added.status == 0 else { throw PostgresServer.Failure(description: "remote add: \(added)") }
            }
        }

        deinit { for s in stores { s.cleanUp() } }

        subscript(i: Int) -> TreesProcess { stores[i] }

        @discardableResult
        func sync(_ i: Int, _ extra: [String] = [], environment: [String: String] = [:]) throws -> ProgramOutput {
            let r = try stores[i].run(["sync", "office", "--json"] + extra, environment: environment)
            #expect(r.status == 0, "sync of store \(i): \(r)")
            return r
        }

        /// The store's inventory as `trees export --format json --photos` writes it.
        func export(_ i: Int) throws -> String {
            let r = try stores[i].run(["export", "--format", "json", "--photos", "--out", "-"])
            #expect(r.status == 0, "\(r)")
            return Self.withoutExportTime(r.stdout)
        }

        /// An export without the time it was made.
        static func withoutExportTime(_ text: String) -> String {
            text.replacingOccurrences(of: #""exportedAt":"[^"]*","#, with: "", options: .regularExpression)
        }

        /// What the server holds, as a store that has never synced pulls it.
        func serverExport() throws -> String {
            let fresh = try TreesProcess(now: nil)
            defer { fresh.cleanUp() }
            #expect(try fresh.run(["remote", "add", "office", url]).status == 0)
            let r = try fresh.run(["sync", "office"])
            #expect(r.status == 0, "\(r)")
            return Self.withoutExportTime(try fresh.run(["export", "--format", "json", "--photos", "--out", "-"]).stdout)
        }

        func treeCount(_ i: Int) throws -> Int {
            let r = try stores[i].run(["list", "--json"])
            return (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [Any])?.count ?? -1
        }

        func add(_ i: Int, _ arguments: [String]) throws -> String {
            let r = try stores[i].run(["add", "--json"] + arguments)
            #expect(r.status == 0, "\(r)")
            let tree = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
            return try #require(tree?["id"] as? String)
        }

        func show(_ i: Int, _ id: String) throws -> [String: Any] {
            let r = try stores[i].run(["show", id, "--history", "--json"])
            #expect(r.status == 0, "\(r)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
    }

    static func report(_ r: ProgramOutput) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r)")
    }

    static func count(_ report: [String: Any], _ direction: String, _ kind: String) -> Int {
        ((report[direction] as? [String: Any])?[kind] as? Int) ?? -1
    }

    /// A tree surveyed with RTK on one laptop reaches another with every field of its fix
    /// quality, by way of the server's columns; an edit of the fix quality travels as an edit of
    /// the position.
    @Test func rtkFixQualityTravelsWhole() throws {
        _ = try Tool.postgres.require()
        let team = try Team(2)
        let file = team[0].folder.appendingPathComponent("surveyed.json")
        try FixQualityCLITests.surveyed.write(to: file, atomically: true, encoding: .utf8)
        #expect(try team[0].run(["import", file.path]).status == 0)
        try team.sync(0)
        try team.sync(1)
        let query = "SELECT id, fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight, horizontalAccuracy, "
            + "altitude, ellipsoidHeight, satellites FROM tree ORDER BY id"
        let first = try Program.run("/usr/bin/sqlite3", [team[0].database, query]).stdout
        #expect(first.contains("|rtk-fixed|1.2|0.031|gst|1.8|0.018|412.3|460.1|21\n"), "\(first)")
        #expect(try Program.run("/usr/bin/sqlite3", [team[1].database, query]).stdout == first)
        #expect(try team.export(1) == team.export(0))
        #expect(try team.server.psql("SELECT fix_status || ' ' || correction_age || ' ' || vertical_accuracy || ' ' || vertical_accuracy_source "
                                     + "|| ' ' || antenna_height FROM tree WHERE fix_status = 'rtk-fixed'", database: "team")
                == "rtk-fixed 1.2 0.031 gst 1.8")
        #expect(try team.server.psql("SELECT accuracy_class || ' ' || fix_status FROM trees_layer WHERE species = 'Apple'", database: "team")
                == "Survey rtk-fixed")

        // The second laptop clears the antenna height (the tree is re-measured from the ground); the first pulls it.
        try Program.run("/usr/bin/sqlite3", [team[1].database, "UPDATE tree SET antennaHeight = NULL WHERE fixStatus = 'rtk-fixed'"])
        try team.sync(1)
        try team.sync(0)
        #expect(try Program.run("/usr/bin/sqlite3", [team[0].database, "SELECT antennaHeight IS NULL FROM tree WHERE fixStatus = 'rtk-fixed'"])
                .stdout == "1\n")
        #expect(try team.export(1) == team.export(0))
    }

    @Test func threeCrewsCaptureOfflineSyncInTurnAndHoldTheSameInventory() throws {
        try Tool.postgres.require()
        let team = try Team(3)
        let crews = [("orchard-walk.nmea", "Apple", "Block A"), ("no-gst.nmea", "Pear", "Block B"), ("multi-gnss.nmea", "Plum", "Block C")]
        for (i, crew) in crews.enumerated() {
            for (n, variety) in ["first", "second"].enumerated() {
                let r = try team[i].run(["capture", "--source", "replay:\(Self.tracks)/\(crew.0)", "--speed", "max", "--auto", "--allow-duplicate",
                                         "--species", crew.1, "--variety", "\(variety) \(n)", "--collection", crew.2, "--json"])
                #expect(r.status == 0, "\(r)")
            }
        }
        let photo = team[0].folder.appendingPathComponent("tree.png")
        try Data(TestImages.png()).write(to: photo)
        let listed = try JSONSerialization.jsonObject(with: Data(try team[0].run(["list", "--json"]).stdout.utf8)) as? [[String: Any]]
        let firstTree = try #require(listed?.first?["id"] as? String)
        let added = try team[0].run(["photo", "add", firstTree, photo.path])
        #expect(added.status == 0, "\(added)")

        for i in 0..<3 { try team.sync(i) }
        for i in 0..<3 { try team.sync(i) }
        let exports = try (0..<3).map(team.export)
        #expect(try team.treeCount(0) == 6)
        #expect(exports[0].contains("Block C") && exports[2].contains("Block A"))
        #expect(exports[1] == exports[0])
        #expect(exports[2] == exports[0])
        #expect(try team.serverExport() == exports[0])
        #expect(try team.server.psql("SELECT count(*) FROM trees_layer", database: "team") == "6")
        #expect(try team.server.psql("SELECT count(*) FROM collection", database: "team") == "3")
        #expect(try team.server.psql("SELECT count(*) FROM photo_file", database: "team") == "1")
        // A third round moves nothing.
        let again = try Self.report(try team.sync(1))
        #expect(Self.count(again, "pushed", "trees") == 0 && Self.count(again, "pulled", "trees") == 0)
    }

    @Test func conflictingEditsResolveTheSameEverywhereAndKeepTheLosingValues() throws {
        try Tool.postgres.require()
        let team = try Team(3)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--accuracy", "3", "--species", "Apple", "--variety", "Gala", "--notes", "planted 2019"])
        let y = try team.add(0, ["--lat", "51.6", "--lon", "-0.2", "--accuracy", "3", "--species", "Cherry"])
        for i in 0..<3 { try team.sync(i) }
        // Offline: 0 and 1 edit X (notes on 0; variety on both), 2 edits Y, which 0 deletes.
        #expect(try team[0].run(["edit", x, "--variety", "Gala Royal", "--notes", "leaning east"]).status == 0)
        #expect(try team[1].run(["edit", x, "--variety", "Jazz", "--rootstock", "M9"]).status == 0)
        #expect(try team[2].run(["edit", y, "--notes", "needs pruning"]).status == 0)
        #expect(try team[0].run(["rm", y, "--yes"]).status == 0)
        // Each store reports a lost value once, in the sync that brought it, never again.
        var reported: [[String]] = [[], [], []]
        for round in 0..<4 {
            for i in 0..<3 {
                let r = try Self.report(try team.sync(i))
                let found = ((r["conflicts"] as? [[String: Any]]) ?? []).map { c in
                    "\(c["tree"] ?? "")|\(c["field"] ?? "")|\(c["losingDevice"] ?? "")|\(c["losingValue"] ?? "")|\(c["winningDevice"] ?? "")"
                }
                reported[i] += found
                if round == 3 { #expect(found.isEmpty, "store \(i), a sync with nothing new: \(r)") }
            }
        }
        for i in 0..<3 { #expect(Set(reported[i]).count == reported[i].count, "store \(i): \(reported[i])") }
        #expect(reported.allSatisfy { !$0.isEmpty })
        let exports = try (0..<3).map(team.export)
        #expect(exports[1] == exports[0])
        #expect(exports[2] == exports[0])
        #expect(try team.serverExport() == exports[0])
        for i in 0..<3 {
            let shown = try team.show(i, x)
            let tree = try #require(shown["tree"] as? [String: Any])
            // Store 1 edited the variety later: it wins; each group keeps its own latest value.
            #expect(tree["variety"] as? String == "Jazz")
            #expect(tree["rootstock"] as? String == "M9")
            #expect(tree["notes"] as? String == "leaning east")
            let losing = try #require(shown["losingValues"] as? [[String: Any]])
            #expect(losing.contains { $0["field"] as? String == "variety" && (($0["losingValue"] as? [String: Any])?["variety"] as? String) == "Gala Royal" },
                    "store \(i): \(losing)")
            #expect(try team[i].run(["show", y]).status == 1)
        }
        // The edit of the deleted tree lost, and is kept on the server.
        let kept = try team.server.psql("SELECT loser_value FROM tree_conflict WHERE tree_id = '\(y)' AND reason = 'deleted' ORDER BY field", database: "team")
        #expect(kept.contains("needs pruning"), "\(kept)")
    }

    /// Only values nobody saw are lost values. An edit made over a value its author had pulled
    /// replaces it; edits of different fields of one tree on two laptops both stay; a laptop's
    /// older copy of a field it did not touch is not a lost value. Two edits of one field made
    /// apart from each other still keep the earlier one, once, everywhere.
    @Test func editsOverSeenValuesAndOfOtherFieldsAreNotLostValues() throws {
        try Tool.postgres.require()
        let team = try Team(2)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Apple", "--notes", "first"])
        var reported: [[String]] = [[], []]
        func sync(_ i: Int) throws {
            let r = try Self.report(try team.sync(i))
            reported[i] += ((r["conflicts"] as? [[String: Any]]) ?? []).map { "\($0["field"] ?? "")=\($0["losingValue"] ?? "")" }
        }
        for i in [0, 1] { try sync(i) }
        // In turn: 0 changes the notes, 1 pulls them and changes them again, 0 pulls that.
        #expect(try team[0].run(["edit", x, "--notes", "second"]).status == 0)
        try sync(0); try sync(1)
        #expect(try team[1].run(["edit", x, "--notes", "third"]).status == 0)
        try sync(1); try sync(0)
        // Apart: 0 changes the species, 1 the variety, neither having seen the other's.
        #expect(try team[0].run(["edit", x, "--species", "Pear"]).status == 0)
        #expect(try team[1].run(["edit", x, "--variety", "Conference"]).status == 0)
        try sync(0); try sync(1); try sync(0)
        #expect(reported == [[], []], "\(reported)")
        #expect(try team.server.psql("SELECT count(*) FROM tree_conflict", database: "team") == "0")
        for i in [0, 1] {
            let tree = try #require(try team.show(i, x)["tree"] as? [String: Any])
            #expect(tree["species"] as? String == "Pear", "store \(i)")
            #expect(tree["variety"] as? String == "Conference", "store \(i)")
            #expect(tree["notes"] as? String == "third", "store \(i)")
        }
        // Apart, the same field: the earlier value is lost, and said so once on each laptop.
        #expect(try team[0].run(["edit", x, "--notes", "by 0"]).status == 0)
        #expect(try team[1].run(["edit", x, "--notes", "by 1"]).status == 0)
        try sync(0); try sync(1); try sync(0); try sync(1)
        for i in [0, 1] {
            #expect(reported[i].count == 1, "store \(i): \(reported[i])")
            #expect(reported[i].first?.contains("by 0") == true, "store \(i): \(reported[i])")
            let losing = try #require(try team.show(i, x)["losingValues"] as? [[String: Any]])
            #expect(losing.count == 1, "store \(i): \(losing)")
        }
        let exports = try [0, 1].map(team.export)
        #expect(exports[0] == exports[1])
        #expect(try team.serverExport() == exports[0])
    }

    /// The care log travels: events logged on one laptop, edited on another and removed on a third
    /// end up alike everywhere, with the trees' health and harvest totals; deleting a tree takes
    /// its events with it on every laptop and on the server.
    @Test func theCareLogTravelsWithItsEditsAndDeletions() throws {
        try Tool.postgres.require()
        let team = try Team(3)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Apple"])
        let y = try team.add(0, ["--lat", "51.6", "--lon", "-0.2", "--species", "Pear"])
        func care(_ i: Int, _ arguments: [String]) throws {
            let r = try team[i].run(["care"] + arguments)
            #expect(r.status == 0, "store \(i) care \(arguments): \(r)")
        }
        func log(_ i: Int) throws -> [[String: Any]] {
            let r = try team[i].run(["care", "list", "--json"])
            #expect(r.status == 0, "\(r)")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        }
        func summary(_ i: Int) throws -> String {
            let events = try log(i).map { e in ["id", "treeId", "kind", "date", "notes", "quantity", "unit", "health", "who"].map { "\(e[$0] ?? "-")" }.joined(separator: "|") }
            let stats = try team[i].run(["stats", "--json"]).stdout
            return events.sorted().joined(separator: "\n") + "\n" + stats
        }
        try care(0, ["add", x, "water", "--notes", "after planting", "--who", "Ana"])
        try care(0, ["add", x, "harvest", "--quantity", "12 kg"])
        try care(0, ["add", x, "inspect", "--health", "diseased", "--notes", "canker on the north limb"])
        try care(0, ["add", y, "prune"])
        var pushed = try Self.report(try team.sync(0))
        #expect(Self.count(pushed, "pushed", "careEvents") == 4, "\(pushed)")
        for i in [1, 2] {
            let pulled = try Self.report(try team.sync(i))
            #expect(Self.count(pulled, "pulled", "careEvents") == 4, "store \(i): \(pulled)")
        }
        #expect(try summary(1) == summary(0))
        #expect(try summary(2) == summary(0))
        #expect(try summary(1).contains("diseased") && summary(1).contains("12"))
        // 1 edits the harvest, 2 removes the prune; 0 then syncs last.
        let harvest = try #require(try log(1).first { $0["kind"] as? String == "harvest" }?["id"] as? String)
        let prune = try #require(try log(2).first { $0["kind"] as? String == "prune" }?["id"] as? String)
        try care(1, ["edit", shortID(harvest), "--quantity", "14 kg"])
        try care(2, ["rm", shortID(prune), "--yes"])
        pushed = try Self.report(try team.sync(1))
        #expect(Self.count(pushed, "pushed", "careEvents") == 1, "\(pushed)")
        for i in [2, 0, 1] { try team.sync(i) }
        let expected = try summary(0)
        #expect(expected.contains("14") && !expected.contains("prune"), "\(expected)")
        #expect(try summary(1) == expected)
        #expect(try summary(2) == expected)
        // A store that never synced gets the whole log from the server.
        let fresh = try TreesProcess(now: nil)
        defer { fresh.cleanUp() }
        #expect(try fresh.run(["remote", "add", "office", team.url]).status == 0)
        #expect(try fresh.run(["sync", "office"]).status == 0)
        team.stores.append(fresh)
        #expect(try summary(3) == expected)
        team.stores.removeLast()
        // A pulled deletion brings each laptop's summaries up to date: the pear's health found
        // by an inspection goes with the inspection.
        try care(1, ["add", y, "inspect", "--health", "pest", "--notes", "aphids"])
        for i in [1, 0, 2] { try team.sync(i) }
        for i in 0..<3 { #expect(try team[i].run(["show", y]).stdout.contains("pest"), "store \(i)") }
        let aphids = try #require(try log(0).first { $0["notes"] as? String == "aphids" }?["id"] as? String)
        try care(0, ["rm", shortID(aphids), "--yes"])
        for i in [0, 1, 2] { try team.sync(i) }
        for i in 0..<3 {
            let pear = try team[i].run(["show", y]).stdout
            #expect(!pear.contains("pest") && !pear.contains("inspect"), "store \(i): \(pear)")
            #expect(try summary(i) == expected, "store \(i)")
        }
        // Deleting the tree takes its events everywhere; the tree's deletion says so, alone.
        #expect(try team[2].run(["rm", x, "--yes"]).status == 0)
        pushed = try Self.report(try team.sync(2))
        #expect(Self.count(pushed, "pushed", "deletions") == 1, "\(pushed)")
        for i in [0, 1] {
            let pulled = try Self.report(try team.sync(i))
            #expect(Self.count(pulled, "pulled", "deletions") == 1, "store \(i): \(pulled)")
        }
        for i in 0..<3 { let left = try log(i); #expect(left.isEmpty, "store \(i): \(left)") }
        #expect(try team.server.psql("SELECT count(*) FROM care_event", database: "team") == "0")
    }

    /// A photo taken for a care event (an inspection's canker) reaches the other laptops as that
    /// event's photo, not only the tree's: `care list` shows it with the event everywhere, and
    /// removing the event there leaves it with the tree.
    @Test func aPhotoTakenForACareEventStaysItsPhotoOnEveryLaptop() throws {
        try Tool.postgres.require()
        let team = try Team(3)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Apple"])
        let picture = team[0].folder.appendingPathComponent("canker.png")
        try Data(TestImages.png()).write(to: picture)
        let inspected = try team[0].run(["care", "add", x, "inspect", "--health", "diseased", "--notes", "canker", "--photo", picture.path, "--json"])
        #expect(inspected.status == 0, "\(inspected)")
        #expect(try team[0].run(["care", "add", x, "water"]).status == 0)
        let event = try #require((try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [[String: Any]])?.first?["id"] as? String)
        func care(_ i: Int) throws -> String {
            let r = try team[i].run(["care", "list", x])
            #expect(r.status == 0, "\(r)")
            return r.stdout
        }
        let here = try care(0)
        #expect(here.contains("PHOTOS") && here.contains("diseased       1       canker"), "\(here)")
        let pushed = try Self.report(try team.sync(0))
        #expect(Self.count(pushed, "pushed", "photos") == 1 && Self.count(pushed, "pushed", "careEvents") == 2, "\(pushed)")
        #expect(try team.server.psql("SELECT care_event_id FROM photo", database: "team") == event)
        for i in [1, 2] {
            try team.sync(i)
            #expect(try care(i) == here, "store \(i)")
            let json = try team[i].run(["care", "list", x, "--json"]).stdout
            #expect(json.contains("\"photos\""), "store \(i): \(json)")
        }
        let removed = try team[1].run(["care", "rm", shortID(event), "--yes"])
        #expect(removed.stdout.hasSuffix("; its 1 photo stays with the tree\n"), "\(removed)")
        for i in [1, 0, 2] { try team.sync(i) }
        for i in 0..<3 {
            #expect(try team[i].run(["photo", "list", x]).stdout.split(separator: "\n").count == 2, "store \(i)")
            #expect(!(try care(i)).contains("PHOTOS"), "store \(i)")
        }
    }

    /// Care schedules travel by tree or collection and kind: setting, changing and removing one
    /// reach every laptop, the later of two settings wins everywhere, `due` follows them, and a
    /// deleted tree takes its schedules along.
    @Test func careSchedulesTravelWithTheirChangesAndRemovals() throws {
        try Tool.postgres.require()
        let team = try Team(3)
        #expect(try team[0].run(["collection", "create", "Block 1"]).status == 0)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Apple", "--collection", "Block 1"])
        let y = try team.add(0, ["--lat", "51.6", "--lon", "-0.2", "--species", "Pear"])
        func schedule(_ i: Int, _ arguments: [String]) throws {
            let r = try team[i].run(["schedule"] + arguments)
            #expect(r.status == 0, "store \(i) schedule \(arguments): \(r)")
        }
        /// Each schedule as what it is for and how often, without the store's own id.
        func schedules(_ i: Int) throws -> [String] {
            let r = try team[i].run(["schedule", "list", "--json"])
            #expect(r.status == 0, "\(r)")
            let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r)")
            return list.map { s in s.filter { $0.key != "id" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }.sorted()
        }
        func due(_ i: Int) throws -> String {
            let r = try team[i].run(["due", "--within", "400d", "--json"])
            #expect(r.status == 0, "\(r)")
            return r.stdout
        }
        try schedule(0, ["set", "--collection", "Block 1", "water", "--every", "14d", "--from", "2026-04-01", "--season", "04-01..09-30"])
        try schedule(0, ["set", y, "prune", "--every", "52w", "--from", "2026-02-01"])
        let up = try Self.report(try team.sync(0))
        #expect(Self.count(up, "pushed", "careSchedules") == 2, "\(up)")
        for i in [1, 2] {
            let down = try Self.report(try team.sync(i))
            #expect(Self.count(down, "pulled", "careSchedules") == 2, "store \(i): \(down)")
        }
        let first = try schedules(0)
        #expect(first.count == 2 && first.contains { $0.contains("everyDays=14") && $0.contains("04-01..09-30") }, "\(first)")
        #expect(try schedules(1) == first)
        #expect(try schedules(2) == first)
        let due0 = try due(0), due1 = try due(1)
        #expect(due1 == due0 && due0.contains(x.lowercased()), "\(due0)\n\(due1)")

        // 1 waters every week now, 2 stops pruning; 0 sets the pruning again but before 2 did
        // (its setting is older), so the removal wins.
        try schedule(0, ["set", y, "prune", "--every", "26w", "--from", "2026-02-01"])
        try schedule(1, ["set", "--collection", "Block 1", "water", "--every", "7d", "--from", "2026-04-01"])
        try schedule(2, ["rm", y, "prune"])
        let changed = try Self.report(try team.sync(1))
        #expect(Self.count(changed, "pushed", "careSchedules") == 1, "\(changed)")
        for i in [2, 0, 1] { try team.sync(i) }
        let settled = try schedules(0)
        #expect(settled.count == 1 && settled[0].contains("everyDays=7") && !settled[0].contains("04-01..09-30"), "\(settled)")
        #expect(try schedules(1) == settled)
        #expect(try schedules(2) == settled)
        #expect(try due(2) == due(0) && due(1) == due(0))
        #expect(try team.server.psql("SELECT count(*) FROM care_schedule WHERE target IS NULL", database: "team") == "1")

        // Deleting the tree leaves the collection's schedule; deleting the collection takes it.
        #expect(try team[2].run(["rm", x, "--yes"]).status == 0)
        #expect(try team[1].run(["collection", "rm", "Block 1", "--yes"]).status == 0)
        for i in [2, 1, 0, 2] { try team.sync(i) }
        for i in 0..<3 { let left = try schedules(i); #expect(left.isEmpty, "store \(i): \(left)") }
        #expect(try team.server.psql("SELECT count(*) FROM care_schedule WHERE target IS NOT NULL", database: "team") == "0")
    }

    /// A server whose schema is older than this `trees` needs (one made before care events were
    /// kept) or newer than it knows is refused by name, and neither the store nor the server
    /// changes; `trees server init` upgrades the older one, and sync then carries the care log.
    @Test func aServerOfAnotherSchemaIsRefusedUntilItIsUpgraded() throws {
        try Tool.postgres.require()
        let team = try Team(1)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Apple"])
        #expect(try team[0].run(["care", "add", x, "water"]).status == 0)
        try team.server.psql("DELETE FROM trees_schema WHERE version >= 3; DROP TABLE care_event; DROP TABLE care_schedule; ALTER TABLE photo DROP COLUMN care_event_id", database: "team")
        let store = try team[0].dump()
        let older = try team[0].run(["sync", "office"])
        #expect(older.status == 1)
        #expect(older.stderr.contains("the server's schema is version 2, older than this trees needs (5); run 'trees server init'"), "\(older)")
        #expect(try team[0].dump() == store)
        #expect(try team.server.psql("SELECT count(*) FROM tree", database: "team") == "0")
        let upgraded = try team[0].run(["server", "init", team.url])
        #expect(upgraded.status == 0, "\(upgraded)")
        let synced = try Self.report(try team.sync(0))
        #expect(Self.count(synced, "pushed", "careEvents") == 1 && Self.count(synced, "pushed", "trees") == 1, "\(synced)")
        try team.server.psql("INSERT INTO trees_schema (version) VALUES (6)", database: "team")
        let newer = try team[0].run(["sync", "office"])
        #expect(newer.status == 1)
        #expect(newer.stderr.contains("the server's schema is version 6, newer than this trees knows (5); upgrade trees"), "\(newer)")
    }

    /// A collection that lost to a later edit shows in the tree's history by its name.
    @Test func aLostCollectionShowsInTheHistoryByItsName() throws {
        try Tool.postgres.require()
        let team = try Team(2)
        #expect(try team[0].run(["collection", "create", "Block A"]).status == 0)
        #expect(try team[0].run(["collection", "create", "Block B"]).status == 0)
        let x = try team.add(0, ["--lat", "51.5", "--lon", "0", "--species", "Plum", "--collection", "none"])
        for i in [0, 1] { try team.sync(i) }
        #expect(try team[0].run(["edit", x, "--collection", "Block A"]).status == 0)
        #expect(try team[1].run(["edit", x, "--collection", "Block B"]).status == 0)
        for i in [0, 1, 0] { try team.sync(i) }
        for i in [0, 1] {
            let r = try team[i].run(["show", x, "--history"])
            #expect(r.status == 0, "\(r)")
            #expect(r.stdout.contains("collection  Block B\n"), "store \(i): \(r)")
            #expect(r.stdout.contains(#"{"collection":"Block A"}  lost to a later version"#), "store \(i): \(r)")
            #expect(!r.stdout.contains("collectionId"), "store \(i): \(r)")
        }
    }

    /// Two laptops each make a collection of one name, spelt in different case: after syncing,
    /// both collections have the same names on every laptop and on the server, each keeping the
    /// spelling of the laptop that made it, the one with the greater id marked with its id.
    @Test(arguments: [("Block West", "block west"), ("Äpfel Süd", "ÄPFEL SÜD")])
    func collectionsOfOneNameInTwoSpellingsEndUpNamedAlikeEverywhere(spellings: (String, String)) throws {
        try Tool.postgres.require()
        let team = try Team(2)
        let (one, two) = spellings
        #expect(try team[0].run(["collection", "create", one]).status == 0)
        #expect(try team[1].run(["collection", "create", two]).status == 0)
        _ = try team.add(0, ["--lat", "51.5", "--lon", "0", "--species", "Plum", "--collection", one])
        _ = try team.add(1, ["--lat", "51.5", "--lon", "0.001", "--species", "Damson", "--collection", two])
        for i in [0, 1, 0] { try team.sync(i) }
        func names(_ i: Int) throws -> [String] {
            let r = try team[i].run(["collection", "list", "--json"])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], "\(r)")
            return list.compactMap { $0["name"] as? String }.sorted()
        }
        let first = try names(0)
        #expect(try names(1) == first)
        #expect(first.count == 2)
        #expect(first.contains(one) || first.contains { $0.hasPrefix(one + " (") }, "\(first)")
        #expect(first.contains(two) || first.contains { $0.hasPrefix(two + " (") }, "\(first)")
        // One of them is marked with its id: they are not both left as they are.
        #expect(first.contains { $0.hasSuffix(")") }, "\(first)")
        #expect(try team.export(1) == team.export(0))
        #expect(try team.serverExport() == team.export(0))
    }

    @Test func aLaptopWhoseClockIsAnHourOffStillOrdersEditsByWhatItHasSeen() throws {
        try Tool.postgres.require()
        let team = try Team(2)
        let fast = ["TREES_CLOCK_OFFSET": "3600"], slow = ["TREES_CLOCK_OFFSET": "-3600"]
        let x = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Apple"])
        try team.sync(0)
        try team.sync(1, environment: slow)
        #expect(try team[0].run(["edit", x, "--variety", "from the fast laptop"], environment: fast).status == 0)
        try team.sync(0, environment: fast)
        try team.sync(1, environment: slow)
        // The slow laptop has seen the fast one's edit: its own later edit wins although its clock is two hours behind.
        #expect(try team[1].run(["edit", x, "--variety", "from the slow laptop"], environment: slow).status == 0)
        try team.sync(1, environment: slow)
        try team.sync(0, environment: fast)
        for i in 0..<2 {
            let tree = try #require(try team.show(i, x)["tree"] as? [String: Any])
            #expect(tree["variety"] as? String == "from the slow laptop")
        }
        #expect(try team.export(0) == team.export(1))
    }

    static let hostile = ["O'Brien's \"best\" \\ apple", "'; DROP TABLE tree; --", "Äpfel 🍎 ñ 林檎", "tab\there\nnew line\r\\N", "%_\\x00 $1 ?"]

    /// Collection names are one line: no line feed or carriage return.
    static func oneLine(_ text: String) -> String { text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ") }

    @Test func hostileTextInEveryFieldRoundTrips() throws {
        try Tool.postgres.require()
        let team = try Team(2)
        var ids: [String] = []
        for (n, text) in Self.hostile.enumerated() {
            let created = try team[0].run(["collection", "create", Self.oneLine(text) + " \(n)"])
            #expect(created.status == 0, "\(created)")
            ids.append(try team.add(0, ["--lat", "51.\(n)", "--lon", "0.\(n)", "--species", text, "--variety", text, "--rootstock", text, "--notes", text,
                                        "--collection", Self.oneLine(text) + " \(n)"]))
        }
        try team.sync(0)
        try team.sync(1)
        #expect(try team.export(1) == team.export(0))
        for (n, id) in ids.enumerated() {
            let tree = try #require(try team.show(1, id)["tree"] as? [String: Any])
            for key in ["species", "variety", "rootstock", "notes"] { #expect(tree[key] as? String == Self.hostile[n]) }
        }
        #expect(try team.server.psql("SELECT count(*) FROM tree WHERE species = notes AND variety = rootstock", database: "team") == "\(ids.count)")
    }

    @Test(.enabled(if: Tool.ogrinfo.shouldRun)) func ogrReadsTheServerLayerAndExportsItToGeoPackage() throws {
        try Tool.postgres.require()
        let ogrinfo = try Tool.ogrinfo.require()
        let team = try Team(1)
        for n in 0..<7 { _ = try team.add(0, ["--lat", "51.4\(n)", "--lon", "-0.0\(n)", "--accuracy", "\(n * 4 + 1)", "--species", "Apple", "--variety", "V\(n)"]) }
        let t = try team.add(0, ["--lat", "51.3", "--lon", "-0.3", "--species", "Gone"])
        #expect(try team[0].run(["rm", t, "--yes"]).status == 0)
        try team.sync(0)
        let source = "PG:host=127.0.0.1 port=\(team.server.port) user=trees dbname=team"
        let info = try Program.run(ogrinfo, ["-ro", "-so", source, "trees_layer"])
        #expect(info.status == 0, "\(info)")
        #expect(info.stdout.contains("Feature Count: 7"), "\(info.stdout)")
        #expect(info.stdout.contains("EPSG\",4326") || info.stdout.contains("ID[\"EPSG\",4326]"), "\(info.stdout)")
        #expect(info.stdout.contains("accuracy_class: String"), "\(info.stdout)")
        let gpkg = team[0].folder.appendingPathComponent("layer.gpkg").path
        let copy = try Program.run("/usr/bin/ogr2ogr", ["-f", "GPKG", gpkg, source, "trees_layer"])
        #expect(copy.status == 0, "\(copy)")
        let back = try Program.run(ogrinfo, ["-ro", "-so", gpkg, "trees_layer"])
        #expect(back.stdout.contains("Feature Count: 7"), "\(back)")
        let classes = try Program.run(ogrinfo, ["-ro", "-q", "-sql", "SELECT accuracy_class FROM trees_layer WHERE variety = 'V3'", gpkg])
        #expect(classes.stdout.contains("accuracy_class (String) = Acceptable"), "\(classes)")
    }

    @Test func aSyncSendsOnlyTheTreesChangedSinceTheLastPushOrPull() throws {
        try Tool.postgres.require()
        let team = try Team(2)
        #expect(try team[0].run(["import", try Self.csv(team[0].folder, count: 50)]).status == 0)
        let id = { (i: Int) in String(format: "%08x-0000-4000-8000-%012x", Int("t".utf8.first ?? 0), i) }
        let first = try Self.report(try team.sync(0))
        #expect(Self.count(first, "pushed", "trees") == 50 && Self.count(first, "pulled", "trees") == 0)
        let pulled = try Self.report(try team.sync(1))
        #expect(Self.count(pulled, "pushed", "trees") == 0 && Self.count(pulled, "pulled", "trees") == 50)

        // Right after its own push of the whole import (every tree of one change number)…
        for i in 0..<3 { #expect(try team[0].run(["edit", id(i), "--notes", "checked"]).status == 0) }
        let own = try Self.report(try team.sync(0))
        #expect(Self.count(own, "pushed", "trees") == 3 && Self.count(own, "pulled", "trees") == 0, "\(own)")
        // …and right after pulling them (one change number for the page).
        for i in 10..<12 { #expect(try team[1].run(["edit", id(i), "--variety", "Jazz"]).status == 0) }
        let afterPull = try Self.report(try team.sync(1))
        #expect(Self.count(afterPull, "pushed", "trees") == 2 && Self.count(afterPull, "pulled", "trees") == 3, "\(afterPull)")
        let last = try Self.report(try team.sync(0))
        #expect(Self.count(last, "pushed", "trees") == 0 && Self.count(last, "pulled", "trees") == 2, "\(last)")

        #expect(try team.export(1) == team.export(0))
        #expect(try team.server.psql("SELECT count(*) FROM change WHERE kind = 'tree'", database: "team") == "55")
    }

    /// A CSV of `count` trees with ids of their own, numbered from `first`.
    static func csv(_ folder: URL, count: Int, first: Int = 0, tag: String = "t") throws -> String {
        var text = "id,latitude,longitude,horizontalAccuracy,species,variety,notes\n"
        for i in first..<(first + count) {
            text += String(format: "%08x-0000-4000-8000-%012x", Int(tag.utf8.first ?? 0), i)
            text += ",\(48 + Double(i / 500) * 0.0001),\(11 + Double(i % 500) * 0.0001),\(Double(i % 20) + 1.5),Apple,V\(i % 7),row \(i / 500)\n"
        }
        let path = folder.appendingPathComponent("trees-\(tag)-\(first).csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Polls `condition` (no fixed sleep: checks every 5 ms) until it holds or `seconds` pass.
    static func wait(seconds: Double, until condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(5_000)
        }
        return false
    }

    @Test(.enabled(if: Tool.socatProxy.shouldRun))
    func aServerKilledMidPushAndAConnectionCutMidPullConvergeOnTheNextSync() throws {
        try Tool.postgres.require()
        let socat = try Tool.socatProxy.require()
        let team = try Team(2)
        let count = 20_000
        #expect(try team[0].run(["import", try Self.csv(team[0].folder, count: count)]).status == 0)

        // The server dies (as in a power cut) while laptop 0 pushes.
        let push = try team[0].start(["sync", "office"])
        let pushing = try Self.wait(seconds: 60) { try !push.isRunning || (Int(team.server.psql("SELECT count(*) FROM change", database: "team")) ?? 0) > 0 }
        #expect(pushing)
        #expect(push.isRunning, "the push ended before the server could be stopped")
        team.server.stop(mode: "immediate")
        let cut = push.wait()
        #expect(cut.status == 69, "\(cut)")
        #expect(cut.stderr.hasPrefix("trees: the connection to"), "\(cut)")
        try team.server.start()
        let stored = Int(try team.server.psql("SELECT count(*) FROM tree", database: "team")) ?? -1
        #expect(stored > 0 && stored < count, "some pages committed, not all: \(stored)")
        try team.sync(0)
        #expect(try team.server.psql("SELECT count(*) FROM tree", database: "team") == "\(count)")

        // Laptop 1 pulls through a TCP proxy, which is killed mid-way.
        let port = try PostgresServer.freePort()
        // One connection through the proxy (no fork: killing socat cuts it), so readiness is read
        // from the kernel's table of listening sockets rather than by connecting.
        func proxy() throws -> RunningProgram {
            let p = try Program.start(socat, ["TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr", "TCP:127.0.0.1:\(team.server.port)"])
            let listening = String(format: ":%04X 00000000:0000 0A", port)
            _ = Self.wait(seconds: 10) { (ProcFile.text("/proc/net/tcp") ?? "").contains(listening) }
            return p
        }
        #expect(try team[1].run(["remote", "rm", "office"]).status == 0)
        #expect(try team[1].run(["remote", "add", "office", team.server.url("team", port: port)]).status == 0)
        var relay = try proxy()
        let pull = try team[1].start(["sync", "office"])
        let pulling = try Self.wait(seconds: 60) {
            try !pull.isRunning || (Int(Program.run("/usr/bin/sqlite3", [team[1].database, "SELECT count(*) FROM tree"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0
        }
        #expect(pulling)
        #expect(pull.isRunning, "the pull ended before the connection could be cut")
        relay.send(SIGKILL)
        _ = relay.wait()
        let broken = pull.wait()
        #expect(broken.status == 69, "\(broken)")
        let partial = try team.treeCount(1)
        #expect(partial > 0 && partial < count, "\(partial)")
        relay = try proxy()
        try team.sync(1)
        _ = relay.wait()
        #expect(try team.treeCount(1) == count)
        #expect(try team.export(1) == team.export(0))
        #expect(try team.server.psql("SELECT count(*), count(DISTINCT entity_id) FROM change WHERE kind = 'tree'", database: "team") == "\(count)|\(count)")
    }

    @Test func tenLaptopsSyncingAtOnceLoseAndDuplicateNothing() throws {
        try Tool.postgres.require()
        let team = try Team(10)
        let shared = try team.add(0, ["--lat", "51.5", "--lon", "-0.1", "--species", "Walnut"])
        try team.sync(0)
        for i in 0..<10 {
            #expect(try team[i].run(["import", try Self.csv(team[i].folder, count: 30, first: i * 1000)]).status == 0)
            if i > 0 { try team.sync(i) }
        }
        for i in 0..<10 { #expect(try team[i].run(["edit", shared, "--variety", "edited on laptop \(i)"]).status == 0) }
        for _ in 0..<2 {
            let running = try (0..<10).map { try team[$0].start(["sync", "office", "--json"]) }
            for (i, p) in running.enumerated() {
                let r = p.wait()
                #expect(r.status == 0, "laptop \(i): \(r)")
            }
        }
        let exports = try (0..<10).map(team.export)
        for i in 1..<10 { #expect(exports[i] == exports[0], "laptop \(i)") }
        #expect(try team.serverExport() == exports[0])
        #expect(try team.treeCount(0) == 301)
        #expect(try team.server.psql("SELECT count(*), count(DISTINCT entity_id) FROM change WHERE kind = 'tree' AND entity_id <> '\(shared)'",
                                     database: "team") == "300|300")
        // One of the ten edits won, the same one everywhere; the nine others are kept as losing values.
        let conflicts = try team.server.psql("SELECT count(*) FROM tree_conflict WHERE tree_id = '\(shared)' AND field = 'variety'", database: "team")
        #expect(conflicts == "9" || conflicts == "10", "\(conflicts)")
    }
}
