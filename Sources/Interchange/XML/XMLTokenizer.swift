import Foundation

/// An element or attribute name with its namespace resolved.
package struct XMLName: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The namespace URI; empty when the name is in no namespace.
    package var namespace: String
    package var local: String

    package init(namespace: String = "", local: String) {
        self.namespace = namespace
        self.local = local
    }

    package var description: String { namespace.isEmpty ? local : "{\(namespace)}\(local)" }
}

/// The attributes of one start tag, values already decoded (entities, character references,
/// whitespace normalisation). Valid only during the `startElement` call that receives it.
package struct XMLAttributes {
    package private(set) var names: [XMLName] = []
    private var ranges: [Range<Int>] = []
    private var bytes: [UInt8] = []

    package var count: Int { names.count }

    mutating func removeAll() {
        guard !names.isEmpty else { return }
        names.removeAll(keepingCapacity: true)
        ranges.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func append(_ name: XMLName, value: ArraySlice<UInt8>) {
        names.append(name)
        let start = bytes.count
        bytes.append(contentsOf: value)
        ranges.append(start..<bytes.count)
    }

    /// The value bytes (UTF-8) of the attribute `local` in `namespace` (unprefixed attributes are in no namespace).
    package func value(_ local: String, namespace: String = "") -> ArraySlice<UInt8>? {
        for i in names.indices where names[i].local == local && names[i].namespace == namespace {
            return bytes[ranges[i]]
        }
        return nil
    }

    package func string(_ local: String, namespace: String = "") -> String? {
        value(local, namespace: namespace).map { String(decoding: $0, as: UTF8.self) }
    }

    package func value(at index: Int) -> ArraySlice<UInt8> { bytes[ranges[index]] }
}

/// Receives the events of an `XMLTokenizer`.
package protocol XMLHandler {
    /// A start tag (also sent for an empty-element tag, followed at once by `endElement`).
    mutating func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int, column: Int) throws
    mutating func endElement(_ name: XMLName, line: Int) throws
    /// Character data inside the root element, decoded to UTF-8. One text node may arrive in several pieces.
    /// The bytes are valid only during the call.
    mutating func characters(_ text: UnsafeBufferPointer<UInt8>) throws
}

