import Foundation
import TreesKit

/// How a captured tree's fix quality reads for people: the marker of `trees list`, the lines of
/// `trees show` and the map's popup.
enum FixQuality {
    /// The compact marker `trees list` shows for a fix with corrections or without satellites
    /// alone (`RTK`, `FLT`, `DGPS`, `DR`, `SIM`); nil for a plain GPS fix or none.
    static func marker(_ status: FixStatus?) -> String? {
        switch status {
        case .rtkFixed: "RTK"
        case .rtkFloat: "FLT"
        case .dgps: "DGPS"
        case .deadReckoning, .gnssDeadReckoning: "DR"
        case .simulated: "SIM"
        case .gps, .unknown, .timeOnly, .pps, nil: nil
        }
    }

    /// `RTK fixed, corrections 1.2 s old`; nil when the tree records neither.
    static func summary(_ c: CaptureInfo) -> String? {
        var parts: [String] = []
        if let s = c.fixStatus { parts.append(s.title) }
        if let age = c.correctionAge { parts.append("corrections \(seconds(age)) old") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// Seconds as the age of corrections is shown: `1.2 s`, `45 s`.
    static func seconds(_ s: Double) -> String {
        s < 10 ? String(format: "%.1f s", s) : String(format: "%.0f s", s)
    }

    /// `3.5 cm (gst) — half-width of the 95% interval`; nil when unknown.
    static func vertical(_ c: CaptureInfo) -> String? {
        guard let v = c.verticalAccuracy else { return nil }
        return Format.accuracy(v) + (c.verticalAccuracySource.map { " (\($0.rawValue))" } ?? "") + " — half-width of the 95% interval"
    }

    /// `1.80 m, subtracted from the heights`; nil when not recorded.
    static func antenna(_ c: CaptureInfo) -> String? {
        c.antennaHeight.map { String(format: "%.2f m above the ground, subtracted from the heights", $0) }
    }
}

extension Format {
    /// An accuracy figure: centimetres under a metre (`2 cm`, `0.4 cm`, `9.6 cm`), else `metres`.
    ///
    /// As there, a figure is never rounded up onto the Survey class's threshold (9.96 cm shows
    /// as `9.96 cm`, not `10 cm`).
    static func accuracy(_ m: Double) -> String {
        guard m < 1 else { return metres(m) }
        let cm = m * 100
        if cm < 1 { return String(format: "%.1f cm", cm) }
        if cm.rounded() == 10, cm < 10 { return String(format: cm >= 9.95 ? "%.2f cm" : "%.1f cm", cm) }
        if cm.rounded() == 100 { return String(format: "%.1f cm", cm) }
        return String(format: "%.0f cm", cm)
    }
}
