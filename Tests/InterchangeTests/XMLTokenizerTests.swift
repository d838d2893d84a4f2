import Foundation
import Testing
@testable import Interchange
import TreesTestSupport

/// Records tokenizer events as readable lines; adjacent text pieces are joined.
struct EventLog: XMLHandler {
    var lines: [String] = []
    var pendingText: [UInt8] = []

    mutating func flushText() {
        if !pendingText.isEmpty {
            lines.append("text \(String(decoding: pendingText, as: UTF8.self).debugDescription)")
            pendingText.removeAll()
        }
    }

    mutating func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int, column: Int) throws {
        flushText()
        var s = "start \(name) @\(line):\(column)"
        for i in 0..<attributes.count {
            s += " \(attributes.names[i])=\(String(decoding: attributes.value(at: i), as: UTF8.self).debugDescription)"
        }
        lines.append(s)
    }

    mutating func endElement(_ name: XMLName, line: Int) throws {
        flushText()
        lines.append("end \(name)")
    }

    mutating func characters(_ text: UnsafeBufferPointer<UInt8>) throws { pendingText.append(contentsOf: text) }
}

/// The tokenizer's events for `pieces` fed one after the other, for `ChunkingVerifier`.
func tokenize(_ pieces: [ArraySlice<UInt8>]) throws -> [String] {
    var tokenizer = XMLTokenizer()
    var log = EventLog()
    for piece in pieces { try tokenizer.feed(piece, to: &log) }
    try tokenizer.finish(&log)
    log.flushText()
    return log.lines
}

func tokenize(_ bytes: [UInt8]) throws -> [String] { try tokenize(ChunkingVerifier.Chunking.whole.split(bytes)) }

func tokenize(_ text: String) throws -> [String] { try tokenize(Array(text.utf8)) }

/// The error tokenizing `bytes` gives, checked to be the same however `verifier` cuts them.
func xmlError(_ bytes: [UInt8], _ verifier: ChunkingVerifier = ChunkingVerifier([.whole]),
              sourceLocation: SourceLocation = #_sourceLocation) -> InterchangeError? {
    do {
        _ = try verifier.verify(bytes, sourceLocation: sourceLocation) { try tokenize($0) }
        return nil
    } catch let e as InterchangeError {
        return e
    } catch {
        return nil
    }
}

func xmlError(_ text: String, _ verifier: ChunkingVerifier = ChunkingVerifier([.whole]),
              sourceLocation: SourceLocation = #_sourceLocation) -> InterchangeError? {
    xmlError(Array(text.utf8), verifier, sourceLocation: sourceLocation)
}

@Suite struct XMLTokenizerTests {
    static let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment with <tags> & stuff -->
        <?pi some data?>
        <!DOCTYPE gpx PUBLIC "-//x//EN" "http://example.invalid/gpx.dtd">
        <gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:t='urn:t' version="1.1">
          <wpt lat="1.5" lon='-2.25' t:x="a&amp;b &#x41;&#66;&lt;&gt;&quot;&apos;">
            <name>Caf&#233; &amp; <![CDATA[<raw> & ]]>bar</name>
            <t:ext xmlns:t="urn:other" t:y="1"/>
            <desc>tab\tand
        newline</desc>
          </wpt>
          <x:y xmlns:x="urn:x"><z/></x:y>
        </gpx>
        <!-- trailing comment -->

