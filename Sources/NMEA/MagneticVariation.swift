import Foundation

/// Magnetic declination as gpsd reckons it: the World Magnetic Model 2015 evaluated for
/// 1 January 2020 at the ellipsoid's surface on a 5° × 5° grid, kept in hundredths of a degree,
/// and interpolated bilinearly between the four grid points around a position.
///
/// gpsd uses this as a fix's magnetic variation whenever no sentence gave one (or gave 0.09° or
/// less, as receivers that send `0.0,E` for "unknown" do), and turns a magnetic heading or track
/// into a true track with it. Agreeing with gpsd to a hundredth of a degree means reckoning the
/// same coarse grid rather than the model at the exact position (the two differ by a degree or
/// more where the field changes quickly), so this type has both: the grid is made from the model.
///
/// The coefficients are WMM2015's, as published in December 2014 by NOAA's National Centers for
/// Environmental Information and the British Geological Survey; the World Magnetic Model and its
/// coefficients are in the public domain.
public enum MagneticVariation {
    /// The declination in degrees east of true north (west negative, −180...180) from the model
    /// itself, at a geodetic position on the ellipsoid and a decimal year.
    public static func declination(latitude: Double, longitude: Double, year: Double) -> Double {
        WorldMagneticModel.wmm2015.declination(latitude: latitude, longitude: longitude, year: year)
    }

    /// The variation gpsd gives a fix at this position, in degrees: the grid interpolated
    /// bilinearly. Nil for a position that is not one.
    public static func gpsdVariation(latitude: Double, longitude: Double) -> Double? {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        let row = ((90 + latitude) / Grid.span).rounded(.down)
        let column = ((180 + longitude) / Grid.span).rounded(.down)
        guard row >= 0, column >= 0, row < Double(Grid.rows), column < Double(Grid.columns) else { return nil }
        let r1 = Int(row), c1 = Int(column)
        let r2 = r1 < Grid.rows - 1 ? r1 + 1 : r1
        let c2 = c1 < Grid.columns - 1 ? c1 + 1 : c1
        let grid = Grid.gpsd
        return bilinear(x1: Grid.longitude(c1), y1: Grid.latitude(r1), x2: Grid.longitude(c2), y2: Grid.latitude(r2),
                        x: longitude, y: latitude,
                        z11: grid[r1, c1], z12: grid[r1, c2], z21: grid[r2, c1], z22: grid[r2, c2]) / 100
    }

    /// Interpolates between the values at (x1, y1), (x2, y1), (x1, y2) and (x2, y2); along one
    /// axis only where the cell has collapsed to a line (the last row or column of the grid).
    static func bilinear(x1: Int, y1: Int, x2: Int, y2: Int, x: Double, y: Double,
                         z11: Int, z12: Int, z21: Int, z22: Int) -> Double {
        let (a, b, c, d) = (Double(z11), Double(z12), Double(z21), Double(z22))
        let fromX1 = x - Double(x1), toX2 = Double(x2) - x
        let fromY1 = y - Double(y1), toY2 = Double(y2) - y
        if y1 == y2 {
            if x1 == x2 { return a }
            return (d * fromX1 + a * toX2) / Double(x2 - x1)
        }
        if x1 == x2 { return (d * fromY1 + a * toY2) / Double(y2 - y1) }
        let area = Double((y2 - y1) * (x2 - x1))
        return (d * fromY1 * fromX1 + b * toY2 * fromX1 + c * fromY1 * toX2 + a * toY2 * toX2) / area
    }

    /// The model's declination every 5° of latitude (−90...90) and longitude (−180...180) for the
    /// start of 2020, in hundredths of a degree rounded half to even.
    struct Grid: Sendable {
        static let span = 5.0
        static let rows = 37
        static let columns = 73
        static let year = 2020.0

        static func latitude(_ row: Int) -> Int { row * 5 - 90 }
        static func longitude(_ column: Int) -> Int { column * 5 - 180 }

        /// Made once, on first use (2,701 evaluations of the model, about a millisecond).
        static let gpsd = Grid(model: .wmm2015)

        private var values: [Int16]

