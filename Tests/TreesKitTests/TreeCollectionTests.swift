import Testing
import TreesKit

@Suite struct TreeCollectionTests {
    /// `none` names no collection wherever a collection is named, in any case and with blanks
    /// around it; a name that only contains it is a name.
    @Test func noneMeansNoCollection() {
        for text in ["none", "None", " NONE ", "none\n", "\tnOnE"] { #expect(TreeCollection.meansNone(text), "\(text)") }
        for text in ["", " ", "nonet", "no ne", "none of these", "—none—"] { #expect(!TreeCollection.meansNone(text), "\(text)") }
    }
}
