import Foundation

/// The one text codec of `trees`: ISO 8601 times (written and parsed), decimal numbers, and
/// escaping for JSON, XML and HTML. Every reader, writer and command output goes through it, so a
/// tree's date or number is the same text in every format and every command.
///
/// It works on UTF-8 bytes appended to an `[UInt8]` (the hot paths of exports and replays build
/// no `String`), with `String` conveniences beside. Dates are in the proleptic Gregorian calendar
/// (Foundation's formatters switch to the Julian one before 1582), in UTC, to the millisecond.
public enum TextCodec {
    // MARK: - ISO 8601

    /// How many digits of a second a written time carries.
    public enum Fraction: Sendable {
        /// Always three: `2026-05-01T10:00:00.000Z` (fixes, command output).
        case milliseconds
        /// Three when the time has a fraction of a second, none otherwise: `…T10:00:00Z`,
        /// `…T10:00:00.250Z` (GPX, KML, CSV).
        case whenPresent
        /// None, the fraction cut off (not rounded): `…T10:00:00Z`, the only form the iOS Tree
        /// Tracker app's parser accepts.
        case wholeSeconds
    }

    /// Appends `date` as an ISO 8601 UTC time, rounded to the millisecond. Years outside 0000–9999
    /// are written with a sign (`-0001`) or more digits (`12345`), as ISO 8601's expanded form;
    /// a date too far to break into fields (or not finite) is written as 1970-01-01T00:00:00Z.
    public static func appendISO8601(_ date: Date, fraction: Fraction = .milliseconds, to out: inout [UInt8]) {
        var d = date
        if fraction == .wholeSeconds {
            let ms = (date.timeIntervalSince1970 * 1000).rounded()
            d = Date(timeIntervalSince1970: (ms / 1000).rounded(.down))
        }
        let f = UTCFields(d) ?? UTCFields(Date(timeIntervalSince1970: 0))!
        if f.year < 0 { out.append(UInt8(ascii: "-")) }
        appendPadded(abs(f.year), width: 4, to: &out)
        out.append(UInt8(ascii: "-")); appendPadded(f.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-")); appendPadded(f.day, width: 2, to: &out)
        out.append(UInt8(ascii: "T")); appendPadded(f.hour, width: 2, to: &out)
        out.append(UInt8(ascii: ":")); appendPadded(f.minute, width: 2, to: &out)
        out.append(UInt8(ascii: ":")); appendPadded(f.second, width: 2, to: &out)
        if fraction == .milliseconds || (fraction == .whenPresent && f.millisecond != 0) {
            out.append(UInt8(ascii: ".")); appendPadded(f.millisecond, width: 3, to: &out)
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// `date` as an ISO 8601 UTC time; see ``appendISO8601(_:fraction:to:)``.
    public static func iso8601(_ date: Date, fraction: Fraction = .milliseconds) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        appendISO8601(date, fraction: fraction, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses an ISO 8601 / RFC 3339 time: `2024-05-01T10:00:00Z`, `…T10:00:00.250+02:00`,
    /// `…T10:00:00` (no zone: UTC), `2024-05-01` (midnight UTC), a space or `t` for `T`, a comma
    /// for the decimal point, a signed or longer year (`-0001`, `12345`). Surrounding whitespace
    /// is ignored. Nil for anything else, including impossible days (`2023-02-29`) and times.
    public static func parseISO8601(_ raw: UnsafeBufferPointer<UInt8>) -> Date? {
        var i = 0
        var end = raw.count
        while i < end && isSpace(raw[i]) { i += 1 }
        while end > i && isSpace(raw[end - 1]) { end -= 1 }
        let b = raw
        func number(_ count: Int) -> Int? {
            guard end - i >= count else { return nil }
            var v = 0
            for _ in 0..<count {
                let d = b[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
                i += 1
            }
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < end, b[i] == c else { return false }
            i += 1
            return true
        }
        var yearSign = 1
        if i < end, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
            yearSign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
        }
        var yearDigits = 0
        var year = 0
        while i < end, b[i] &- UInt8(ascii: "0") < 10, yearDigits < 6 {
            year = year * 10 + Int(b[i] &- UInt8(ascii: "0")); yearDigits += 1; i += 1
        }
        guard yearDigits >= 4 else { return nil }
        year *= yearSign
        guard expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")), let day = number(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year) else { return nil }
        var seconds = Double(CivilDate.days(year: year, month: month, day: day) * 86400)
        if i == end { return Date(timeIntervalSince1970: seconds) }
        guard b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") else { return nil }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if i < end, b[i] == UInt8(ascii: ":") {
            i += 1
            guard let s = number(2) else { return nil }
            second = s
            if i < end, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
                i += 1
                var digits: Int64 = 0
                var count = 0
                while i < end, b[i] &- UInt8(ascii: "0") < 10 {
                    if count < 15 {
                        digits = digits * 10 + Int64(b[i] &- UInt8(ascii: "0"))
                        count += 1
                    }
                    i += 1
                }
                guard count > 0 else { return nil }
                fraction = Double(digits) / powersOfTen[count]
            }
        }
        guard hour <= 24, minute <= 59, second <= 60 else { return nil }
        seconds += Double(hour * 3600 + minute * 60 + second) + fraction
        if i < end {
            if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
                i += 1
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign = b[i] == UInt8(ascii: "-") ? -1.0 : 1.0
                i += 1
                guard let oh = number(2) else { return nil }
                var om = 0
                if i < end {
                    _ = expect(UInt8(ascii: ":"))
                    guard let m = number(2) else { return nil }
                    om = m
                }
                guard oh <= 23, om <= 59 else { return nil }
                seconds -= sign * Double(oh * 3600 + om * 60)
            }
        }
        guard i == end else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Parses an ISO 8601 time held in bytes; see ``parseISO8601(_:)-(UnsafeBufferPointer<UInt8>)``.
    public static func parseISO8601(_ bytes: ArraySlice<UInt8>) -> Date? {
        bytes.withUnsafeBufferPointer { parseISO8601($0) }
    }

    /// Parses an ISO 8601 time held in a string.
    public static func parseISO8601(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parseISO8601($0) }
    }

    // MARK: - Decimals

    /// Appends the shortest decimal text that reads back as the same `Double`, never in exponent
    /// form (`1e-05` is written `0.00001`), without a trailing `.0` (`512.0` is `512`), and `0`
    /// for both zeros: what JSON, GPX's `xsd:decimal`, CSV and spreadsheets all accept. Not
    /// localised. A NaN or an infinity is refused: nothing is appended and the result is false.
    @discardableResult
    public static func appendDecimal(_ value: Double, to out: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        if value == 0 { out.append(UInt8(ascii: "0")); return true }
        if value == value.rounded(), value.magnitude < 1e15 {
            appendInteger(Int(value), to: &out)
            return true
        }
        var text = value.description
        text.withUTF8 { p in
            guard let e = p.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
                if p.count > 2, p[p.count - 2] == UInt8(ascii: "."), p[p.count - 1] == UInt8(ascii: "0") {
                    out.append(contentsOf: p[..<(p.count - 2)])
                } else {
                    out.append(contentsOf: p)
                }
                return
            }
            appendExpanded(mantissa: p[..<e], exponent: p[(e + 1)...], to: &out)
        }
        return true
    }

