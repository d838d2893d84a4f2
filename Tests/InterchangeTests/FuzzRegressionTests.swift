import Foundation
import Testing
@testable import Interchange
import TreesTestSupport

/// Inputs the fuzzers (scripts/fuzz) found, kept so what they broke stays fixed.
@Suite struct FuzzRegressionTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Fuzz/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    /// What a GPX reader fed `pieces` one after the other makes of them.
    static func gpx(_ pieces: [ArraySlice<UInt8>]) -> String {
        var reader = GPXReader()
        var events = 0
        do {
            for piece in pieces { try reader.read(piece) { _ in events += 1 } }
            _ = try reader.finish { _ in events += 1 }
            return "\(events) events"
        } catch {
            return "\(error)"
        }
    }

    /// An XML declaration whose `?>` comes only after 1 KiB: its bogus `encoding` was honoured when
    /// the file arrived in one piece and ignored when it arrived in several. The declaration is
    /// searched in its first 1 KiB only, however the bytes arrive. (Both files hold bytes that are
    /// not XML text, refused where they are, however the bytes arrive.)
    @Test(arguments: [
        ("gpx-long-declaration", "line 11, column 28: byte 0xFF is not UTF-8; save the file as UTF-8 or declare its encoding"),
        ("inspect-long-declaration", "line 2, column 18: control character U+0000 is not allowed in XML"),
    ])
    func aLongXMLDeclarationReadsTheSameInAnyChunking(name: String, expected: String) throws {
        let bytes = try Self.fixture(name)
        #expect(ChunkingVerifier(sizes: [1, 3, 10, 1000, 1025, 4096]).verify(bytes) { Self.gpx($0) } == expected)
    }

    @Test func aShortDeclarationStillNamesItsEncoding() {
        let doc = "<?xml version=\"1.0\" encoding=\"UTF-60000\"?><gpx/>"
        #expect(ChunkingVerifier(sizes: [1, 7]).verify(doc) { Self.gpx($0) } == InterchangeError.unsupportedEncoding("UTF-60000").description)
    }

    /// A literal of thousands of bytes (NULs, CRs, invalid UTF-8) was "an invalid value" when the
    /// file came whole and "a value longer than 4096 bytes" when it came in pieces: now the length
    /// limit applies first, however the bytes arrive.
    @Test func aLongJSONLiteralIsRefusedTheSameInAnyChunking() throws {
        let bytes = try Self.fixture("json-long-literal")
        var error: InterchangeError?
        do { _ = try ChunkingVerifier(sizes: [1, 16, 4096, 5000]).verify(bytes) { try readJSON($0) } } catch let e as InterchangeError { error = e }
        #expect(error == .malformedJSON(line: 1, column: 28, reason: "a value longer than 4096 bytes"))
    }

    /// Markup of thousands of bytes with `>` inside it (quoted attribute values, a comment, a
    /// processing instruction, CDATA, a DOCTYPE's internal subset) arriving in small pieces: its end
    /// was searched for again from its start whenever a `>` arrived, in time quadratic in its
    /// length. The search now resumes where it stopped; what is read is the same in any chunking.
    @Test func markupFullOfGreaterThanSignsReadsTheSameInAnyChunking() throws {
        let bytes = try Self.fixture("gpx-many-gt-in-markup")
        let verifier = ChunkingVerifier(sizes: [1, 2, 3, 5, 13, 64, 1000, 4096], randomSplits: 4)
        #expect(try verifier.verify(bytes) { try tokenize($0) }.count == 15)
        #expect(verifier.verify(bytes) { Self.gpx($0) } == "3 events")
    }

    /// `<![CDATAc…` (not CDATA, not a DOCTYPE) with a control character two lines on: a file in
    /// one piece was refused for the markup, where it is; in small pieces the tokenizer waited for
    /// the markup's `>` before looking at it again, and the control character, decoded first, was
    /// reported instead. Markup whose kind is not yet known is looked at again as bytes arrive.
    @Test func markupOfNoKindIsRefusedWhereItIsInAnyChunking() throws {
        let bytes = try Self.fixture("gpx-chunked-error-line")
        #expect(ChunkingVerifier(sizes: [1, 2, 3, 7, 10, 13, 64, 4096], randomSplits: 4).verify(bytes) { Self.gpx($0) }
            == "line 35, column 6: unexpected markup '<!'")
        for prefix in ["<!", "<![", "<![CDAT", "<!DOC", "<"] {
            let doc = "<gpx>" + prefix + "x\n\u{1}</gpx>"
            let whole = Self.gpx([Array(doc.utf8)[...]])
            #expect(ChunkingVerifier(sizes: [1, 2, 5]).verify(doc) { Self.gpx($0) } == whole, "\(prefix)")
        }
    }

    /// A DOCTYPE whose search resumes where it stopped still refuses an `<!ENTITY` that arrives
    /// split across pieces.
    @Test func anEntityDeclarationSplitAcrossPiecesIsStillRefused() {
        let doc = "<!DOCTYPE gpx [ <!ATTLIST a b CDATA \"x>y\"> <!-- > --> <!ENTITY e \"boom\"> ]><gpx/>"
        #expect(xmlError(doc, ChunkingVerifier(sizes: [1, 2, 3, 7, 64, 4096])) == .malformedXML(line: 1, column: 55,
            reason: "the document type declaration declares entities; entity declarations are refused for safety"))
    }
}
