/// A position on the WGS 84 ellipsoid, in decimal degrees (south and west negative).
public struct Coordinate: Hashable, Sendable, Codable {
    /// Latitude in degrees, −90…90.
    public var latitude: Double
    /// Longitude in degrees, −180…180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}

/// Checks of user-supplied coordinate values, with messages that say what would be right.
public enum CoordinateCheck {
    /// Returns nil when `value` is a valid latitude, else a one-line reason.
    public static func latitudeProblem(_ value: Double) -> String? {
        guard value.isFinite else { return "latitude \(value) is not a number; expected degrees between -90 and 90" }
        guard (-90...90).contains(value) else { return "latitude \(format(value)) is out of range; expected degrees between -90 and 90" }
        return nil
    }

    /// Returns nil when `value` is a valid longitude, else a one-line reason.
    public static func longitudeProblem(_ value: Double) -> String? {
        guard value.isFinite else { return "longitude \(value) is not a number; expected degrees between -180 and 180" }
        guard (-180...180).contains(value) else { return "longitude \(format(value)) is out of range; expected degrees between -180 and 180" }
        return nil
    }

    /// Returns nil when `value` is a valid horizontal accuracy, else a one-line reason.
    public static func accuracyProblem(_ value: Double) -> String? {
        guard value.isFinite else { return "accuracy \(value) is not a number; expected metres, 0 or more" }
        guard value >= 0 else { return "accuracy \(format(value)) is negative; expected metres, 0 or more" }
        return nil
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
