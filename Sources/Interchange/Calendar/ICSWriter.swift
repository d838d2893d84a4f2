import Foundation
import TreesKit

/// Writes cares that are due as an iCalendar file (RFC 5545): one VTODO per tree and kind.
///
/// Each to-do keeps the same UID for the same tree and kind, so a calendar that imports the file
/// again updates its to-dos rather than adding new ones. Lines end in CRLF and are folded so that
/// none is longer than 75 octets, never inside a UTF-8 sequence; text values are escaped.
public enum ICSWriter {
    /// A due care with what its to-do says.
    public struct Item: Sendable {
        public var due: DueCare
        /// The tree's collection, if any.
        public var collection: String?
        public init(due: DueCare, collection: String?) { self.due = due; self.collection = collection }
    }

    /// The calendar for `items`, stamped `now` (DTSTAMP).
    public static func calendar(_ items: [Item], now: Date) -> [UInt8] {
        var out: [UInt8] = []
        func line(_ text: String) { appendFolded(text, to: &out) }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//trees//care log//EN")
        line("CALSCALE:GREGORIAN")
        line("X-WR-CALNAME:Orchard care")
        let stamp = dateTime(now)
        for item in items {
            let d = item.due
            var summary = "\(d.kind.name): \(d.species)"
            if let v = d.variety { summary += " (\(v))" }
            summary += " \(ShortID.of(d.treeID))"
            var description = d.lastDone.map { "Last done \($0)." } ?? "Never done."
            if d.isOverdue { description += " Overdue by \(d.daysOverdue) day\(d.daysOverdue == 1 ? "" : "s")." }
            description += "\nTree \(d.treeID.lowercaseText)"
            line("BEGIN:VTODO")
            line("UID:" + escaped(d.stableID))
            line("DTSTAMP:" + stamp)
            line("DUE;VALUE=DATE:" + date(d.due))
            line("SUMMARY:" + escaped(summary))
            line("DESCRIPTION:" + escaped(description))
            if let c = item.collection { line("CATEGORIES:" + escaped(c)) }
            line("STATUS:NEEDS-ACTION")
            line("END:VTODO")
        }
        line("END:VCALENDAR")
        return out
    }

    /// TEXT escaping (RFC 5545 3.3.11): backslash, semicolon, comma and line breaks.
    public static func escaped(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pendingCR = false
        while let c = scalars.next() {
            if pendingCR { pendingCR = false; if c == "\n" { continue } }
            switch c {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\r": out += "\\n"; pendingCR = true
            case "\n": out += "\\n"
            default:
                // Other control characters are not allowed in a content line.
                if c.value < 0x20 || c.value == 0x7F { out += " " } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }

    /// Appends `text` as a content line: folded before 75 octets (RFC 5545 3.1) at a character boundary, CRLF-ended.
    public static func appendFolded(_ text: String, to out: inout [UInt8]) {
        var width = 0
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if width + bytes.count > 75 {
                out += [0x0D, 0x0A, 0x20]
                width = 1
            }
            out += bytes
            width += bytes.count
        }
        out += [0x0D, 0x0A]
    }

    static func date(_ day: Day) -> String {
        let f = day.fields
        return String(format: "%04d%02d%02d", f.year, f.month, f.day)
    }

    static func dateTime(_ date: Date) -> String {
        guard let f = UTCFields(date) else { return "19700101T000000Z" }
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", f.year, f.month, f.day, f.hour, f.minute, f.second)
    }
}
