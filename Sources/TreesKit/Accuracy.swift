/// The accuracy class of a horizontal accuracy figure, as the user sees it.
///
/// Thresholds are on the 95% radius in metres; a value exactly at a threshold belongs to the
/// worse class (5.0 m is Good, not Excellent). `survey` (under 0.1 m) is what RTK fixed and good
/// RTK float positions reach; the five classes above it are those of a phone or a plain GPS.
public enum AccuracyClass: String, Sendable, CaseIterable, Codable {
    case survey, excellent, good, acceptable, marginal, poor
    /// No fix, a stale fix, or no accuracy known.
    case unknown

    public init(metres: Double?) {
        guard let m = metres, m.isFinite, m >= 0 else { self = .unknown; return }
        switch m {
        case ..<0.1: self = .survey
        case ..<5: self = .excellent
        case ..<10: self = .good
        case ..<15: self = .acceptable
        case ..<20: self = .marginal
        default: self = .poor
        }
    }

    /// The name shown to users.
    public var title: String {
        switch self {
        case .survey: "Survey"
        case .excellent: "Excellent"
        case .good: "Good"
        case .acceptable: "Acceptable"
        case .marginal: "Marginal"
        case .poor: "Poor"
        case .unknown: "No fix"
        }
    }

    /// The name of a stored tree's class. A tree without a figure has a position all the same:
    /// its class is "Unknown", not the live view's "No fix".
    public var treeTitle: String { self == .unknown ? "Unknown" : title }

    /// The colour the class is drawn in.
    public var colour: AccuracyColour {
        switch self {
        case .survey: .blue
        case .excellent, .good: .green
        case .acceptable: .yellow
        case .marginal: .orange
        case .poor: .red
        case .unknown: .grey
        }
    }
}

/// The colours of the accuracy classes.
public enum AccuracyColour: String, Sendable, Codable {
    case blue, green, yellow, orange, red, grey

    /// A CSS colour for web and KML output.
    public var hex: String {
        switch self {
        case .blue: "#1f6fd1"
        case .green: "#2e9e44"
        case .yellow: "#e6c200"
        case .orange: "#f08c00"
        case .red: "#d6332a"
        case .grey: "#8a8a8a"
        }
    }
}

/// Where a horizontal accuracy figure comes from.
///
/// Every figure is a 95% confidence radius in metres; the source says how it was derived.
public enum AccuracySource: String, Sendable, Codable, CaseIterable {
    /// The receiver's own error estimate (gpsd's `eph` from a binary protocol, or a proprietary sentence).
    case receiver
    /// GST error statistics (σ latitude, σ longitude), scaled to 95%.
    case gst
    /// GBS error statistics (expected latitude and longitude errors), scaled to 95%.
    case gbs
    /// HDOP × UERE, the last resort.
    case dop
    /// Typed in by the user (`trees add --accuracy`).
    case manual
    /// Averaged over several epochs; see `PositionAverager`.
    case averaged
    /// Imported from a file that said nothing about how it was measured.
    case imported
    /// A phone's own figure (the iOS Tree Tracker app's CoreLocation `horizontalAccuracy`), converted
    /// to the 95% radius with `AccuracyModel.phoneTo95`.
    case phone
}

/// Converts error statistics into the 95% horizontal radius used throughout `trees`.
public enum AccuracyModel {
    /// Scale from a circular 1-σ (per axis) to the 95% radius of a 2-D normal: sqrt(−2 ln 0.05) ≈ 2.4477.
    public static let sigmaTo95 = 2.447746830680816

    /// Scale from a phone's accuracy figure to the 95% radius: sqrt(−ln 0.05) ≈ 1.7308.
    ///
    /// CoreLocation's `horizontalAccuracy` is a one-sigma-class radius: it contains about 63–68% of
    /// fixes. For a circular normal distribution with σ per axis the radial error is Rayleigh
    /// distributed, and the radius holding a share p is σ·sqrt(−2 ln(1 − p)). Read as the 2-D RMS
    /// error (DRMS, σ√2, which holds 1 − 1/e = 63.2%), the 95% radius σ·sqrt(−2 ln 0.05) is
    /// 2.4477 / 1.4142 = sqrt(−ln 0.05) ≈ 1.7308 times it. Read as a 68% radius (σ·1.5096) the factor
    /// would be 1.6214; the larger one is taken, so a converted figure never claims better than the
    /// phone's data shows.
    public static let phoneTo95 = sigmaTo95 / 2.0.squareRoot()

    /// User equivalent range error, in metres, for the DOP model (gpsd's figures: 19 m, 4.75 m with DGPS,
    /// both already 95%).
    public static let ueresGPS = 19.0
    public static let ueresDGPS = 4.75

    /// 95% radius from per-axis standard deviations σ_lat and σ_lon (metres).
    ///
    /// Uses the root of the summed variances times 2.4477/√2 ≈ 1.7308 so that for σ_lat = σ_lon = σ
    /// the result is exactly the 2-D normal's 95% radius, 2.4477 σ; for unequal axes it is slightly
    /// conservative.
    public static func radius95(sigmaLatitude: Double, sigmaLongitude: Double) -> Double {
        let rms = (sigmaLatitude * sigmaLatitude + sigmaLongitude * sigmaLongitude).squareRoot()
        return rms * sigmaTo95 / 2.0.squareRoot()
    }

    /// Scale from a 1-σ height error to the half-width of its 95% interval (a 1-D normal).
    public static let verticalSigmaTo95 = 1.959963984540054

    /// Half-width of the 95% interval of the height from its 1-σ error (metres).
    public static func vertical95(sigma: Double) -> Double { sigma * verticalSigmaTo95 }

    /// Half-width of the 95% interval of the height from VDOP, with the same UERE as the
    /// horizontal DOP model (gpsd's `epv`).
    public static func vertical95(vdop: Double, differential: Bool) -> Double {
        vdop * (differential ? ueresDGPS : ueresGPS)
    }

    /// 95% radius from HDOP (gpsd's rule: HDOP × 19 m, or × 4.75 m with differential corrections).
    public static func radius95(hdop: Double, differential: Bool) -> Double {
        hdop * (differential ? ueresDGPS : ueresGPS)
    }
}
