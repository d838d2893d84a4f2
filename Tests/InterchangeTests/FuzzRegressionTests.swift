import Foundation
import Testing
@testable import Interchange

/// Inputs the fuzzers (scripts/fuzz) found, kept so what they broke stays fixed.
@Suite struct FuzzRegressionTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Fuzz/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }

    /// What a GPX reader fed in pieces of `step` bytes makes of `bytes`.
    static func gpx(_ bytes: [UInt8], step: Int) -> String {
        var reader = GPXReader()
        var events = 0
        do {
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + step)
                try reader.read(bytes[i..<end]) { _ in events += 1 }
                i = end
            }
            _ = try reader.finish { _ in events += 1 }
            return "\(events) events"
        } catch {
            return "\(error)"
        }
    }

    /// An XML declaration whose `?>` comes only after 1 KiB: its bogus `encoding` was honoured when
    /// the file arrived in one piece and ignored when it arrived in several. The declaration is
    /// searched in its first 1 KiB only, however the bytes arrive.
    @Test(arguments: [
        ("gpx-long-declaration", "line 198, column 5: mismatched end tag </rtept>; expected </desc>"),
        ("inspect-long-declaration", "line 82, column 3: expected whitespace after the value of attribute 'creator'"),
    ])
    func aLongXMLDeclarationReadsTheSameInAnyChunking(name: String, expected: String) throws {
        let bytes = try Self.fixture(name)
        for step in [bytes.count, 1, 3, 10, 1000, 1025, 4096] {
            #expect(Self.gpx(bytes, step: step) == expected, "step \(step)")
        }
    }

    @Test func aShortDeclarationStillNamesItsEncoding() {
        let doc = Array("<?xml version=\"1.0\" encoding=\"UTF-60000\"?><gpx/>".utf8)
        for step in [doc.count, 1, 7] {
            #expect(Self.gpx(doc, step: step) == InterchangeError.unsupportedEncoding("UTF-60000").description)
        }
    }

    /// A literal of thousands of bytes (NULs, CRs, invalid UTF-8) was "an invalid value" when the
    /// file came whole and "a value longer than 4096 bytes" when it came in pieces: now the length
    /// limit applies first, however the bytes arrive.
    @Test func aLongJSONLiteralIsRefusedTheSameInAnyChunking() throws {
        let bytes = try Self.fixture("json-long-literal")
        for step in [bytes.count, 1, 16, 4096, 5000] {
            var error: InterchangeError?
            do { _ = try readJSON(bytes, chunk: step) } catch let e as InterchangeError { error = e }
            #expect(error == .malformedJSON(line: 1, column: 28, reason: "a value longer than 4096 bytes"), "step \(step)")
        }
    }
}
