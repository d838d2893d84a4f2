import Foundation
import Testing
import TreesTestSupport

/// The iOS Tree Tracker app's own files (Tests/InterchangeTests/Fixtures/TreeTracker) through the
/// built `trees`: imported in every format, and sent back to the app.
extension TreeTrackerCLITests {
    static func appFile(_ name: String) -> String {
        Repository.path("Tests/InterchangeTests/Fixtures/TreeTracker/\(name)")
    }

    static func appDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    @Test(arguments: [
        ("export.json", "Imported 3 trees from FILE; 0 already present, 0 skipped.\n  2 photos\n  new collections: North Block, Roadside Pears\n"),
        ("older-array.json", "Imported 2 trees from FILE; 0 already present, 0 skipped.\n"
            + "  warning FILE:2: id \"T-0001\" is not a UUID; the tree gets a new id\n"
            + "  warning FILE:14: id \"T-0002\" is not a UUID; the tree gets a new id\n"),
        ("trees.csv", "Imported 4 trees from FILE; 0 already present, 0 skipped.\n"
            + "  warning FILE:5: id \"T-0003\" is not a UUID; the tree gets a new id\n"),
        ("trees.gpx", "Imported 4 trees from FILE; 0 already present, 0 skipped.\n"),
    ])
    func theAppsOwnFilesImport(name: String, expected: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = Self.appFile(name)
        let r = try t.run(["import", file])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == expected.replacingOccurrences(of: "FILE", with: file), "\(r)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]])
        let apple = list.first { $0["species"] as? String == "Apple" }
        if let apple {
            #expect(apple["variety"] as? String == "Gala" && apple["rootstock"] as? String == "M9")
            #expect(apple["notes"] as? String == "Planted 2019 | Pruned hard, winter 2025 | Fire blight check: clear")
            #expect(apple["createdAt"] as? String == "2025-05-01T10:00:27Z")
            // The phone's 4.2 m (JSON and CSV) is 7.27 m at 95%; the app's GPX has no accuracy.
            if name == "trees.gpx" {
                #expect(apple["horizontalAccuracy"] == nil)
            } else {
                #expect(abs((apple["horizontalAccuracy"] as? Double ?? 0) - 4.2 * 1.7308183826022854) < 1e-9)
                #expect(apple["accuracySource"] as? String == "phone")
            }
        }
    }

