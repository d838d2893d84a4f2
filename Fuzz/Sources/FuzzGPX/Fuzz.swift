import FuzzSupport
import Interchange
import TreesKit

func read(_ bytes: [UInt8], step: Int) -> Result<([GPXEvent], GPXSummary), InterchangeError> {
    var reader = GPXReader()
    var events: [GPXEvent] = []
    return inPieces(bytes, step: step, as: InterchangeError.self, { try reader.read($0) { events.append($0) } },
                    finish: { (events, try reader.finish { events.append($0) }) })
}

/// The GPX reader never traps, gives the same points fed whole or in pieces, and every point it
/// gives is on Earth with a time a store can hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let whole = read(bytes, step: max(1, bytes.count))
    let pieces = read(bytes, step: Int(bytes.first ?? 5) % 17 + 1)
    switch (whole, pieces) {
    case (.success(let a), .success(let b)):
        precondition(a.0 == b.0 && a.1 == b.1, "chunking changed the events")
    case (.failure(let a), .failure(let b)): precondition(a.line == b.line, "chunking moved the error: \(a) / \(b)")
    default: preconditionFailure("chunking changed the outcome")
    }
    if case .success(let (events, _)) = whole {
        for case .waypoint(let p) in events {
            precondition(CoordinateCheck.latitudeProblem(p.latitude) == nil && CoordinateCheck.longitudeProblem(p.longitude) == nil)
            if let t = p.time { precondition(StorableDates.contains(t), "a time a store cannot hold: \(t)") }
        }
    }
    return 0
}
