import FuzzSupport
import NMEA
import TreesKit

/// NMEA bytes → sentences → epochs → fixes. The same bytes fed whole and in small pieces must give
/// the same fixes and the same counts; every fix must be a position on Earth.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = inputBytes(data, size)
    var whole = NMEAFixReader()
    var fixesWhole: [Fix] = []
    whole.feed(bytes) { fixesWhole.append($0) }
    whole.finish { fixesWhole.append($0) }
    var pieces = NMEAFixReader()
    var fixesPieces: [Fix] = []
    let step = max(1, Int(bytes.first ?? 7) % 13 + 1)
    var i = 0
    bytes.withUnsafeBytes { raw in
        while i < raw.count {
            let end = min(raw.count, i + step)
            pieces.feed(UnsafeRawBufferPointer(rebasing: raw[i..<end])) { fixesPieces.append($0) }
            i = end
        }
    }
    pieces.finish { fixesPieces.append($0) }
    precondition(fixesWhole == fixesPieces, "chunking changed the fixes")
    precondition(whole.statistics == pieces.statistics, "chunking changed the counts")
    for f in fixesWhole {
        if let c = f.coordinate {
            precondition(CoordinateCheck.latitudeProblem(c.latitude) == nil && CoordinateCheck.longitudeProblem(c.longitude) == nil,
                         "a fix off the Earth: \(c)")
        }
        if let a = f.horizontalAccuracy { precondition(a.isFinite && a >= 0, "accuracy \(a)") }
    }
    return 0
}
