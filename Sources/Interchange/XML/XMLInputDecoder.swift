/// Turns the raw bytes of an XML document into UTF-8, whatever encoding it was written in.
///
/// Detects a byte order mark (UTF-8, UTF-16 LE/BE) or the `encoding` of the XML declaration,
/// then transcodes chunk by chunk: ISO-8859-1, windows-1252 and UTF-16 become UTF-8; UTF-8 passes
/// through untouched. Chunk boundaries may fall anywhere, including inside a UTF-16 code unit or
/// surrogate pair.
struct XMLInputDecoder {
    enum Encoding: Equatable { case undecided, utf8, utf16LE, utf16BE, latin1, windows1252 }

    private(set) var encoding: Encoding = .undecided
    /// Bytes held back until the encoding is known.
    private var head: [UInt8] = []
    /// A UTF-16 byte waiting for its partner.
    private var oddByte: UInt8?
    /// A UTF-16 high surrogate waiting for its low half.
    private var highSurrogate: UInt16?

    /// Appends the UTF-8 form of `chunk` to `out`.
    mutating func decode(_ chunk: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], final: Bool) throws {
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
            out.append(contentsOf: chunk)
        case .latin1, .windows1252:
            out.reserveCapacity(out.count + chunk.count)
            for b in chunk {
                if b < 0x80 { out.append(b); continue }
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
            }
            if final {
                if oddByte != nil || highSurrogate != nil { Self.appendUTF8(0xFFFD, to: &out) }
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
            Self.appendUTF8(0xFFFD, to: &out)
        }
        if unit >= 0xD800 && unit <= 0xDBFF { highSurrogate = unit; return }
        if unit >= 0xDC00 && unit <= 0xDFFF { Self.appendUTF8(0xFFFD, to: &out); return }
        Self.appendUTF8(UInt32(unit), to: &out)
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
