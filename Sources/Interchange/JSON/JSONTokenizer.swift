import Foundation

/// Receives the events of a `JSONTokenizer`.
protocol JSONHandler {
    mutating func beginObject(line: Int, column: Int) throws
    mutating func endObject() throws
    mutating func beginArray(line: Int, column: Int) throws
    mutating func endArray() throws
    mutating func key(_ key: String, line: Int, column: Int) throws
    mutating func string(_ value: String, line: Int, column: Int) throws
    mutating func number(_ value: Double, line: Int, column: Int) throws
    mutating func bool(_ value: Bool, line: Int, column: Int) throws
    mutating func null(line: Int, column: Int) throws
}

/// A streaming JSON tokenizer and syntax checker over bytes, fed in chunks of any size.
///
/// Strict RFC 8259: one top-level value, no trailing commas, no comments, strings without raw
/// control characters. Errors carry the line and column (1-based, columns in bytes).
struct JSONTokenizer {
    /// Deepest nesting accepted.
    static let maximumDepth = 512
    /// Longest string or number accepted, in bytes (a base64 photo fits comfortably).
    static let maximumTokenLength = 256 << 20

    private enum Container { case object, array }
    private enum Expect { case value, valueOrEnd, key, keyOrEnd, colon, commaOrEnd, done }

    private var buf: [UInt8] = []
    private var pos = 0
    private var line = 1
    private var lineStart = 0
    private var stack: [Container] = []
    private var expect = Expect.value
    private var scratch: [UInt8] = []
    /// Where a string scan left off when the buffer ran out (index, and whether it ended on a backslash).
    private var stringResume: Int?
    /// What the scan of the current string has met so far: an escape or a control character
    /// (decoded byte by byte, which refuses the latter), and bytes beyond ASCII (checked as UTF-8).
    private var stringHasEscapes = false
    private var stringHasNonASCII = false
    private var bomChecked = false

    init() {}

    mutating func feed<H: JSONHandler>(_ chunk: some Collection<UInt8>, to handler: inout H) throws {
        buf.append(contentsOf: chunk)
        try process(&handler, final: false)
    }

    mutating func finish<H: JSONHandler>(_ handler: inout H) throws {
        try process(&handler, final: true)
        if expect != .done {
            throw error(stack.isEmpty && expect == .value ? "empty document; expected a JSON value" : "unexpected end of file", at: buf.count)
        }
    }

    private func error(_ reason: String, at index: Int) -> InterchangeError {
        var l = line
        var ls = lineStart
        var i = pos
        while i < index && i < buf.count {
            if buf[i] == 0x0A { l += 1; ls = i + 1 }
            i += 1
        }
        return .malformedJSON(line: l, column: index - ls + 1, reason: reason)
    }

    private var column: Int { pos - lineStart + 1 }