    /// The app's version 2 export keeps a tree's notes as dated entries with their own photos: each
    /// becomes an inspection on its date with its photos, the tree keeps its own photos, and
    /// importing the file again adds nothing.
    @Test func theAppsDatedNotesBecomeInspections() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = Self.appFile("export-v2.json")
        let r = try t.run(["import", file])
        #expect(r.stdout == "Imported 2 trees from \(file); 0 already present, 0 skipped.\n  2 photos\n  2 care events\n  new collection: North Block\n", "\(r)")
        let events = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["care", "list", "5a1b9c3d", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(events.map { $0["kind"] as? String } == ["inspect", "inspect"])
        #expect(events.map { $0["date"] as? String } == ["2025-06-03T16:18:09.000Z", "2025-05-01T10:01:02.000Z"])
        #expect(events.map { $0["notes"] as? String } == ["Fire blight on the north limbs, cut out", "Planted 2019"])
        #expect(events.map { $0["updatedAt"] as? String } == ["2025-06-03T16:20:44.000Z", "2025-05-01T10:01:02.000Z"])
        let notePhotos = try #require(events.first?["photos"] as? [[String: Any]])
        #expect(notePhotos.map { $0["capturedAt"] as? String } == ["2025-06-03T16:17:40.000Z"])
        #expect(events.last?["photos"] == nil)
        // The tree's own photo and the note's: two, in the order they were taken.
        let photos = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["photo", "list", "5a1b9c3d", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(photos.map { $0["capturedAt"] as? String } == ["2025-05-01T10:02:13.000Z", "2025-06-03T16:17:40.000Z"])
        // The joined notes are the entries again; the tree keeps none of its own.
        let list = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(list.map { $0["notes"] as? String } == ["", ""])
        let before = try t.dump()
        let again = try t.run(["import", file])
        #expect(again.stdout == "Imported 0 trees from \(file); 2 already present, 0 skipped.\n")
        #expect(try t.dump() == before)
    }

    /// The app's export, imported and exported for the app again, is what the app had, but for a
    /// photo date the app did not know: the store dates every photo (here, the time of the import).
    @Test func theAppsExportGoesBackToTheAppWhole() throws {
        let t = try TreesProcess(now: "2026-01-01T00:00:00Z")
        defer { t.cleanUp() }
        #expect(try t.run(["import", Self.appFile("export.json")]).status == 0)
        let r = try t.run(["export", "--format", "json", "--for", "tree-tracker", "--photos", "--out", "-"])
        #expect(r.status == 0, "\(r)")
        let back = try Self.appDecoder().decode(AppDocument.self, from: Data(r.stdout.utf8))
        let original = try Self.appDecoder().decode(AppDocument.self, from: Data(contentsOf: URL(fileURLWithPath: Self.appFile("export.json"))))

        let (backCollections, originalCollections) = (back.collections ?? [], original.collections ?? [])
        #expect(backCollections.sorted { $0.name < $1.name }.map { [$0.id.uuidString, $0.name] }
            == originalCollections.map { [$0.id.uuidString, $0.name] })
        #expect(backCollections.sorted { $0.name < $1.name }.map(\.createdAt) == originalCollections.map(\.createdAt))
        #expect(back.trees.count == original.trees.count)
        for o in original.trees {
            let b = try #require(back.trees.first { $0.id == o.id })
            #expect(b.latitude == o.latitude && b.longitude == o.longitude && b.altitude == o.altitude)
            #expect(abs(b.horizontalAccuracy - o.horizontalAccuracy) < 0.005)
            #expect(b.species == o.species && b.variety == o.variety && b.rootstock == o.rootstock && b.notes == o.notes)
            #expect(b.photoCount == o.photoCount && b.photos == o.photos)
            #expect(b.collectionId == o.collectionId && b.createdAt == o.createdAt && b.updatedAt == o.updatedAt)
            let dates = (o.photoDates ?? []).map { $0.isEmpty ? "2026-01-01T00:00:00Z" : $0 }
            #expect(b.photoDates ?? [] == dates)
        }
    }

    @Test func aPhotoTheAppDidNotDateTakesItsEXIFDate() throws {
        let t = try TreesProcess(now: "2026-01-01T00:00:00Z")
        defer { t.cleanUp() }
        let photo = Data(TestImages.jpeg(dateTimeOriginal: "2024:09:01 12:30:00", offset: "+02:00")).base64EncodedString()
        let file = t.folder.appendingPathComponent("tree-tracker.json")
        try """
            {"collections":[],"trees":[{"id":"5A1B9C3D-2E4F-4A6B-8C7D-9E0F1A2B3C4D","latitude":47.5,"longitude":8.5,
             "horizontalAccuracy":5,"species":"Apple","notes":"","photoCount":1,"photos":["\(photo)"],"photoDates":[""],
             "createdAt":"2025-05-01T10:00:00Z","updatedAt":""}]}
            """.write(to: file, atomically: true, encoding: .utf8)
        let r = try t.run(["import", file.path])
        #expect(r.status == 0, "\(r)")
        let export = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["export", "--format", "json", "--out", "-"]).stdout.utf8))
            as? [String: Any])
        let tree = try #require((export["trees"] as? [[String: Any]])?.first)
        #expect(tree["photoDates"] as? [String] == ["2024-09-01T10:30:00Z"])
        // An empty updatedAt is unknown: the tree's creation date stands in.
        #expect(tree["updatedAt"] as? String == "2025-05-01T10:00:00Z")
    }
}
