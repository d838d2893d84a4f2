import Foundation
import Testing
import TreesKit

/// The one text codec: every date, number and escape that `trees` writes or reads, against a
/// table of edge cases.
@Suite struct TextCodecTests {
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    // MARK: ISO 8601 written

    @Test(arguments: [
        // seconds since 1970, milliseconds, when present, whole seconds
        (0.0, "1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"),
        (951_782_400.0, "2000-02-29T00:00:00.000Z", "2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z"),  // leap day of a 400-year
        (1_709_208_000.0, "2024-02-29T12:00:00.000Z", "2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"),
        (-62_167_219_200.0, "0000-01-01T00:00:00.000Z", "0000-01-01T00:00:00Z", "0000-01-01T00:00:00Z"),  // year 0000, proleptic
        (-12_219_292_800.0, "1582-10-15T00:00:00.000Z", "1582-10-15T00:00:00Z", "1582-10-15T00:00:00Z"),  // the Gregorian reform
        (-12_219_379_200.0, "1582-10-14T00:00:00.000Z", "1582-10-14T00:00:00Z", "1582-10-14T00:00:00Z"),  // not Julian's 10-04
        (253_402_300_799.999, "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59Z"),
        (1_714_557_600.125, "2024-05-01T10:00:00.125Z", "2024-05-01T10:00:00.125Z", "2024-05-01T10:00:00Z"),
        (1_714_557_600.9996, "2024-05-01T10:00:01.000Z", "2024-05-01T10:00:01Z", "2024-05-01T10:00:01Z"),  // rounds to the ms
        (1_714_557_600.9994, "2024-05-01T10:00:00.999Z", "2024-05-01T10:00:00.999Z", "2024-05-01T10:00:00Z"),  // cut, not rounded
        (-1.5, "1969-12-31T23:59:58.500Z", "1969-12-31T23:59:58.500Z", "1969-12-31T23:59:58Z"),
        (-62_198_755_200.0, "-0001-01-01T00:00:00.000Z", "-0001-01-01T00:00:00Z", "-0001-01-01T00:00:00Z"),  // expanded year
    ])
    func writesTimes(seconds: Double, milliseconds: String, whenPresent: String, wholeSeconds: String) {
        #expect(TextCodec.iso8601(Self.date(seconds)) == milliseconds)
        #expect(TextCodec.iso8601(Self.date(seconds), fraction: .whenPresent) == whenPresent)
        #expect(TextCodec.iso8601(Self.date(seconds), fraction: .wholeSeconds) == wholeSeconds)
    }

    @Test func aYearPast9999IsWrittenInFullAndReadsBack() throws {
        let d = try #require(TextCodec.parseISO8601("12345-01-01T00:00:00.5Z"))
        #expect(TextCodec.iso8601(d) == "12345-01-01T00:00:00.500Z")
    }

    @Test func aTimeTooFarOrNotFiniteIsWrittenAsTheEpoch() {
        #expect(TextCodec.iso8601(Self.date(.nan)) == "1970-01-01T00:00:00.000Z")
        #expect(TextCodec.iso8601(Self.date(1e300), fraction: .whenPresent) == "1970-01-01T00:00:00Z")
    }

    // MARK: ISO 8601 read

