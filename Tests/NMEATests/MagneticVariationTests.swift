import Foundation
import NMEA
import Testing
import TreesKit
import TreesTestSupport

/// The magnetic model, gpsd's grid made from it, and the true track a magnetic heading gives.
@Suite struct MagneticVariationTests {
    @Test(arguments: [
        // WMM2015's published test values (declination to 0.01°, at the ellipsoid's surface).
        (2015.0, 80.0, 0.0, -3.85), (2015.0, 0.0, 120.0, 0.57), (2015.0, -80.0, 240.0, 69.81),
        (2017.5, 80.0, 0.0, -2.75), (2017.5, 0.0, 120.0, 0.32), (2017.5, -80.0, 240.0, 69.58),
    ])
    func theModelGivesThePublishedDeclinations(year: Double, latitude: Double, longitude: Double, expected: Double) {
        let d = MagneticVariation.declination(latitude: latitude, longitude: longitude, year: year)
        #expect(abs(d - expected) < 0.005, "\(latitude), \(longitude) in \(year): \(d)")
    }

    @Test(arguments: [
        // gpsd's own figures for these places, to a hundredth of a degree.
        (40.0, -120.0, 13.35), (51.46970, -0.45943, -0.28), (-22.92170, -68.158401, -6.11),
        (71.7069, -42.6043, -28.25), (33.946098, 151.177002, -4.26), (0.0, 0.0, -4.84),
        (90.0, 0.0, 1.75), (90.0, 2.5, 4.25), (90.0, 180.0, -178.25), (-90.0, 0.0, -30.80),
    ])
    func theGridGivesGpsdsVariation(latitude: Double, longitude: Double, expected: Double) throws {
        let v = try #require(MagneticVariation.gpsdVariation(latitude: latitude, longitude: longitude))
        #expect(abs(v - expected) <= 0.01, "\(latitude), \(longitude): \(v)")
    }

    @Test func betweenGridPointsTheGridIsInterpolatedNotTheModelEvaluated() throws {
        // Halfway between four grid points: the mean of the four, which is not the model's value there.
        let corners = [(45.0, 5.0), (45.0, 10.0), (50.0, 5.0), (50.0, 10.0)]
        let values = try corners.map { try #require(MagneticVariation.gpsdVariation(latitude: $0.0, longitude: $0.1)) }
        let middle = try #require(MagneticVariation.gpsdVariation(latitude: 47.5, longitude: 7.5))
        #expect(abs(middle - values.reduce(0, +) / 4) < 1e-9)
        for (value, corner) in zip(values, corners) {
            // Each grid point is the model's value for 2020 in hundredths.
            let model = MagneticVariation.declination(latitude: corner.0, longitude: corner.1, year: 2020)
            #expect(abs(value - model) <= 0.005 + 1e-9)
        }
        // Outside the grid (gpsd's bounds: a latitude just over 90 still falls in its last row).
        #expect(MagneticVariation.gpsdVariation(latitude: 95, longitude: 0) == nil)
        #expect(MagneticVariation.gpsdVariation(latitude: 0, longitude: 185) == nil)
        #expect(MagneticVariation.gpsdVariation(latitude: .nan, longitude: 0) == nil)
    }

    static let position = sentence("GPZDA,101459.00,15,03,2025,00,00")
        + sentence("GPGGA,101500.00,5251.0034,N,00518.8047,E,1,08,0.9,1.0,M,46.8,M,,")

    @Test func aMagneticHeadingWithoutVariationTakesGpsdsGrid() throws {
        // gpsd reads HDG's variation from its third and fourth fields, where the standard has the
        // deviation's direction and the variation: a chart plotter's `,,,1.3,E` gives it none.
        let f = try #require(readFixes(Self.position + sentence("SDHDG,240.0,,,1.3,E")).fixes.last)
        let v = try #require(MagneticVariation.gpsdVariation(latitude: 52.85005667, longitude: 5.31341167))
        let track = try #require(f.track)
        #expect(abs(track - (240.0 - v)) < 1e-9)
        #expect(v > 1 && v < 2)
        #expect(f.derived == .track)
    }

    @Test func aVariationOfZeroMeansUnknownButAGivenOneIsKept() throws {
        let unknown = try #require(readFixes(Self.position + sentence("IIHDG,240.0,,0.0,E,")).fixes.last?.track)
        let v = try #require(MagneticVariation.gpsdVariation(latitude: 52.85005667, longitude: 5.31341167))
        #expect(abs(unknown - (240.0 - v)) < 1e-9)
        let given = try #require(readFixes(Self.position + sentence("IIHDG,240.0,,3.0,W,")).fixes.last?.track)
        #expect(abs(given - 243.0) < 1e-9)
    }
}