    private static func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : String(format: "byte 0x%02X", b)
    }

    private mutating func process<H: JSONHandler>(_ handler: inout H, final: Bool) throws {
        if !bomChecked {
            if buf.count < 3 && !final { return }
            bomChecked = true
            if buf.count >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF { pos = 3; lineStart = 3 }
        }
        loop: while pos < buf.count {
            let b = buf[pos]
            switch b {
            case 0x20, 0x09, 0x0D:
                pos = spaces(from: pos + 1)
                continue
            case 0x0A:
                pos += 1; line += 1; lineStart = pos
                pos = spaces(from: pos)
                continue
            default: break
            }
            let l = line, c = column
            if expect == .done { throw error("unexpected \(Self.describe(b)) after the end of the document", at: pos) }
            switch b {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard expect == .value || expect == .valueOrEnd else { throw unexpected(b) }
                guard stack.count < Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels", at: pos) }
                pos += 1
                if b == UInt8(ascii: "{") {
                    stack.append(.object); expect = .keyOrEnd
                    try handler.beginObject(line: l, column: c)
                } else {
                    stack.append(.array); expect = .valueOrEnd
                    try handler.beginArray(line: l, column: c)
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let isObject = b == UInt8(ascii: "}")
                let allowed = isObject ? (expect == .keyOrEnd || expect == .commaOrEnd) : (expect == .valueOrEnd || expect == .commaOrEnd)
                guard allowed, let top = stack.last, (top == .object) == isObject else { throw unexpected(b) }
                pos += 1
                stack.removeLast()
                afterValue()
                if isObject { try handler.endObject() } else { try handler.endArray() }
            case UInt8(ascii: ":"):
                guard expect == .colon else { throw unexpected(b) }
                pos += 1
                expect = .value
            case UInt8(ascii: ","):
                guard expect == .commaOrEnd, let top = stack.last else { throw unexpected(b) }
                pos += 1
                expect = top == .object ? .key : .value
            case UInt8(ascii: "\""):
                guard expect != .colon, expect != .commaOrEnd else { throw unexpected(b) }
                guard let end = try scanString(final: final) else { break loop }
                let text = try decodeString(from: pos + 1, to: end)
                let isKey = expect == .key || expect == .keyOrEnd
                // A string that decoded holds no raw line feed (a control character is refused).
                pos = end + 1
                if isKey {
                    expect = .colon
                    try handler.key(text, line: l, column: c)
                } else {
                    afterValue()
                    try handler.string(text, line: l, column: c)
                }
            default:
                guard expect == .value || expect == .valueOrEnd else { throw unexpected(b) }
                // A literal or a number: runs to the next delimiter.
                var end = pos
                while end < buf.count {
                    let d = buf[end]
                    if d == UInt8(ascii: ",") || d == UInt8(ascii: "}") || d == UInt8(ascii: "]") || d == 0x20 || d == 0x0A
                        || d == 0x0D || d == 0x09 || d == UInt8(ascii: ":") || d == UInt8(ascii: "\"") { break }
                    end += 1
                }
                // The same limit whether the token ended in this buffer or not, so the outcome never
                // depends on how the bytes were split into chunks.
                if end - pos > 4096 { throw error("a value longer than 4096 bytes", at: pos) }
                if end == buf.count && !final { break loop }
                let token = buf[pos..<end]
                // A number is told from a literal by its first byte, without comparing it with each.
                let literal = b == UInt8(ascii: "t") || b == UInt8(ascii: "f") || b == UInt8(ascii: "n")
                if literal && token.elementsEqual("true".utf8) {
                    afterValue(); pos = end; try handler.bool(true, line: l, column: c)
                } else if literal && token.elementsEqual("false".utf8) {
                    afterValue(); pos = end; try handler.bool(false, line: l, column: c)
                } else if literal && token.elementsEqual("null".utf8) {
                    afterValue(); pos = end; try handler.null(line: l, column: c)
                } else if Self.isJSONNumber(token), let v = ByteParsing.double(token) {
                    afterValue(); pos = end; try handler.number(v, line: l, column: c)
                } else {
                    let shown = String(decoding: token.prefix(40), as: UTF8.self)
                    // A number in JSON's syntax that no finite Double holds (1e400).
                    if Self.isJSONNumber(token) { throw error("the number \(shown) is too large (beyond ±1.8e308)", at: pos) }
                    throw error("invalid value '\(shown)'", at: pos)
                }
            }
        }
        if pos > 0 && (pos == buf.count || pos > 65536) {
            buf.removeSubrange(0..<pos)
            lineStart -= pos
            if let r = stringResume { stringResume = r - pos }
            pos = 0
        }
    }

    /// The first index from `index` on that is not a space: a pretty-printed file's indentation, a
    /// third of its bytes, is passed in one loop rather than a turn of the tokenizer's each.
    private func spaces(from index: Int) -> Int {
        buf.withUnsafeBufferPointer { p in
            var i = index
            while i < p.count && p[i] == 0x20 { i += 1 }
            return i
        }
    }

    private mutating func afterValue() {
        expect = stack.isEmpty ? .done : .commaOrEnd
    }

    private func unexpected(_ b: UInt8) -> InterchangeError {
        let wanted: String
        switch expect {
        case .value: wanted = "a value"
        case .valueOrEnd: wanted = "a value or ']'"
        case .key: wanted = "a key in double quotes"
        case .keyOrEnd: wanted = "a key in double quotes or '}'"
        case .colon: wanted = "':'"
        case .commaOrEnd: wanted = stack.last == .object ? "',' or '}'" : "',' or ']'"
        case .done: wanted = "the end of the document"
        }
        return error("unexpected \(Self.describe(b)); expected \(wanted)", at: pos)
    }

    /// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    static func isJSONNumber(_ t: ArraySlice<UInt8>) -> Bool {
        var i = t.startIndex
        let e = t.endIndex
        func digit(_ k: Int) -> Bool { k < e && t[k] &- UInt8(ascii: "0") < 10 }
        if i < e && t[i] == UInt8(ascii: "-") { i += 1 }
        guard digit(i) else { return false }
        if t[i] == UInt8(ascii: "0") { i += 1 } else { while digit(i) { i += 1 } }
        if i < e && t[i] == UInt8(ascii: ".") {
            i += 1
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        if i < e && (t[i] == UInt8(ascii: "e") || t[i] == UInt8(ascii: "E")) {
            i += 1
            if i < e && (t[i] == UInt8(ascii: "+") || t[i] == UInt8(ascii: "-")) { i += 1 }
            guard digit(i) else { return false }
            while digit(i) { i += 1 }
        }
        return i == e
    }

    /// The index of the closing quote of the string starting at `pos`, or nil when not yet in the
    /// buffer; notes on the way whether the string has escapes, control characters or bytes beyond ASCII.
    private mutating func scanString(final: Bool) throws -> Int? {
        if stringResume == nil { stringHasEscapes = false; stringHasNonASCII = false }
        var i = stringResume ?? (pos + 1)
        var escapes = stringHasEscapes, nonASCII = stringHasNonASCII
        let found = buf.withUnsafeBufferPointer { p -> Int? in
            guard let base = p.baseAddress else { return nil }
            let n = p.count
            while i < n {
                // Eight bytes at a time while none of them is one to look at.
                while i + 8 <= n, !Self.hasByteToLookAt(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
                // Then byte by byte, up to the end of the eight that have one.
                let stop = min(i + 8, n)
                while i < stop {
                    let b = base[i]
                    if b == UInt8(ascii: "\"") { return i }
                    if b == UInt8(ascii: "\\") {
                        escapes = true
                        if i + 1 >= n { return nil }
                        i += 2
                        continue
                    }
                    if b < 0x20 { escapes = true } else if b >= 0x80 { nonASCII = true }
                    i += 1
                }
            }
            return nil
        }
        stringHasEscapes = escapes
        stringHasNonASCII = nonASCII
        if let end = found {
            stringResume = nil
            return end
        }
        if final { throw error("unterminated string", at: pos) }
        stringResume = i
        if i - pos > Self.maximumTokenLength { throw error("a string longer than \(Self.maximumTokenLength) bytes", at: pos) }
        return nil
    }

    /// True when one of the eight bytes of `w` is a quote, a backslash, a control character or
    /// beyond ASCII: each test finds whether some byte is zero (or below 0x20) after a subtraction,
    /// which never misses one (and the bytes beyond ASCII it might name wrongly are looked at anyway).
    @inline(__always)
    private static func hasByteToLookAt(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = w ^ (ones &* UInt64(UInt8(ascii: "\""))), backslash = w ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        let control = (w &- ones &* 0x20) & ~w
        return (quoteZero | backslashZero | control | w) & highs != 0
    }

    private static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func decodeString(from start: Int, to end: Int) throws -> String {
        // Without escapes or control characters (`scanString` tells), the text is the bytes themselves.
        if !stringHasEscapes {
            let ascii = !stringHasNonASCII
            let text = buf.withUnsafeBufferPointer { ByteParsing.utf8Text(UnsafeBufferPointer(rebasing: $0[start..<end]), isASCII: ascii) }
            guard let text else { throw notUTF8(at: start) }
            return text
        }
        scratch.removeAll(keepingCapacity: true)
        var i = start
        func hex4(_ at: Int) throws -> UInt32 {
            guard at + 4 <= end else { throw error("incomplete \\u escape", at: at - 2) }
            var v: UInt32 = 0
            for k in at..<(at + 4) {
                guard let h = Self.hexValue(buf[k]) else { throw error("bad \\u escape", at: at - 2) }
                v = v << 4 | h
            }
            return v
        }
        while i < end {
            let b = buf[i]
            if b < 0x20 { throw error("control character in a string; escape it", at: i) }
            guard b == UInt8(ascii: "\\") else { scratch.append(b); i += 1; continue }
            let e = buf[i + 1]
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(i + 2)
                i += 4
                // Half of a surrogate pair alone is no character: refused rather than replaced,
                // so no text is changed on its way in.
                func lone(_ value: UInt32) -> InterchangeError {
                    error("\\u\(String(value, radix: 16, uppercase: false)) is half of a UTF-16 surrogate pair without its other half; it is not a character", at: i - 4)
                }
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    guard i + 2 + 6 <= end, buf[i + 2] == UInt8(ascii: "\\"), buf[i + 3] == UInt8(ascii: "u") else { throw lone(scalar) }
                    let low = try hex4(i + 4)
                    guard low >= 0xDC00 && low <= 0xDFFF else { throw lone(scalar) }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    throw lone(scalar)
                } else if scalar == 0 {
                    throw error("a NUL character (\\u0000) in a string; no text may hold one", at: i - 4)
                }
                XMLInputDecoder.appendUTF8(scalar, to: &scratch)
            default:
                throw error("bad escape '\\\(Character(Unicode.Scalar(e)))' in a string", at: i)
            }
            i += 2
        }
        guard let text = scratch.withUnsafeBufferPointer({ ByteParsing.utf8Text($0) }) else { throw notUTF8(at: start) }
        return text
    }

    /// A string whose bytes are not UTF-8, which JSON text must be.
    private func notUTF8(at i: Int) -> InterchangeError {
        error("a string that is not UTF-8 text; save the file as UTF-8", at: i)
    }
}
