/// What an NTRIP caster answered to a request, told from the first bytes it sent.
enum NTRIPAnswer: Sendable, Equatable {
    /// The stream follows: `ICY 200 OK` (NTRIP 1.0, also from some 2.0 casters) or
    /// `HTTP/1.x 200` with data, chunked or not.
    case stream(NTRIPBody.Framing)
    /// The caster's source table follows: `SOURCETABLE 200 OK`, or HTTP 200 with the content type
    /// `gnss/sourcetable`. Asked for a mount point, this means the caster has no such mount.
    case sourceTable(NTRIPBody.Framing)
    /// An HTTP status other than 200 (401, 404, 503…).
    case status(code: Int, reason: String)
    /// An NTRIP 1.0 error line (`ERROR - Bad Password`).
    case error(String)
    /// Not an NTRIP or HTTP answer; the first bytes, printable.
    case garbage(String)
}

/// Reads an answer's status line and headers as they arrive, in pieces of any size.
///
/// The answer is decided as soon as the bytes allow: a first line that cannot begin any known
/// answer is garbage at once, without waiting for more.
struct NTRIPAnswerReader {
    /// Longer headers than this are not an NTRIP answer.
    static let maximumHeader = 16_384
    private var buffer: [UInt8] = []
    /// Once the status line is read: whether it was HTTP's, where the next header line starts,
    /// and the headers read so far. Reading resumes there, so a header arriving a byte at a time
    /// is read in linear time.
    private var header: (isHTTP: Bool, position: Int, fields: [(String, String)])?

    /// Feeds bytes; once the answer is known, returns it and the bytes after its header.
    mutating func feed(_ bytes: some Collection<UInt8>) -> (answer: NTRIPAnswer, rest: [UInt8])? {
        buffer.append(contentsOf: bytes)
        // Past the status line, only the end of a line (or too long a header) can decide.
        if header != nil && buffer.count <= Self.maximumHeader && !bytes.contains(0x0A) { return nil }
        return decide(atEnd: false)
    }

    /// The answer when the caster closed the connection after `feed` gave none.
    func finish() -> NTRIPAnswer {
        var copy = self
        return copy.decide(atEnd: true)?.answer ?? .garbage(buffer.isEmpty ? "" : Self.printable(buffer[...]))
    }

    private static let starts = ["ICY ", "HTTP/", "SOURCETABLE ", "ERROR"].map { Array($0.utf8) }

    private mutating func decide(atEnd: Bool) -> (answer: NTRIPAnswer, rest: [UInt8])? {
        if let header { return headers(isHTTP: header.isHTTP, from: header.position, read: header.fields, atEnd: atEnd) }
        guard let firstEnd = Self.lineEnd(in: buffer, from: 0) else {
            let prefix = buffer.prefix(12)
            let possible = Self.starts.contains { start in zip(prefix, start).allSatisfy { $0 == $1 } }
            if possible && buffer.count <= 1024 && !atEnd { return nil }
            // Not an answer: shown up to its first byte that is not text, or its first 40 bytes
            // and more, so what is shown does not depend on how the bytes were split.
            if let odd = Self.firstNonText(buffer[...]) { return (.garbage(Self.printable(buffer[...odd])), []) }
            if buffer.count > 40 || atEnd { return (.garbage(Self.printable(buffer[...])), []) }
            return nil
        }
        if let odd = Self.firstNonText(buffer[..<firstEnd.start]) { return (.garbage(Self.printable(buffer[...odd])), []) }
        let line = String(decoding: buffer[..<firstEnd.start], as: UTF8.self)
        let afterLine = firstEnd.next
        if line.hasPrefix("ICY 200") {
            return (.stream(.icy), Array(buffer[afterLine...]))
        }
        if line.hasPrefix("ERROR") {
            return (.error(line.trimmingCharacters(in: .whitespaces)), [])
        }
        let isHTTP = line.hasPrefix("HTTP/1.")
        guard isHTTP || line.hasPrefix("SOURCETABLE 200") else {
            return (.garbage(Self.printable(buffer[..<firstEnd.start])), [])
        }
        var code = 200
        var reason = "OK"
        if isHTTP {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[1].count == 3, let c = Int(parts[1]) else {
                return (.garbage(Self.printable(buffer[..<firstEnd.start])), [])
            }
            code = c
            reason = parts.count > 2 ? String(parts[2]) : ""
            if code != 200 { return (.status(code: code, reason: reason), []) }
        }
        return headers(isHTTP: isHTTP, from: afterLine, read: [], atEnd: atEnd)
    }

