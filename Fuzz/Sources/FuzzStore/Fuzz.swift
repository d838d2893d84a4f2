import FuzzRows
import FuzzSupport
import Foundation
import GRDB
@_spi(Fuzzing) import TreesStore

nonisolated(unsafe) let probe = try! RowDecodingProbe()
/// A tree, a collection and a photo row of values from the input, each stored and read back by the
/// store's own decoding; `RowDecodingProbe` checks that reading never traps, agrees with `trees
/// doctor` on what is damaged, and that what reads back writes back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    precondition(plausibleTree.count == RowDecodingProbe.treeColumnCount)
    var v = Values(bytes: inputBytes(data, size)[...])
    do {
        _ = try probe.tree(plausibleTree.map { v.value(plausible: $0) })
        _ = try probe.collection(plausibleCollection.map { v.value(plausible: $0) })
        _ = try probe.photo(plausiblePhoto.map { v.value(plausible: $0) })
    } catch {
        fatalError("\(error)")
    }
    return 0
}
