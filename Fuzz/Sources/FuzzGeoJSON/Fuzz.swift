import FuzzSupport
import Interchange
import TreesKit

/// A projection that keeps what is on Earth, as WGS 84 would, and refuses the rest.
func projection(_ crs: String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> {
    { x, y in
        abs(y) <= 90 && abs(x) <= 180 ? .success(Coordinate(latitude: y, longitude: x)) : .failure(CSVPositionProblem(reason: "outside \(crs)"))
    }
}

/// A file read as an import reads it: again from its start, given the crs, when one comes after
/// the features (a reader given it meeting another is a finding: `try!`).
func read(_ bytes: [UInt8], step: Int) -> Result<[GeoJSONEvent], InterchangeError> {
    try! GeoJSONReader.readingAgainAfterLateCRS { late in
        var reader = GeoJSONReader(mapping: [.species: "Art"], projection: projection, crs: late)
        var events: [GeoJSONEvent] = []
        return try inPieces(bytes, step: step, as: InterchangeError.self, passing: GeoJSONReader.LateCRS.self,
                            { try reader.read($0) { events.append($0) } }, finish: { try reader.finish { events.append($0) }; return events })
    }
}

/// The GeoJSON reader never traps, reads the same fed whole or in pieces, and every tree it gives
/// is on Earth with dates a store can hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let whole = read(bytes, step: max(1, bytes.count))
    let pieces = read(bytes, step: Int(bytes.first ?? 5) % 19 + 1)
    requireSameOutcome(whole, pieces, "events")
    if case .success(let events) = whole {
        for case .tree(let t) in events {
            let dates = [t.createdAt, t.updatedAt, t.capture.fixTime].compactMap { $0 } + t.photos.compactMap(\.capturedAt)
            for d in dates { precondition(StorableDates.contains(d), "a date a store cannot hold: \(d)") }
            precondition(CoordinateCheck.latitudeProblem(t.coordinate.latitude) == nil)
            precondition(CoordinateCheck.longitudeProblem(t.coordinate.longitude) == nil)
            precondition(!t.species.isEmpty, "a tree without a species")
        }
    }
    return 0
}
