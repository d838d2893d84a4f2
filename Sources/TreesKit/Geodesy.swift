import Foundation

/// Distances and local projections on the WGS 84 ellipsoid.
///
/// Tree spacing is metres to kilometres, so a local tangent-plane approximation around a
/// reference point is accurate to millimetres over an orchard; `distance` uses the haversine
/// formula on the mean radius for anything larger.
public enum Geodesy {
    /// WGS 84 semi-major axis, in metres.
    public static let semiMajorAxis = 6_378_137.0
    /// WGS 84 flattening.
    public static let flattening = 1 / 298.257223563
    /// Mean Earth radius, in metres.
    public static let meanRadius = 6_371_008.8

    /// Great-circle distance between two coordinates, in metres.
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * meanRadius * asin(min(1, sqrt(h)))
    }

    /// Metres per degree of latitude and of longitude at `latitude` (degrees).
    public static func metresPerDegree(atLatitude latitude: Double) -> (north: Double, east: Double) {
        let φ = latitude * .pi / 180
        let e2 = flattening * (2 - flattening)
        let s = sin(φ)
        let w = sqrt(1 - e2 * s * s)
        let meridional = semiMajorAxis * (1 - e2) / (w * w * w)
        let normal = semiMajorAxis / w
        return (meridional * .pi / 180, normal * cos(φ) * .pi / 180)
    }

    /// East and north offsets of `point` from `origin`, in metres, on the local tangent plane.
    public static func offset(of point: Coordinate, from origin: Coordinate) -> (east: Double, north: Double) {
        let m = metresPerDegree(atLatitude: origin.latitude)
        var dλ = point.longitude - origin.longitude
        if dλ > 180 { dλ -= 360 } else if dλ < -180 { dλ += 360 }
        return (dλ * m.east, (point.latitude - origin.latitude) * m.north)
    }

    /// The coordinate `east` and `north` metres from `origin`, on the local tangent plane.
    public static func coordinate(east: Double, north: Double, from origin: Coordinate) -> Coordinate {
        let m = metresPerDegree(atLatitude: origin.latitude)
        var lon = origin.longitude + east / m.east
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(latitude: origin.latitude + north / m.north, longitude: lon)
    }
}
