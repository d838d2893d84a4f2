import FuzzSupport
import Interchange

/// Why an inspection stopped: the file refused, or a GeoJSON `crs` after the features.
enum Stop: Error, Equatable {
    case refused(InterchangeError)
    case late(GeoJSONReader.LateCRS)

    static func of<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as InterchangeError {
            throw Stop.refused(e)
        } catch let l as GeoJSONReader.LateCRS {
            throw Stop.late(l)
        }
    }
}

func inspectOnce(_ bytes: [UInt8], format: FileFormat, step: Int, late: GeoJSONReader.LateCRS?) -> Result<InspectionReport, Stop> {
    var inspector = Inspector(format: format, lateCRS: late)
    return inPieces(bytes, step: step, as: Stop.self, { piece in try Stop.of { try inspector.feed(piece) } },
                    finish: { try Stop.of { try inspector.finish() } })
}

/// As `trees inspect` does: a GeoJSON whose crs comes after the features is inspected again, given it.
func inspect(_ bytes: [UInt8], format: FileFormat, step: Int) -> Result<InspectionReport, Stop> {
    let first = inspectOnce(bytes, format: format, step: step, late: nil)
    guard case .failure(.late(let late)) = first else { return first }
    let again = inspectOnce(bytes, format: format, step: step, late: late)
    if case .failure(.late) = again { preconditionFailure("an inspector given the late crs met one again") }
    return again
}

/// `trees inspect` on any bytes: format detection from the first bytes, then the XML tokenizer
/// (GPX), JSON, CSV or NMEA reader behind it, fed whole and in pieces. Never traps; the report
/// (or the error) does not depend on the chunking.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    // The detected format's reader, and the GPX reader (with the XML tokenizer) whatever was
    // detected; each once.
    let detected = FileFormat.detect(prefix: bytes.prefix(4096), fileName: nil)
    let formats: [FileFormat] = detected.map { $0 == .gpx ? [.gpx] : [$0, .gpx] } ?? [.gpx]
    for format in formats {
        let whole = inspect(bytes, format: format, step: max(1, bytes.count))
        let pieces = inspect(bytes, format: format, step: Int(bytes.last ?? 3) % 11 + 1)
        switch (whole, pieces) {
        case (.success(let a), .success(let b)): precondition(a == b, "chunking changed the \(format) report")
        case (.failure(let a), .failure(let b)): precondition(a == b, "chunking changed the \(format) error: \(a) / \(b)")
        default: preconditionFailure("chunking changed the \(format) outcome: \(whole) / \(pieces)")
        }
    }
    return 0
}
