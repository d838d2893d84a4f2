import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

/// What the collection JSON reader made of a file.
struct JSONRead: Equatable {
    var collections: [ImportedCollection] = []
    var trees: [ImportedTree] = []
}

/// Reads `pieces` one after the other with a fresh reader, for `ChunkingVerifier`.
func readJSON(_ pieces: [ArraySlice<UInt8>]) throws -> JSONRead {
    var read = JSONRead()
    var reader = CollectionJSONReader()
    func handle(_ e: CollectionJSONEvent) {
        switch e {
        case .collection(let c): read.collections.append(c)
        case .tree(let t): read.trees.append(t)
        }
    }
    for piece in pieces { try reader.read(piece, handle) }
    try reader.finish(handle)
    return read
}

func readJSON(_ bytes: [UInt8]) throws -> JSONRead { try readJSON(ChunkingVerifier.Chunking.whole.split(bytes)) }

func readJSON(_ text: String) throws -> JSONRead { try readJSON(Array(text.utf8)) }

func jsonError(_ text: String) -> InterchangeError? {
    do { _ = try readJSON(text); return nil } catch let e as InterchangeError { return e } catch { return nil }
}

@Suite struct CollectionJSONTests {
    /// Trees whose optional texts are either set or nil (the JSON writes nil as "").
    static let trees: [Tree] = {
        var edge = Fixtures.edge
        edge.variety = nil
        return [Fixtures.full, Fixtures.bare, edge]
    }()

