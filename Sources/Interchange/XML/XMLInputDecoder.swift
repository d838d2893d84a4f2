import Foundation

/// Turns the raw bytes of an XML document into UTF-8, whatever encoding it was written in.
///
/// Detects a byte order mark (UTF-8, UTF-16 LE/BE) or the `encoding` of the XML declaration,
/// then transcodes chunk by chunk: ISO-8859-1, windows-1252 and UTF-16 become UTF-8; UTF-8 passes
/// through once checked. Chunk boundaries may fall anywhere, including inside a UTF-16 code unit,
/// surrogate pair or UTF-8 sequence.
///
/// Line ends are normalised as XML requires: a carriage return, alone or before a line feed,
/// becomes one line feed (a character reference `&#13;` is not a line end and is left alone).
///
/// Text that is not well formed stops the decoding: bytes that are not UTF-8, a lone UTF-16
/// surrogate, or a character XML 1.0 does not allow (controls but tab, line feed and carriage
/// return; U+FFFE, U+FFFF). What came before it is decoded; `problem` then says what is wrong,
/// found at the end of the output, and nothing more is decoded.
struct XMLInputDecoder {
    enum Encoding: Equatable { case undecided, utf8, utf16LE, utf16BE, latin1, windows1252 }

    private(set) var encoding: Encoding = .undecided
    /// Bytes held back until the encoding is known.
    private var head: [UInt8] = []
    /// A UTF-16 byte waiting for its partner.
    private var oddByte: UInt8?
    /// A UTF-16 high surrogate waiting for its low half.
    private var highSurrogate: UInt16?
    /// The start of a UTF-8 sequence that the chunk ended inside.
    private var partial: [UInt8] = []
    /// Why decoding stopped, at the end of what was decoded; nil while the text is well formed.
    private(set) var problem: String?
    /// Whether the last byte decoded was a carriage return (now a line feed).
    private var afterCarriageReturn = false

