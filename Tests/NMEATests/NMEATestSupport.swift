import Foundation
import NMEA
import TreesKit
import TreesTestSupport

/// What the reader made of a log: its fixes and its counts.
struct FixRead: Equatable {
    var fixes: [Fix]
    var statistics: NMEAStatistics
}

/// Reads `pieces` one after the other with a fresh reader, for `ChunkingVerifier`.
func readFixes(_ pieces: [ArraySlice<UInt8>]) -> FixRead {
    var reader = NMEAFixReader()
    var fixes: [Fix] = []
    for piece in pieces {
        piece.withUnsafeBytes { reader.feed($0) { fixes.append($0) } }
    }
    reader.finish { fixes.append($0) }
    return FixRead(fixes: fixes, statistics: reader.statistics)
}

/// Reads `bytes` at once.
func readFixes(_ bytes: [UInt8]) -> FixRead { readFixes(ChunkingVerifier.Chunking.whole.split(bytes)) }

func readFixes(_ text: String) -> FixRead { readFixes(Array(text.utf8)) }

/// The fixes of `text` read by a reader that times them as gpsd does (`correctingWeekRollover`)
/// and, with `asGpsd`, dates and ends them as gpsd does too.
func readFixes(_ text: String, correctingWeekRollover: Bool, asGpsd: Bool = false) -> [Fix] {
    var reader = NMEAFixReader(correctingWeekRollover: correctingWeekRollover, asGpsd: asGpsd)
    var fixes: [Fix] = []
    reader.feed(Array(text.utf8)) { fixes.append($0) }
    reader.finish { fixes.append($0) }
    return fixes
}

/// Seconds since 1970 of a UTC date and time.
func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Double) -> Date {
    var c = DateComponents()
    c.year = y; c.month = mo; c.day = d; c.hour = h; c.minute = mi; c.second = 0
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = TimeZone(identifier: "UTC")!
    let base = Int64(cal.date(from: c)!.timeIntervalSince1970) * 1000 + Int64((s * 1000).rounded())
    return Date(timeIntervalSince1970: Double(base) / 1000)
}