        """

    static let expected = [
        "start {http://www.topografix.com/GPX/1/1}gpx @5:1 version=\"1.1\"",
        "text \"\\n  \"",
        "start {http://www.topografix.com/GPX/1/1}wpt @6:3 lat=\"1.5\" lon=\"-2.25\" {urn:t}x=\"a&b AB<>\\\"\\'\"",
        "text \"\\n    \"",
        "start {http://www.topografix.com/GPX/1/1}name @7:5",
        "text \"Café & <raw> & bar\"",
        "end {http://www.topografix.com/GPX/1/1}name",
        "text \"\\n    \"",
        "start {urn:other}ext @8:5 {urn:other}y=\"1\"",
        "end {urn:other}ext",
        "text \"\\n    \"",
        "start {http://www.topografix.com/GPX/1/1}desc @9:5",
        "text \"tab\\tand\\nnewline\"",
        "end {http://www.topografix.com/GPX/1/1}desc",
        "text \"\\n  \"",
        "end {http://www.topografix.com/GPX/1/1}wpt",
        "text \"\\n  \"",
        "start {urn:x}y @12:3",
        "start {http://www.topografix.com/GPX/1/1}z @12:24",
        "end {http://www.topografix.com/GPX/1/1}z",
        "end {urn:x}y",
        "text \"\\n\"",
        "end {http://www.topografix.com/GPX/1/1}gpx",
    ]

    @Test func tokenizesEveryConstruct() throws {
        #expect(try tokenize(Self.sample) == Self.expected)
    }

    @Test func anyChunkingGivesTheSameEvents() throws {
        #expect(try ChunkingVerifier.standard.verify(Self.sample) { try tokenize($0) } == Self.expected)
    }

    @Test func corpusFileChunkingGivesTheSameEvents() throws {
        let bytes = [UInt8](try Data(contentsOf: GPXCorpus.folder.appendingPathComponent("gpxpassthrough11.gpx")))
        try ChunkingVerifier.standard.verify(bytes) { try tokenize($0) }
    }

    /// Markup much longer than a piece: it is complete only once a `>` arrives, and is read the
    /// same (events or error) whether it came whole or in many pieces, with `>` inside quoted
    /// values, comments and CDATA along the way, and with an error early in a tag that ends late.
    @Test func markupLongerThanAPieceReadsTheSame() throws {
        let verifier = ChunkingVerifier(sizes: [1, 7, 64, 4096])
        let rows = (0..<500).map { "row \($0) -> next" }.joined(separator: "\n")
        let attributes = (0..<300).map { " k\($0)=\"a>b\"" }.joined()
        let doc = "<?xml version=\"1.0\"?><?pi \(rows)?><!DOCTYPE a><a\(attributes)><!--\(rows)--><![CDATA[\(rows) ]] >]]><b\(attributes)/></a>"
        let whole = try verifier.verify(doc) { try tokenize($0) }
        #expect(whole.count == 5)
        #expect(whole.filter { $0.hasPrefix("text") }.count == 1)
        let early = "<a><b x=1\(attributes)/></a>"
        #expect(xmlError(early, verifier) == .malformedXML(line: 1, column: 9, reason: "the value of attribute 'x' must be quoted"))
        let unfinished = "<a><!--\(rows)"
        #expect(xmlError(unfinished, verifier) == .malformedXML(line: 1, column: 4, reason: "unexpected end of file inside a comment"))
    }

    // MARK: Encodings

    static let latinDoc = "<?xml version=\"1.0\" encoding=\"%@\"?><a>Gr\u{FC}\u{DF}e \u{20AC}</a>"

    @Test func transcodesUTF16WithBOM() throws {
        let verifier = ChunkingVerifier(sizes: [1, 2, 3, 5, 4096])
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><a b=\"\u{100}\">\u{1F333} Grüße</a>"
        var le: [UInt8] = [0xFF, 0xFE]
        var be: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 {
            le += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            be += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        let expected = ["start a @1:40 b=\"Ā\"", "text \"🌳 Grüße\"", "end a"]
        #expect(try verifier.verify(le) { try tokenize($0) } == expected)
        #expect(try verifier.verify(be) { try tokenize($0) } == expected)
    }

    @Test func transcodesUTF8WithBOMAndLatin1AndWindows1252() throws {
        let verifier = ChunkingVerifier(sizes: [1, 7, 4096])
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<a>Grüße</a>".utf8)
        #expect(try verifier.verify(bom) { try tokenize($0) } == ["start a @1:1", "text \"Grüße\"", "end a"])

        let latin1: [UInt8] = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>Gr".utf8) + [0xFC, 0xDF] + Array("e</a>".utf8)
        #expect(try verifier.verify(latin1) { try tokenize($0) } == ["start a @1:44", "text \"Grüße\"", "end a"])

        let cp1252: [UInt8] = Array("<?xml version='1.0' encoding='windows-1252'?><a>".utf8) + [0x80, 0x20, 0x93, 0x71, 0x94] + Array("</a>".utf8)
        #expect(try verifier.verify(cp1252) { try tokenize($0) } == ["start a @1:46", "text \"€ \u{201C}q\u{201D}\"", "end a"])
    }

    @Test func refusesAnUnknownEncoding() {
        #expect(xmlError("<?xml version=\"1.0\" encoding=\"EBCDIC-37\"?><a/>") == .unsupportedEncoding("EBCDIC-37"))
    }

    // MARK: Security

    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
         <!ENTITY lol "lol">
         <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
         <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
         <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
         <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
         <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
         <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
         <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
         <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
         <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1"><wpt lat="1" lon="2"><name>&lol9;</name></wpt></gpx>
        """