    /// The decimal text of `value` (see ``appendDecimal(_:to:)``); nil for a NaN or an infinity.
    public static func decimal(_ value: Double) -> String? {
        var out: [UInt8] = []
        guard appendDecimal(value, to: &out) else { return nil }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value` rounded to `places` (0…9) decimal places, trailing zeros trimmed, no
    /// exponent (`51.5000001` to 3 places is `51.5`; `-0.0001` to 3 is `0`). False, and nothing
    /// appended, for a NaN or an infinity.
    @discardableResult
    public static func appendDecimal(_ value: Double, places: Int, to out: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        let p = min(max(places, 0), 9)
        let scaled = (value.magnitude * powersOfTen[p]).rounded()
        guard scaled < 9e18 else { return appendDecimal(value.rounded(), to: &out) }
        var units = Int64(scaled)
        if value < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        let divisor = Int64(powersOfTen[p])
        appendInteger(Int(units / divisor), to: &out)
        units %= divisor
        guard units != 0 else { return true }
        out.append(UInt8(ascii: "."))
        var digits = p
        while units % 10 == 0 { units /= 10; digits -= 1 }
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        var i = start + digits - 1
        while units > 0 { out[i] = UInt8(ascii: "0") + UInt8(units % 10); units /= 10; i -= 1 }
        return true
    }

    /// Appends the decimal digits of `value`, with a `-` when negative.
    public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { d in
            var v = value.magnitude
            var i = d.count
            repeat {
                i -= 1
                d[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            } while v > 0
            if value < 0 { out.append(UInt8(ascii: "-")) }
            out.append(contentsOf: d[i...])
        }
    }

    // MARK: - Escaping

    /// Appends a JSON string literal, quotes included: `"` and `\` escaped, newline, return and
    /// tab as `\n`, `\r`, `\t`, other control characters as `\u00XX`; everything else as UTF-8.
    public static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { p in
            if !p.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
                out.append(contentsOf: p)
                return
            }
            for b in p {
                switch b {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\\")); out.append(b)
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
                case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
                case ..<0x20:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    out.append(hexDigit(b >> 4)); out.append(hexDigit(b & 0xF))
                default: out.append(b)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A JSON string literal, quotes included; see ``appendJSONString(_:to:)``.
    public static func jsonString(_ text: String) -> String {
        var out: [UInt8] = []
        appendJSONString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends text escaped for XML content and attribute values: `& < > " '` become references;
    /// control characters XML 1.0 cannot carry (all below U+0020 but tab, newline and return)
    /// are dropped.
    public static func appendXMLEscaped(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { p in
            if !p.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">")
                || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") || $0 < 0x20 }) {
                out.append(contentsOf: p)
                return
            }
            for b in p {
                switch b {
                case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): out.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): out.append(contentsOf: "&apos;".utf8)
                case 0x09, 0x0A, 0x0D: out.append(b)
                case ..<0x20: break
                default: out.append(b)
                }
            }
        }
    }