        init(model: WorldMagneticModel) {
            values = []
            values.reserveCapacity(Self.rows * Self.columns)
            for row in 0..<Self.rows {
                // At a pole north is the direction of the meridian the position is given on: the
                // limit along that meridian, which a point a hair's breadth from the pole gives.
                let latitude = min(max(Double(Self.latitude(row)), -90 + 1e-9), 90 - 1e-9)
                for column in 0..<Self.columns {
                    let d = model.declination(latitude: latitude, longitude: Double(Self.longitude(column)), year: Self.year)
                    values.append(Int16((d * 100).rounded(.toNearestOrEven)))
                }
            }
        }

        subscript(row: Int, column: Int) -> Int { Int(values[row * Self.columns + column]) }
    }
}

/// A spherical-harmonic model of the main geomagnetic field to degree and order 12, in the form
/// the World Magnetic Model is published: Schmidt semi-normalised Gauss coefficients in nT at an
/// epoch, and their yearly change.
struct WorldMagneticModel: Sendable {
    /// The model's epoch, a decimal year.
    let epoch: Double
    /// g, h, ġ, ḣ for degree n and order m at index n(n+1)/2 + m − 1.
    let coefficients: [(g: Double, h: Double, gDot: Double, hDot: Double)]

    static let degree = 12
    /// The reference radius of the model's geomagnetic sphere, in km.
    static let radius = 6371.2
    /// WGS 84, in km.
    static let semiMajorAxis = 6378.137
    static let flattening = 1 / 298.257223563

    static func index(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m - 1 }

    /// The declination in degrees (east positive, −180...180) at a geodetic latitude and
    /// longitude on the ellipsoid, at a decimal year.
    func declination(latitude: Double, longitude: Double, year: Double) -> Double {
        let (north, east, _) = field(latitude: latitude, longitude: longitude, year: year)
        return atan2(east, north) * 180 / .pi
    }

    /// The field's north, east and downward components in nT, at a geodetic latitude and longitude
    /// (degrees) on the ellipsoid, at a decimal year.
    func field(latitude: Double, longitude: Double, year: Double) -> (north: Double, east: Double, down: Double) {
        let n = Self.degree
        let phi = latitude * .pi / 180, lambda = longitude * .pi / 180
        // Geodetic to geocentric: the radius and the latitude from the centre.
        let e2 = Self.flattening * (2 - Self.flattening)
        let sinPhi = sin(phi)
        let primeVertical = Self.semiMajorAxis / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = primeVertical * cos(phi), z = primeVertical * (1 - e2) * sinPhi
        let r = (p * p + z * z).squareRoot()
        let centric = asin(z / r)
        let s = sin(centric), c = cos(centric)

        // Schmidt semi-normalised associated Legendre functions of sin(latitude) and their
        // derivatives by latitude, row by row.
        let size = n + 1
        var legendre = [Double](repeating: 0, count: size * size)
        var slope = [Double](repeating: 0, count: size * size)
        legendre[0] = 1
        for degree in 1...n {
            for order in 0...degree {
                let at = degree * size + order
                if degree == order {
                    let k = degree == 1 ? 1 : (1 - 1 / Double(2 * degree)).squareRoot()
                    let previous = (degree - 1) * size + order - 1
                    legendre[at] = k * c * legendre[previous]
                    slope[at] = k * (c * slope[previous] - s * legendre[previous])
                } else {
                    let nn = Double(degree * degree - order * order)
                    let k1 = Double(2 * degree - 1) / nn.squareRoot()
                    let k2 = (Double((degree - 1) * (degree - 1) - order * order) / nn).squareRoot()
                    let one = (degree - 1) * size + order
                    let two = degree >= order + 2 ? legendre[(degree - 2) * size + order] : 0
                    let twoSlope = degree >= order + 2 ? slope[(degree - 2) * size + order] : 0
                    legendre[at] = k1 * s * legendre[one] - k2 * two
                    slope[at] = k1 * (s * slope[one] + c * legendre[one]) - k2 * twoSlope
                }
            }
        }

        let cosines = (0...n).map { cos(Double($0) * lambda) }, sines = (0...n).map { sin(Double($0) * lambda) }
        let t = year - epoch
        var north = 0.0, east = 0.0, down = 0.0
        var scale = (Self.radius / r) * (Self.radius / r)
        for degree in 1...n {
            scale *= Self.radius / r
            for order in 0...degree {
                let k = coefficients[Self.index(degree, order)]
                let g = k.g + t * k.gDot, h = k.h + t * k.hDot
                let cm = cosines[order], sm = sines[order]
                let at = degree * size + order
                north -= scale * (g * cm + h * sm) * slope[at]
                east += scale * Double(order) * (g * sm - h * cm) * legendre[at]
                down -= Double(degree + 1) * scale * (g * cm + h * sm) * legendre[at]
            }
        }
        east /= c
        // From the geocentric frame to the geodetic one: a turn by the difference of latitudes.
        let psi = centric - phi
        return (north * cos(psi) - down * sin(psi), east, north * sin(psi) + down * cos(psi))
    }

