import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

/// The iOS Tree Tracker app's import, written down from its rules: what it keeps of each tree.
///
/// Dates go through a plain ISO 8601 parser that takes whole seconds only: a date it cannot parse
/// becomes the import time, which `KeptTree` shows as nil. Photos are base64 without line breaks;
/// a photo date `""` is unknown. An id that is not a UUID gets a new id; a tree with coordinates
/// out of range or a negative accuracy is skipped.
extension TreeTrackerApp {
    /// The file as written, every id and date as text.
    typealias Text = Document<String, String>

    /// What the app keeps of a tree: nil ids are new ones, nil dates the import time.
    struct KeptTree: Equatable {
        var id: UUID?
        var latitude: Double
        var longitude: Double
        /// The app's own meaning: the phone's one-sigma-class radius.
        var horizontalAccuracy: Double
        var altitude: Double?
        var species: String
        var variety: String?
        var rootstock: String?
        var notes: String
        var photos: [Data]
        var photoDates: [Date?]
        var collectionID: UUID?
        var createdAt: Date?
        var updatedAt: Date?
    }

    struct KeptCollection: Equatable {
        var id: UUID?
        var name: String
        var createdAt: Date?
        var updatedAt: Date?
    }

    /// A photo the app cannot decode (base64 with line breaks, say).
    struct BadPhoto: Error {}

    /// The app's date parser: `2025-05-01T10:00:27Z` (or an offset), never a fraction of a second.
    static func date(_ text: String) -> Date? {
        guard text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})/) != nil else {
            return nil
        }
        return ISO8601DateFormatter().date(from: text)
    }

    static func keep(_ t: Tree<String, String>) throws -> KeptTree? {
        guard (-90...90).contains(t.latitude), (-180...180).contains(t.longitude), t.horizontalAccuracy >= 0 else { return nil }
        let photos = try (t.photos ?? []).map { s in
            guard let d = Data(base64Encoded: s) else { throw BadPhoto() }
            return d
        }
        return KeptTree(
            id: UUID(uuidString: t.id), latitude: t.latitude, longitude: t.longitude, horizontalAccuracy: t.horizontalAccuracy,
            altitude: t.altitude, species: t.species, variety: t.variety, rootstock: t.rootstock, notes: t.notes, photos: photos,
            photoDates: (t.photoDates ?? []).map { $0.isEmpty ? nil : date($0) }, collectionID: t.collectionId.flatMap(UUID.init),
            createdAt: date(t.createdAt), updatedAt: date(t.updatedAt))
    }

    static func keep(_ c: Collection<String, String>) -> KeptCollection {
        KeptCollection(id: UUID(uuidString: c.id), name: c.name, createdAt: date(c.createdAt), updatedAt: date(c.updatedAt))
    }

    /// Everything the app keeps of a file.
    static func kept(_ text: String) throws -> (collections: [KeptCollection], trees: [KeptTree]) {
        let doc: Text = try decode(Data(text.utf8))
        return ((doc.collections ?? []).map(keep), try doc.trees.compactMap(keep))
    }
}

