import Foundation
import Interchange
import Testing
import TreesKit

/// The iCalendar writer's content lines: escaping, folding at 75 octets, CRLF.
@Suite struct ICSWriterTests {
    @Test func textIsEscaped() {
        #expect(ICSWriter.escaped("a\\b;c,d\ne\r\nf\rg") == "a\\\\b\\;c\\,d\\ne\\nf\\ng")
        #expect(ICSWriter.escaped("tab\there") == "tab here")
    }

    /// A long line is cut before 75 octets, never inside a character, and unfolding gives it back.
    @Test(arguments: ["", "a", "é", "€", "🍎"]) func foldsAtCharacterBoundaries(filler: String) throws {
        for length in [60, 74, 75, 76, 150, 400] {
            let text = "DESCRIPTION:" + String(repeating: filler + "x", count: length / 2)
            var out: [UInt8] = []
            ICSWriter.appendFolded(text, to: &out)
            let written = try #require(String(bytes: out, encoding: .utf8), "folding split a UTF-8 sequence")
            #expect(written.hasSuffix("\r\n"))
            // "\r\n" is one Character: drop the final line end, then split at the others.
            let lines = written.dropLast().components(separatedBy: "\r\n")
            #expect(lines.allSatisfy { $0.utf8.count <= 75 })
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(" ") })
            #expect(lines.first.map { !$0.hasPrefix(" ") } == true)
            let unfolded = lines.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined()
            #expect(unfolded == text)
        }
    }

    @Test func calendarOfNothingIsStillACalendar() {
        let text = String(decoding: ICSWriter.calendar([], now: Date(timeIntervalSince1970: 1_777_629_600)), as: UTF8.self)
        #expect(text == "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//trees//care log//EN\r\nCALSCALE:GREGORIAN\r\nX-WR-CALNAME:Orchard care\r\nEND:VCALENDAR\r\n")
    }
}
