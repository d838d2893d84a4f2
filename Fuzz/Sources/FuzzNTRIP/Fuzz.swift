import FuzzSupport
import Location

/// A caster's answer, whatever its bytes, never traps; read whole or in pieces it is the same
/// answer with the same body, and a source table's coordinates are on Earth.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    let whole = NTRIPProbe.read(bytes, step: max(1, bytes.count))
    let pieces = NTRIPProbe.read(bytes, step: Int(bytes.last ?? 7) % 29 + 1)
    precondition(whole == pieces, "chunking changed the answer: \(whole.answer) / \(pieces.answer)")
    if let table = whole.table {
        for s in table.streams {
            if let la = s.latitude { precondition(la.isFinite && abs(la) <= 90, "latitude \(la)") }
            if let lo = s.longitude { precondition(lo.isFinite && abs(lo) <= 360, "longitude \(lo)") }
        }
        for c in table.casters {
            if let la = c.latitude { precondition(la.isFinite && abs(la) <= 90, "latitude \(la)") }
        }
    }
    return 0
}
