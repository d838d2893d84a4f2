import Testing
import TreesKit

@Suite struct TreeCollectionTests {
    /// `none` names no collection wherever a collection is named, in any case and with blanks
    /// around it; a name that only contains it is a name.
    @Test func noneMeansNoCollection() {
        for text in ["none", "None", " NONE ", "none\n", "\tnOnE"] { #expect(TreeCollection.meansNone(text), "\(text)") }
        for text in ["", " ", "nonet", "no ne", "none of these", "—none—"] { #expect(!TreeCollection.meansNone(text), "\(text)") }
    }

    /// Names of one collection: the same but for case in any script, or for how an accented
    /// letter is composed ("A" and a combining diaeresis is "Ä").
    @Test(arguments: [
        ("Äpfel", "äpfel"), ("Äpfel", "ÄPFEL"), ("Äpfel", "A\u{308}PFEL"), ("Straße", "STRASSE"), ("Straße", "STRAẞE"),
        ("strasse", "STRAẞE"), ("ΟΔΟΣ", "οδος"), ("Ørchard", "øRCHARD"), ("Вишня", "ВИШНЯ"), ("ꭰ", "Ꭰ"), ("Block 7", "block 7"),
    ])
    func namesOfOneCollection(a: String, b: String) {
        #expect(TreeCollection.sameName(a, b))
        #expect(TreeCollection.sameName(b, a))
        #expect(TreeCollection.nameKey(a) == TreeCollection.nameKey(b))
        #expect(Set([TreeCollection.nameKey(a), TreeCollection.nameKey(b)]).count == 1)
    }

    /// Names of two collections: a letter without its accent is another letter; blanks count.
    @Test(arguments: [("Apfel", "Äpfel"), ("Äpfel", "Aepfel"), ("Block 7", "Block  7"), ("Block 7", "Block 7 "), ("Cafe", "Café"), ("North", "Nord")])
    func namesOfTwoCollections(a: String, b: String) {
        #expect(!TreeCollection.sameName(a, b))
        #expect(TreeCollection.nameKey(a) != TreeCollection.nameKey(b))
    }
}