    static let xxe = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE gpx [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
        <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1"><wpt lat="1" lon="2"><name>&xxe;</name></wpt></gpx>
        """

    @Test func refusesEntityDeclarations() throws {
        let verifier = ChunkingVerifier(sizes: [1, 4096])
        #expect(xmlError(Self.billionLaughs, verifier) == .malformedXML(
            line: 3, column: 2,
            reason: "the document type declaration declares entities; entity declarations are refused for safety"))
        #expect(xmlError(Self.xxe, verifier) == .malformedXML(
            line: 2, column: 17,
            reason: "the document type declaration declares entities; entity declarations are refused for safety"))
    }

    @Test func neverExpandsUndeclaredEntitiesNorReadsFiles() throws {
        // An entity used without any declaration: refused, and nothing from /etc/passwd appears.
        let doc = "<gpx><wpt lat=\"1\" lon=\"2\"><name>&xxe;</name></wpt></gpx>"
        let e = try #require(xmlError(doc))
        #expect(e.reason == "undefined entity '&xxe;' (only the five predefined entities are expanded)")
        #expect(!e.description.contains("root:"))
        // Through the GPX reader as well: an error, never the file's content.
        do {
            _ = try GPXReader.read(Array(Self.xxe.utf8)) { event in
                if case .waypoint(let p) = event { #expect(!(p.name ?? "").contains("root:")) }
            }
            Issue.record("XXE document accepted")
        } catch let error as InterchangeError {
            #expect(error.line == 2)
        }
    }

    // MARK: Malformed input

    @Test(arguments: [
        ("<a><b></a>", 1, 7, "mismatched end tag </a>; expected </b>"),
        ("<a>\n  <b>text", 2, 10, "unexpected end of file: <b> is not closed"),
        ("track: init: Found track point", 1, 1, "this is not XML: the document does not start with '<'"),
        ("", 1, 1, "no root element; this is not an XML document"),
        ("<a x=1/>", 1, 6, "the value of attribute 'x' must be quoted"),
        ("<a>\n</a><b/>", 2, 5, "a second root element; a document has exactly one"),
        ("<a>x & y</a>", 1, 6, "'&' does not start a reference; write &amp;"),
        ("<p:a/>", 1, 1, "undeclared namespace prefix 'p' in <p:a>"),
        ("<a><!-- open", 1, 4, "unexpected end of file inside a comment"),
        ("<a>&#0;</a>", 1, 4, "character reference '&#0;' is not a legal XML character"),
    ])
    func reportsLineColumnAndReason(doc: String, line: Int, column: Int, reason: String) {
        #expect(xmlError(doc, ChunkingVerifier(sizes: [1, 3, 4096])) == .malformedXML(line: line, column: column, reason: reason))
    }

    /// Text that is not XML's is refused where it is, never read as U+FFFD or passed on: bytes that
    /// are not UTF-8 (a Latin-1 file without its declaration, overlong forms, surrogates), a lone
    /// UTF-16 surrogate, control characters and U+FFFE.
    static func utf16LE(_ s: String) -> [UInt8] { s.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
    static func utf16BE(_ s: String) -> [UInt8] { s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
    static let notUTF8 = "is not UTF-8; save the file as UTF-8 or declare its encoding"
    static let notXMLText: [([UInt8], Int, Int, String)] = [
        (Array("<a>\n<b>Gr".utf8) + [0xFC, 0xDF] + Array("e</b></a>".utf8), 2, 6, "byte 0xFC " + notUTF8),
        (Array("<a x='".utf8) + [0xC0, 0xAF] + Array("'/>".utf8), 1, 7, "byte 0xC0 " + notUTF8),
        (Array("<a>".utf8) + [0xED, 0xA0, 0x80] + Array("</a>".utf8), 1, 4, "byte 0xED " + notUTF8),
        (Array("<a>".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("</a>".utf8), 1, 4, "byte 0xF4 " + notUTF8),
        (Array("<a>x".utf8) + [0xE2, 0x82], 1, 5, "the file ends inside a UTF-8 character"),
        (Array("<a>bell\u{7}</a>".utf8), 1, 8, "control character U+0007 is not allowed in XML"),
        (Array("<a>\u{FFFE}</a>".utf8), 1, 4, "character U+FFFE is not allowed in XML"),
        (Array("<?xml version='1.0' encoding='ISO-8859-1'?>\n<a>\u{1}</a>".utf8), 2, 4, "control character U+0001 is not allowed in XML"),
        ([0xFF, 0xFE] + utf16LE("<a>") + [0x00, 0xD8] + utf16LE("</a>"), 1, 4, "a UTF-16 high surrogate without its low half"),
        ([0xFE, 0xFF] + utf16BE("<a>") + [0xDC, 0x00] + utf16BE("</a>"), 1, 4, "a UTF-16 low surrogate without its high half"),
    ]

    @Test(arguments: notXMLText)
    func refusesTextThatIsNotXMLs(bytes: [UInt8], line: Int, column: Int, reason: String) {
        #expect(xmlError(bytes, ChunkingVerifier(sizes: [1, 2, 3, 4096])) == .malformedXML(line: line, column: column, reason: reason))
    }

    /// Well-formed text of every UTF-8 length reads as itself, however the bytes are cut.
    @Test func readsEveryUTF8Length() throws {
        let value = "\u{E9}\u{20AC}\u{1F333}\u{10FFFD}"
        let body = "\t\u{7F}\u{80}\u{FFFD}\u{FEFF}\u{10000}\u{FFFD}"
        let verifier = ChunkingVerifier(sizes: [1, 2, 3, 5, 4096])
        #expect(try verifier.verify(Array("<a t='\(value)'>\(body)</a>".utf8)) { try tokenize($0) }
                    == ["start a @1:1 t=\(value.debugDescription)", "text \(body.debugDescription)", "end a"])
    }

    /// A carriage return in the file, alone or before a line feed, is one line feed; `&#13;` is
    /// a carriage return. Lines are counted either way.
    @Test func normalisesLineEndsButNotCharacterReferences() throws {
        let verifier = ChunkingVerifier(sizes: [1, 2, 4096])
        #expect(try verifier.verify(Array("<a x='1\r\n2'>a\r\nb\rc&#13;d\r\r\n<b/></a>".utf8)) { try tokenize($0) }
                    == ["start a @1:1 x=\"1 2\"", "text \"a\\nb\\nc\\rd\\n\\n\"", "start b @6:1", "end b", "end a"])
    }
}
