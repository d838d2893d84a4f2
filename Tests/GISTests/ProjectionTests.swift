import Foundation
import GIS
import Testing
import TreesKit
import TreesTestSupport

/// Positions carried into national grids and UTM zones by `Projection`, checked against PROJ's
/// own `cs2cs` on points across each CRS's area.
@Suite struct ProjectionTests {
    /// Points (latitude, longitude) across the area of each test CRS.
    static let cases: [(crs: String, points: [(Double, Double)])] = [
        // British National Grid: Land's End, London, the Wash, Inverness, Shetland.
        ("EPSG:27700", [(50.066, -5.714), (51.5074, -0.1278), (52.93, 0.35), (57.4778, -4.2247), (60.155, -1.145)]),
        // UTM zone 31N (0°E to 6°E): Paris, Marseille, Amsterdam, and two points by the zone's edges.
        ("EPSG:32631", [(48.8566, 2.3522), (43.2965, 5.3698), (52.3676, 4.9041), (45.0, 5.9999), (50.0, 0.0001)]),
        // New York Long Island state plane (US survey feet): Manhattan, Queens, Riverhead, Montauk.
        ("EPSG:2263", [(40.7128, -74.006), (40.7282, -73.7949), (40.9170, -72.6620), (41.0359, -71.9545)]),
    ]

    /// What `cs2cs` gives for `points` (latitude, longitude on WGS 84) in `crs`: easting, northing.
    static func cs2cs(_ crs: String, _ points: [(Double, Double)], back: Bool = false) throws -> [(Double, Double)] {
        let input = points.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        let arguments = back ? ["-f", "%.11f", crs, "EPSG:4326"] : ["-f", "%.6f", "EPSG:4326", crs]
        let out = try Program.run(Tool.cs2cs.require(), arguments, stdin: Data(input.utf8))
        try #require(out.status == 0, "\(out)")
        return try out.stdout.split(separator: "\n").map { line in
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap { Double($0) }
            try #require(f.count >= 2, "cs2cs wrote \(line)")
            return (f[0], f[1])
        }
    }

    @Test(.enabled(if: Tool.cs2cs.shouldRun), arguments: [0, 1, 2])
    func agreesWithCS2CSToAMillimetre(caseIndex: Int) throws {
        let (crs, points) = Self.cases[caseIndex]
        let expected = try Self.cs2cs(crs, points)
        // And back: cs2cs gives latitude, longitude for the eastings and northings it gave.
        let returned = try Self.cs2cs(crs, expected, back: true)
        let projection = try Projection(crs)
        #expect(projection.target.code == crs)
        #expect(!projection.target.isGeographic)
        for ((p, e), r) in zip(zip(points, expected), returned) {
            let c = Coordinate(latitude: p.0, longitude: p.1)
            let got = try #require(projection.project(c))
            // 1 mm, in the CRS's unit (a foot is larger, so this is stricter there).
            #expect(abs(got.x - e.0) < 0.001, "\(crs) easting of \(p): \(got.x) against \(e.0)")
            #expect(abs(got.y - e.1) < 0.001, "\(crs) northing of \(p): \(got.y) against \(e.1)")
            let back = try #require(projection.unproject(x: e.0, y: e.1))
            // The inverse undoes the forward transformation exactly (to a micrometre)...
            let again = try #require(projection.project(back))
            #expect(abs(again.x - e.0) < 1e-6 && abs(again.y - e.1) < 1e-6, "\(crs): \(again) against \(e)")
            // ...and agrees with cs2cs's inverse to 1 mm, or to 1.1 mm for British National Grid,
            // whose Helmert transformation PROJ inverts only to about a millimetre.
            // 1 mm on the ground: a degree of latitude is about 111.32 km.
            let north = (back.latitude - r.0) * 111_320, east = (back.longitude - r.1) * 111_320 * cos(r.0 * .pi / 180)
            #expect((north * north + east * east).squareRoot() < (crs == "EPSG:27700" ? 0.0011 : 0.001), "\(crs) back from \(e): \(back)")
        }
    }

