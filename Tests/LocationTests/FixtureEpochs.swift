import Foundation
import TreesKit

/// What the test logs under Fixtures/ say, epoch by epoch, read independently of the code under test.
///
/// Positions are converted the way gpsd converts them and rounded to the 9 decimals gpsd's JSON
/// carries, so a fix that came through gpsd can be compared exactly.
struct FixtureEpoch {
    var time: Date
    var coordinate: Coordinate?
    var altitudeMSL: Double?
    var hdop: Double?
    var satellitesUsed: Int?
    var sigmaLatitude: Double?
    var sigmaLongitude: Double?

    /// The accuracy the rule gives: GST when present, else HDOP × 19 m.
    var expectedAccuracy: (Double, AccuracySource)? {
        if let la = sigmaLatitude, let lo = sigmaLongitude {
            return (AccuracyModel.radius95(sigmaLatitude: la, sigmaLongitude: lo), .gst)
        }
        if let hdop { return (AccuracyModel.radius95(hdop: hdop, differential: false), .dop) }
        return nil
    }

    static func read(_ path: String) throws -> [FixtureEpoch] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var epochs: [FixtureEpoch] = []
        var day = DateComponents(timeZone: TimeZone(identifier: "UTC"), year: 2025, month: 6, day: 14)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func time(_ hhmmss: Substring) -> Date {
            let digits = Array(hhmmss)
            day.hour = Int(String(digits[0...1])); day.minute = Int(String(digits[2...3])); day.second = Int(String(digits[4...5]))
            return calendar.date(from: day)!
        }
        func degrees(_ value: Substring, _ hemisphere: Substring) -> Double {
            let v = Double(value)!
            let deg = (v / 100).rounded(.towardZero)
            let d = deg + (v - deg * 100) / 60
            let rounded = (d * 1e9).rounded() / 1e9
            return hemisphere == "S" || hemisphere == "W" ? -rounded : rounded
        }
        func index(_ t: Date) -> Int {
            if let i = epochs.firstIndex(where: { $0.time == t }) { return i }
            epochs.append(FixtureEpoch(time: t))
            return epochs.count - 1
        }
        for line in text.split(whereSeparator: \.isNewline) {
            let body = line.dropFirst().prefix { $0 != "*" }
            let f = body.split(separator: ",", omittingEmptySubsequences: false)
            switch f[0] {
            case "GPRMC":
                _ = index(time(f[1]))
            case "GPGGA":
                let i = index(time(f[1]))
                guard f[6] != "0" else { continue }
                epochs[i].coordinate = Coordinate(latitude: degrees(f[2], f[3]), longitude: degrees(f[4], f[5]))
                epochs[i].satellitesUsed = Int(f[7])
                epochs[i].hdop = Double(f[8])
                epochs[i].altitudeMSL = Double(f[9])
            case "GPGST":
                let i = index(time(f[1]))
                epochs[i].sigmaLatitude = Double(f[6])
                epochs[i].sigmaLongitude = Double(f[7])
            default:
                continue
            }
        }
        return epochs
    }
}