    /// A date that is empty or white space (the app writes "") is no date; any other text that is
    /// not ISO 8601 refuses the file.
    @Test(arguments: ["", "  ", #"\t\n "#, #"\u00A0"#])
    func aBlankDateIsNoDate(_ blank: String) throws {
        func file(_ updated: String) -> String {
            #"{"collections":[],"trees":[{"id":"5A1B9C3D-2E4F-4A6B-8C7D-9E0F1A2B3C4D","latitude":47.5,"longitude":8.5,"#
                + #""species":"Apple","createdAt":"2025-05-01T10:00:00Z","updatedAt":"\#(updated)"}]}"#
        }
        let read = try readJSON(file(blank))
        #expect(read.trees.count == 1 && read.trees[0].updatedAt == nil && read.trees[0].createdAt != nil)
        let refused = jsonError(file(" 2025 "))
        #expect(refused?.description.contains("\"updatedAt\" is not an ISO 8601 date") == true, "\(String(describing: refused))")
    }

    @Test func exportImportExportIsIdenticalApartFromExportedAt() throws {
        let photos: [UUID: [ExportPhoto]] = [Fixtures.full.id: [
            ExportPhoto(capturedAt: TextCodec.parseISO8601("2024-05-01T10:01:00Z")!),
            ExportPhoto(capturedAt: TextCodec.parseISO8601("2024-05-01T10:02:00.5Z")!),
        ]]
        let first = try exportString(Self.trees, format: .json, context: Fixtures.context, photos: photos)
        let read = try readJSON(first)
        #expect(read.collections.map(\.id) == [Fixtures.orchard.id])
        let collections = read.collections.map {
            TreeCollection(id: $0.id, name: $0.name, createdAt: $0.createdAt!, updatedAt: $0.updatedAt)
        }
        let trees = read.trees.map { $0.tree(id: $0.id!, collectionID: $0.collectionID, now: .distantPast) }
        #expect(trees == Self.trees)
        #expect(collections == [Fixtures.orchard])
        let readPhotos = Dictionary(uniqueKeysWithValues: read.trees.map { t in
            (t.id!, (0..<(t.photoCount ?? 0)).map { i in photos[t.id!]![i] })
        })
        var later = Fixtures.context
        later.exportedAt = TextCodec.parseISO8601("2030-01-01T00:00:00Z")!
        later.collectionList = collections
        let second = try exportString(trees, format: .json, context: later, photos: readPhotos)
        #expect(second.replacingOccurrences(of: "2030-01-01T00:00:00Z", with: "2024-06-01T12:00:00Z") == first)
    }

    @Test func writesTheAppShapeWithStableKeyOrder() throws {
        let text = try exportString([Fixtures.full], format: .json, context: Fixtures.context)
        let expectedStart = """
            {"format":"trees-collection","version":1,"exportedAt":"2024-06-01T12:00:00Z",
            "collections":[
            {"id":"0B6E61D4-3B8F-4C4B-9E0A-6A57C1D2E3F4","name":"Victoria's Orchard","createdAt":"2024-03-01T08:00:00Z","updatedAt":"2024-03-02T09:30:00Z","precise":{"createdAt":"2024-03-01T08:00:00Z","updatedAt":"2024-03-02T09:30:00.125Z"}}
            ],
            "trees":[
            {"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","latitude":47.3769123,"longitude":-8.5417456,"horizontalAccuracy":3.25,"altitude":408.5,"species":"Malus domestica","variety":"Boskoop & <Rote>","rootstock":"M9","notes":"=SUM(A1) \\"quoted\\", 'single'\\nsecond line — Grüße 🌳","photoCount":0,"photoDates":[],"collectionId":"0B6E61D4-3B8F-4C4B-9E0A-6A57C1D2E3F4","collection":"Victoria's Orchard","createdAt":"2024-05-01T10:00:00Z","updatedAt":"2024-05-02T11:00:00Z","precise":{"createdAt":"2024-05-01T10:00:00.250Z","updatedAt":"2024-05-02T11:00:00Z","photoDates":[]},"accuracySource":"gst","ellipsoidHeight":455.75,"capture":{"fixTime":"2024-05-01T09:59:58Z","fixMode":"3d","satellites":9,"hdop":0.8,"averagedEpochs":10,"locationSource":"gpsd://localhost:2947","fixStatus":"rtk-fixed","correctionAge":1.2,"verticalAccuracy":0.035,"verticalAccuracySource":"gst","antennaHeight":1.8}}
            ]}

            """
        #expect(text == expectedStart)
        // Foundation reads it too.
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect((object?["trees"] as? [Any])?.count == 1)
    }

    static let appExport = """
        {
          "collections" : [
            { "id" : "C0FFEE00-1111-4222-8333-444455556666", "name" : "North Block",
              "createdAt" : "2024-04-01T08:00:00Z", "updatedAt" : "2024-04-02T08:00:00Z" }
          ],
          "trees" : [
            { "id" : "D1D1D1D1-1111-4222-8333-444455556666", "latitude" : 47.1, "longitude" : 8.25,
              "horizontalAccuracy" : 4.5, "altitude" : 410.2, "species" : "Pyrus communis", "variety" : "Williams",
              "rootstock" : "", "notes" : "", "photoCount" : 1, "photos" : ["/9j/4AAQSkZJRg=="],
              "photoDates" : ["2024-04-01T08:05:00Z"], "photoFileNames" : ["../../etc/passwd"],
              "collectionId" : "C0FFEE00-1111-4222-8333-444455556666",
              "createdAt" : "2024-04-01T08:04:00Z", "updatedAt" : "2024-04-01T08:04:00Z" },
            { "id" : "E2E2E2E2-1111-4222-8333-444455556666", "latitude" : -1.5, "longitude" : -70.125,
              "horizontalAccuracy" : -1, "species" : "Theobroma cacao", "photoCount" : 0,
              "collectionId" : null, "createdAt" : "2024-04-03T10:00:00+02:00" }
          ]
        }
        """

    /// Texts of every length around the eight bytes the string scan looks at together, with an
    /// escape, a character beyond ASCII or a control character at each place: read as written, in
    /// any chunking, with each tree's line right after them.
    @Test func readsTextsWhateverTheirLengthAndWhereTheirEscapesFall() throws {
        let inserts = [("", ""), ("\\\"", "\""), ("\\\\", "\\"), ("é", "é"), ("\\u00e9", "é"), ("\\n", "\n"), ("🌳", "🌳"),
                       ("\\ud83c\\udf33", "🌳"), ("\u{7F}", "\u{7F}")]
        var lines = ["{\"trees\":["]
        var expected: [String?] = []
        for length in 0...19 {
            for (written, read) in inserts {
                for at in Set([0, length / 2, length]) {
                    let text = String(repeating: "x", count: at) + written + String(repeating: "y", count: length - at)
                    let tree = #"{"id":"D1D1D1D1-1111-4222-8333-444455556666","species":"s","notes":"\#(text)","latitude":1,"longitude":2}"#
                    lines.append((expected.isEmpty ? "" : ",") + tree)
                    let value = String(repeating: "x", count: at) + read + String(repeating: "y", count: length - at)
                    expected.append(value.isEmpty ? nil : value)
                }
            }
        }
        lines.append("]}")
        let r = try ChunkingVerifier.standard.verify(lines.joined(separator: "\n")) { try readJSON($0) }
        #expect(r.trees.map(\.notes) == expected)
        #expect(r.trees.map(\.line) == Array(2..<(2 + expected.count)))
        // A raw line feed or tab inside a string is refused where it is, also among eight bytes
        // with nothing else to look at.
        for (broken, column) in [("{\"species\":\"Gala\nx\"}", 17), ("{\"species\":\"Gala pear\ttree of the orchard\"}", 22),
                                 ("{\"species\":\"Gala pear\ntree of the orchard\"}", 22)] {
            #expect(throws: InterchangeError.malformedJSON(line: 2, column: column, reason: "control character in a string; escape it")) {
                try ChunkingVerifier.standard.verify("{\"trees\":[\n" + broken + "]}") { try readJSON($0) }
            }
        }
        // So is a byte that is not UTF-8, among eight with nothing else to look at.
        let latin1 = Array("{\"trees\":[\n{\"species\":\"Gala pear".utf8) + [0xE9] + Array("tree of the orchard\"}]}".utf8)
        #expect(throws: InterchangeError.malformedJSON(line: 2, column: 13, reason: "a string that is not UTF-8 text; save the file as UTF-8")) {
            try ChunkingVerifier.standard.verify(latin1) { try readJSON($0) }
        }
    }