    /// Text escaped for XML; see ``appendXMLEscaped(_:to:)``.
    public static func xmlEscaped(_ text: String) -> String {
        var out: [UInt8] = []
        appendXMLEscaped(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Text escaped for HTML element content and attribute values: `& < > " '` become
    /// references; control characters (which HTML refuses or reads as other characters, C0 but
    /// tab and newline, and C1) become U+FFFD.
    public static func htmlEscaped(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(c)
            case _ where c.value < 0x20 || (0x7F...0x9F).contains(c.value): out += "\u{FFFD}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// JSON made safe to sit inside a `<script>` element, as the same JSON value.
    ///
    /// The HTML parser reads a script's text before JSON does: `</script>` would end the element and
    /// `<!--<script>` would swallow the rest of the page. So every `<`, `>` and `&` is written as a
    /// `\u` escape (they can only occur inside JSON strings, where the escape means the same
    /// character), and so are U+2028 and U+2029 (line ends to older JavaScript) and the characters
    /// HTML calls parse errors: DEL, the C1 controls and the noncharacters. JSON already escapes
    /// the C0 controls, NUL included.
    public static func jsonForScriptElement(_ json: String) -> String {
        var json = json
        return json.withUTF8 { bytes in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 64)
            let hex = Array("0123456789abcdef".utf8)
            func unit(_ u: UInt32) {
                out += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
                for shift: UInt32 in [12, 8, 4, 0] { out.append(hex[Int((u >> shift) & 0xF)]) }
            }
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                if b < 0x80 {
                    if b == UInt8(ascii: "<") || b == UInt8(ascii: ">") || b == UInt8(ascii: "&") || b == 0x7F {
                        unit(UInt32(b))
                    } else {
                        out.append(b)
                    }
                    i += 1
                    continue
                }
                // Valid UTF-8 (it comes from a String): the lead byte gives the length.
                let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                var v = UInt32(b) & (length == 4 ? 0x07 : length == 3 ? 0x0F : 0x1F)
                for k in 1..<length { v = v << 6 | UInt32(bytes[i + k] & 0x3F) }
                if v <= 0x9F || v == 0x2028 || v == 0x2029 || (0xFDD0...0xFDEF).contains(v) || v & 0xFFFE == 0xFFFE {
                    if v > 0xFFFF {
                        unit(0xD800 + ((v - 0x10000) >> 10))
                        unit(0xDC00 + ((v - 0x10000) & 0x3FF))
                    } else {
                        unit(v)
                    }
                } else {
                    out += bytes[i..<(i + length)]
                }
                i += length
            }
            return String(decoding: out, as: UTF8.self)
        }
    }

    // MARK: - Helpers

    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ]

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10 }

    static func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
        var digits = 1
        var v = value
        while v >= 10 { v /= 10; digits += 1 }
        if digits < width { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits)) }
        appendInteger(value, to: &out)
    }

    /// `1.5` and `-7` → `0.00000015`: the digits of a mantissa moved by an exponent, as plain text.
    private static func appendExpanded(mantissa m: Slice<UnsafeBufferPointer<UInt8>>, exponent e: Slice<UnsafeBufferPointer<UInt8>>,
                                       to out: inout [UInt8]) {
        var exponent = 0
        var negativeExponent = false
        for b in e {
            if b == UInt8(ascii: "-") { negativeExponent = true } else if b != UInt8(ascii: "+") { exponent = exponent * 10 + Int(b &- 48) }
        }
        if negativeExponent { exponent = -exponent }
        var digits: [UInt8] = []
        var point = -1
        var negative = false
        for b in m {
            if b == UInt8(ascii: "-") { negative = true } else if b == UInt8(ascii: ".") { point = digits.count } else { digits.append(b) }
        }
        if point < 0 { point = digits.count }
        var position = point + exponent
        if position <= 0 {
            digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: 1 - position), at: 0)
            position = 1
        } else if position > digits.count {
            digits.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: position - digits.count))
        }
        var fractionEnd = digits.count
        while fractionEnd > position && digits[fractionEnd - 1] == UInt8(ascii: "0") { fractionEnd -= 1 }
        if negative { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: digits[..<position])
        if fractionEnd > position {
            out.append(UInt8(ascii: "."))
            out.append(contentsOf: digits[position..<fractionEnd])
        }
    }
}
