import Foundation
import TreesKit

/// Hand-written parsers for numbers and ISO 8601 times over UTF-8 bytes, and the matching
/// formatters. They avoid `String` work on the hot paths of the readers and writers.
enum ByteParsing {
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// The bytes without leading and trailing XML whitespace.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = bytes.startIndex
        var e = bytes.endIndex
        while s < e && isSpace(bytes[s]) { s += 1 }
        while e > s && isSpace(bytes[e - 1]) { e -= 1 }
        return bytes[s..<e]
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// A decimal number (`-12.5`, `3`, `1e-5`, `+.5`), surrounding whitespace ignored; nil for
    /// anything else, including `nan` and `inf`.
    ///
    /// Up to 15 significant digits and a small exponent take an exact fast path (one correctly
    /// rounded multiplication or division); everything else goes through the standard library.
    static func double(_ raw: ArraySlice<UInt8>) -> Double? {
        let bytes = trimmed(raw)
        guard !bytes.isEmpty else { return nil }
        var i = bytes.startIndex
        let end = bytes.endIndex
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var significant = 0
        var scale = 0
        var sawDigit = false
        while i < end, bytes[i] &- UInt8(ascii: "0") < 10 {
            sawDigit = true
            let d = UInt64(bytes[i] &- UInt8(ascii: "0"))
            if significant < 19 {
                if mantissa != 0 || d != 0 { significant += 1 }
                mantissa = mantissa &* 10 &+ d
            } else {
                scale += 1
                significant += 1
            }
            digits += 1
            i += 1
        }
        if i < end, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < end, bytes[i] &- UInt8(ascii: "0") < 10 {
                sawDigit = true
                let d = UInt64(bytes[i] &- UInt8(ascii: "0"))
                if significant < 19 {
                    if mantissa != 0 || d != 0 { significant += 1 }
                    mantissa = mantissa &* 10 &+ d
                    scale -= 1
                } else {
                    significant += 1
                }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < end, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < end, bytes[i] == UInt8(ascii: "-") { expNegative = true; i += 1 } else if i < end, bytes[i] == UInt8(ascii: "+") { i += 1 }
            var exp = 0
            var expDigits = 0
            while i < end, bytes[i] &- UInt8(ascii: "0") < 10 {
                if exp < 100_000 { exp = exp * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                expDigits += 1
                i += 1
            }
            guard expDigits > 0 else { return nil }
            scale += expNegative ? -exp : exp
        }
        guard i == end else { return nil }
        if significant <= 15 && scale >= -22 && scale <= 22 {
            var value = Double(mantissa)
            if scale < 0 { value /= powersOfTen[-scale] } else { value *= powersOfTen[scale] }
            return negative ? -value : value
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// A decimal integer, surrounding whitespace ignored.
    static func int(_ raw: ArraySlice<UInt8>) -> Int? {
        let bytes = trimmed(raw)
        guard !bytes.isEmpty else { return nil }
        var i = bytes.startIndex
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
        guard i < bytes.endIndex else { return nil }
        var value = 0
        while i < bytes.endIndex {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(d))
            guard !o1 && !o2 else { return nil }
            value = a
            i += 1
        }
        return negative ? -value : value
    }

    // MARK: - ISO 8601

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// An ISO 8601 / RFC 3339 time: `2024-05-01T10:00:00Z`, `…T10:00:00.250+02:00`, `…T10:00:00`
    /// (no zone: UTC), `2024-05-01` (midnight UTC). Surrounding whitespace ignored.
    static func date(_ raw: ArraySlice<UInt8>) -> Date? {
        let b = trimmed(raw)
        var i = b.startIndex
        let end = b.endIndex
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
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var seconds = Double(CivilDate.days(year: year, month: month, day: day) * 86400)
        if i == end { return Date(timeIntervalSince1970: seconds) }
        guard i < end, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") else { return nil }
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

    static func date(_ string: String) -> Date? { date(Array(string.utf8)[...]) }

    /// `2024-05-01T10:00:00Z`, with milliseconds (`…00.250Z`) when the time has a fraction of a second.
    static func iso8601(_ date: Date) -> String {
        guard let f = UTCFields(date) else { return "1970-01-01T00:00:00Z" }
        var out = ""
        out.reserveCapacity(24)
        if f.year < 0 { out += "-" }
        pad(&out, abs(f.year), 4); out += "-"
        pad(&out, f.month, 2); out += "-"
        pad(&out, f.day, 2); out += "T"
        pad(&out, f.hour, 2); out += ":"
        pad(&out, f.minute, 2); out += ":"
        pad(&out, f.second, 2)
        if f.millisecond != 0 { out += "."; pad(&out, f.millisecond, 3) }
        out += "Z"
        return out
    }

    private static func pad(_ out: inout String, _ value: Int, _ width: Int) {
        let s = String(value)
        if s.utf8.count < width { out += String(repeating: "0", count: width - s.utf8.count) }
        out += s
    }

    /// The shortest decimal text that reads back as the same `Double`, never in exponent form
    /// (`1e-05` becomes `0.00001`) and without a trailing `.0` (`512.0` becomes `512`), as GPX's
    /// `xsd:decimal`, JSON and spreadsheets all accept.
    static func decimal(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == 0 { return "0" }
        let s = value.description
        var hasExponent = false
        for b in s.utf8 where b == UInt8(ascii: "e") || b == UInt8(ascii: "E") { hasExponent = true; break }
        if !hasExponent {
            let u = s.utf8
            if u.count > 2, u[u.index(u.endIndex, offsetBy: -2)] == UInt8(ascii: "."), u.last == UInt8(ascii: "0") {
                return String(decoding: u.dropLast(2), as: UTF8.self)
            }
            return s
        }
        return expanded(s)
    }

    /// `1.5e-07` → `0.00000015`.
    private static func expanded(_ s: String) -> String {
        let parts = s.split(whereSeparator: { $0 == "e" || $0 == "E" })
        let exponent = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        var mantissa = String(parts[0])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let point = mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        var digits = mantissa.replacingOccurrences(of: ".", with: "")
        var position = point + exponent
        if position <= 0 {
            digits = String(repeating: "0", count: 1 - position) + digits
            position = 1
        } else if position > digits.count {
            digits += String(repeating: "0", count: position - digits.count)
        }
        let intPart = digits.prefix(position)
        var fracPart = String(digits.dropFirst(position))
        while fracPart.hasSuffix("0") { fracPart.removeLast() }
        return (negative ? "-" : "") + intPart + (fracPart.isEmpty ? "" : "." + fracPart)
    }
}

extension ByteParsing {
    /// A UUID in its 36-character text form (either case), surrounding whitespace ignored.
    static func uuid(_ raw: ArraySlice<UInt8>) -> UUID? {
        trimmed(raw).withUnsafeBufferPointer { UUID(text: $0) }
    }

    static func uuid(_ string: String) -> UUID? {
        var s = string
        return s.withUTF8 { uuid(Array($0)[...]) }
    }

    /// True when the text is empty or only whitespace (ASCII or Unicode).
    static func isBlank(_ s: String?) -> Bool {
        guard let s else { return true }
        for scalar in s.unicodeScalars {
            if scalar.isASCII {
                if !isSpace(UInt8(scalar.value)) { return false }
            } else if !scalar.properties.isWhitespace {
                return false
            }
        }
        return true
    }

    /// The text unless it is blank; trimmed only when it has outer whitespace.
    static func nonBlank(_ s: String?) -> String? {
        guard let s, let first = s.unicodeScalars.first, let last = s.unicodeScalars.last else { return nil }
        func space(_ c: Unicode.Scalar) -> Bool { c.isASCII ? isSpace(UInt8(c.value)) : c.properties.isWhitespace }
        if !space(first) && !space(last) { return s }
        guard !isBlank(s) else { return nil }
        return s.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ByteOutput {

    /// A UUID in text form, lower or upper case, without building a `String`.
    mutating func appendUUID(_ id: UUID, uppercase: Bool = false) {
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { raw in
            let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            id.writeText(into: p, uppercase: uppercase)
            append(bytes: UnsafeBufferPointer(start: p, count: 36))
        }
    }

    private mutating func appendPadded(_ value: Int, _ width: Int) {
        var digits: (UInt8, UInt8, UInt8, UInt8) = (48, 48, 48, 48)
        var x = value
        withUnsafeMutableBytes(of: &digits) { d in
            var i = width - 1
            while i >= 0 { d[i] = UInt8(ascii: "0") + UInt8(x % 10); x /= 10; i -= 1 }
            for i in 0..<width { append(byte: d[i]) }
        }
    }

    /// An ISO 8601 UTC time, as `ByteParsing.iso8601` writes it, without building a `String`.
    mutating func appendISO8601(_ date: Date) {
        guard let f = UTCFields(date), f.year >= 0 && f.year <= 9999 else { append(ByteParsing.iso8601(date)); return }
        appendPadded(f.year, 4); append(byte: UInt8(ascii: "-"))
        appendPadded(f.month, 2); append(byte: UInt8(ascii: "-"))
        appendPadded(f.day, 2); append(byte: UInt8(ascii: "T"))
        appendPadded(f.hour, 2); append(byte: UInt8(ascii: ":"))
        appendPadded(f.minute, 2); append(byte: UInt8(ascii: ":"))
        appendPadded(f.second, 2)
        if f.millisecond != 0 { append(byte: UInt8(ascii: ".")); appendPadded(f.millisecond, 3) }
        append(byte: UInt8(ascii: "Z"))
    }
}