    @Test func readsTheAppExportInAnyChunking() throws {
        let r = try ChunkingVerifier.standard.verify(Self.appExport) { try readJSON($0) }
        #expect(r.collections == [ImportedCollection(
            id: UUID(uuidString: "C0FFEE00-1111-4222-8333-444455556666")!, name: "North Block",
            createdAt: TextCodec.parseISO8601("2024-04-01T08:00:00Z"), updatedAt: TextCodec.parseISO8601("2024-04-02T08:00:00Z"), line: 3)])
        #expect(r.trees.count == 2)
        let a = r.trees[0]
        #expect(a.coordinate == Coordinate(latitude: 47.1, longitude: 8.25))
        // The app's figure is the phone's one-sigma-class radius: converted to the 95% radius.
        #expect(abs((a.horizontalAccuracy ?? 0) - 4.5 * 1.7308183826022854) < 1e-9)
        #expect(a.accuracySource == .phone)
        #expect(a.altitude == 410.2)
        #expect(a.variety == "Williams")
        #expect(a.rootstock == nil)
        #expect(a.photos == [ImportedPhoto(data: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46],
                                           capturedAt: TextCodec.parseISO8601("2024-04-01T08:05:00Z"))])
        #expect(a.line == 7)
        let b = r.trees[1]
        #expect(b.horizontalAccuracy == nil)
        #expect(b.collectionID == nil)
        #expect(b.createdAt == TextCodec.parseISO8601("2024-04-03T08:00:00Z"))
    }

    @Test func readsTheOlderBareArray() throws {
        let text = """
            [{"id":"D1D1D1D1-1111-4222-8333-444455556666","latitude":1,"longitude":2,"species":"Olea europaea",
              "createdAt":"2019-01-01T00:00:00Z"},
             {"id":"E2E2E2E2-1111-4222-8333-444455556666","latitude":3,"longitude":4,"species":"Ficus carica","createdAt":568000000}]
            """
        let r = try readJSON(text)
        #expect(r.trees.map(\.species) == ["Olea europaea", "Ficus carica"])
        #expect(r.trees[1].createdAt == Date(timeIntervalSinceReferenceDate: 568000000))
        #expect(r.trees[1].line == 3)
    }

    @Test(arguments: [
        ("{\"x\":[1,]}", InterchangeError.malformedJSON(line: 1, column: 9, reason: "unexpected ']'; expected a value")),
        ("{\"trees\":[", .malformedJSON(line: 1, column: 11, reason: "unexpected end of file")),
        ("{\"trees\" 5}", .malformedJSON(line: 1, column: 10, reason: "unexpected '5'; expected ':'")),
        ("{\"trees\":[tru]}", .malformedJSON(line: 1, column: 11, reason: "invalid value 'tru'")),
        ("42", .invalidContent(line: 1, column: 1, reason: "expected an object with \"trees\" or an array of trees, found a number")),
        ("{\"trees\":{}}", .invalidContent(line: 1, column: 10, reason: "\"trees\" must be an array")),
        ("{\"collections\":[]}", .invalidContent(line: 1, column: 1, reason: "no \"trees\" array; expected {\"collections\": [...], \"trees\": [...]} or an array of trees")),
        ("{\"trees\":[\n {\"latitude\":1,\"longitude\":2,\"species\":\"x\"}]}",
         .invalidContent(line: 2, column: 2, reason: "the tree at line 2 is missing the required field \"id\"")),
        ("{\"trees\":[{\"id\":[\"../../etc/passwd\"],\"latitude\":1,\"longitude\":2,\"species\":\"x\"}]}",
         .invalidContent(line: 1, column: 17, reason: "\"id\" must be a string, found an array")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":91,\"longitude\":2,\"species\":\"x\"}]",
         .invalidContent(line: 1, column: 58, reason: "latitude 91 is out of range; expected degrees between -90 and 90")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"createdAt\":\"yesterday\"}]",
         .invalidContent(line: 1, column: 100, reason: "\"createdAt\" is not an ISO 8601 date: \"yesterday\"")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":\"1\",\"longitude\":2,\"species\":\"x\"}]",
         .invalidContent(line: 1, column: 58, reason: "\"latitude\" must be a number, found a string")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"capture\":{\"fixStatus\":\"rtk\"}}]",
         .invalidContent(line: 1, column: 111, reason: "\"fixStatus\" \"rtk\" is not a fix status; expected one of unknown, gps, dgps, "
            + "rtk-fixed, rtk-float, dead-reckoning, gnss-dead-reckoning, time-only, simulated, pps")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"capture\":{\"antennaHeight\":-1.8}}]",
         .invalidContent(line: 1, column: 115, reason: "\"antennaHeight\" -1.8 is negative; expected 0 or more")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"capture\":{\"correctionAge\":\"2\"}}]",
         .invalidContent(line: 1, column: 115, reason: "\"correctionAge\" must be a number, found a string")),
        ("[{\"id\":\"D1D1D1D1-1111-4222-8333-444455556666\",\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"capture\":{\"verticalAccuracySource\":\"guess\"}}]",
         .invalidContent(line: 1, column: 124, reason: "\"verticalAccuracySource\" \"guess\" is not an accuracy source; expected one of "
            + "receiver, gst, gbs, dop, manual, averaged, imported, phone")),
        // Half a surrogate pair: refused where it stands, never turned into U+FFFD.
        ("[{\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"notes\":\"ab\\ud800\"}]",
         .malformedJSON(line: 1, column: 55, reason: "\\ud800 is half of a UTF-16 surrogate pair without its other half; it is not a character")),
        ("[{\"latitude\":1,\"longitude\":2,\"species\":\"x\",\n\"notes\":\"\\ud83c\\u0041\"}]",
         .malformedJSON(line: 2, column: 10, reason: "\\ud83c is half of a UTF-16 surrogate pair without its other half; it is not a character")),
        ("[{\"latitude\":1,\"longitude\":2,\"species\":\"x\",\"notes\":\"\\udf33\"}]",
         .malformedJSON(line: 1, column: 53, reason: "\\udf33 is half of a UTF-16 surrogate pair without its other half; it is not a character")),
    ])
    func refusesBadInputWithLineAndColumn(text: String, expected: InterchangeError) {
        #expect(jsonError(text) == expected)
    }

    /// The app gives a tree whose id is not a UUID (its older exports) a new id; so does `trees`.
    @Test func anIdThatIsNotAUUIDIsReplaced() throws {
        let r = try readJSON(#"[{"id":"../../etc/passwd","latitude":1,"longitude":2,"species":"x"},{"id":17,"latitude":1,"longitude":2,"species":"y"}]"#)
        #expect(r.trees.map(\.id) == [nil, nil])
        #expect(r.trees.map(\.unusableID) == ["../../etc/passwd", "17.0"])
    }

    /// The app writes "" for a photo whose date it does not know: an unknown date, not an error.
    @Test func anEmptyPhotoDateIsUnknown() throws {
        let r = try readJSON(#"[{"id":"D1D1D1D1-1111-4222-8333-444455556666","latitude":1,"longitude":2,"species":"x","photoCount":2,"photos":["iVBORw0KGgo=","/9j/4A=="],"photoDates":["","2024-04-01T08:05:00Z"]}]"#)
        #expect(r.trees.first?.photos.map(\.capturedAt) == [nil, TextCodec.parseISO8601("2024-04-01T08:05:00Z")])
    }

    @Test func keepsMemoryFlatOnAHugeTreesArray() throws {
        // 200,000 trees streamed through in 64 KiB chunks; only counts are kept.
        let one = Array(#"{"id":"D1D1D1D1-1111-4222-8333-444455556666","latitude":1.5,"longitude":2.5,"species":"x","createdAt":"2020-01-01T00:00:00Z"},"#.utf8)
        var reader = CollectionJSONReader()
        var count = 0
        try reader.read(Array("{\"trees\":[".utf8)) { _ in }
        var block: [UInt8] = []
        for _ in 0..<500 { block += one }
        for _ in 0..<400 { try reader.read(block) { _ in count += 1 } }
        try reader.read(Array(one.dropLast()) + Array("]}".utf8)) { _ in count += 1 }
        try reader.finish { _ in count += 1 }
        #expect(count == 200_001)
    }
}
