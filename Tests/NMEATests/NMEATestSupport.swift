import Foundation
import NMEA
import TreesKit
import TreesTestSupport

/// `$BODY*hh\r\n` with the right checksum.
func sentence(_ body: String, lineEnd: String = "\r\n") -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    return "$" + body + "*" + String(format: "%02X", sum) + lineEnd
}

/// Reads `bytes` in chunks of `chunk` bytes (everything at once when nil).
func readFixes(_ bytes: [UInt8], chunk: Int? = nil) -> (fixes: [Fix], statistics: NMEAStatistics) {
    var reader = NMEAFixReader()
    var fixes: [Fix] = []
    let size = chunk ?? max(bytes.count, 1)
    var i = 0
    while i < bytes.count {
        let end = min(i + size, bytes.count)
        reader.feed(Array(bytes[i..<end])) { fixes.append($0) }
        i = end
    }
    reader.finish { fixes.append($0) }
    return (fixes, reader.statistics)
}

func readFixes(_ text: String, chunk: Int? = nil) -> (fixes: [Fix], statistics: NMEAStatistics) {
    readFixes(Array(text.utf8), chunk: chunk)
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
