import Foundation
import TreesKit

/// Hand-written parsers for numbers and ISO 8601 times over UTF-8 bytes, and the matching
/// formatters. They avoid `String` work on the hot paths of the readers and writers.
package enum ByteParsing {
    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// The bytes without leading and trailing XML whitespace.
    static func trimmed<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence {
        var s = bytes.startIndex
        var e = bytes.endIndex
        while s < e && isSpace(bytes[s]) { bytes.formIndex(after: &s) }
        while e > s {
            let before = bytes.index(before: e)
            guard isSpace(bytes[before]) else { break }
            e = before
        }
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
}

extension ByteParsing {
    /// A UUID in its 36-character text form (either case), surrounding whitespace ignored.
    package static func uuid(_ raw: ArraySlice<UInt8>) -> UUID? {
        trimmed(raw).withUnsafeBufferPointer { UUID(text: $0) }
    }

    static func uuid(_ string: String) -> UUID? {
        var s = string
        return s.withUTF8 { UUID(text: UnsafeBufferPointer(rebasing: trimmed($0))) }
    }

    /// True when every byte is ASCII (below 0x80), checked eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if base[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The text of `bytes`, or nil when they are not UTF-8. `isASCII` says they are known to be
    /// ASCII, which needs no check.
    ///
    /// The generic `String(validating:as:)` looks its types up at run time on every call (a fifth
    /// of a JSON file's reading went there). Decoding replaces each ill-formed sequence with
    /// U+FFFD, whose bytes are well formed: the text has the very bytes given only when there was
    /// none.
    static func utf8Text(_ bytes: UnsafeBufferPointer<UInt8>, isASCII knownASCII: Bool = false) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        if knownASCII || isASCII(bytes) { return text }
        return text.utf8.elementsEqual(bytes) ? text : nil
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
        guard let s, let firstByte = s.utf8.first, let lastByte = s.utf8.last else { return nil }
        // The usual text starts and ends with an ASCII character other than white space.
        if firstByte < 0x80, lastByte < 0x80, !isSpace(firstByte), !isSpace(lastByte) { return s }
        guard let first = s.unicodeScalars.first, let last = s.unicodeScalars.last else { return nil }
        func space(_ c: Unicode.Scalar) -> Bool { c.isASCII ? isSpace(UInt8(c.value)) : c.properties.isWhitespace }
        if !space(first) && !space(last) { return s }
        guard !isBlank(s) else { return nil }
        return s.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ByteOutput {

    /// A UUID in text form, lower or upper case, without building a `String`.
    mutating func appendUUID(_ id: UUID, uppercase: Bool = false) {
        appendWritten(maxCount: 36) { p in
            id.writeText(into: p, uppercase: uppercase)
            return 36
        }
    }

    /// A decimal number as `TextCodec.appendDecimal` writes it (`0` for a NaN or an infinity,
    /// which every caller leaves out before).
    mutating func appendDecimal(_ value: Double) {
        appendWritten(maxCount: TextCodec.maxDecimalCount) { p in
            let n = TextCodec.writeDecimal(value, into: p)
            if n == 0 { p[0] = UInt8(ascii: "0"); return 1 }
            return n
        }
    }

    /// An ISO 8601 UTC time with milliseconds only when it has a fraction of a second. A time
    /// written just before in the same form is copied (a tree's creation, change and fix times
    /// are often one moment).
    mutating func appendISO8601(_ date: Date, fraction: TextCodec.Fraction = .whenPresent) {
        let seconds = date.timeIntervalSince1970
        var recent = lastTime
        if recent.seconds == seconds && recent.fraction == fraction {
            appendWritten(maxCount: TextCodec.maxISO8601Count) { recent.copy(into: $0) }
            return
        }
        appendWritten(maxCount: TextCodec.maxISO8601Count) { p in
            let n = TextCodec.writeISO8601(date, fraction: fraction, into: p)
            recent = RecentTime(seconds: seconds, fraction: fraction, from: p, count: n)
            return n
        }
        lastTime = recent
    }
}
