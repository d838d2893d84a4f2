import FuzzSupport
import Interchange
import TreesKit

func read(_ bytes: [UInt8], step: Int) -> Result<[ImportedTree], InterchangeError> {
    var reader = CSVTreeReader()
    var trees: [ImportedTree] = []
    return inPieces(bytes, step: step, as: InterchangeError.self, { try reader.read($0) { trees.append($0) } },
                    finish: { try reader.finish { trees.append($0) }; return trees })
}

/// The CSV reader never traps, reads the same fed whole or in pieces, and every tree it gives is on
/// Earth with dates a store can hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let whole = read(bytes, step: max(1, bytes.count))
    let pieces = read(bytes, step: Int(bytes.first ?? 5) % 23 + 1)
    requireSameOutcome(whole, pieces, "trees")
    if case .success(let trees) = whole {
        for t in trees {
            for d in [t.createdAt, t.updatedAt, t.capture.fixTime].compactMap({ $0 }) {
                precondition(StorableDates.contains(d), "a date a store cannot hold: \(d)")
            }
            precondition(CoordinateCheck.latitudeProblem(t.coordinate.latitude) == nil)
        }
    }
    return 0
}
