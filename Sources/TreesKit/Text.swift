import Foundation

/// Small text helpers shared by the formats and the command line.
public enum TextTools {
    /// A value as a message quotes it: whole up to `limit` characters, else its start and its
    /// length (`xxxx… (100000 characters)`), so that one long value cannot bury the message.
    public static func clipped(_ text: some StringProtocol, limit: Int = 80) -> String {
        guard text.count > limit else { return String(text) }
        return String(text.prefix(limit)) + "… (\(text.count) characters)"
    }

    /// A file-name slug: lower case ASCII letters and digits joined by `_` (`Victoria's Orchard` → `victorias_orchard`).
    public static func slug(_ text: String) -> String {
        var out = ""
        var pendingSeparator = false
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            if scalar == "'" || scalar == "\u{2019}" { continue }
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                if pendingSeparator && !out.isEmpty { out += "_" }
                pendingSeparator = false
                out.unicodeScalars.append(scalar)
            } else {
                pendingSeparator = true
            }
        }
        return out.lowercased()
    }

    /// Trims whitespace and returns nil for an empty result.
    public static func nonEmpty(_ text: String?) -> String? {
        guard let t = text?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
        return t
    }
}