    @Test func describesTheCRSAsPROJKnowsIt() throws {
        let bng = try Projection("EPSG:27700").target
        #expect(bng.name == "OSGB36 / British National Grid")
        #expect(bng.organization == "EPSG" && bng.organizationCode == 27700)
        #expect(bng.wkt.hasPrefix("PROJCS[\"OSGB36 / British National Grid\""))
        #expect(bng.wkt.hasSuffix("AUTHORITY[\"EPSG\",\"27700\"]]"))
        let area = try #require(bng.areaOfUse)
        #expect(area.contains(Coordinate(latitude: 51.5, longitude: -0.12)))
        #expect(!area.contains(Coordinate(latitude: 48.85, longitude: 2.35)))
        let wgs84 = try Projection("EPSG:4326")
        #expect(wgs84.target.isGeographic)
        // Normalised: x is the longitude, y the latitude, whatever order EPSG gives the axes.
        let p = try #require(wgs84.project(Coordinate(latitude: 51.5, longitude: -0.12)))
        #expect(p.x == -0.12 && p.y == 51.5)
    }

    @Test func utmIsTheZoneOfTheCentre() {
        #expect(CRSChoice.utmCode(for: Coordinate(latitude: 48.85, longitude: 2.35)) == "EPSG:32631")
        #expect(CRSChoice.utmCode(for: Coordinate(latitude: 45.0, longitude: 5.9999)) == "EPSG:32631")
        #expect(CRSChoice.utmCode(for: Coordinate(latitude: 45.0, longitude: 6.0)) == "EPSG:32632")
        #expect(CRSChoice.utmCode(for: Coordinate(latitude: -33.87, longitude: 151.21)) == "EPSG:32756")
        #expect(CRSChoice.utmCode(for: Coordinate(latitude: 10, longitude: 180)) == "EPSG:32660")
        #expect(CRSChoice.utmCode(for: Coordinate(latitude: 10, longitude: -180)) == "EPSG:32601")
        #expect(CRSChoice("UTM") == .utmOfCentre)
        #expect(CRSChoice("EPSG:27700") == .code("EPSG:27700"))
    }

    @Test func refusesWhatPROJDoesNotKnow() {
        #expect(throws: GISError.unknownCRS("EPSG:999999", reason: "PROJ does not know it")) { try Projection("EPSG:999999") }
        #expect {
            try Projection("+proj=nonsense")
        } throws: { e in
            guard case .unknownCRS(let what, _) = e as? GISError else { return false }
            return what == "+proj=nonsense"
        }
    }
}

/// A GeoPackage's reader says, before its first tree, when its positions are carried through PROJ,
/// and only then: an import makes room for PROJ's memory on that word.
@Suite struct GeoPackageProjectingTests {
    /// The CRS `readTrees` reported and the number of trees it read before doing so.
    static func read(_ projection: Projection?) throws -> (crs: [String], treesBefore: Int, trees: Int) {
        let folder = try TemporaryFolder("gpkg-projecting")
        let path = folder.path("trees.gpkg")
        let writer = try GeoPackageWriter(path: path, name: "trees.gpkg", projection: projection, collections: [])
        for i in 0..<3 {
            try writer.write(Tree(coordinate: Coordinate(latitude: 47.3 + Double(i) * 1e-4, longitude: 8.5), species: "Apple",
                                  createdAt: Date(timeIntervalSince1970: 1_777_777_777)))
        }
        try writer.finish()
        var crs: [String] = []
        var trees = 0, treesBefore = -1
        try GeoPackageReader(path: path, name: "trees.gpkg").readTrees(layer: nil, projecting: { crs.append($0); treesBefore = trees },
                                                                      skipped: { _, _ in }, { _ in trees += 1 })
        return (crs, treesBefore, trees)
    }

    @Test func aGridLayerSaysSoBeforeItsFirstTree() throws {
        let grid = try Self.read(try Projection("EPSG:2056"))
        #expect(grid.crs == ["EPSG:2056"] && grid.treesBefore == 0 && grid.trees == 3)
        let wgs84 = try Self.read(nil)
        #expect(wgs84.crs == [] && wgs84.trees == 3)
    }
}