    /// Appends the UTF-8 form of `chunk` to `out`.
    mutating func decode(_ chunk: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], final: Bool) throws {
        guard problem == nil else { return }
        let start = out.count
        defer { normaliseLineEnds(&out, from: start) }
        if encoding == .undecided {
            head.append(contentsOf: chunk)
            guard try decide(final: final) else { return }
            let held = head
            head = []
            try held.withUnsafeBufferPointer { try transcode($0, into: &out, final: final) }
            return
        }
        try transcode(chunk, into: &out, final: final)
    }

    /// Turns each carriage return in `out` from `start` into a line feed, dropping the line feed
    /// that follows one.
    private mutating func normaliseLineEnds(_ out: inout [UInt8], from start: Int) {
        guard start < out.count else { return }
        // Most files hold no carriage return: `memchr` finds that out at a fraction of the cost of
        // comparing byte by byte (about 5 instructions a byte of every file read).
        let hasReturn = out.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return false }
            return memchr(base + start, 0x0D, b.count - start) != nil
        }
        guard afterCarriageReturn || hasReturn else { return }
        var kept = start
        for i in start..<out.count {
            let b = out[i]
            if b == 0x0A && afterCarriageReturn { afterCarriageReturn = false; continue }
            afterCarriageReturn = b == 0x0D
            out[kept] = afterCarriageReturn ? 0x0A : b
            kept += 1
        }
        out.removeSubrange(kept...)
    }

    /// Longest XML declaration searched for an `encoding`, in bytes.
    static let declarationLimit = 1024

    /// Chooses the encoding once enough of the head is known; false while more bytes are needed.
    private mutating func decide(final: Bool) throws -> Bool {
        let h = head
        if h.count >= 3, h[0] == 0xEF, h[1] == 0xBB, h[2] == 0xBF {
            head.removeFirst(3); encoding = .utf8; return true
        }
        if h.count >= 2, h[0] == 0xFF, h[1] == 0xFE { head.removeFirst(2); encoding = .utf16LE; return true }
        if h.count >= 2, h[0] == 0xFE, h[1] == 0xFF { head.removeFirst(2); encoding = .utf16BE; return true }
        if h.count < 4 && !final { return false }
        if h.count >= 4, h[0] == 0x3C, h[1] == 0, h[2] == 0x3F, h[3] == 0 { encoding = .utf16LE; return true }
        if h.count >= 4, h[0] == 0, h[1] == 0x3C, h[2] == 0, h[3] == 0x3F { encoding = .utf16BE; return true }
        let xmlDecl: [UInt8] = Array("<?xml".utf8)
        if h.count < 5 && !final && Array(h) == Array(xmlDecl[0..<h.count]) { return false }
        guard h.count >= 5, Array(h[0..<5]) == xmlDecl else { encoding = .utf8; return true }
        // Find the end of the declaration to read its encoding. Only its first `declarationLimit`
        // bytes are searched, however the document arrives, so the outcome never depends on how
        // the bytes were split into chunks.
        var end: Int?
        var i = 5
        let limit = min(h.count, Self.declarationLimit)
        while i + 1 < limit {
            if h[i] == UInt8(ascii: "?") && h[i + 1] == UInt8(ascii: ">") { end = i; break }
            i += 1
        }
        guard let declEnd = end else {
            if final || h.count >= Self.declarationLimit { encoding = .utf8; return true }
            return false
        }
        let declared = Self.declaredEncoding(h[5..<declEnd])
        guard let name = declared else { encoding = .utf8; return true }
        switch name.lowercased() {
        case "utf-8", "utf8", "us-ascii", "ascii", "utf-16", "utf-16le", "utf-16be", "utf16":
            // A UTF-16 declaration read through ASCII-compatible bytes means the file was re-saved as UTF-8.
            encoding = .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "iso-latin-1", "iso-ir-100", "cp819":
            encoding = .latin1
        case "windows-1252", "cp1252", "x-cp1252", "cp-1252":
            encoding = .windows1252
        default:
            throw InterchangeError.unsupportedEncoding(name)
        }
        return true
    }

    /// The value of the `encoding` pseudo-attribute in the declaration's bytes, if any.
    private static func declaredEncoding(_ decl: ArraySlice<UInt8>) -> String? {
        let bytes = Array(decl)
        let key = Array("encoding".utf8)
        guard bytes.count >= key.count else { return nil }
        var i = 0
        while i + key.count <= bytes.count {
            if Array(bytes[i..<(i + key.count)]) == key {
                var j = i + key.count
                while j < bytes.count, isSpace(bytes[j]) { j += 1 }
                guard j < bytes.count, bytes[j] == UInt8(ascii: "=") else { return nil }
                j += 1
                while j < bytes.count, isSpace(bytes[j]) { j += 1 }
                guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") else { return nil }
                let quote = bytes[j]
                let start = j + 1
                var k = start
                while k < bytes.count, bytes[k] != quote { k += 1 }
                guard k < bytes.count else { return nil }
                return String(decoding: bytes[start..<k], as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private mutating func transcode(_ chunk: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], final: Bool) throws {
        switch encoding {
        case .undecided, .utf8:
            passUTF8(chunk, into: &out, final: final)
        case .latin1, .windows1252:
            out.reserveCapacity(out.count + chunk.count)
            for b in chunk {
                if b < 0x80 {
                    if let p = Self.controlProblem(b) { problem = p; return }
                    out.append(b); continue
                }
                let scalar: UInt32 = encoding == .windows1252 && b < 0xA0 ? Self.cp1252[Int(b - 0x80)] : UInt32(b)
                Self.appendUTF8(scalar, to: &out)
            }
        case .utf16LE, .utf16BE:
            var i = 0
            let bigEndian = encoding == .utf16BE
            while i < chunk.count || oddByte != nil {
                let first: UInt8
                if let odd = oddByte {
                    first = odd; oddByte = nil
                } else {
                    first = chunk[i]; i += 1
                }
                guard i < chunk.count else { oddByte = first; break }
                let second = chunk[i]; i += 1
                let unit = bigEndian ? UInt16(first) << 8 | UInt16(second) : UInt16(second) << 8 | UInt16(first)
                appendUTF16(unit, to: &out)
                if problem != nil { return }
            }
            if final {
                if oddByte != nil { problem = "the file ends inside a UTF-16 character" }
                if highSurrogate != nil { problem = "a UTF-16 high surrogate without its low half" }
                oddByte = nil; highSurrogate = nil
            }
        }
    }

    /// Finishes the input: decides the encoding of a very short document and flushes held bytes.
    mutating func finish(into out: inout [UInt8]) throws {
        let empty: [UInt8] = []
        try empty.withUnsafeBufferPointer { try decode($0, into: &out, final: true) }
    }

    private mutating func appendUTF16(_ unit: UInt16, to out: inout [UInt8]) {
        if let high = highSurrogate {
            highSurrogate = nil
            if unit >= 0xDC00 && unit <= 0xDFFF {
                let scalar = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                Self.appendUTF8(scalar, to: &out)
                return
            }
            problem = "a UTF-16 high surrogate without its low half"
            return
        }
        if unit >= 0xD800 && unit <= 0xDBFF { highSurrogate = unit; return }
        if unit >= 0xDC00 && unit <= 0xDFFF { problem = "a UTF-16 low surrogate without its high half"; return }
        if unit < 0x80, let p = Self.controlProblem(UInt8(unit)) { problem = p; return }
        if unit >= 0xFFFE { problem = "character U+\(Self.hex(UInt32(unit), digits: 4)) is not allowed in XML"; return }
        Self.appendUTF8(UInt32(unit), to: &out)
    }

    /// Why the ASCII byte `b` may not appear in XML; nil when it may.
    private static func controlProblem(_ b: UInt8) -> String? {
        guard b < 0x20, b != 0x09, b != 0x0A, b != 0x0D else { return nil }
        return "control character U+\(hex(UInt32(b), digits: 4)) is not allowed in XML"
    }

    /// `value` in upper-case hexadecimal, at least `digits` long.
    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Appends the UTF-8 `chunk` once checked, holding back a sequence it ends inside.
    private mutating func passUTF8(_ chunk: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], final: Bool) {
        var from = 0
        if !partial.isEmpty {
            // Complete the held sequence with the chunk's first bytes and check it alone.
            let length = Self.sequenceLength(partial[0])
            let taken = min(length - partial.count, chunk.count)
            partial.append(contentsOf: chunk[0..<taken])
            from = taken
            if partial.count < length && !final { return }
            let held = partial
            partial = []
            let checked = held.withUnsafeBufferPointer { Self.check($0, from: 0) }
            if let p = checked.problem { problem = p; return }
            guard checked.end == held.count else { problem = "the file ends inside a UTF-8 character"; return }
            out.append(contentsOf: held)
        }
        let checked = Self.check(chunk, from: from)
        out.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[from..<checked.end]))
        if let p = checked.problem { problem = p; return }
        if checked.end < chunk.count {
            if final { problem = "the file ends inside a UTF-8 character"; return }
            partial.append(contentsOf: chunk[checked.end...])
        }
    }

    /// Bytes in the UTF-8 sequence that starts with `lead` (1 for a byte that starts none).
    private static func sequenceLength(_ lead: UInt8) -> Int {
        lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// Checks `p` from `from`: `end` is where the checked text ends, before a problem or before a
    /// sequence cut off by the end of `p`.
    private static func check(_ p: UnsafeBufferPointer<UInt8>, from: Int) -> (end: Int, problem: String?) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var i = from
        while i < p.count {
            // Eight bytes at a time while all are ASCII at or above U+0020.
            if i + 8 <= p.count, let base = p.baseAddress {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if (w | ((w &- ones &* 0x20) & ~w)) & highs == 0 { i += 8; continue }
            }
            let b = p[i]
            if b < 0x80 {
                if let problem = controlProblem(b) { return (i, problem) }
                i += 1
                continue
            }
            let length = sequenceLength(b)
            guard length > 1, b >= 0xC2, b <= 0xF4 else {
                return (i, "byte 0x\(hex(UInt32(b), digits: 2)) is not UTF-8; save the file as UTF-8 or declare its encoding")
            }
            // The second byte's range rules out overlong forms, surrogates and values past U+10FFFF.
            let low: UInt8 = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF
            var k = 1
            while k < length {
                guard i + k < p.count else { return (i, nil) }
                let c = p[i + k]
                guard c >= (k == 1 ? low : 0x80), c <= (k == 1 ? high : 0xBF) else {
                    return (i, "byte 0x\(hex(UInt32(b), digits: 2)) is not UTF-8; save the file as UTF-8 or declare its encoding")
                }
                k += 1
            }
            if b == 0xEF, p[i + 1] == 0xBF, p[i + 2] >= 0xBE {
                return (i, "character U+\(hex(0xFFC0 | UInt32(p[i + 2] & 0x3F), digits: 4)) is not allowed in XML")
            }
            i += length
        }
        return (i, nil)
    }

    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            out.append(UInt8(scalar))
        case ..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case ..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// windows-1252 bytes 0x80…0x9F; the five undefined positions map to themselves (as ISO-8859-1 would).
    private static let cp1252: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]
}
