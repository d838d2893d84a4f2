import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

/// Values a store cannot hold are refused where a file is read, with their line; records that
/// never end are refused without being read whole.
@Suite struct ReaderTrustTests {
    static func tree(_ extra: String) -> String {
        """
        {"collections": [],
         "trees": [{"id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 1, "longitude": 2, "species": "Apple",
          \(extra)}]}
        """
    }

    static let farDates: [(json: String, reason: String)] = [
        (#""createdAt": "12345-01-01T00:00:00Z""#, #""createdAt" "12345-01-01T00:00:00Z" is outside years 0000 to 9999 (UTC)"#),
        (#""updatedAt": "9999-12-31T23:59:59.9999Z""#, #""updatedAt" "9999-12-31T23:59:59.9999Z" is outside years 0000 to 9999 (UTC)"#),
        (#""createdAt": "-0001-01-01T00:00:00Z""#, #""createdAt" "-0001-01-01T00:00:00Z" is outside years 0000 to 9999 (UTC)"#),
        (#""createdAt": 1e15"#, #""createdAt" 1000000000000000.0 seconds after 2001-01-01 is outside years 0000 to 9999 (UTC)"#),
        (#""photoDates": ["2024-01-01T00:00:00Z", "99999-01-01T00:00:00Z"]"#,
         #""photoDates" "99999-01-01T00:00:00Z" is outside years 0000 to 9999 (UTC)"#),
        (#""capture": {"fixTime": -1e14}"#, #""fixTime" -100000000000000.0 seconds after 2001-01-01 is outside years 0000 to 9999 (UTC)"#),
    ]

    @Test(arguments: farDates.indices)
    func jsonDatesOutsideTheStoreAreRefusedWithTheirLine(index: Int) {
        let (json, reason) = Self.farDates[index]
        let error = jsonError(Self.tree(json))
        #expect(error?.line == 3, "\(String(describing: error))")
        #expect(error?.reason == reason)
    }

    @Test func theEdgesOfTheStorableSpanAreKept() throws {
        let read = try readJSON(Self.tree(#""createdAt": "0000-01-01T00:00:00Z", "updatedAt": "9999-12-31T23:59:59.999Z""#))
        let t = try #require(read.trees.first)
        #expect(t.createdAt.map { TextCodec.iso8601($0, fraction: .whenPresent) } == "0000-01-01T00:00:00Z")
        #expect(t.updatedAt.map { TextCodec.iso8601($0, fraction: .whenPresent) } == "9999-12-31T23:59:59.999Z")
    }

    @Test(arguments: ["none", "NONE", "  None  ", "", "   "])
    func aCollectionNamedNoneOrBlankIsRefused(name: String) {
        let text = """
            {"collections": [
              {"id": "0E5C0C1E-0000-4000-8000-000000000001",
               "name": "\(name)", "createdAt": "2024-05-01T10:00:00Z", "updatedAt": "2024-05-01T10:00:00Z"}],
             "trees": []}
            """
        let error = jsonError(text)
        #expect(error?.line == 3)
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        #expect(error?.reason == (trimmed.isEmpty ? "the collection name is empty"
                                                  : "the collection name \"\(trimmed)\" is reserved: 'none' means no collection; rename it"))
    }

    /// Reads `bytes` in pieces of 4 KiB, as a file is read.
    static func readCSVFile(_ bytes: [UInt8]) throws -> [ImportedTree] {
        try readCSV(ChunkingVerifier.Chunking.pieces(size: 4096).split(bytes))
    }

    @Test(arguments: ["12345-01-01T00:00:00Z", "-0001-01-01T00:00:00Z", "9999-12-31T23:59:59.9995Z"])
    func csvDatesOutsideTheStoreAreRefusedWithTheirLine(date: String) {
        let csv = "latitude,longitude,species,createdAt\n1,2,Apple,2024-01-01T00:00:00Z\n3,4,Pear,\(date)\n"
        #expect(throws: InterchangeError.invalidCSV(
            line: 3, reason: "column 4 (createdAt): \"\(date)\" is not a date within years 0000 to 9999 (UTC)")) {
            try Self.readCSVFile(Array(csv.utf8))
        }
    }

    @Test(arguments: [false, true])
    func anEndlessCSVRecordIsRefusedAtItsLineWithoutReadingItAll(quoted: Bool) {
        // Fed lazily, in chunks: the reader must stop soon after the bound, not at the end.
        var reader = CSVTreeReader()
        let head = Array("latitude,longitude,species\n1,2,Apple\n5,6,\(quoted ? "\"" : "")".utf8)
        var fed = 0
        let error: (any Error)? = {
            do {
                try reader.read(head) { _ in }
                let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
                while fed < 64 << 20 {
                    try reader.read(chunk) { _ in }
                    fed += chunk.count
                }
                return nil
            } catch { return error }
        }()
        let limit = CSVRecordReader.maximumRecordBytes
        #expect(fed <= limit + (64 << 10))
        let reason = quoted ? "a quoted field runs on for more than 1 MiB; is a closing quote missing?" : "a record longer than 1 MiB"
        #expect(error as? InterchangeError == .invalidCSV(line: 3, reason: reason))
    }

    /// A line of separators is refused at its line once it passes 65,536 fields, header or row;
    /// a record of exactly that many fields is read.
    @Test(arguments: [false, true])
    func aCSVRecordWithTooManyFieldsIsRefusedAtItsLine(inHeader: Bool) throws {
        let many = String(repeating: ",", count: CSVRecordReader.maximumFields)
        let csv = inHeader ? "latitude,longitude,species\(many)\n1,2,Apple\n" : "latitude,longitude,species\n1,2,Apple\n3,4,Pear\(many)\n"
        #expect(throws: InterchangeError.invalidCSV(
            line: inHeader ? 1 : 3, reason: "a record with more than 65536 fields; is this a CSV file of trees, and is its separator the header's?")) {
            try Self.readCSVFile(Array(csv.utf8))
        }
        let most = String(repeating: ",", count: CSVRecordReader.maximumFields - 3)
        #expect(try Self.readCSVFile(Array("latitude,longitude,species\(most)\n1,2,Apple\(most)\n".utf8)).count == 1)
    }

    /// A file saved in Latin-1 is refused at the line of its first such text, not stored with
    /// its letters replaced; UTF-8 with a byte order mark is read.
    @Test func csvTextThatIsNotUTF8IsRefusedAtItsLine() throws {
        let latin1: [UInt8] = Array("latitude,longitude,species,notes\n1,2,Apple,ok\n3,4,Pear,Gr".utf8) + [0xFC] + Array("n\n".utf8)
        #expect(throws: InterchangeError.invalidCSV(
            line: 3, reason: "column 4 is not UTF-8 text; save the file as UTF-8 (\"CSV UTF-8\" in a spreadsheet)")) {
            try Self.readCSVFile(latin1)
        }
        let utf8 = [0xEF, 0xBB, 0xBF] + Array("latitude,longitude,species,notes\r\n3,4,Pear,Grün\r\n".utf8)
        #expect(try Self.readCSVFile(utf8).map(\.notes) == ["Grün"])
    }