/// A streaming, namespace-aware XML tokenizer working on bytes, fed in chunks of any size.
///
/// Handles the XML declaration and encodings (see `XMLInputDecoder`), namespaces, CDATA, comments,
/// processing instructions, character references and the five predefined entities.
///
/// Safety: no entity is ever expanded beyond the predefined five, and nothing is ever loaded.
/// A document type declaration whose internal subset declares entities is refused outright,
/// so entity bombs and external-entity tricks fail fast with a clear error, in constant memory.
package struct XMLTokenizer {
    /// Longest markup token accepted (a tag, comment, processing instruction, DOCTYPE), in bytes.
    package static let maximumTokenLength = 16 << 20

    private var decoder = XMLInputDecoder()
    private var buf: [UInt8] = []
    /// `buf` while `process` scans it; empty otherwise.
    private var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// Next unread index in `buf`.
    private var pos = 0
    /// Current 1-based line at `pos`.
    private(set) package var line = 1
    /// Index in `buf` where the current line starts (negative once compacted past it).
    private var lineStart = 0
    private var open: [OpenElement] = []
    private var bindings: [(prefix: String, uri: String)] = []
    private var rootSeen = false
    private var rootClosed = false
    private var sawMarkup = false
    private var attributes = XMLAttributes()
    private var rawAttributes: [(prefix: String, local: String, range: Range<Int>)] = []
    private var valueScratch: [UInt8] = []
    private var textScratch: [UInt8] = []
    private var finished = false
    /// Markup at `at` that ended with the buffer, which held no `>` for it before `scanned`. Every
    /// markup ends in `>`, so it is parsed again only once a new `>` arrives (or the document ends):
    /// a long comment or tag arriving in many chunks is then read in linear time, not quadratic.
    private var incomplete: (at: Int, scanned: Int)?
    /// Set when the markup at `pos` ended with the buffer before its kind was known (`<`, `<!`,
    /// `<![CDA`…): the next bytes tell it, and may make it malformed, so it is parsed again as soon
    /// as any arrive, not at the next `>` (which a file in one piece would not wait for either).
    private var kindUnknown = false
    /// Where the search for the end of the incomplete tag or DOCTYPE at `at` stopped, and the quote
    /// and bracket depth in force there: the search resumes there, so a long one with `>` inside
    /// quoted values is read in linear time too.
    private var stopped: (at: Int, index: Int, quote: UInt8, depth: Int)?

    /// The qualified names of the open elements as they were written, one after another: an end
    /// tag is checked against its start tag's bytes, with no strings made or compared. It only
    /// grows; what lies past the innermost open element's name is stale.
    private var openNames: [UInt8] = []

    private struct OpenElement {
        var name: XMLName
        var bindingMark: Int
        /// Where the qualified name is in `openNames`.
        var nameStart: Int
        var nameEnd: Int
    }

    /// The qualified name of the innermost open element, as written (for messages).
    private var openQName: String {
        guard let top = open.last else { return "" }
        return String(decoding: openNames[top.nameStart..<top.nameEnd], as: UTF8.self)
    }

    package static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// Namespaces handed out as the program's own string constants: comparing and copying them is
    /// cheaper than for strings built from the input.
    private static let knownNamespaces = [
        GPXNamespace.gpx10, GPXNamespace.gpx11, GPXNamespace.trees, "http://www.w3.org/2001/XMLSchema-instance",
        "http://www.garmin.com/xmlschemas/GpxExtensions/v3", "http://www.garmin.com/xmlschemas/TrackPointExtension/v1",
        "http://www.opengis.net/kml/2.2",
    ]

    private static func interned(_ bytes: ArraySlice<UInt8>) -> String {
        for known in knownNamespaces where known.utf8.elementsEqual(bytes) { return known }
        return String(decoding: bytes, as: UTF8.self)
    }

    package init() {}

    /// Feeds the next chunk of the document.
    package mutating func feed<H: XMLHandler>(_ chunk: UnsafeBufferPointer<UInt8>, to handler: inout H) throws {
        try decoder.decode(chunk, into: &buf, final: false)
        try process(&handler, final: false)
        try refuseUndecodable()
    }

    /// Throws the decoder's problem, if any, where it was found: the end of the decoded text,
    /// everything before which has been read.
    private mutating func refuseUndecodable() throws {
        guard let problem = decoder.problem else { return }
        finished = true
        throw error(problem, at: buf.count)
    }

    package mutating func feed<H: XMLHandler>(_ chunk: some Collection<UInt8>, to handler: inout H) throws {
        if let done: Void = try chunk.withContiguousStorageIfAvailable({ try feed($0, to: &handler) }) { return done }
        let copy = Array(chunk)
        try copy.withUnsafeBufferPointer { try feed($0, to: &handler) }
    }

    /// Ends the document: fails when it is incomplete.
    package mutating func finish<H: XMLHandler>(_ handler: inout H) throws {
        guard !finished else { return }
        finished = true
        try decoder.finish(into: &buf)
        if decoder.problem != nil {
            try process(&handler, final: false)
            try refuseUndecodable()
        }
        try process(&handler, final: true)
        if pos < buf.count { throw error("unexpected end of file inside markup", at: pos) }
        if !open.isEmpty {
            throw error("unexpected end of file: <\(openQName)> is not closed", at: pos)
        }
        if !rootSeen { throw error("no root element; this is not an XML document", at: pos) }
    }

    // MARK: - Errors and positions

    /// Line and column of buffer index `index` (which must be at or after `pos`).
    private func location(of index: Int) -> (line: Int, column: Int) {
        var l = line
        var ls = lineStart
        var i = pos
        if bytes.baseAddress != nil {
            while i < index && i < bytes.count {
                if bytes[i] == 0x0A { l += 1; ls = i + 1 }
                i += 1
            }
        } else {
            while i < index && i < buf.count {
                if buf[i] == 0x0A { l += 1; ls = i + 1 }
                i += 1
            }
        }
        return (l, index - ls + 1)
    }

    private func error(_ reason: String, at index: Int) -> InterchangeError {
        let loc = location(of: index)
        return .malformedXML(line: loc.line, column: loc.column, reason: reason)
    }

    /// Moves `pos` to `newPos`, counting lines on the way.
    private mutating func advance(to newPos: Int) {
        if newPos - pos < 48 {
            let p = bytes
            var i = pos
            while i < newPos {
                if p[i] == 0x0A { line += 1; lineStart = i + 1 }
                i += 1
            }
        } else if let base = bytes.baseAddress {
            var i = pos
            while i < newPos, let hit = memchr(base + i, 0x0A, newPos - i) {
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                line += 1
                lineStart = at + 1
                i = at + 1
            }
        }
        pos = newPos
    }

    // MARK: - Main loop

    private mutating func process<H: XMLHandler>(_ handler: inout H, final: Bool) throws {
        // Scan through a pointer: the bytes are moved out of `buf` for the duration, so they can be
        // read while the tokenizer's own state changes.
        var storage = buf
        buf = []
        defer { buf = storage }
        try storage.withUnsafeBufferPointer { p in
            bytes = p
            defer { bytes = UnsafeBufferPointer(start: nil, count: 0) }
            while pos < p.count {
                let progressed: Bool
                if p[pos] == UInt8(ascii: "<") {
                    if !final, let wait = incomplete, wait.at == pos, let base = p.baseAddress,
                       memchr(base + wait.scanned, Int32(UInt8(ascii: ">")), p.count - wait.scanned) == nil {
                        incomplete = (pos, p.count)
                        break
                    }
                    kindUnknown = false
                    progressed = try markup(&handler, final: final)
                    incomplete = progressed || kindUnknown ? nil : (pos, p.count)
                    if progressed { stopped = nil }
                } else {
                    progressed = try text(&handler, final: final)
                }
                if !progressed { break }
            }
            if p.count - pos > Self.maximumTokenLength {
                throw error("markup longer than \(Self.maximumTokenLength) bytes", at: pos)
            }
        }
        // Drop consumed bytes.
        if pos > 0 && (pos == storage.count || pos > 65536) {
            storage.removeSubrange(0..<pos)
            lineStart -= pos
            if let wait = incomplete { incomplete = (wait.at - pos, wait.scanned - pos) }
            if let s = stopped { stopped = (s.at - pos, s.index - pos, s.quote, s.depth) }
            pos = 0
        }
    }

    /// Where the search for the end of the markup at `pos` starts: at `start`, or for markup an
    /// earlier call found incomplete, `overlap` bytes before where that search ended (its end
    /// marker may straddle them).
    private func searchStart(_ start: Int, overlap: Int) -> Int {
        guard let wait = incomplete, wait.at == pos else { return start }
        return max(start, wait.scanned - overlap)
    }

    /// The search for the end of the tag or DOCTYPE at `pos`, from `start` or from where an
    /// earlier call for the same markup stopped.
    private func resumedScan(from start: Int) -> (index: Int, quote: UInt8, depth: Int) {
        guard let s = stopped, s.at == pos, s.index >= start else { return (start, 0, 0) }
        return (s.index, s.quote, s.depth)
    }

    // The scanning helpers are static and take the bytes as an argument: called as methods from the
    // mutating tokenizer, each call copied the whole tokenizer struct.

    /// Finds `pattern` in `p` at or after `from`; nil when the buffer ends first.
    private static func find(_ p: UnsafeBufferPointer<UInt8>, _ pattern: StaticString, from: Int) -> Int? {
        let pat = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        var i = from
        let last = p.count - pat.count
        while i <= last {
            if p[i] == pat[0] {
                var k = 1
                while k < pat.count && p[i + k] == pat[k] { k += 1 }
                if k == pat.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// Whether `p` holds `pattern` at `index`; nil when the buffer ends first.
    private static func hasPrefix(_ p: UnsafeBufferPointer<UInt8>, _ pattern: StaticString, at index: Int) -> Bool? {
        let n = pattern.utf8CodeUnitCount
        let pat = UnsafeBufferPointer(start: pattern.utf8Start, count: n)
        for k in 0..<n {
            guard index + k < p.count else { return nil }
            if p[index + k] != pat[k] { return false }
        }
        return true
    }

    // MARK: - Text

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// The end of the text at `from`: the first `<` or `&`, or the end of `p`; counts the line
    /// feeds on the way. Eight bytes are looked at a time while none of them is one of the three.
    private static func textEnd(_ p: UnsafeBufferPointer<UInt8>, from: Int, newlines: inout Int, lastNewline: inout Int) -> Int {
        guard let base = p.baseAddress else { return from }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let (lt, amp, lf) = (ones &* 0x3C, ones &* 0x26, ones &* 0x0A)
        var i = from
        while true {
            while i + 8 <= p.count {
                let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                // A byte of `a`, `b` or `c` is zero exactly where `w` holds `<`, `&` or a line feed.
                let (a, b, c) = (w ^ lt, w ^ amp, w ^ lf)
                if ((a &- ones) & ~a | (b &- ones) & ~b | (c &- ones) & ~c) & highs != 0 { break }
                i += 8
            }
            let stop = min(i + 8, p.count)
            while i < stop {
                let b = p[i]
                if b == UInt8(ascii: "<") || b == UInt8(ascii: "&") { return i }
                if b == 0x0A { newlines += 1; lastNewline = i }
                i += 1
            }
            if i >= p.count { return i }
        }
    }

    private mutating func text<H: XMLHandler>(_ handler: inout H, final: Bool) throws -> Bool {
        let start = pos
        let p = bytes
        // Lines are counted in the same pass that looks for the end of the text.
        var newlines = 0
        var lastNewline = -1
        let end = Self.textEnd(p, from: start, newlines: &newlines, lastNewline: &lastNewline)
        if end > start {
            if open.isEmpty {
                for i in start..<end where !Self.isSpace(bytes[i]) {
                    let reason = rootClosed ? "text after the end of the root element"
                        : sawMarkup ? "text before the root element" : "this is not XML: the document does not start with '<'"
                    throw error(reason, at: i)
                }
            } else {
                try handler.characters(UnsafeBufferPointer(rebasing: bytes[start..<end]))
            }
            line += newlines
            if lastNewline >= 0 { lineStart = lastNewline + 1 }
            pos = end
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "&") else { return true }
        // An entity or character reference.
        var semicolon: Int?
        var i = end + 1
        while i < bytes.count && i < end + 40 {
            if bytes[i] == UInt8(ascii: ";") { semicolon = i; break }
            i += 1
        }
        guard let semi = semicolon else {
            if i < end + 40 && !final { return false }
            throw error("'&' does not start a reference; write &amp;", at: end)
        }
        var scratch = textScratch
        textScratch = []
        scratch.removeAll(keepingCapacity: true)
        defer { textScratch = scratch }
        do {
            try Self.decodeReference(UnsafeBufferPointer(rebasing: bytes[(end + 1)..<semi]), into: &scratch)
        } catch {
            throw self.error(error.reason, at: end)
        }
        if open.isEmpty { throw error("reference outside the root element", at: end) }
        try scratch.withUnsafeBufferPointer { try handler.characters($0) }
        advance(to: semi + 1)
        return true
    }

    /// Decodes the reference whose name is `bytes[from..<to]` (between `&` and `;`).
    private struct ReferenceProblem: Error { var reason: String }

    /// Decodes the reference named `name` (between `&` and `;`) into `out`.
    ///
    /// Static, so that writing into one of the tokenizer's own buffers never copies the tokenizer.
    private static func decodeReference(_ name: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(ReferenceProblem) {
        guard let first = name.first else { throw ReferenceProblem(reason: "empty reference '&;'") }
        if first == UInt8(ascii: "#") {
            var value: UInt32 = 0
            var digits = name.dropFirst()
            var radix: UInt32 = 10
            if digits.first == UInt8(ascii: "x") { radix = 16; digits = digits.dropFirst() }
            guard !digits.isEmpty else { throw ReferenceProblem(reason: "empty character reference") }
            for d in digits {
                let v: UInt32
                switch d {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(d - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: v = UInt32(d - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: v = UInt32(d - UInt8(ascii: "A") + 10)
                default: throw ReferenceProblem(reason: "bad character reference '&\(String(decoding: name, as: UTF8.self));'")
                }
                value = value &* radix &+ v
                if value > 0x10FFFF { break }
            }
            let valid = value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value <= 0xD7FF)
                || (value >= 0xE000 && value <= 0xFFFD) || (value >= 0x10000 && value <= 0x10FFFF)
            guard valid else {
                throw ReferenceProblem(reason: "character reference '&\(String(decoding: name, as: UTF8.self));' is not a legal XML character")
            }
            XMLInputDecoder.appendUTF8(value, to: &out)
            return
        }
        switch name.count {
        case 2 where name[0] == UInt8(ascii: "l") && name[1] == UInt8(ascii: "t"): out.append(UInt8(ascii: "<"))
        case 2 where name[0] == UInt8(ascii: "g") && name[1] == UInt8(ascii: "t"): out.append(UInt8(ascii: ">"))
        case 3 where name.elementsEqual("amp".utf8): out.append(UInt8(ascii: "&"))
        case 4 where name.elementsEqual("apos".utf8): out.append(UInt8(ascii: "'"))
        case 4 where name.elementsEqual("quot".utf8): out.append(UInt8(ascii: "\""))
        default:
            throw ReferenceProblem(
                reason: "undefined entity '&\(String(decoding: name, as: UTF8.self));' (only the five predefined entities are expanded)")
        }
    }




    // MARK: - Markup

    private mutating func markup<H: XMLHandler>(_ handler: inout H, final: Bool) throws -> Bool {
        guard pos + 1 < bytes.count else {
            if final { throw error("unexpected end of file after '<'", at: pos) }
            kindUnknown = true
            return false
        }
        let next = bytes[pos + 1]
        if next == UInt8(ascii: "/") { return try endTag(&handler, final: final) }
        if next == UInt8(ascii: "?") {
            guard let end = Self.find(bytes, "?>", from: searchStart(pos + 2, overlap: 1)) else {
                if final { throw error("unexpected end of file inside a processing instruction", at: pos) }
                return false
            }
            if Self.hasPrefix(bytes, "<?xml", at: pos) == true, pos + 5 < bytes.count, Self.isSpace(bytes[pos + 5]) || bytes[pos + 5] == UInt8(ascii: "?"), sawMarkup || rootSeen {
                throw error("the XML declaration must come first in the document", at: pos)
            }
            sawMarkup = true
            advance(to: end + 2)
            return true
        }
        if next == UInt8(ascii: "!") {
            guard let isComment = Self.hasPrefix(bytes, "<!--", at: pos) else {
                if final { throw error("unexpected end of file after '<!'", at: pos) }
                kindUnknown = true
                return false
            }
            if isComment {
                guard let end = Self.find(bytes, "-->", from: searchStart(pos + 4, overlap: 2)) else {
                    if final { throw error("unexpected end of file inside a comment", at: pos) }
                    return false
                }
                sawMarkup = true
                advance(to: end + 3)
                return true
            }
            guard let isCDATA = Self.hasPrefix(bytes, "<![CDATA[", at: pos) else {
                if final { throw error("unexpected end of file after '<!'", at: pos) }
                kindUnknown = true
                return false
            }
            if isCDATA {
                guard let end = Self.find(bytes, "]]>", from: searchStart(pos + 9, overlap: 2)) else {
                    if final { throw error("unexpected end of file inside a CDATA section", at: pos) }
                    return false
                }
                if open.isEmpty { throw error("CDATA section outside the root element", at: pos) }
                if end > pos + 9 {
                    let from = pos + 9
                    try handler.characters(UnsafeBufferPointer(rebasing: bytes[from..<end]))
                }
                advance(to: end + 3)
                return true
            }
            guard let isDoctype = Self.hasPrefix(bytes, "<!DOCTYPE", at: pos) else {
                if final { throw error("unexpected end of file after '<!'", at: pos) }
                kindUnknown = true
                return false
            }
            if isDoctype { return try doctype(final: final) }
            throw error("unexpected markup '<!'", at: pos)
        }
        return try startTag(&handler, final: final)
    }

    /// Skips a document type declaration; refuses one whose internal subset declares entities.
    private mutating func doctype(final: Bool) throws -> Bool {
        if rootSeen { throw error("DOCTYPE after the root element started", at: pos) }
        var (i, quote, depth) = resumedScan(from: pos + 9)
        var end: Int?
        while i < bytes.count {
            let b = bytes[i]
            if quote != 0 {
                if b == quote { quote = 0 }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: "[") {
                depth += 1
            } else if b == UInt8(ascii: "]") {
                depth -= 1
            } else if b == UInt8(ascii: "<"), depth > 0, let isEntity = Self.hasPrefix(bytes, "<!ENTITY", at: i) {
                if isEntity {
                    throw error("the document type declaration declares entities; entity declarations are refused for safety", at: i)
                }
            } else if b == UInt8(ascii: "<"), depth > 0 {
                break // the buffer ends inside what may be `<!ENTITY`: look again from here
            } else if b == UInt8(ascii: ">") && depth <= 0 {
                end = i; break
            }
            i += 1
        }
        guard let e = end else {
            if final { throw error("unexpected end of file inside the document type declaration", at: pos) }
            stopped = (pos, i, quote, depth)
            return false
        }
        sawMarkup = true
        advance(to: e + 1)
        return true
    }

    private static func isNameStart(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || b == UInt8(ascii: "_") || b == UInt8(ascii: ":") || b >= 0x80
    }

    private static func isNameByte(_ b: UInt8) -> Bool {
        isNameStart(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
    }

    /// Scans a name at `from`; returns its end index.
    private static func scanName(_ p: UnsafeBufferPointer<UInt8>, from: Int, limit: Int) -> Int {
        var i = from
        while i < limit && isNameByte(p[i]) { i += 1 }
        return i
    }

    private static func qname(_ n: (prefix: String, local: String)) -> String {
        n.prefix.isEmpty ? n.local : n.prefix + ":" + n.local
    }

    private static func qname(_ n: (prefix: String, local: String, range: Range<Int>)) -> String {
        n.prefix.isEmpty ? n.local : n.prefix + ":" + n.local
    }

    private static func splitName(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> (prefix: String, local: String) {
        var colon: Int?
        for i in from..<to where p[i] == UInt8(ascii: ":") { colon = i; break }
        guard let c = colon else { return ("", String(decoding: UnsafeBufferPointer(rebasing: p[from..<to]), as: UTF8.self)) }
        return (String(decoding: UnsafeBufferPointer(rebasing: p[from..<c]), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(rebasing: p[(c + 1)..<to]), as: UTF8.self))
    }

    /// The last prefix looked up and its namespace; cleared whenever the bindings change.
    private var lastLookup: (prefix: String, uri: String)?

    /// Counts the changes of `bindings`: a name remembered under another count may mean another namespace.
    private var bindingsGeneration = 0
    private var knownNames = KnownNames()

    private mutating func bindingsChanged() {
        lastLookup = nil
        bindingsGeneration += 1
    }

    private mutating func popBindings(to mark: Int) {
        bindings.removeSubrange(mark...)
        bindingsChanged()
    }

    /// Element names met before, found by the bytes they were written with: a document repeats a
    /// few names thousands of times, and finding one is cheaper than making its strings again and
    /// looking its prefix up.
    private struct KnownNames {
        private static let slots = 64
        /// Longest name remembered, in bytes.
        private static let width = 32
        private var written = [UInt8](repeating: 0, count: slots * width)
        private var entries = [(length: Int, generation: Int, name: XMLName)](
            repeating: (-1, -1, XMLName(local: "")), count: slots)

        private static func slot(_ b: UnsafeBufferPointer<UInt8>) -> Int {
            let n = b.count
            return (n &* 37 &+ Int(b[0]) &* 11 &+ Int(b[n &- 1]) &* 5 &+ Int(b[n / 2])) & (slots - 1)
        }

        /// The name written as `b`, when it was remembered while the bindings were the same.
        func name(written b: UnsafeBufferPointer<UInt8>, generation: Int) -> XMLName? {
            guard !b.isEmpty, b.count <= Self.width else { return nil }
            let i = Self.slot(b)
            guard entries[i].length == b.count, entries[i].generation == generation else { return nil }
            let same = written.withUnsafeBufferPointer { memcmp($0.baseAddress! + i * Self.width, b.baseAddress!, b.count) == 0 }
            return same ? entries[i].name : nil
        }

        mutating func remember(_ name: XMLName, written b: UnsafeBufferPointer<UInt8>, generation: Int) {
            guard !b.isEmpty, b.count <= Self.width else { return }
            let i = Self.slot(b)
            written.withUnsafeMutableBufferPointer { w in
                _ = memcpy(w.baseAddress! + i * Self.width, b.baseAddress!, b.count)
            }
            entries[i] = (b.count, generation, name)
        }
    }

    private mutating func cachedNamespace(for prefix: String) -> String? {
        if let last = lastLookup, last.prefix == prefix { return last.uri }
        guard let uri = Self.namespace(for: prefix, in: bindings) else { return nil }
        lastLookup = (prefix, uri)
        return uri
    }

    private static func namespace(for prefix: String, in bindings: [(prefix: String, uri: String)]) -> String? {
        if prefix == "xml" { return xmlNamespace }
        var i = bindings.count - 1
        while i >= 0 {
            if bindings[i].prefix == prefix { return bindings[i].uri }
            i -= 1
        }
        return prefix.isEmpty ? "" : nil
    }

    private mutating func startTag<H: XMLHandler>(_ handler: inout H, final: Bool) throws -> Bool {
        let tagStart = pos
        let p = bytes
        // Most tags are a bare name: `<ele>`. Scan the name first; only a tag with more in it needs
        // the search for its closing '>' outside quotes (a name holds neither quotes nor '>').
        let nameEnd = Self.scanName(p, from: tagStart + 1, limit: p.count)
        let scan = resumedScan(from: nameEnd)
        var stop = scan
        let close = { () -> Int? in
            if nameEnd < p.count && p[nameEnd] == UInt8(ascii: ">") { return nameEnd }
            var i = scan.index
            var quote = scan.quote
            defer { stop = (i, quote, 0) }
            while i < p.count {
                let b = p[i]
                if quote != 0 {
                    if b == quote { quote = 0 }
                } else if b == UInt8(ascii: ">") {
                    return i
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    quote = b
                }
                i += 1
            }
            return nil
        }()
        guard let gt = close else {
            if final { throw error("unexpected end of file inside a tag", at: pos) }
            stopped = (pos, stop.index, stop.quote, 0)
            return false
        }
        if rootClosed { throw error("a second root element; a document has exactly one", at: pos) }
        guard Self.isNameStart(bytes[pos + 1]) else { throw error("'<' not followed by an element name; write &lt; in text", at: pos) }
        // The element's name as written, for messages: its strings are made (or found) only once
        // the tag's own namespace declarations are known.
        let written = { String(decoding: UnsafeBufferPointer(rebasing: p[(tagStart + 1)..<nameEnd]), as: UTF8.self) }
        var selfClosing = false
        var i = nameEnd
        if !rawAttributes.isEmpty { rawAttributes.removeAll(keepingCapacity: true) }
        if !valueScratch.isEmpty { valueScratch.removeAll(keepingCapacity: true) }
        let mark = bindings.count
        while i < gt {
            let b = bytes[i]
            if Self.isSpace(b) { i += 1; continue }
            if b == UInt8(ascii: "/") {
                guard i + 1 == gt else { throw error("unexpected '/' in tag <\(written())>", at: i) }
                selfClosing = true
                break
            }
            guard i > nameEnd, Self.isSpace(bytes[i - 1]) else {
                throw error("expected whitespace before an attribute in tag <\(written())>", at: i)
            }
            guard Self.isNameStart(b) else { throw error("bad attribute name in tag <\(written())>", at: i) }
            let attrEnd = Self.scanName(bytes, from: i, limit: gt)
            let attr = Self.splitName(bytes, i, attrEnd)
            var j = attrEnd
            while j < gt && Self.isSpace(bytes[j]) { j += 1 }
            guard j < gt, bytes[j] == UInt8(ascii: "=") else {
                throw error("attribute '\(Self.qname(attr))' has no value", at: attrEnd)
            }
            j += 1
            while j < gt && Self.isSpace(bytes[j]) { j += 1 }
            guard j < gt, bytes[j] == UInt8(ascii: "\"") || bytes[j] == UInt8(ascii: "'") else {
                throw error("the value of attribute '\(Self.qname(attr))' must be quoted", at: j)
            }
            let quote = bytes[j]
            var k = j + 1
            let valueStart = valueScratch.count
            while k < gt && bytes[k] != quote {
                let c = bytes[k]
                if c == UInt8(ascii: "<") { throw error("'<' in the value of attribute '\(Self.qname(attr))'", at: k) }
                if c == UInt8(ascii: "&") {
                    var semi = k + 1
                    while semi < gt && bytes[semi] != UInt8(ascii: ";") && semi < k + 40 { semi += 1 }
                    guard semi < gt, bytes[semi] == UInt8(ascii: ";") else {
                        throw error("'&' does not start a reference; write &amp;", at: k)
                    }
                    do {
                        try Self.decodeReference(UnsafeBufferPointer(rebasing: bytes[(k + 1)..<semi]), into: &valueScratch)
                    } catch {
                        throw self.error(error.reason, at: k)
                    }
                    k = semi + 1
                    continue
                }
                valueScratch.append(Self.isSpace(c) ? 0x20 : c)
                k += 1
            }
            guard k < gt else { throw error("unterminated value of attribute '\(Self.qname(attr))'", at: j) }
            let range = valueStart..<valueScratch.count
            if attr.prefix.isEmpty && attr.local == "xmlns" {
                bindings.append(("", Self.interned(valueScratch[range])))
                bindingsChanged()
            } else if attr.prefix == "xmlns" {
                bindings.append((attr.local, Self.interned(valueScratch[range])))
                bindingsChanged()
            } else {
                rawAttributes.append((attr.prefix, attr.local, range))
            }
            i = k + 1
            if i < gt, !Self.isSpace(bytes[i]), bytes[i] != UInt8(ascii: "/") {
                throw error("expected whitespace after the value of attribute '\(Self.qname(attr))'", at: i)
            }
        }
        let name: XMLName
        let nameBytes = UnsafeBufferPointer(rebasing: p[(tagStart + 1)..<nameEnd])
        if let known = knownNames.name(written: nameBytes, generation: bindingsGeneration) {
            name = known
        } else {
            let element = Self.splitName(p, tagStart + 1, nameEnd)
            guard let ns = cachedNamespace(for: element.prefix) else {
                throw error("undeclared namespace prefix '\(element.prefix)' in <\(written())>", at: tagStart)
            }
            name = XMLName(namespace: ns, local: element.local)
            knownNames.remember(name, written: nameBytes, generation: bindingsGeneration)
        }
        attributes.removeAll()
        for a in rawAttributes {
            var attrNS = ""
            if !a.prefix.isEmpty {
                guard let u = Self.namespace(for: a.prefix, in: bindings) else {
                    throw error("undeclared namespace prefix '\(a.prefix)' in attribute '\(Self.qname(a))'", at: tagStart)
                }
                attrNS = u
            }
            attributes.append(XMLName(namespace: attrNS, local: a.local), value: valueScratch[a.range])
        }
        let tagLine = line
        let tagColumn = tagStart - lineStart + 1
        rootSeen = true
        sawMarkup = true
        let nameAt = open.last?.nameEnd ?? 0
        let nameLength = nameEnd - tagStart - 1
        if openNames.count < nameAt + nameLength {
            openNames.append(contentsOf: repeatElement(0, count: nameAt + nameLength - openNames.count))
        }
        openNames.withUnsafeMutableBufferPointer { _ = memcpy($0.baseAddress! + nameAt, p.baseAddress! + tagStart + 1, nameLength) }
        open.append(OpenElement(name: name, bindingMark: mark, nameStart: nameAt, nameEnd: nameAt + nameLength))
        try handler.startElement(name, attributes: attributes, line: tagLine, column: tagColumn)
        if gt <= nameEnd + 1 {
            pos = gt + 1 // `<name>` or `<name/>`: no line break to count
        } else {
            advance(to: gt + 1)
        }
        if selfClosing {
            open.removeLast()
            if bindings.count > mark { popBindings(to: mark) }
            if open.isEmpty { rootClosed = true }
            try handler.endElement(name, line: tagLine)
        }
        return true
    }

    private mutating func endTag<H: XMLHandler>(_ handler: inout H, final: Bool) throws -> Bool {
        let nameEnd = Self.scanName(bytes, from: pos + 2, limit: bytes.count)
        let gt: Int
        if nameEnd < bytes.count && bytes[nameEnd] == UInt8(ascii: ">") {
            gt = nameEnd
        } else {
            guard let found = Self.find(bytes, ">", from: searchStart(nameEnd, overlap: 0)) else {
                if final { throw error("unexpected end of file inside an end tag", at: pos) }
                return false
            }
            gt = found
        }
        for k in nameEnd..<gt where !Self.isSpace(bytes[k]) {
            throw error("unexpected character in end tag", at: k)
        }
        let nameBytes = UnsafeBufferPointer(rebasing: bytes[(pos + 2)..<nameEnd])
        guard !open.isEmpty else {
            throw error("end tag </\(String(decoding: nameBytes, as: UTF8.self))> without a matching start tag", at: pos)
        }
        let written = open[open.count - 1].nameStart
        let same = open[open.count - 1].nameEnd - written == nameBytes.count && openNames.withUnsafeBufferPointer {
            memcmp($0.baseAddress! + written, nameBytes.baseAddress!, nameBytes.count) == 0
        }
        guard same else {
            throw error("mismatched end tag </\(String(decoding: nameBytes, as: UTF8.self))>; expected </\(openQName)>", at: pos)
        }
        let top = open.removeLast()
        if bindings.count > top.bindingMark { popBindings(to: top.bindingMark) }
        if open.isEmpty { rootClosed = true }
        let endLine = line
        if gt == nameEnd { pos = gt + 1 } else { advance(to: gt + 1) }
        try handler.endElement(top.name, line: endLine)
        return true
    }
}
