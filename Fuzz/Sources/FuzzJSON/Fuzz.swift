import FuzzSupport
import Interchange
import TreesKit

func read(_ bytes: [UInt8], step: Int) -> Result<[CollectionJSONEvent], InterchangeError> {
    var reader = CollectionJSONReader()
    var events: [CollectionJSONEvent] = []
    return inPieces(bytes, step: step, as: InterchangeError.self, { try reader.read($0) { events.append($0) } },
                    finish: { try reader.finish { events.append($0) }; return events })
}

/// The collection JSON reader never traps, reads the same fed whole or in pieces, and every tree,
/// collection and photo date it gives is one a store can hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let whole = read(bytes, step: max(1, bytes.count))
    let pieces = read(bytes, step: Int(bytes.first ?? 5) % 19 + 1)
    requireSameOutcome(whole, pieces, "events")
    if case .success(let events) = whole {
        for e in events {
            switch e {
            case .tree(let t):
                let dates = [t.createdAt, t.updatedAt, t.capture.fixTime].compactMap { $0 } + t.photos.compactMap(\.capturedAt)
                for d in dates { precondition(StorableDates.contains(d), "a date a store cannot hold: \(d)") }
                precondition(CoordinateCheck.latitudeProblem(t.coordinate.latitude) == nil)
                precondition(CoordinateCheck.longitudeProblem(t.coordinate.longitude) == nil)
            case .collection(let c):
                for d in [c.createdAt, c.updatedAt].compactMap({ $0 }) { precondition(StorableDates.contains(d)) }
                precondition(c.name.lowercased() != "none")
            }
        }
    }
    return 0
}
