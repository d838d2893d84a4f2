import Foundation

/// Text from a store or an input file made safe for a terminal: control characters (C0, DEL, C1) are shown as
/// `\u{…}` escapes, so a value from an imported file cannot move the cursor or recolour the screen.
public enum TerminalText {
    public static func escaped(_ text: String) -> String {
        guard hasControl(text, keepingLayout: false) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for c in text.unicodeScalars {
            if isControl(c) {
                out += "\\u{" + String(c.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Like `escaped`, for a whole screen of human output: line feeds and tabs stay, and so do
    /// colour sequences (`ESC [ digits ; … m`) when `keepingColour` (output painted by the command
    /// line, whose stored and imported text is escaped before it is painted); every other control
    /// character is escaped, so text cannot move the cursor, clear the screen or set the window title.
    public static func escapedKeepingLayout(_ text: String, keepingColour: Bool = false) -> String {
        guard hasControl(text, keepingLayout: true) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if keepingColour, c == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[" {
                var j = i + 2
                while j < scalars.count, ("0"..."9").contains(scalars[j]) || scalars[j] == ";" { j += 1 }
                if j < scalars.count, scalars[j] == "m" {
                    for k in i...j { out.unicodeScalars.append(scalars[k]) }
                    i = j + 1
                    continue
                }
            }
            if isControl(c) && c != "\n" && c != "\t" {
                out += "\\u{" + String(c.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(c)
            }
            i += 1
        }
        return out
    }

    /// Whether `text` holds a character `isControl` names (line feeds and tabs aside when
    /// `keepingLayout`), read from its UTF-8 bytes: a listing of a whole orchard is megabytes.
    static func hasControl(_ text: String, keepingLayout: Bool) -> Bool {
        var text = text
        return text.withUTF8 { b in
            var i = 0
            while i < b.count {
                let c = b[i]
                if c < 0x20 {
                    if !(keepingLayout && (c == 0x0A || c == 0x09)) { return true }
                } else if c == 0x7F {
                    return true
                } else if c == 0xC2 {
                    // U+0080–U+009F
                    if i + 1 < b.count, (0x80...0x9F).contains(b[i + 1]) { return true }
                } else if c == 0xE2, i + 2 < b.count {
                    // U+2028–U+202E and U+2066–U+2069
                    if b[i + 1] == 0x80, (0xA8...0xAE).contains(b[i + 2]) { return true }
                    if b[i + 1] == 0x81, (0xA6...0xA9).contains(b[i + 2]) { return true }
                }
                i += 1
            }
            return false
        }
    }

    static func isControl(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || c.value == 0x7F || (0x80...0x9F).contains(c.value)
            || c.value == 0x2028 || c.value == 0x2029 || (0x202A...0x202E).contains(c.value) || (0x2066...0x2069).contains(c.value)
    }
}
