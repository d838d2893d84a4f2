import Foundation
@testable import GIS
import Testing

/// What the GeoPackage reader makes of a row's text.
@Suite struct GeoPackageReaderTextTests {
    /// A species is blank exactly when trimming `.whitespaces` leaves nothing: every scalar of the
    /// Basic Multilingual Plane alone, and mixtures of blanks with other scalars.
    @Test func blankIsWhatTrimmingWhitespacesLeavesEmpty() {
        var texts = ["", " ", "\t", " \t ", "a", " a ", "\n", " \u{301}", "\u{3000}\u{2003}", "\u{200B}", "\u{FEFF}", "🌳", " 🌳"]
        for v in 0...0xFFFF {
            if let scalar = Unicode.Scalar(v) { texts.append(String(Character(scalar))) }
        }
        for text in texts {
            #expect(GeoPackageReader.isBlank(text) == text.trimmingCharacters(in: .whitespaces).isEmpty, "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