    /// WMM2015: epoch 2015.0, valid 2015 to 2020 (gpsd's grid is its value at the very end).
    static let wmm2015 = WorldMagneticModel(epoch: 2015.0, rows: [
        ( 1,  0,  -29438.5,      0.0,   10.7,    0.0),
        ( 1,  1,   -1501.1,   4796.2,   17.9,  -26.8),
        ( 2,  0,   -2445.3,      0.0,   -8.6,    0.0),
        ( 2,  1,    3012.5,  -2845.6,   -3.3,  -27.1),
        ( 2,  2,    1676.6,   -642.0,    2.4,  -13.3),
        ( 3,  0,    1351.1,      0.0,    3.1,    0.0),
        ( 3,  1,   -2352.3,   -115.3,   -6.2,    8.4),
        ( 3,  2,    1225.6,    245.0,   -0.4,   -0.4),
        ( 3,  3,     581.9,   -538.3,  -10.4,    2.3),
        ( 4,  0,     907.2,      0.0,   -0.4,    0.0),
        ( 4,  1,     813.7,    283.4,    0.8,   -0.6),
        ( 4,  2,     120.3,   -188.6,   -9.2,    5.3),
        ( 4,  3,    -335.0,    180.9,    4.0,    3.0),
        ( 4,  4,      70.3,   -329.5,   -4.2,   -5.3),
        ( 5,  0,    -232.6,      0.0,   -0.2,    0.0),
        ( 5,  1,     360.1,     47.4,    0.1,    0.4),
        ( 5,  2,     192.4,    196.9,   -1.4,    1.6),
        ( 5,  3,    -141.0,   -119.4,    0.0,   -1.1),
        ( 5,  4,    -157.4,     16.1,    1.3,    3.3),
        ( 5,  5,       4.3,    100.1,    3.8,    0.1),
        ( 6,  0,      69.5,      0.0,   -0.5,    0.0),
        ( 6,  1,      67.4,    -20.7,   -0.2,    0.0),
        ( 6,  2,      72.8,     33.2,   -0.6,   -2.2),
        ( 6,  3,    -129.8,     58.8,    2.4,   -0.7),
        ( 6,  4,     -29.0,    -66.5,   -1.1,    0.1),
        ( 6,  5,      13.2,      7.3,    0.3,    1.0),
        ( 6,  6,     -70.9,     62.5,    1.5,    1.3),
        ( 7,  0,      81.6,      0.0,    0.2,    0.0),
        ( 7,  1,     -76.1,    -54.1,   -0.2,    0.7),
        ( 7,  2,      -6.8,    -19.4,   -0.4,    0.5),
        ( 7,  3,      51.9,      5.6,    1.3,   -0.2),
        ( 7,  4,      15.0,     24.4,    0.2,   -0.1),
        ( 7,  5,       9.3,      3.3,   -0.4,   -0.7),
        ( 7,  6,      -2.8,    -27.5,   -0.9,    0.1),
        ( 7,  7,       6.7,     -2.3,    0.3,    0.1),
        ( 8,  0,      24.0,      0.0,    0.0,    0.0),
        ( 8,  1,       8.6,     10.2,    0.1,   -0.3),
        ( 8,  2,     -16.9,    -18.1,   -0.5,    0.3),
        ( 8,  3,      -3.2,     13.2,    0.5,    0.3),
        ( 8,  4,     -20.6,    -14.6,   -0.2,    0.6),
        ( 8,  5,      13.3,     16.2,    0.4,   -0.1),
        ( 8,  6,      11.7,      5.7,    0.2,   -0.2),
        ( 8,  7,     -16.0,     -9.1,   -0.4,    0.3),
        ( 8,  8,      -2.0,      2.2,    0.3,    0.0),
        ( 9,  0,       5.4,      0.0,    0.0,    0.0),
        ( 9,  1,       8.8,    -21.6,   -0.1,   -0.2),
        ( 9,  2,       3.1,     10.8,   -0.1,   -0.1),
        ( 9,  3,      -3.1,     11.7,    0.4,   -0.2),
        ( 9,  4,       0.6,     -6.8,   -0.5,    0.1),
        ( 9,  5,     -13.3,     -6.9,   -0.2,    0.1),
        ( 9,  6,      -0.1,      7.8,    0.1,    0.0),
        ( 9,  7,       8.7,      1.0,    0.0,   -0.2),
        ( 9,  8,      -9.1,     -3.9,   -0.2,    0.4),
        ( 9,  9,     -10.5,      8.5,   -0.1,    0.3),
        (10,  0,      -1.9,      0.0,    0.0,    0.0),
        (10,  1,      -6.5,      3.3,    0.0,    0.1),
        (10,  2,       0.2,     -0.3,   -0.1,   -0.1),
        (10,  3,       0.6,      4.6,    0.3,    0.0),
        (10,  4,      -0.6,      4.4,   -0.1,    0.0),
        (10,  5,       1.7,     -7.9,   -0.1,   -0.2),
        (10,  6,      -0.7,     -0.6,   -0.1,    0.1),
        (10,  7,       2.1,     -4.1,    0.0,   -0.1),
        (10,  8,       2.3,     -2.8,   -0.2,   -0.2),
        (10,  9,      -1.8,     -1.1,   -0.1,    0.1),
        (10, 10,      -3.6,     -8.7,   -0.2,   -0.1),
        (11,  0,       3.1,      0.0,    0.0,    0.0),
        (11,  1,      -1.5,     -0.1,    0.0,    0.0),
        (11,  2,      -2.3,      2.1,   -0.1,    0.1),
        (11,  3,       2.1,     -0.7,    0.1,    0.0),
        (11,  4,      -0.9,     -1.1,    0.0,    0.1),
        (11,  5,       0.6,      0.7,    0.0,    0.0),
        (11,  6,      -0.7,     -0.2,    0.0,    0.0),
        (11,  7,       0.2,     -2.1,    0.0,    0.1),
        (11,  8,       1.7,     -1.5,    0.0,    0.0),
        (11,  9,      -0.2,     -2.5,    0.0,   -0.1),
        (11, 10,       0.4,     -2.0,   -0.1,    0.0),
        (11, 11,       3.5,     -2.3,   -0.1,   -0.1),
        (12,  0,      -2.0,      0.0,    0.1,    0.0),
        (12,  1,      -0.3,     -1.0,    0.0,    0.0),
        (12,  2,       0.4,      0.5,    0.0,    0.0),
        (12,  3,       1.3,      1.8,    0.1,   -0.1),
        (12,  4,      -0.9,     -2.2,   -0.1,    0.0),
        (12,  5,       0.9,      0.3,    0.0,    0.0),
        (12,  6,       0.1,      0.7,    0.1,    0.0),
        (12,  7,       0.5,     -0.1,    0.0,    0.0),
        (12,  8,      -0.4,      0.3,    0.0,    0.0),
        (12,  9,      -0.4,      0.2,    0.0,    0.0),
        (12, 10,       0.2,     -0.9,    0.0,    0.0),
        (12, 11,      -0.9,     -0.2,    0.0,    0.0),
        (12, 12,       0.0,      0.7,    0.0,    0.0),
    ])

    init(epoch: Double, rows: [(n: Int, m: Int, g: Double, h: Double, gDot: Double, hDot: Double)]) {
        self.epoch = epoch
        var table = [(g: Double, h: Double, gDot: Double, hDot: Double)](repeating: (0, 0, 0, 0), count: Self.index(Self.degree, Self.degree) + 1)
        for row in rows { table[Self.index(row.n, row.m)] = (row.g, row.h, row.gDot, row.hDot) }
        coefficients = table
    }
}
