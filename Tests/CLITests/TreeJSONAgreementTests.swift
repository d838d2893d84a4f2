import Foundation
import Testing
import TreesTestSupport

/// One JSON shape for a tree: `show --json`, `list --json`, `add --json`, `capture --json` and
/// `export --format json` give the same keys with the same values for the same tree.
@Suite struct TreeJSONAgreementTests {
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static func objects(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func everyJSONOutputWritesATreeTheSameWay() throws {
        // A time with milliseconds, so the precise dates appear too.
        let t = try TreesProcess(now: "2026-05-01T10:00:00.250Z")
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "North \"Block\""]).status == 0)
        let added = try t.run(["add", "--lat", "51.5", "--lon", "-0.125", "--accuracy", "4.2", "--altitude", "35",
                               "--species", "Apple", "--variety", "Gala", "--notes", "by the gate\ttab",
                               "--collection", "North \"Block\"", "--json"])
        #expect(added.status == 0, "\(added)")
        let bare = try t.run(["add", "--lat", "-0.0", "--lon", "180", "--species", "Pear", "--collection", "none", "--json"])
        #expect(bare.status == 0, "\(bare)")
        let track = "replay:\(CaptureTests.tracks.path)/orchard-walk.nmea"
        let jpeg = t.folder.appendingPathComponent("tree.jpg")
        try Data(TestImages.jpeg(dateTimeOriginal: "2025:04:12 09:13:20")).write(to: jpeg)
        let captured = try t.run(["capture", "--source", track, "--speed", "max", "--auto", "--species", "Plum",
                                  "--photo", jpeg.path, "--json"])
        #expect(captured.status == 0, "\(captured)")

        let export = try Self.object(try t.run(["export", "--format", "json", "--out", "-"]).stdout)
        let exported = try #require(export["trees"] as? [[String: Any]])
        #expect(exported.count == 3)
        let listed = try Self.objects(try t.run(["list", "--json"]).stdout)
        #expect(listed.count == 3)
        let byID = Dictionary(uniqueKeysWithValues: listed.compactMap { o in (o["id"] as? String).map { ($0, o) } })
        for e in exported {
            let id = try #require(e["id"] as? String)
            let shown = try Self.object(try t.run(["show", id, "--json"]).stdout)
            let inList = try #require(byID[id])
            // Key for key, value for value.
            #expect(NSDictionary(dictionary: shown).isEqual(to: e), "show \(shown)\nexport \(e)")
            #expect(NSDictionary(dictionary: inList).isEqual(to: e), "list \(inList)\nexport \(e)")
        }
        // What the adding and capturing commands printed is the same object again.
        for printed in [added.stdout, bare.stdout, captured.stdout] {
            let o = try Self.object(printed)
            let e = try #require(exported.first { $0["id"] as? String == o["id"] as? String })
            #expect(NSDictionary(dictionary: o).isEqual(to: e), "printed \(o)\nexport \(e)")
        }
        // The shape itself: the app's whole-second dates, milliseconds under precise, the fix mode
        // as text, unknown texts left out, photo dates, the collection's name.
        let apple = try #require(exported.first { $0["species"] as? String == "Apple" })
        #expect(apple["createdAt"] as? String == "2026-05-01T10:00:00Z")
        #expect((apple["precise"] as? [String: Any])?["createdAt"] as? String == "2026-05-01T10:00:00.250Z")
        #expect(apple["collection"] as? String == "North \"Block\"")
        #expect(apple["notes"] as? String == "by the gate\ttab")
        #expect(apple["rootstock"] == nil)
        let plum = try #require(exported.first { $0["species"] as? String == "Plum" })
        #expect((plum["capture"] as? [String: Any])?["fixMode"] as? String == "3d")
        #expect(plum["photoCount"] as? Int == 1)
        #expect(plum["photoDates"] as? [String] == ["2025-04-12T09:13:20Z"])
        let pear = try #require(exported.first { $0["species"] as? String == "Pear" })
        #expect(pear["collectionId"] == nil && pear["horizontalAccuracy"] == nil && pear["capture"] == nil)
        #expect(pear["notes"] as? String == "")
    }
}