/// Round trips with the iOS Tree Tracker app, through fixtures of its own files and the rules of
/// its decoder (`TreeTrackerApp`).
@Suite struct TreeTrackerTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/TreeTracker/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    static func fixtureText(_ name: String) throws -> String { String(decoding: try fixture(name), as: UTF8.self) }

    static func date(_ text: String) -> Date { TextCodec.parseISO8601(text)! }

    /// The waypoints of a GPX file, read from `pieces` one after the other.
    static func readGPX(_ pieces: [ArraySlice<UInt8>]) throws -> [ImportedTree] {
        var trees: [ImportedTree] = []
        var reader = GPXReader()
        func take(_ e: GPXEvent) { if case .waypoint(let p) = e { trees.append(ImportedTree(p)) } }
        for piece in pieces { try reader.read(piece, take) }
        _ = try reader.finish(take)
        return trees
    }

    /// The trees and photos a store would hold after importing `trees` (new ids where the file's
    /// were not UUIDs).
    static func stored(_ trees: [ImportedTree]) -> (trees: [Tree], photos: [UUID: [ExportPhoto]]) {
        var out: [Tree] = []
        var photos: [UUID: [ExportPhoto]] = [:]
        for t in trees {
            let tree = t.tree(id: t.id ?? UUID(), collectionID: t.collectionID, now: date("2026-01-01T00:00:00Z"))
            out.append(tree)
            photos[tree.id] = t.photos.map { ExportPhoto(capturedAt: $0.capturedAt, data: $0.data) }
        }
        return (out, photos)
    }

    static let appContext = {
        var c = ExportContext(collections: [], exportedAt: date("2026-01-01T00:00:00Z"))
        c.treeTracker = TreeTrackerFlavour()
        return c
    }()

    /// The phone's one-sigma-class radius, read as the 2-D RMS error of a circular normal
    /// distribution, is scaled to the radius holding 95% of fixes.
    @Test func thePhoneFactorTurnsTheRMSRadiusIntoThe95PercentRadius() {
        #expect(abs(AccuracyModel.phoneTo95 - (-log(0.05)).squareRoot()) < 1e-12)
        #expect(abs(AccuracyModel.phoneTo95 - 1.7308) < 5e-5)
        // Rayleigh containment within r for σ = 1: 1 − exp(−r²/2).
        func share(_ r: Double) -> Double { 1 - exp(-r * r / 2) }
        let drms = 2.0.squareRoot()
        #expect(abs(share(drms) - (1 - exp(-1))) < 1e-12)  // 63.2%
        #expect(abs(share(drms * AccuracyModel.phoneTo95) - 0.95) < 1e-12)
    }

    // MARK: - Reading the app's files

    @Test func theAppsExportImportsWithEveryField() throws {
        let read = try ChunkingVerifier(sizes: [1, 7, 82, 4096]).verify(try Self.fixture("export.json")) { try readJSON($0) }
        #expect(read.collections.map(\.name) == ["North Block", "Roadside Pears"])
        #expect(read.collections[0].createdAt == Self.date("2025-04-12T07:45:10Z"))
        #expect(read.trees.count == 3)
        let apple = read.trees[0]
        #expect(apple.id == UUID(uuidString: "5A1B9C3D-2E4F-4A6B-8C7D-9E0F1A2B3C4D"))
        #expect(apple.coordinate == Coordinate(latitude: 47.558312, longitude: 8.897421))
        // The phone's 4.2 m is a one-sigma-class radius: 7.27 m at 95%, said to come from a phone.
        #expect(abs((apple.horizontalAccuracy ?? 0) - 4.2 * 1.7308183826022854) < 1e-9)
        #expect(apple.accuracySource == .phone)
        #expect(apple.altitude == 412.3)
        #expect(apple.species == "Apple" && apple.variety == "Gala" && apple.rootstock == "M9")
        // Notes the app joined with " | " carry no dates of their own: they arrive whole.
        #expect(apple.notes == "Planted 2019 | Pruned hard, winter 2025 | Fire blight check: clear")
        #expect(apple.collectionID == UUID(uuidString: "C2F1A3B4-5D6E-4F70-8192-A3B4C5D6E7F8"))
        #expect(apple.createdAt == Self.date("2025-05-01T10:00:27Z"))
        #expect(apple.updatedAt == Self.date("2025-05-03T16:20:44Z"))
        #expect(apple.photoCount == 2)
        #expect(apple.photos.map(\.capturedAt) == [Self.date("2025-05-01T10:02:13Z"), nil])
        #expect(apple.photos.allSatisfy { $0.data.starts(with: [0xFF, 0xD8]) && $0.data.suffix(2) == [0xFF, 0xD9] })
        let walnut = read.trees[1]
        #expect(walnut.variety == nil && walnut.rootstock == nil && walnut.notes == nil && walnut.altitude == nil)
        #expect(walnut.collectionID == nil && walnut.photos.isEmpty)
        let pear = read.trees[2]
        #expect(pear.variety == "Williams' Bon Chrétien")
        #expect(pear.notes == "\"Williams\" from grandfather's tree, grafted 1987 — Grüße 🍐")
    }

    @Test func theAppsOlderArrayGetsNewIdsAndItsEmptyDatesAreUnknown() throws {
        let read = try readJSON(try Self.fixture("older-array.json"))
        #expect(read.collections.isEmpty)
        #expect(read.trees.map(\.id) == [nil, nil])
        #expect(read.trees.map(\.unusableID) == ["T-0001", "T-0002"])
        #expect(read.trees[0].createdAt == Self.date("2023-09-14T15:31:02Z"))
        #expect(read.trees[0].updatedAt == nil)
        #expect(read.trees[0].notes == "By the gate | Ladder needed")
        #expect(read.trees[1].rootstock == "Colt" && read.trees[1].variety == nil)
        #expect(read.trees.allSatisfy { $0.accuracySource == .phone })
        #expect(abs((read.trees[1].horizontalAccuracy ?? 0) - 8.5 * AccuracyModel.phoneTo95) < 1e-9)
    }

    @Test func anEmptyTreeDateIsUnknownNotAnError() throws {
        let read = try readJSON(#"""
            {"trees":[{"id":"5A1B9C3D-2E4F-4A6B-8C7D-9E0F1A2B3C4D","latitude":1,"longitude":2,"horizontalAccuracy":3,
              "species":"Fig","notes":"","photoCount":0,"createdAt":"","updatedAt":" "}]}
            """#)
        #expect(read.trees[0].createdAt == nil && read.trees[0].updatedAt == nil)
        // Anything else that is not a date still refuses the file, at its line.
        let error = jsonError(#"{"trees":[{"id":"x","latitude":1,"longitude":2,"species":"Fig","createdAt":"soon"}]}"#)
        #expect(error.map { "\($0)" }?.contains("\"createdAt\" is not an ISO 8601 date: \"soon\"") == true, "\(String(describing: error))")
    }

    @Test func theAppsCSVImportsWithItsColumns() throws {
        let trees = try ChunkingVerifier(sizes: [1, 5, 64]).verify(try Self.fixture("trees.csv")) { try readCSV($0) }
        #expect(trees.count == 4)
        let apple = trees[0]
        #expect(apple.id == UUID(uuidString: "5A1B9C3D-2E4F-4A6B-8C7D-9E0F1A2B3C4D"))
        #expect(abs((apple.horizontalAccuracy ?? 0) - 4.2 * AccuracyModel.phoneTo95) < 1e-9)
        #expect(apple.accuracySource == .phone)
        #expect(apple.altitude == 412.3 && apple.variety == "Gala" && apple.rootstock == "M9")
        #expect(apple.notes == "Planted 2019 | Pruned hard, winter 2025 | Fire blight check: clear")
        #expect(apple.createdAt == Self.date("2025-05-01T10:00:27Z"))
        #expect(apple.updatedAt == Self.date("2025-05-03T16:20:44Z"))
        #expect(trees[1].variety == nil && trees[1].rootstock == nil && trees[1].notes == nil && trees[1].altitude == nil)
        #expect(trees[2].notes == "\"Williams\" from grandfather's tree, grafted 1987 — Grüße 🍐")
        // An older row's id that is not a UUID: a new id, reported by the import.
        #expect(trees[3].id == nil && trees[3].unusableID == "T-0003")
        #expect(trees[3].createdAt == Self.date("2023-09-14T15:40:00Z") && trees[3].updatedAt == nil)
    }

    @Test func theAppsGPXSplitsVarietyAndRootstockOutOfDesc() throws {
        let trees = try ChunkingVerifier(sizes: [1, 13, 512]).verify(try Self.fixture("trees.gpx")) { try Self.readGPX($0) }
        #expect(trees.map(\.species) == ["Apple", "Walnut", "Pear", "Plum"])
        #expect(trees[0].variety == "Gala" && trees[0].rootstock == "M9")
        #expect(trees[0].notes == "Planted 2019 | Pruned hard, winter 2025 | Fire blight check: clear")
        #expect(trees[0].altitude == 412.3 && trees[0].createdAt == Self.date("2025-05-01T10:00:27Z"))
        // The app's GPX has no accuracy.
        #expect(trees.allSatisfy { $0.horizontalAccuracy == nil && $0.accuracySource == nil })
        #expect(trees[1].variety == nil && trees[1].rootstock == nil && trees[1].notes == nil)
        #expect(trees[2].variety == "Williams' Bon Chrétien" && trees[2].rootstock == nil)
        #expect(trees[2].notes == "\"Williams\" from grandfather's tree, grafted 1987 & top-worked 2004")
        // An empty "Variety:" line (the app kept a "" variety) is no variety; nothing after the lines is no notes.
        #expect(trees[3].variety == nil && trees[3].rootstock == "St Julien A" && trees[3].notes == nil)
    }

    @Test(arguments: [
        // (desc, variety, rootstock, notes)
        ("Row 3 tree 12, Gala, stem 14 cm", nil, nil, "Row 3 tree 12, Gala, stem 14 cm"),
        ("Variety: Gala\nRootstock: M9\nnorth row", "Gala", "M9", "north row"),
        // Leading white space of any kind (a tab, a no-break space, an ideographic space) before a label.
        ("\t\u{00A0}\u{3000}Variety: Gala \nnotes", "Gala", nil, "notes"),
        ("  Rootstock:  MM106\n\nlate frost", nil, "MM106", "\nlate frost"),
        // A label that does not open the text is notes, as is a label-like word without its colon.
        ("planted 2019\nVariety: Gala", nil, nil, "planted 2019\nVariety: Gala"),
        ("Variety Gala", nil, nil, "Variety Gala"),
        ("variety: gala", nil, nil, "variety: gala"),
        ("", nil, nil, ""),
        ("Variety:", nil, nil, ""),
    ] as [(String, String?, String?, String?)])
    func theAppsDescriptionIsSplitOnlyWhenItOpensWithALabel(_ c: (String, String?, String?, String?)) {
        let split = ImportedTree.appDescription(c.0)
        #expect(split.variety == c.1 && split.rootstock == c.2 && split.notes == c.3)
    }

    // MARK: - What the app keeps of our files

    @Test func theAppKeepsEveryDateOfOurDefaultExportToTheSecond() throws {
        var trees = CollectionJSONTests.trees
        trees[1].horizontalAccuracy = 12  // the app needs an accuracy for every tree
        let photos: [UUID: [ExportPhoto]] = [Fixtures.full.id: [
            ExportPhoto(capturedAt: Self.date("2024-05-01T10:02:00.5Z"), data: [0xFF, 0xD8, 0xFF, 0xD9]),
            ExportPhoto(capturedAt: nil, data: [0xFF, 0xD8, 0xFF, 0xD9]),
        ]]
        let text = try exportString(trees, format: .json, context: Fixtures.context, photos: photos)
        let kept = try TreeTrackerApp.kept(text)
        #expect(kept.trees.count == 3)
        for (k, t) in zip(kept.trees, trees) {
            #expect(k.id == t.id)
            #expect(k.createdAt == Date(timeIntervalSince1970: t.createdAt.timeIntervalSince1970.rounded(.down)))
            #expect(k.updatedAt == Date(timeIntervalSince1970: t.updatedAt.timeIntervalSince1970.rounded(.down)))
            #expect(k.variety == t.variety && k.rootstock == t.rootstock)
        }
        #expect(kept.trees[0].photoDates == [Self.date("2024-05-01T10:02:00Z"), nil])
        #expect(kept.collections == [TreeTrackerApp.KeptCollection(
            id: Fixtures.orchard.id, name: Fixtures.orchard.name, createdAt: Self.date("2024-03-01T08:00:00Z"),
            updatedAt: Self.date("2024-03-02T09:30:00Z"))])

        // And our own import reads the milliseconds back, and the unknown photo date as unknown.
        let again = try readJSON(text)
        #expect(again.trees.map(\.createdAt) == trees.map(\.createdAt))
        #expect(again.trees[0].photos.map(\.capturedAt) == [Self.date("2024-05-01T10:02:00.5Z"), nil])
        #expect(again.collections[0].updatedAt == Fixtures.orchard.updatedAt)
    }

    @Test func aTreeWithoutAccuracyMakesTheAppRefuseOurDefaultExport() throws {
        // Why `--for tree-tracker` exists: our own format leaves an unknown accuracy out.
        let text = try exportString([Fixtures.bare], format: .json, context: Fixtures.context)
        #expect(throws: DecodingError.self) { try TreeTrackerApp.kept(text) }
        var context = Self.appContext
        context.treeTracker = TreeTrackerFlavour(unknownAccuracy: 25)
        let kept = try TreeTrackerApp.kept(try exportString([Fixtures.bare], format: .json, context: context))
        #expect(kept.trees.map(\.horizontalAccuracy) == [25])
    }

    @Test func anExportForTheAppHoldsItsKeysOnlyInItsForms() throws {
        let photo = [UInt8](repeating: 0xAB, count: 300)  // long enough for a line-wrapping encoder to wrap
        let photos: [UUID: [ExportPhoto]] = [Fixtures.full.id: [
            ExportPhoto(capturedAt: Self.date("2024-05-01T10:02:00.5Z"), data: photo), ExportPhoto(capturedAt: nil, data: photo),
        ]]
        var context = Fixtures.context
        context.treeTracker = TreeTrackerFlavour()
        let text = try exportString(CollectionJSONTests.trees.filter { $0.horizontalAccuracy != nil }, format: .json,
                                    context: context, photos: photos)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["collections", "trees"])
        let trees = try #require(object["trees"] as? [[String: Any]])
        let appKeys: Set = ["id", "latitude", "longitude", "horizontalAccuracy", "altitude", "species", "variety", "rootstock",
                            "notes", "photoCount", "photos", "photoDates", "collectionId", "createdAt", "updatedAt"]
        for t in trees {
            #expect(Set(t.keys).isSubset(of: appKeys), "\(t.keys)")
            for key in ["id", "latitude", "longitude", "horizontalAccuracy", "species", "notes", "photoCount", "createdAt", "updatedAt"] {
                #expect(t[key] != nil, "\(key)")
            }
            // Empty optionals are left out, never "".
            for key in ["variety", "rootstock", "collectionId"] { #expect(t[key] as? String != "", "\(key)") }
        }
        #expect(trees[1]["variety"] == nil && trees[1]["rootstock"] == nil)
        // Every date the app reads is in whole seconds, UTC.
        let dates = text.matches(of: /"(createdAt|updatedAt)":"([^"]*)"/).map { String($0.output.2) }
        #expect(dates.count == 2 * trees.count + 2)
        #expect(dates.allSatisfy { $0.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/) != nil }, "\(dates)")
        #expect(trees[0]["photoDates"] as? [String] == ["2024-05-01T10:02:00Z", ""])
        // Photos are base64 in one line each, as the app's decoder needs them.
        let encoded = try #require(trees[0]["photos"] as? [String])
        #expect(encoded.allSatisfy { !$0.contains("\n") && !$0.contains("\r") && Data(base64Encoded: $0) == Data(photo) })
        // 3.25 m at 95% is the phone's 1.88 m.
        #expect(trees[0]["horizontalAccuracy"] as? Double == 1.88)
        let kept = try TreeTrackerApp.kept(text)
        #expect(kept.trees.count == 2 && kept.trees.allSatisfy { $0.createdAt != nil && $0.updatedAt != nil })
    }

    // MARK: - Round trips

    /// The app's file, imported by us and exported for the app, is what the app had: every field,
    /// every date, every photo, the notes as it joined them, its accuracy to the centimetre.
    @Test(arguments: ["export.json", "older-array.json"])
    func theAppsFileComesBackToItWhole(name: String) throws {
        let original = try TreeTrackerApp.kept(try Self.fixtureText(name))
        let read = try readJSON(try Self.fixture(name))
        let (trees, photos) = Self.stored(read.trees)
        var context = ExportContext(
            collections: read.collections.map { TreeCollection(id: $0.id, name: $0.name, createdAt: $0.createdAt!, updatedAt: $0.updatedAt) },
            exportedAt: Self.date("2026-01-01T00:00:00Z"))
        context.treeTracker = TreeTrackerFlavour()
        let back = try TreeTrackerApp.kept(try exportString(trees, format: .json, context: context, photos: photos))
        #expect(back.collections == original.collections)
        #expect(back.trees.count == original.trees.count)
        for (b, o) in zip(back.trees, original.trees) {
            #expect(abs(b.horizontalAccuracy - o.horizontalAccuracy) < 0.005)
            var b = b, o = o
            b.horizontalAccuracy = 0; o.horizontalAccuracy = 0
            // A tree the app gave a new id keeps the new one; an unknown date becomes the tree's own.
            if o.id == nil { b.id = nil }
            if o.updatedAt == nil { b.updatedAt = nil }
            #expect(b == o)
        }
    }

    /// Our export for the app, read back by us: position, texts, dates to the second, photos and
    /// collection survive; the accuracy comes back in the 95% meaning, marked as the phone's.
    @Test func ourExportForTheAppComesBackToUs() throws {
        let trees = CollectionJSONTests.trees.filter { $0.horizontalAccuracy != nil }
        var context = Fixtures.context
        context.treeTracker = TreeTrackerFlavour()
        let read = try readJSON(try exportString(trees, format: .json, context: context))
        #expect(read.trees.count == trees.count)
        for (r, t) in zip(read.trees, trees) {
            #expect(r.id == t.id && r.coordinate == t.coordinate && r.altitude == t.altitude)
            #expect(r.species == t.species && r.variety == t.variety && r.rootstock == t.rootstock && r.notes == t.notes)
            #expect(r.collectionID == t.collectionID)
            #expect(r.createdAt == Date(timeIntervalSince1970: t.createdAt.timeIntervalSince1970.rounded(.down)))
            #expect(abs((r.horizontalAccuracy ?? 0) - (t.horizontalAccuracy ?? 0)) < 0.005 * AccuracyModel.phoneTo95)
            #expect(r.accuracySource == .phone)
            // What the app has no key for does not travel.
            #expect(r.ellipsoidHeight == nil && r.capture.isEmpty)
        }
    }
}
