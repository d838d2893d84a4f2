import Foundation
import Testing
import TreesTestSupport

/// Our JSON export as the iOS Tree Tracker app decodes it: its required keys, and dates through a
/// plain ISO 8601 parser that takes whole seconds only (Foundation's `.iso8601` strategy, which
/// refuses `…:27.164Z` just as the app's does).
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct TreeTrackerCLITests {
    /// The app's file with ids read as UUIDs and dates as whole seconds: what the app cannot read is an error.
    typealias AppDocument = TreeTrackerApp.Document<UUID, Date>

    @Test func theAppDecodesOurExportWithEveryDateAndWeKeepMilliseconds() throws {
        let t = try TreesProcess(now: "2026-05-01T10:00:27.164Z")
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "North"]).status == 0)
        #expect(try t.run(["add", "--lat", "47.1", "--lon", "8.2", "--accuracy", "4", "--species", "Apple", "--variety", "Gala",
                           "--collection", "North"]).status == 0)
        #expect(try t.run(["add", "--lat", "47.2", "--lon", "8.3", "--accuracy", "6", "--species", "Pear", "--collection", "none"],
                          environment: ["TREES_NOW": "2026-05-02T11:00:00Z"]).status == 0)
        let export = try t.run(["export", "--format", "json", "--out", "-"])
        #expect(export.status == 0)
        #expect(!export.stdout.contains("\"variety\":\"\"") && !export.stdout.contains("\"rootstock\":\"\""))

        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let doc = try decoder.decode(AppDocument.self, from: Data(export.stdout.utf8))
        #expect(doc.trees.count == 2)
        let apple = try #require(doc.trees.first { $0.species == "Apple" })
        #expect(apple.createdAt == Date(timeIntervalSince1970: 1_777_629_627))
        #expect(apple.variety == "Gala" && apple.rootstock == nil)
        #expect(doc.collections?.first?.createdAt == Date(timeIntervalSince1970: 1_777_629_627))

        // Our own import keeps the milliseconds the app cannot read.
        let b = try TreesProcess()
        defer { b.cleanUp() }
        let file = b.folder.appendingPathComponent("export.json")
        try export.stdout.write(to: file, atomically: true, encoding: .utf8)
        #expect(try b.run(["import", file.path]).status == 0)
        let again = try b.run(["list", "--json"])
        #expect(again.stdout.contains("\"createdAt\": \"2026-05-01T10:00:27.164Z\""))
    }

    @Test func theAppsOwnExportImportsWithItsQuirks() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("tree-tracker.json")
        try #"""
            [ {"id" : "1234", "latitude" : 47.5, "longitude" : 8.5, "horizontalAccuracy" : 5, "species" : "Apple",
               "notes" : "", "photoCount" : 1, "photos" : ["/9j/4AAQSkZJRgABAQAAAQABAAD/2Q=="], "photoDates" : [""],
               "createdAt" : "2025-05-01T10:00:00Z", "updatedAt" : "2025-05-01T10:00:00Z"} ]
            """#.write(to: file, atomically: true, encoding: .utf8)
        let r = try t.run(["import", file.path])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout.contains("warning \(file.path):1: id \"1234\" is not a UUID; the tree gets a new id"), "\(r.stdout)")
        let list = try t.run(["list", "--json"])
        #expect(list.stdout.contains("\"species\": \"Apple\""))
        // The phone's 5 m is a one-sigma-class radius: 8.65 m at 95%, said to come from a phone.
        #expect(list.stdout.contains("\"horizontalAccuracy\": 8.654091913011424"), "\(list.stdout)")
        #expect(list.stdout.contains("\"accuracySource\": \"phone\""))
    }

    @Test func theAppsCSVAccuracyIsUnderstood() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("tree-tracker.csv")
        try """
            id,latitude,longitude,accuracy_meters,altitude,species,variety,rootstock,notes,created_at,updated_at
            4F1C2E1A-1111-4222-8333-944455556666,47.5,8.5,10,410,Apple,Gala,,north row,2025-05-01T10:00:00Z,2025-05-02T10:00:00Z

            """.write(to: file, atomically: true, encoding: .utf8)
        #expect(try t.run(["import", file.path]).status == 0)
        let list = try t.run(["list", "--json"])
        #expect(list.stdout.contains("\"horizontalAccuracy\": 17.308183826022848"), "\(list.stdout)")
        #expect(list.stdout.contains("\"accuracySource\": \"phone\""))
        #expect(list.stdout.contains("\"createdAt\": \"2025-05-01T10:00:00Z\""))
        #expect(list.stdout.contains("\"updatedAt\": \"2025-05-02T10:00:00Z\""))
    }
}

extension TreeTrackerCLITests {
    @Test func theAppsGPXVarietyAndRootstockLeaveTheNotes() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = t.folder.appendingPathComponent("tree-tracker.gpx")
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Tree Tracker" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="47.5" lon="8.5"><time>2025-05-01T10:00:00Z</time><name>Apple</name>
                <desc>Variety: Gala
            Rootstock: M9
            leaning east</desc></wpt>
              <wpt lat="47.6" lon="8.6"><name>Pear</name><desc>just a note</desc></wpt>
            </gpx>
            """.write(to: file, atomically: true, encoding: .utf8)
        #expect(try t.run(["import", file.path]).status == 0)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]])
        let apple = try #require(list.first { $0["species"] as? String == "Apple" })
        #expect(apple["variety"] as? String == "Gala")
        #expect(apple["rootstock"] as? String == "M9")
        #expect(apple["notes"] as? String == "leaning east")
        let pear = try #require(list.first { $0["species"] as? String == "Pear" })
        #expect(pear["notes"] as? String == "just a note")
        #expect(pear["variety"] == nil)
    }
}

extension TreeTrackerCLITests {
    @Test func anExportForTheAppHasItsKeysAndItsAccuracyMeaning() throws {
        let t = try TreesProcess(now: "2026-05-01T10:00:27.164Z")
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "47.1", "--lon", "8.2", "--accuracy", "8.65", "--species", "Apple"]).status == 0)
        #expect(try t.run(["add", "--lat", "47.2", "--lon", "8.3", "--species", "Pear", "--variety", "Williams"]).status == 0)
        let refused = try t.run(["export", "--format", "json", "--for", "tree-tracker", "--out", "-"])
        #expect(refused.status == 1)
        let pear = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["list", "--json", "--species", "Pear"]).stdout.utf8))
            as? [[String: Any]]).first?["id"] as? String
        #expect(refused.stderr == "trees: 1 tree has no accuracy, which the Tree Tracker app needs: \(pear!.prefix(8).lowercased()) (Pear); "
            + "give one with --unknown-accuracy M or set it with 'trees edit'\n")
        #expect(refused.stdout.isEmpty)

        let r = try t.run(["export", "--format", "json", "--for", "tree-tracker", "--unknown-accuracy", "30", "--out", "-"])
        #expect(r.status == 0, "\(r)")
        #expect(!r.stdout.contains("precise") && !r.stdout.contains("accuracySource") && !r.stdout.contains("\"format\""))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let doc = try decoder.decode(AppDocument.self, from: Data(r.stdout.utf8))
        let apple = try #require(doc.trees.first { $0.species == "Apple" })
        #expect(apple.horizontalAccuracy == 5.0)  // 8.65 m at 95% is the phone's 5 m
        #expect(apple.createdAt == Date(timeIntervalSince1970: 1_777_629_627))
        #expect(doc.trees.first { $0.species == "Pear" }?.horizontalAccuracy == 30)
    }
}