    @Test func jsonTextThatIsNotUTF8IsRefusedAtItsLine() throws {
        for escaped in [false, true] {
            let parts = Self.tree(#""notes": "Gr@n\#(escaped ? #"\n"# : "")""#).components(separatedBy: "@")
            let bytes = Array(parts[0].utf8) + [0xFC] + Array(parts[1].utf8)
            let error = try #require(throws: InterchangeError.self) { try readJSON(bytes) }
            #expect(error.line == 3)
            #expect(error.reason == "a string that is not UTF-8 text; save the file as UTF-8")
        }
    }

    /// A number a Double cannot hold is refused as too large; NaN and Infinity are not JSON.
    @Test(arguments: [
        (#""altitude": 1e400"#, "the number 1e400 is too large (beyond ±1.8e308)"),
        (#""altitude": -2E+999"#, "the number -2E+999 is too large (beyond ±1.8e308)"),
        (#""altitude": NaN"#, "invalid value 'NaN'"),
        (#""altitude": -Infinity"#, "invalid value '-Infinity'"),
    ])
    func jsonNumbersBeyondADoubleAreRefusedAsTooLarge(member: String, reason: String) throws {
        let error = try #require(jsonError(Self.tree(member)))
        #expect(error.line == 3)
        #expect(error.reason == reason)
    }

    @Test func aLongCSVRecordUnderTheBoundIsRead() throws {
        let note = String(repeating: "n", count: CSVRecordReader.maximumRecordBytes - 100)
        let trees = try Self.readCSVFile(Array("latitude,longitude,species,notes\n1,2,Apple,\(note)\n".utf8))
        #expect(trees.first?.notes?.count == note.count)
    }

    /// One object with many keys and a long nested array are read whole and right, by any chunking.
    @Test func manyKeysAndLongArraysAreReadWhole() throws {
        let keys = (0..<3000).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let items = (0..<3000).map { "[\($0), [\($0)]]" }.joined(separator: ", ")
        let text = Self.tree(#""createdAt": "2024-05-01T10:00:00Z", \#(keys), "extra": [\#(items)], "notes": "end""#)
        let read = try ChunkingVerifier(sizes: [1, 7, 4096]).verify(text) { try readJSON($0) }
        #expect(read.trees.count == 1)
        #expect(read.trees.first?.notes == "end")
    }
}
