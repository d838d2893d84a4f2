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
        out.appendWritten(maxCount: maxISO8601Count) { writeISO8601(date, fraction: fraction, into: $0) }
    }

    /// Bytes ``writeISO8601(_:fraction:into:)`` writes at most.
    public static let maxISO8601Count = 32

    /// Writes `date` as ``appendISO8601(_:fraction:to:)`` appends it, into memory with room for
    /// ``maxISO8601Count`` bytes; returns how many it wrote.
    public static func writeISO8601(_ date: Date, fraction: Fraction, into p: UnsafeMutablePointer<UInt8>) -> Int {
        var d = date
        if fraction == .wholeSeconds {
            let ms = (date.timeIntervalSince1970 * 1000).rounded()
            d = Date(timeIntervalSince1970: (ms / 1000).rounded(.down))
        }
        let f = UTCFields(d) ?? UTCFields(Date(timeIntervalSince1970: 0))!
        var n = 0
        if f.year < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
        n += writePadded(abs(f.year), width: 4, into: p + n)
        p[n] = UInt8(ascii: "-"); writeTwoDigits(f.month, into: p + n + 1)
        p[n + 3] = UInt8(ascii: "-"); writeTwoDigits(f.day, into: p + n + 4)
        p[n + 6] = UInt8(ascii: "T"); writeTwoDigits(f.hour, into: p + n + 7)
        p[n + 9] = UInt8(ascii: ":"); writeTwoDigits(f.minute, into: p + n + 10)
        p[n + 12] = UInt8(ascii: ":"); writeTwoDigits(f.second, into: p + n + 13)
        n += 15
        if fraction == .milliseconds || (fraction == .whenPresent && f.millisecond != 0) {
            p[n] = UInt8(ascii: ".")
            p[n + 1] = UInt8(ascii: "0") + UInt8(f.millisecond / 100)
            writeTwoDigits(f.millisecond % 100, into: p + n + 2)
            n += 4
        }
        p[n] = UInt8(ascii: "Z")
        return n + 1
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
        out.appendWritten(maxCount: maxDecimalCount) { writeDecimal(value, into: $0) }
        return true
    }

    /// Bytes ``writeDecimal(_:into:)`` writes at most: the digits of the smallest subnormal
    /// written out in full, with its sign and point.
    public static let maxDecimalCount = 352

    /// Magnitudes below which a number that reads back from its value to 9 decimal places is written
    /// that way, trailing zeros trimmed, without the standard library's search for the shortest
    /// form: the usual coordinate, height or accuracy, for less than that search costs. The text is the same.
    /// Below 1e6 a double's spacing is at most 2⁻³³ (0.116e-9), so two numbers of 9 decimals lie at
    /// least 8 spacings apart and at most one of them reads back as the value: the shortest form,
    /// padded with zeros, is that one. Scaling by 1e9 then errs by less than 0.06 (the value's half
    /// spacing, scaled) plus 0.0625 (the product's, below 2⁵⁰), so rounding finds it.
    static let nineDecimalsBelow = 1e6

    /// Writes `value` as ``appendDecimal(_:to:)`` appends it, into memory with room for
    /// ``maxDecimalCount`` bytes; returns how many it wrote (none for a NaN or an infinity).
    public static func writeDecimal(_ value: Double, into p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else { return 0 }
        if value == 0 { p[0] = UInt8(ascii: "0"); return 1 }
        if value == value.rounded(), value.magnitude < 1e15 { return writeInteger(Int(value), into: p) }
        if value.magnitude < nineDecimalsBelow {
            let scaled = (value.magnitude * 1e9).rounded()
            if scaled / 1e9 == value.magnitude { return writeUnits(Int64(scaled), places: 9, negative: value < 0, into: p) }
        }
        // The standard library's shortest form, handed over as ASCII bytes (no `String` is made).
        var text = ShortestText()
        value.write(to: &text)
        return text.withBytes { t in
            guard let e = t.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else {
                var count = t.count
                if count > 2, t[count - 2] == UInt8(ascii: "."), t[count - 1] == UInt8(ascii: "0") { count -= 2 }
                p.update(from: t.baseAddress!, count: count)
                return count
            }
            return writeExpanded(mantissa: UnsafeBufferPointer(rebasing: t[..<e]),
                                 exponent: UnsafeBufferPointer(rebasing: t[(e + 1)...]), into: p)
        }
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
        out.appendWritten(maxCount: maxDecimalCount) { writeDecimal(value, places: places, into: $0) }
        return true
    }

    /// Writes `value` as ``appendDecimal(_:places:to:)`` appends it, into memory with room for
    /// ``maxDecimalCount`` bytes; returns how many it wrote (none for a NaN or an infinity).
    public static func writeDecimal(_ value: Double, places: Int, into p: UnsafeMutablePointer<UInt8>) -> Int {
        guard value.isFinite else { return 0 }
        let places = min(max(places, 0), 9)
        let scaled = (value.magnitude * powersOfTen[places]).rounded()
        guard scaled < 9e18 else { return writeDecimal(value.rounded(), into: p) }
        return writeUnits(Int64(scaled), places: places, negative: value < 0, into: p)
    }

    /// Writes `units` tenths, hundredths… (as `places`, 0…9, says) as a decimal, trailing zeros
    /// trimmed, with a `-` when `negative` and not zero.
    private static func writeUnits(_ units: Int64, places: Int, negative: Bool, into p: UnsafeMutablePointer<UInt8>) -> Int {
        var units = units
        var n = 0
        if negative && units != 0 { p[0] = UInt8(ascii: "-"); n = 1 }
        let divisor = Int64(powersOfTen[places])
        n += writeInteger(Int(units / divisor), into: p + n)
        units %= divisor
        guard units != 0 else { return n }
        p[n] = UInt8(ascii: ".")
        var digits = places
        while units % 10 == 0 { units /= 10; digits -= 1 }
        var i = n + digits
        while i > n {
            p[i] = UInt8(ascii: "0") + UInt8(units % 10)
            units /= 10
            i -= 1
        }
        return n + 1 + digits
    }

    /// Appends the decimal digits of `value`, with a `-` when negative.
    public static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        out.appendWritten(maxCount: maxIntegerCount) { writeInteger(value, into: $0) }
    }

    /// Bytes ``writeInteger(_:into:)`` writes at most.
    public static let maxIntegerCount = 20

    /// Writes the decimal digits of `value`, with a `-` when negative, into memory with room for
    /// ``maxIntegerCount`` bytes; returns how many it wrote.
    public static func writeInteger(_ value: Int, into p: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        if value < 0 { p[0] = UInt8(ascii: "-"); n = 1 }
        var v = value.magnitude
        var digits = 1
        var scale: UInt = 10
        while digits < 20 && v >= scale {
            digits += 1
            if digits < 20 { scale &*= 10 }
        }
        var i = n + digits - 1
        repeat {
            p[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            i -= 1
        } while v > 0
        return n + digits
    }

    // MARK: - Escaping

    /// Appends a JSON string literal, quotes included: `"` and `\` escaped, newline, return and
    /// tab as `\n`, `\r`, `\t`, other control characters as `\u00XX`; everything else as UTF-8.
    public static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { t in out.appendWritten(maxCount: maxJSONStringCount(t.count)) { writeJSONString(t, into: $0) } }
    }

    /// Bytes ``writeJSONString(_:into:)`` writes at most for `count` bytes of text.
    public static func maxJSONStringCount(_ count: Int) -> Int { count * 6 + 2 }

    /// Writes UTF-8 `text` as ``appendJSONString(_:to:)`` appends it, into memory with room for
    /// ``maxJSONStringCount(_:)`` bytes; returns how many it wrote.
    public static func writeJSONString(_ text: UnsafeBufferPointer<UInt8>, into p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = UInt8(ascii: "\"")
        var n = 1
        if !text.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
            if let base = text.baseAddress { (p + 1).update(from: base, count: text.count) }
            n += text.count
        } else {
            for b in text {
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): p[n] = UInt8(ascii: "\\"); p[n + 1] = b; n += 2
                case 0x0A: p[n] = UInt8(ascii: "\\"); p[n + 1] = UInt8(ascii: "n"); n += 2
                case 0x0D: p[n] = UInt8(ascii: "\\"); p[n + 1] = UInt8(ascii: "r"); n += 2
                case 0x09: p[n] = UInt8(ascii: "\\"); p[n + 1] = UInt8(ascii: "t"); n += 2
                case ..<0x20:
                    p[n] = UInt8(ascii: "\\"); p[n + 1] = UInt8(ascii: "u"); p[n + 2] = UInt8(ascii: "0"); p[n + 3] = UInt8(ascii: "0")
                    p[n + 4] = hexDigit(b >> 4); p[n + 5] = hexDigit(b & 0xF)
                    n += 6
                default: p[n] = b; n += 1
                }
            }
        }
        p[n] = UInt8(ascii: "\"")
        return n + 1
    }

    /// A JSON string literal, quotes included; see ``appendJSONString(_:to:)``.
    public static func jsonString(_ text: String) -> String {
        var out: [UInt8] = []
        appendJSONString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends text escaped for XML content: `& < > " '` become references, and so does a carriage
    /// return (`&#13;`), which a reader would otherwise turn into a line feed; characters XML 1.0
    /// cannot carry (all below U+0020 but tab, newline and return, and U+FFFE and U+FFFF) are
    /// dropped (see ``xmlDropsCharacters(_:)``). Returns whether any were.
    @discardableResult
    public static func appendXMLEscaped(_ text: String, to out: inout [UInt8]) -> Bool {
        appendXML(text, attribute: false, to: &out)
    }

    /// Appends text escaped for an XML attribute value: as ``appendXMLEscaped(_:to:)``, and tab and
    /// newline as `&#9;` and `&#10;` too, which a reader's attribute-value normalisation would
    /// otherwise turn into spaces. Returns whether characters XML cannot carry were dropped.
    @discardableResult
    public static func appendXMLAttributeEscaped(_ text: String, to out: inout [UInt8]) -> Bool {
        appendXML(text, attribute: true, to: &out)
    }

    private static func appendXML(_ text: String, attribute: Bool, to out: inout [UInt8]) -> Bool {
        var text = text
        var dropped = false
        text.withUTF8 { t in
            out.appendWritten(maxCount: maxXMLEscapedCount(t.count)) { writeXMLEscaped(t, attribute: attribute, into: $0, dropped: &dropped) }
        }
        return dropped
    }

    /// Bytes ``writeXMLEscaped(_:into:)`` writes at most for `count` bytes of text.
    public static func maxXMLEscapedCount(_ count: Int) -> Int { count * 6 }

    /// Writes UTF-8 `text` as ``appendXMLEscaped(_:to:)`` appends it, into memory with room for
    /// ``maxXMLEscapedCount(_:)`` bytes; returns how many it wrote.
    public static func writeXMLEscaped(_ text: UnsafeBufferPointer<UInt8>, into p: UnsafeMutablePointer<UInt8>) -> Int {
        var dropped = false
        return writeXMLEscaped(text, attribute: false, into: p, dropped: &dropped)
    }

    /// Writes UTF-8 `text` escaped for XML content, or for an attribute value when `attribute`
    /// (see ``appendXMLAttributeEscaped(_:to:)``), into memory with room for
    /// ``maxXMLEscapedCount(_:)`` bytes; returns how many it wrote, and sets `dropped` when it left
    /// out characters XML cannot carry.
    public static func writeXMLEscaped(_ text: UnsafeBufferPointer<UInt8>, attribute: Bool, into p: UnsafeMutablePointer<UInt8>,
                                       dropped: inout Bool) -> Int {
        if !needsXMLEscaping(text) {
            if let base = text.baseAddress { p.update(from: base, count: text.count) }
            return text.count
        }
        var n = 0
        func put(_ reference: StaticString) {
            (p + n).update(from: reference.utf8Start, count: reference.utf8CodeUnitCount)
            n += reference.utf8CodeUnitCount
        }
        var i = 0
        while i < text.count {
            let b = text[i]
            switch b {
            case UInt8(ascii: "&"): put("&amp;")
            case UInt8(ascii: "<"): put("&lt;")
            case UInt8(ascii: ">"): put("&gt;")
            case UInt8(ascii: "\""): put("&quot;")
            case UInt8(ascii: "'"): put("&apos;")
            case 0x0D: put("&#13;")
            case 0x09 where attribute: put("&#9;")
            case 0x0A where attribute: put("&#10;")
            case 0x09, 0x0A: p[n] = b; n += 1
            case ..<0x20: dropped = true
            case 0xEF where isNonCharacterFFFx(text, at: i): i += 2; dropped = true
            default: p[n] = b; n += 1
            }
            i += 1
        }
        return n
    }

    /// Whether UTF-8 `text` holds a byte XML text does not hold as itself: a control character,
    /// `"`, `&`, `'`, `<`, `>`, or 0xEF (which starts U+FFFE and U+FFFF). Eight bytes at a time: a
    /// word has a byte below 0x20 when subtracting 0x20 from each byte borrows from one whose top
    /// bit was clear, and a byte equal to `c` when the word XOR `c` in every byte has a zero byte;
    /// `&` and `'` (0x26, 0x27) are one test once the lowest bit is set, `<` and `>` (0x3C, 0x3E)
    /// one once the second lowest is. Either test may mark another byte of a word that has one,
    /// never a word that has none.
    static func needsXMLEscaping(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        @inline(__always) func special(_ w: UInt64) -> Bool {
            (w &- ones &* 0x20) & ~w & highs != 0 || hasZero(w ^ (ones &* 0x22)) || hasZero((w | ones) ^ (ones &* 0x27))
                || hasZero((w | (ones &* 2)) ^ (ones &* 0x3E)) || hasZero(w ^ (ones &* 0xEF))
        }
        let count = text.count
        guard count >= 8 else {
            // A short text, in a word of letters.
            var w = ones &* UInt64(UInt8(ascii: "a"))
            withUnsafeMutableBytes(of: &w) { $0.copyMemory(from: UnsafeRawBufferPointer(text)) }
            return special(w)
        }
        var i = 0
        while i + 8 < count {
            if special(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { return true }
            i += 8
        }
        // The last eight bytes, some of them seen already.
        return special(UnsafeRawPointer(base + count - 8).loadUnaligned(as: UInt64.self))
    }

    /// Whether the UTF-8 `text` holds U+FFFE or U+FFFF (`EF BF BE`, `EF BF BF`) at `i`.
    private static func isNonCharacterFFFx(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
        i + 2 < text.count && text[i] == 0xEF && text[i + 1] == 0xBF && (text[i + 2] == 0xBE || text[i + 2] == 0xBF)
    }

    /// Whether ``appendXMLEscaped(_:to:)`` drops characters of `text`: control characters other
    /// than tab, newline and return, U+FFFE or U+FFFF, none of which XML 1.0 can carry.
    public static func xmlDropsCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { c in
            (c.value < 0x20 && c != "\t" && c != "\n" && c != "\r") || c.value == 0xFFFE || c.value == 0xFFFF
        }
    }

    /// Text escaped for XML content; see ``appendXMLEscaped(_:to:)``.
    public static func xmlEscaped(_ text: String) -> String {
        var out: [UInt8] = []
        appendXMLEscaped(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Text escaped for an XML attribute value; see ``appendXMLAttributeEscaped(_:to:)``.
    public static func xmlAttributeEscaped(_ text: String) -> String {
        var out: [UInt8] = []
        appendXMLAttributeEscaped(text, to: &out)
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
        out.appendWritten(maxCount: maxIntegerCount + width) { writePadded(value, width: width, into: $0) }
    }

    /// The digits of `value` (not negative), with leading zeros to `width`.
    static func writePadded(_ value: Int, width: Int, into p: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var v = value
        while v >= 10 { v /= 10; digits += 1 }
        var n = 0
        while n < width - digits { p[n] = UInt8(ascii: "0"); n += 1 }
        return n + writeInteger(value, into: p + n)
    }

    /// Two digits of `value` (0…99).
    @inline(__always)
    static func writeTwoDigits(_ value: Int, into p: UnsafeMutablePointer<UInt8>) {
        p[0] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
        p[1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
    }

    /// `1.5` and `-7` → `0.00000015`: the digits of a mantissa moved by an exponent, as plain text.
    private static func writeExpanded(mantissa m: UnsafeBufferPointer<UInt8>, exponent e: UnsafeBufferPointer<UInt8>,
                                      into p: UnsafeMutablePointer<UInt8>) -> Int {
        var exponent = 0
        var negativeExponent = false
        for b in e {
            if b == UInt8(ascii: "-") { negativeExponent = true } else if b != UInt8(ascii: "+") { exponent = exponent * 10 + Int(b &- 48) }
        }
        if negativeExponent { exponent = -exponent }
        // At most 17 significant digits: kept on the stack.
        var digitStore: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digitStore) { store in
            var count = 0
            var point = -1
            var negative = false
            for b in m {
                if b == UInt8(ascii: "-") { negative = true } else if b == UInt8(ascii: ".") { point = count } else if count < store.count {
                    store[count] = b; count += 1
                }
            }
            if point < 0 { point = count }
            var n = 0
            if negative { p[0] = UInt8(ascii: "-"); n = 1 }
            let position = point + exponent
            // Digit `i` of the number as written: the mantissa's, or a zero it is moved across.
            func digit(_ i: Int) -> UInt8 {
                let k = i - (position <= 0 ? 1 - position : 0)
                return k >= 0 && k < count ? store[k] : UInt8(ascii: "0")
            }
            let leading = position <= 0 ? 1 - position : 0
            let integerDigits = max(position, 1)
            let total = max(count + leading, integerDigits)
            var fractionEnd = total
            while fractionEnd > integerDigits && digit(fractionEnd - 1) == UInt8(ascii: "0") { fractionEnd -= 1 }
            for i in 0..<integerDigits { p[n] = digit(i); n += 1 }
            if fractionEnd > integerDigits {
                p[n] = UInt8(ascii: "."); n += 1
                for i in integerDigits..<fractionEnd { p[n] = digit(i); n += 1 }
            }
            return n
        }
    }
}

/// Receives the text `Double.write(to:)` makes (at most 24 ASCII bytes), without a `String`.
private struct ShortestText: TextOutputStream {
    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count = 0

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { _writeASCII($0) }
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        let start = count
        withUnsafeMutableBytes(of: &storage) { s in
            for (i, b) in buffer.enumerated() where start + i < s.count { s[start + i] = b }
        }
        count = min(start + buffer.count, 32)
    }

    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeBytes(of: storage) { body(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: count)) }
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes into memory with room for `maxCount` bytes (it returns how many
    /// it wrote): the text codec writes into memory, and arrays take its bytes this way.
    @inlinable
    public mutating func appendWritten(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Swift.max(maxCount, 1)) { buffer in
            let n = body(buffer.baseAddress!)
            append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<n]))
        }
    }
}
