import Foundation

/// A survey's waypoints in no time order: an import of many of them builds the store's
/// creation-time index after its trees (see `BulkTreeWriter`).
package enum ShuffledSurvey {
    package static let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<gpx version=\"1.1\" creator=\"survey\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"

    /// `count` waypoints, one a second from 2026-03-02T07:00:00Z in an order shuffled by `seed`:
    /// Apple trees 1e-6° apart in latitude in the file's order, each with `<desc>tree SECOND</desc>`.
    package static func waypoints(count: Int, seed: UInt64) -> String {
        var generator = SplitMix64(seed: seed)
        var seconds = Array(0..<count)
        seconds.shuffle(using: &generator)
        let base = 1_772_434_800  // 2026-03-02T07:00:00Z
        var points = ""
        for (i, s) in seconds.enumerated() {
            let time = Date(timeIntervalSince1970: Double(base + s)).formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
            points += "  <wpt lat=\"\(47 + Double(i) * 1e-6)\" lon=\"8.5\"><time>\(time)</time><name>Apple</name><desc>tree \(s)</desc></wpt>\n"
        }
        return points
    }

    /// The whole file of `waypoints(count:seed:)`.
    package static func gpx(count: Int, seed: UInt64) -> String {
        head + waypoints(count: count, seed: seed) + "</gpx>\n"
    }
}