    @Test(arguments: [
        ("2024-05-01T10:00:00Z", 1_714_557_600.0),
        ("2024-05-01T10:00:00.125Z", 1_714_557_600.125),
        ("2024-05-01t10:00:00,125z", 1_714_557_600.125),
        ("2024-05-01 10:00:00", 1_714_557_600.0),  // no zone: UTC
        ("  2024-05-01T12:00:00+02:00\n", 1_714_557_600.0),
        ("2024-05-01T05:30:00-0430", 1_714_557_600.0),
        ("2024-05-01", 1_714_521_600.0),
        ("2000-02-29T00:00:00Z", 951_782_400.0),
        ("0000-01-01T00:00:00Z", -62_167_219_200.0),
        ("1582-10-14T00:00:00Z", -12_219_379_200.0),
        ("9999-12-31T23:59:59.999Z", 253_402_300_799.999),
        ("-0001-01-01T00:00:00Z", -62_198_755_200.0),
        ("2016-12-31T23:59:60Z", 1_483_228_800.0),  // a leap second reads as the next second
    ])
    func readsTimes(text: String, seconds: Double) throws {
        let d = try #require(TextCodec.parseISO8601(text))
        #expect(abs(d.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test(arguments: [
        "", "2024", "2024-5-01", "2023-02-29", "1900-02-29T00:00:00Z", "2024-13-01", "2024-04-31", "2024-05-01T25:00:00Z",
        "2024-05-01T10:60:00Z", "2024-05-01T10:00:61Z", "2024-05-01T10:00:00.Z", "2024-05-01T10:00:00+24:00",
        "2024-05-01T10:00:00Zjunk", "2024-05-01X10:00:00", "١٩٧٠-01-01",
    ])
    func refusesWhatIsNotATime(text: String) {
        #expect(TextCodec.parseISO8601(text) == nil)
    }

    @Test func everyWrittenTimeReadsBackToTheMillisecond() throws {
        var seconds = -62_167_219_200.0
        while seconds < 253_402_300_799 {
            let d = Self.date((seconds * 1000).rounded() / 1000)
            let back = try #require(TextCodec.parseISO8601(TextCodec.iso8601(d)))
            #expect(abs(back.timeIntervalSince1970 - d.timeIntervalSince1970) < 0.0005)
            seconds += 7_777_777.777
        }
    }

    // MARK: Decimals

    @Test(arguments: [
        (0.0, "0"), (-0.0, "0"), (512.0, "512"), (-8.5417456, "-8.5417456"), (0.1, "0.1"), (1.0 / 3.0, "0.3333333333333333"),
        (0.00001, "0.00001"), (-1.5e-7, "-0.00000015"), (1e21, "1000000000000000000000"), (123456789012345.0, "123456789012345"),
        (1e15, "1000000000000000"), (5e-324, "0." + String(repeating: "0", count: 323) + "5"),
        (51.477928, "51.477928"), (90.0, "90"), (-180.0, "-180"), (2.5e-5, "0.000025"),
    ])
    func writesDecimals(value: Double, text: String) throws {
        #expect(TextCodec.decimal(value) == text)
        // What is written reads back as the same number.
        #expect(Double(try #require(TextCodec.decimal(value))) == value)
    }

    @Test func writesTheExtremesInFull() throws {
        let largest = try #require(TextCodec.decimal(.greatestFiniteMagnitude))
        #expect(largest.hasPrefix("17976931348623157") && largest.count == 309 && largest.allSatisfy(\.isNumber))
        #expect(Double(largest) == .greatestFiniteMagnitude)
        let smallestNormal = try #require(TextCodec.decimal(-.leastNormalMagnitude))
        #expect(smallestNormal.hasPrefix("-0." + String(repeating: "0", count: 307) + "22250738585072014"))
        #expect(Double(smallestNormal) == -.leastNormalMagnitude)
        // The longest text of all fits the room the codec asks for.
        #expect(try #require(TextCodec.decimal(-.leastNonzeroMagnitude)).utf8.count <= TextCodec.maxDecimalCount)
    }

    /// Numbers of every size and sign, whole bit patterns included: each is written as the standard
    /// library's shortest form (exponent spelt out, `.0` dropped) and reads back as the same number.
    @Test func everyDecimalIsTheShortestFormAndReadsBack() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var checked = 0
        for i in 0..<60_000 {
            let bits = next()
            let value: Double
            switch i % 3 {
            case 0: value = Double(bitPattern: bits)
            case 1: value = Double(Int64(bitPattern: bits) % 360_000_000_000) / 1e9  // coordinates
            default: value = Double(bits % 100_000_000) / 1e6 * (bits & 1 == 0 ? 1 : -1)
            }
            guard value.isFinite else { continue }
            let text = try #require(TextCodec.decimal(value))
            #expect(Double(text) == value, "\(value) written as \(text)")
            let shortest = value.description
            if !shortest.contains("e") {
                #expect(text == (shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest))
            }
            checked += 1
        }
        #expect(checked > 55_000)
    }

    /// Numbers of up to 9 decimals below 1e6 take a short way to their text (`nineDecimalsBelow`);
    /// numbers of 10 or more decimals, and larger ones, the standard library's. Both give the
    /// standard library's shortest form, exponent spelt out: checked on each side of the bound and
    /// at every number of decimals, with the neighbouring doubles of each.
    @Test func numbersOfFewDecimalsAreWrittenAsTheirShortestForm() throws {
        /// The standard library's shortest text with its exponent spelt out and `.0` dropped.
        func expected(_ value: Double) -> String {
            let text = value.description
            guard let e = text.firstIndex(where: { $0 == "e" }) else { return text.hasSuffix(".0") ? String(text.dropLast(2)) : text }
            let exponent = Int(text[text.index(after: e)...])!
            var mantissa = String(text[..<e])
            let negative = mantissa.hasPrefix("-")
            if negative { mantissa.removeFirst() }
            let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
            var digits = String(parts[0]) + (parts.count > 1 ? String(parts[1]) : "")
            var point = parts[0].count + exponent
            if point <= 0 { digits = String(repeating: "0", count: 1 - point) + digits; point = 1 }
            if point >= digits.count { digits += String(repeating: "0", count: point - digits.count) }
            var whole = String(digits.prefix(point)), fraction = String(digits.dropFirst(point))
            while fraction.hasSuffix("0") { fraction.removeLast() }
            while whole.count > 1 && whole.hasPrefix("0") { whole.removeFirst() }
            return (negative ? "-" : "") + whole + (fraction.isEmpty ? "" : "." + fraction)
        }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        var values: [Double] = [1e6, 999_999.999_999_999, 999_999.999_999_999_9, 1e6 - 1e-9, 1e6 + 1e-9, 1e-9, 5e-10, 1.5e-9,
                                0.1, 0.3, 0.1 + 0.2, 47.3000002, -8.50004037, 412.554, 0.000_123, 123_456.789_012_345]
        for decimals in 1...12 {
            for _ in 0..<4_000 {
                let units = Int64(bitPattern: next() % 2_000_000_000_000_000) - 1_000_000_000_000_000
                let value = Double(units % Int64(pow(10, Double(min(decimals + 8, 18))))) / pow(10, Double(decimals))
                values += [value, value.nextUp, value.nextDown]
            }
        }
        var wrong: [String] = []
        for value in values where value.isFinite {
            let text = try #require(TextCodec.decimal(value))
            if text != expected(value) || Double(text) != value { wrong.append("\(value.description): \(text)") }
        }
        let wrongCount = wrong.count
        #expect(wrongCount == 0, "of \(values.count), e.g. \(wrong.prefix(5))")
        #expect(values.count > 140_000)
    }

    @Test func refusesNaNAndInfinities() {
        for v in [Double.nan, .infinity, -.infinity, .signalingNaN] {
            var out: [UInt8] = [1]
            #expect(!TextCodec.appendDecimal(v, to: &out))
            #expect(!TextCodec.appendDecimal(v, places: 3, to: &out))
            #expect(out == [1])
            #expect(TextCodec.decimal(v) == nil)
        }
    }

    @Test(arguments: [
        (51.5000001, 3, "51.5"), (-0.0001, 3, "0"), (-0.0, 9, "0"), (48.1173000494, 9, "48.117300049"), (48.1173000496, 9, "48.11730005"), (2.0, 2, "2"),
        (-11.5220667, 9, "-11.5220667"), (0.125, 2, "0.13"), (1.005, 2, "1"), (123.4567, 0, "123"),
    ])
    func writesFixedPlaces(value: Double, places: Int, text: String) {
        var out: [UInt8] = []
        #expect(TextCodec.appendDecimal(value, places: places, to: &out))
        #expect(String(decoding: out, as: UTF8.self) == text)
    }

    @Test(arguments: [(0, "0"), (7, "7"), (-42, "-42"), (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808")])
    func writesIntegers(value: Int, text: String) {
        var out: [UInt8] = []
        TextCodec.appendInteger(value, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == text)
    }

    @Test func writesIntegersAtEveryPowerOfTen() {
        var power = 1
        for _ in 0..<19 {
            for v in [power - 1, power, power + 1, -power, -(power - 1)] {
                var out: [UInt8] = [UInt8(ascii: "x")]
                TextCodec.appendInteger(v, to: &out)
                #expect(String(decoding: out, as: UTF8.self) == "x" + String(v))
            }
            if power <= Int.max / 10 { power *= 10 }
        }
    }

    // MARK: Escaping

    @Test func escapesJSON() throws {
        #expect(TextCodec.jsonString("plain") == #""plain""#)
        #expect(TextCodec.jsonString("a\"b\\c\n\r\t\u{1}\u{1f}") == #""a\"b\\c\n\r\t\u0001\u001f""#)
        #expect(TextCodec.jsonString("Ölbaum 🌳 </script>") == "\"Ölbaum 🌳 </script>\"")
        // What is written is a JSON string holding the same text.
        let hostile = "x\u{0}y\u{7f}\u{2028}\"\\"
        let back = try JSONSerialization.jsonObject(with: Data(TextCodec.jsonString(hostile).utf8), options: .fragmentsAllowed)
        #expect(back as? String == hostile)
    }

    /// Every ASCII character, alone and between letters, in content and in an attribute: escaped
    /// as XML wants it, or dropped, or kept as it is, whichever way the text is scanned.
    @Test func escapesEveryASCIICharacterForXML() {
        func reference(_ c: UInt8, attribute: Bool) -> String {
            switch c {
            case UInt8(ascii: "&"): "&amp;"
            case UInt8(ascii: "<"): "&lt;"
            case UInt8(ascii: ">"): "&gt;"
            case UInt8(ascii: "\""): "&quot;"
            case UInt8(ascii: "'"): "&apos;"
            case 0x0D: "&#13;"
            case 0x09: attribute ? "&#9;" : "\t"
            case 0x0A: attribute ? "&#10;" : "\n"
            case ..<0x20: ""
            default: String(UnicodeScalar(c))
            }
        }
        for c in UInt8(0)..<0x80 {
            let alone = String(UnicodeScalar(c))
            #expect(TextCodec.xmlEscaped(alone) == reference(c, attribute: false), "byte \(c)")
            #expect(TextCodec.xmlAttributeEscaped(alone) == reference(c, attribute: true), "byte \(c)")
            let within = "Malus domestica" + alone + "Gala"
            #expect(TextCodec.xmlEscaped(within) == "Malus domestica" + reference(c, attribute: false) + "Gala", "byte \(c)")
            var out: [UInt8] = []
            #expect(TextCodec.appendXMLEscaped(within, to: &out) == (c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D), "byte \(c)")
            // At every place of the words the text is scanned by, and of the bytes after them.
            let letters = Array("Pyrus communis Williams".utf8)
            for at in 0...letters.count {
                var text = letters
                text.insert(c, at: at)
                let escaped = TextCodec.xmlEscaped(String(decoding: text, as: UTF8.self))
                #expect(escaped == String(decoding: letters[..<at], as: UTF8.self) + reference(c, attribute: false)
                        + String(decoding: letters[at...], as: UTF8.self), "byte \(c) at \(at)")
            }
        }
        // U+FFFE and U+FFFF at every place too; other characters starting with 0xEF, and other
        // bytes at or above 0x80, are kept.
        for at in 0...20 {
            let before = String(repeating: "a", count: at)
            #expect(TextCodec.xmlEscaped(before + "\u{FFFF}b") == before + "b")
            #expect(TextCodec.xmlEscaped(before + "\u{FFFE}") == before)
            #expect(TextCodec.xmlEscaped(before + "\u{F8FF}Ölbaum\u{FFFD}") == before + "\u{F8FF}Ölbaum\u{FFFD}")
        }
    }

    @Test func escapesXML() {
        #expect(TextCodec.xmlEscaped(#"Cox's "Orange" <Pippin> & co"#) == "Cox&apos;s &quot;Orange&quot; &lt;Pippin&gt; &amp; co")
        #expect(TextCodec.xmlEscaped("tab\tline\nreturn\r bell\u{7} nul\u{0}") == "tab\tline\nreturn&#13; bell nul")
        #expect(TextCodec.xmlEscaped("a\u{FFFE}b\u{FFFF}c\u{FFFD}\u{FFBE}\u{F000}\u{FFFF}") == "abc\u{FFFD}\u{FFBE}\u{F000}")
        #expect(TextCodec.xmlEscaped("Ölbaum") == "Ölbaum")
    }

    @Test func escapesHTML() {
        #expect(TextCodec.htmlEscaped(#"<b>"A" & 'B'</b>"#) == "&lt;b&gt;&quot;A&quot; &amp; &#39;B&#39;&lt;/b&gt;")
        #expect(TextCodec.htmlEscaped("a\u{1b}[2Jb\u{85}c\td\ne") == "a\u{FFFD}[2Jb\u{FFFD}c\td\ne")
    }

    @Test func jsonForAScriptElementCannotEndIt() throws {
        let json = TextCodec.jsonString("</script><!--<script> & \u{2028}\u{7f}")
        let safe = TextCodec.jsonForScriptElement(json)
        #expect(!safe.contains("<") && !safe.contains(">") && !safe.contains("&"))
        #expect(!safe.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x7f })
        let back = try JSONSerialization.jsonObject(with: Data(safe.utf8), options: .fragmentsAllowed)
        #expect(back as? String == "</script><!--<script> & \u{2028}\u{7f}")
    }
}
