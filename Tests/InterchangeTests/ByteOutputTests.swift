import Foundation
import Testing
import TreesKit
@testable import Interchange

/// The output buffer of every writer: what reaches the sink, in what blocks, and a record larger
/// than the buffer.
@Suite struct ByteOutputTests {
    /// Collects what a sink is handed, block by block.
    final class Blocks {
        var blocks: [[UInt8]] = []
        var joined: [UInt8] { blocks.flatMap { $0 } }
    }

    @Test func blocksReachTheSinkInOrderOnceFull() throws {
        let got = Blocks()
        var out = ByteOutput(blockSize: 64) { got.blocks.append(Array($0)) }
        var expected: [UInt8] = []
        for i in 0..<1_000 {
            out.append("<n>"); out.appendInteger(i - 500); out.append(byte: UInt8(ascii: ","))
            out.appendDecimal(Double(i) / 8); out.append("</n>\n")
            expected += Array("<n>\(i - 500),\(TextCodec.decimal(Double(i) / 8)!)</n>\n".utf8)
            #expect(out.byteCount == expected.count)
            try out.flushIfFull()
        }
        // Blocks are handed over between records, once a block's worth is buffered, and never empty.
        #expect(got.blocks.dropLast().allSatisfy { $0.count >= 64 && $0.count < 64 + 40 })
        try out.flush()
        try out.flush()
        #expect(got.joined == expected)
        #expect(got.blocks.allSatisfy { !$0.isEmpty })
        #expect(out.byteCount == expected.count)
    }

    /// Texts of every length up to 40 bytes, copied as words or byte by byte, one after another:
    /// each arrives whole and in place, and nothing beyond it is touched.
    @Test func textsOfEveryLengthArriveWhole() throws {
        let got = Blocks()
        var out = ByteOutput(blockSize: 48) { got.blocks.append(Array($0)) }
        var expected: [UInt8] = []
        for length in 0...40 {
            let text = (0..<length).map { UInt8(ascii: "a") + UInt8(($0 * 7 + length) % 26) }
            text.withUnsafeBufferPointer { out.append(bytes: $0) }
            out.append("|")
            out.append("<trees:horizontalAccuracy>")
            expected += text + Array("|<trees:horizontalAccuracy>".utf8)
            try out.flushIfFull()
        }
        try out.flush()
        #expect(String(decoding: got.joined, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    /// A time written again right after itself is copied from the last one: the copy must be the
    /// time's own text in the form asked for, whatever came before it.
    @Test func timesWrittenAgainAreTheirOwnText() throws {
        let got = Blocks()
        var out = ByteOutput(blockSize: 32) { got.blocks.append(Array($0)) }
        let whole = Date(timeIntervalSince1970: 1_795_914_123), fraction = Date(timeIntervalSince1970: 1_795_914_123.25)
        let sequence: [(Date, TextCodec.Fraction)] = [
            (whole, .whenPresent), (whole, .whenPresent), (whole, .milliseconds), (whole, .milliseconds), (whole, .whenPresent),
            (fraction, .whenPresent), (fraction, .whenPresent), (fraction, .wholeSeconds), (fraction, .whenPresent),
            (whole, .wholeSeconds), (Date(timeIntervalSince1970: -62_167_219_200.001), .whenPresent),
            (Date(timeIntervalSince1970: -62_167_219_200.001), .whenPresent), (whole, .whenPresent),
        ]
        var expected: [UInt8] = []
        for (date, form) in sequence {
            out.appendISO8601(date, fraction: form); out.append(",")
            TextCodec.appendISO8601(date, fraction: form, to: &expected); expected.append(UInt8(ascii: ","))
            try out.flushIfFull()
        }
        try out.flush()
        #expect(String(decoding: got.joined, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(String(decoding: got.joined, as: UTF8.self).hasPrefix("2026-11-29T01:02:03Z,2026-11-29T01:02:03Z,2026-11-29T01:02:03.000Z,"))
    }

    @Test func aRecordLargerThanTheBufferIsKeptWhole() throws {
        let got = Blocks()
        var out = ByteOutput(blockSize: 16) { got.blocks.append(Array($0)) }
        out.append("start ")
        // Far more than the buffer holds (the block plus its margin): it grows, keeping what it had.
        let long = String(repeating: "Ölbaum & <Pippin> ", count: 4_000)
        out.appendXMLEscaped(long)
        out.append(UInt8(ascii: "."), repeating: 70_000)
        out.appendUUID(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, uppercase: true)
        try out.flush()
        let text = String(decoding: got.joined, as: UTF8.self)
        #expect(got.blocks.count == 1)
        #expect(text == "start " + TextCodec.xmlEscaped(long) + String(repeating: ".", count: 70_000) + "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        // And the grown buffer goes on as before.
        out.append("after")
        try out.flush()
        #expect(got.blocks.last == Array("after".utf8))
    }

    @Test func aSinkThatFailsKeepsTheBytes() throws {
        struct Full: Error {}
        var failing = true
        let got = Blocks()
        var out = ByteOutput(blockSize: 4) { bytes in
            if failing { throw Full() }
            got.blocks.append(Array(bytes))
        }
        out.append("abcdef")
        #expect(throws: Full.self) { try out.flushIfFull() }
        failing = false
        try out.flush()
        #expect(got.joined == Array("abcdef".utf8))
    }
}
