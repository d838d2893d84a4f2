import FuzzSupport
import Interchange

/// As `trees inspect` does: a GeoJSON whose crs comes after the features is inspected again,
/// given it (an inspector given it meeting another is a finding: `try!`).
func inspect(_ bytes: [UInt8], format: FileFormat, step: Int) -> Result<InspectionReport, InterchangeError> {
    try! GeoJSONReader.readingAgainAfterLateCRS { late in
        var inspector = Inspector(format: format, lateCRS: late)
        return try inPieces(bytes, step: step, as: InterchangeError.self, passing: GeoJSONReader.LateCRS.self,
                            { try inspector.feed($0) }, finish: { try inspector.finish() })
    }
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