    /// Reads header lines from `position` up to the empty line that ends them.
    private mutating func headers(isHTTP: Bool, from start: Int, read: [(String, String)], atEnd: Bool) -> (answer: NTRIPAnswer, rest: [UInt8])? {
        var headers = read
        var position = start
        while true {
            guard let end = Self.lineEnd(in: buffer, from: position) else {
                if buffer.count > Self.maximumHeader || atEnd {
                    return atEnd && !isHTTP ? (.sourceTable(.untilClose), []) : (.garbage(Self.printable(buffer[..<min(buffer.count, 80)])), [])
                }
                header = (isHTTP, position, headers)
                return nil
            }
            if end.start == position { position = end.next; break }
            let text = String(decoding: buffer[position..<end.start], as: UTF8.self)
            if let colon = text.firstIndex(of: ":") {
                headers.append((text[..<colon].lowercased(), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
            position = end.next
        }
        let rest = Array(buffer[position...])
        let field = { (name: String) in headers.first { $0.0 == name }?.1.lowercased() }
        let framing: NTRIPBody.Framing = field("transfer-encoding")?.contains("chunked") == true ? .chunked : .untilClose
        if !isHTTP || field("content-type")?.contains("gnss/sourcetable") == true {
            return (.sourceTable(framing), rest)
        }
        return (.stream(framing), rest)
    }

    /// The first byte that is neither printable ASCII nor a tab or CR.
    static func firstNonText(_ bytes: ArraySlice<UInt8>) -> Int? {
        bytes.firstIndex { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0D) || $0 > 0x7E }
    }

    /// Where the line starting at `from` ends (CR LF or a lone LF) and the next begins.
    static func lineEnd(in bytes: [UInt8], from: Int) -> (start: Int, next: Int)? {
        var i = from
        while i < bytes.count {
            if bytes[i] == 0x0A { return (i > from && bytes[i - 1] == 0x0D ? i - 1 : i, i + 1) }
            i += 1
        }
        return nil
    }

    /// Up to 40 bytes as text a message can show: printable ASCII as is, others as `\xNN`.
    static func printable(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for b in bytes.prefix(40) {
            if b >= 0x20 && b < 0x7F { text.unicodeScalars.append(Unicode.Scalar(b)) } else { text += "\\x" + String(b, radix: 16, uppercase: true).leftPadded(2) }
        }
        return bytes.count > 40 ? text + "…" : text
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

/// The body of an answer: what follows the header, as the caster frames it.
struct NTRIPBody {
    enum Framing: Sendable, Equatable {
        /// Bytes as they come, to the end of the connection.
        case untilClose
        /// HTTP/1.1 chunked transfer encoding.
        case chunked
        /// After `ICY 200 OK`: header lines some casters send anyway are skipped, then bytes as they come.
        case icy
    }

    enum Failure: Error, Equatable {
        /// A chunk size line that is not hexadecimal, or a chunk not followed by CR LF.
        case badChunk(String)
    }

    private enum State {
        case icyLines
        case plain
        case size(digits: Int, value: Int, inExtension: Bool, sawCR: Bool)
        case data(remaining: Int)
        case dataEnd(sawCR: Bool)
        case trailer(lineLength: Int)
        case done
    }

    private var state: State
    /// ICY header lines held until they are known to be header lines rather than data.
    private var held: [UInt8] = []

    init(_ framing: Framing) {
        switch framing {
        case .untilClose: state = .plain
        case .chunked: state = .size(digits: 0, value: 0, inExtension: false, sawCR: false)
        case .icy: state = .icyLines
        }
    }

    /// True after the last (empty) chunk of a chunked body.
    var isFinished: Bool { if case .done = state { true } else { false } }

    /// Appends the data in `bytes` to `out`.
    mutating func decode(_ bytes: some Collection<UInt8>, into out: inout [UInt8]) throws(Failure) {
        var input = ArraySlice(bytes)
        while !input.isEmpty {
            switch state {
            case .plain:
                out.append(contentsOf: input)
                return
            case .icyLines:
                held.append(contentsOf: input)
                input = []
                switch Self.skipHeaderLines(&held) {
                case .needMore: return
                case .done:
                    state = .plain
                    input = ArraySlice(held)
                    held = []
                }
            case let .size(digits, value, inExtension, sawCR):
                let b = input.removeFirst()
                if sawCR {
                    guard b == 0x0A else { throw .badChunk("CR without LF after a chunk size") }
                    try endSizeLine(digits: digits, value: value)
                } else if b == 0x0D {
                    state = .size(digits: digits, value: value, inExtension: inExtension, sawCR: true)
                } else if b == 0x0A {
                    try endSizeLine(digits: digits, value: value)
                } else if inExtension || b == UInt8(ascii: ";") {
                    state = .size(digits: digits, value: value, inExtension: true, sawCR: false)
                } else if let d = Self.hexValue(b), digits < 8 {
                    state = .size(digits: digits + 1, value: value << 4 | d, inExtension: false, sawCR: false)
                } else if (b == 0x20 || b == 0x09) && digits > 0 {
                    state = .size(digits: digits, value: value, inExtension: true, sawCR: false)
                } else {
                    throw .badChunk(digits < 8 ? "'\(NTRIPAnswerReader.printable([b][...]))' in a chunk size" : "a chunk size over 8 hexadecimal digits")
                }
            case let .data(remaining):
                let n = min(remaining, input.count)
                out.append(contentsOf: input.prefix(n))
                input = input.dropFirst(n)
                state = remaining == n ? .dataEnd(sawCR: false) : .data(remaining: remaining - n)
            case let .dataEnd(sawCR):
                let b = input.removeFirst()
                if b == 0x0D && !sawCR {
                    state = .dataEnd(sawCR: true)
                } else if b == 0x0A {
                    state = .size(digits: 0, value: 0, inExtension: false, sawCR: false)
                } else {
                    throw .badChunk("a chunk is longer than its size says")
                }
            case let .trailer(lineLength):
                let b = input.removeFirst()
                if b == 0x0A {
                    state = lineLength == 0 ? .done : .trailer(lineLength: 0)
                } else if b != 0x0D {
                    state = .trailer(lineLength: lineLength + 1)
                }
            case .done:
                return
            }
        }
    }

    private mutating func endSizeLine(digits: Int, value: Int) throws(Failure) {
        guard digits > 0 else { throw .badChunk("an empty chunk size line") }
        state = value == 0 ? .trailer(lineLength: 0) : .data(remaining: value)
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private enum Skip { case needMore, done }

    /// Drops `Name: value` lines (and the empty line that ends them) from the front of `bytes`.
    /// Anything else, such as an RTCM3 frame (0xD3…), ends the header lines and stays.
    private static func skipHeaderLines(_ bytes: inout [UInt8]) -> Skip {
        while let first = bytes.first {
            if first == 0x0D || first == 0x0A {
                if first == 0x0D && bytes.count < 2 { return .needMore }
                bytes.removeFirst(first == 0x0D && bytes[1] == 0x0A ? 2 : 1)
                return .done
            }
            let isLetter = (first | 0x20) >= UInt8(ascii: "a") && (first | 0x20) <= UInt8(ascii: "z")
            guard isLetter else { return .done }
            var i = 0
            var sawColon = false
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x0A { break }
                if b == UInt8(ascii: ":") { sawColon = true }
                let tokenByte = sawColon || b == 0x0D || b == 0x20 || b == 0x09 || (b > 0x20 && b < 0x7F)
                if !tokenByte || i > 256 || (!sawColon && (b == 0x20 || b == 0x09)) { return .done }
                if b >= 0x7F || (b < 0x20 && b != 0x09 && b != 0x0D) { return .done }
                i += 1
            }
            if i == bytes.count { return .needMore }
            guard sawColon else { return .done }
            bytes.removeFirst(i + 1)
        }
        return .needMore
    }
}
