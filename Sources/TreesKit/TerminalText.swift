import Foundation

/// Text from a store or an input file made safe for a terminal: control characters (C0, DEL, C1) are shown as
/// `\u{…}` escapes, so a value from an imported file cannot move the cursor or recolour the screen.
public enum TerminalText {
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
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

    static func isControl(_ c: Unicode.Scalar) -> Bool {
        c.value < 0x20 || c.value == 0x7F || (0x80...0x9F).contains(c.value)
            || c.value == 0x2028 || c.value == 0x2029 || (0x202A...0x202E).contains(c.value) || (0x2066...0x2069).contains(c.value)
    }
}
