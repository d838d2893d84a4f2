import CPROJ
import Foundation
import GRDBSQLite
import TreesKit

/// A coordinate reference system as PROJ knows it: its code, name, definition and area of use.
public struct CRSDescription: Sendable, Equatable {
    /// The authority and code, `EPSG:27700`; nil for a CRS PROJ knows only by its definition.
    public var code: String?
    /// The authority (`EPSG`) and its number for the CRS, when there are both.
    public var organization: String?
    public var organizationCode: Int?
    /// `OSGB36 / British National Grid`.
    public var name: String
    /// The full definition as OGC WKT (version 1, as GDAL writes it), which GeoPackage files carry.
    public var wkt: String
    /// True for longitude and latitude in degrees, false for a projected grid in metres (or feet).
    public var isGeographic: Bool
    /// Where the CRS is meant to be used, in degrees on WGS 84; nil when PROJ knows no area.
    public var areaOfUse: AreaOfUse?
}

/// A box of longitudes and latitudes, in degrees; `west` > `east` when it crosses the antimeridian.
public struct AreaOfUse: Sendable, Equatable {
    public var west: Double, south: Double, east: Double, north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west; self.south = south; self.east = east; self.north = north
    }

    /// True when the position is inside the box (edges included).
    public func contains(_ c: Coordinate) -> Bool {
        guard c.latitude >= south, c.latitude <= north else { return false }
        if west <= east { return c.longitude >= west && c.longitude <= east }
        return c.longitude >= west || c.longitude <= east
    }

    /// `-8.82, 49.79 to 1.92, 60.94` (longitude, latitude), as errors name it.
    public var description: String {
        func f(_ v: Double) -> String { String(format: "%.2f", v) }
        return "\(f(west)), \(f(south)) to \(f(east)), \(f(north)) (longitude, latitude)"
    }
}

/// The CRS an option names: a code PROJ knows (`EPSG:27700`), or `utm`, the UTM zone (north or
/// south) of the centre of the data.
public enum CRSChoice: Sendable, Equatable {
    case code(String)
    case utmOfCentre

    /// Parses an option's value; `utm` in any case is the zone of the centre.
    public init(_ text: String) {
        self = text.lowercased() == "utm" ? .utmOfCentre : .code(text)
    }

    /// The code of the CRS, given the centre of the data (used for `utm` only).
    public func code(centre: Coordinate) -> String {
        switch self {
        case .code(let c): c
        case .utmOfCentre: Self.utmCode(for: centre)
        }
    }

    /// The EPSG code of the WGS 84 UTM zone holding `c`: `EPSG:326zz` north of the equator,
    /// `EPSG:327zz` south of it. Zones are the regular 6° bands (Norway's and Svalbard's
    /// exceptions are not applied).
    public static func utmCode(for c: Coordinate) -> String {
        let zone = min(60, max(1, Int(((c.longitude + 180) / 6).rounded(.down)) + 1))
        return String(format: "EPSG:%d%02d", c.latitude < 0 ? 327 : 326, zone)
    }
}

/// Converts positions between WGS 84 and one CRS through PROJ, with x the easting (or longitude)
/// and y the northing (or latitude) whatever axis order the CRS declares.
///
/// Each instance has a PROJ context of its own, and must be used by one thread at a time.
public final class Projection {
    private var proj: trees_proj
    private let context: OpaquePointer
    private let crs: OpaquePointer
    /// WGS 84 (longitude, latitude) to the CRS (x, y), normalised for visualisation.
    private let operation: OpaquePointer
    public let target: CRSDescription

    /// The CRS `definition` names: an authority and code (`EPSG:27700`), a PROJ string or WKT.
    /// Fails with `GISError.unknownCRS` when PROJ cannot make a CRS of it.
    public init(_ definition: String) throws(GISError) {
        let proj = try LibPROJ.functions()
        self.proj = proj
        guard let context = proj.proj_context_create() else { throw .unknownCRS(definition, reason: "PROJ could not start") }
        _ = proj.proj_log_level(context, PJ_LOG_NONE)
        self.context = context
        guard let crs = proj.proj_create(context, definition) else {
            _ = proj.proj_context_destroy(context)
            throw .unknownCRS(Self.shortened(definition), reason: "PROJ does not know it")
        }
        guard proj.proj_is_crs(crs) != 0 else {
            _ = proj.proj_destroy(crs); _ = proj.proj_context_destroy(context)
            throw .unknownCRS(Self.shortened(definition), reason: "it is not a coordinate reference system")
        }
        self.crs = crs
        guard let raw = proj.proj_create_crs_to_crs(context, "EPSG:4326", definition, nil),
              let normal = proj.proj_normalize_for_visualization(context, raw)
        else {
            let reason = Self.lastError(proj, context) ?? "no transformation from WGS 84"
            _ = proj.proj_destroy(crs); _ = proj.proj_context_destroy(context)
            throw .unknownCRS(Self.shortened(definition), reason: reason)
        }
        _ = proj.proj_destroy(raw)
        self.operation = normal
        target = Self.describe(proj, context, crs)
    }

    deinit {
        _ = proj.proj_destroy(operation)
        _ = proj.proj_destroy(crs)
        _ = proj.proj_context_destroy(context)
    }

    /// The position in the target CRS: (easting, northing) in its unit, or (longitude, latitude)
    /// in degrees for a geographic CRS; nil when PROJ cannot transform it.
    public func project(_ c: Coordinate) -> (x: Double, y: Double)? {
        var x = c.longitude, y = c.latitude
        guard trees_proj_transform(&proj, operation, PJ_FWD, &x, &y) else { return nil }
        return (x, y)
    }

    /// The WGS 84 position of (x, y) in the target CRS; nil when PROJ cannot transform it.
    ///
    /// Refined until `project` of the result gives (x, y) back to a micrometre: PROJ's inverse
    /// of a Helmert transformation (OSGB36 to WGS 84, say) is an approximation that lands about a
    /// millimetre from the position its forward transformation came from, so a tree exported in
    /// a national grid and imported again would move.
    public func unproject(x: Double, y: Double) -> Coordinate? {
        var aimX = x, aimY = y
        var lon = x, lat = y
        for _ in 0..<4 {
            lon = aimX; lat = aimY
            guard trees_proj_transform(&proj, operation, PJ_INV, &lon, &lat), abs(lat) <= 90, abs(lon) <= 360 else { return nil }
            var fx = lon, fy = lat
            guard trees_proj_transform(&proj, operation, PJ_FWD, &fx, &fy) else { break }
            let dx = x - fx, dy = y - fy
            if abs(dx) < 1e-6 && abs(dy) < 1e-6 { break }
            aimX += dx; aimY += dy
        }
        if lon > 180 { lon -= 360 } else if lon < -180 { lon += 360 }
        return Coordinate(latitude: lat, longitude: lon)
    }

    private static func lastError(_ proj: trees_proj, _ context: OpaquePointer) -> String? {
        let code = proj.proj_context_errno(context)
        guard code != 0, let text = proj.proj_context_errno_string(context, code) else { return nil }
        return String(cString: text)
    }

    /// A definition as errors quote it: WKT can run to kilobytes.
    private static func shortened(_ definition: String) -> String {
        definition.count > 60 ? String(definition.prefix(57)) + "..." : definition
    }

    private static func describe(_ proj: trees_proj, _ context: OpaquePointer, _ crs: OpaquePointer) -> CRSDescription {
        var proj = proj
        let authority = proj.proj_get_id_auth_name(crs, 0).map { String(cString: $0) }
        let number = proj.proj_get_id_code(crs, 0).map { String(cString: $0) }
        let name = proj.proj_get_name(crs).map { String(cString: $0) } ?? "unnamed"
        let wkt = proj.proj_as_wkt(context, crs, PJ_WKT1_GDAL, nil).map { String(cString: $0) }
            ?? proj.proj_as_wkt(context, crs, PJ_WKT2_2019, nil).map { String(cString: $0) } ?? ""
        var w = 0.0, s = 0.0, e = 0.0, n = 0.0
        let area = trees_proj_area(&proj, context, crs, &w, &s, &e, &n) ? AreaOfUse(west: w, south: s, east: e, north: n) : nil
        let code = authority.flatMap { a in number.map { "\(a):\($0)" } }
        return CRSDescription(code: code, organization: authority, organizationCode: number.flatMap { Int($0) },
                              name: name, wkt: wkt, isGeographic: trees_proj_is_geographic(&proj, crs), areaOfUse: area)
    }
}

/// PROJ, opened when a coordinate reference system is first needed (see the CPROJ module).
enum LibPROJ {
    private static let loaded: Result<trees_proj, LoadedLibrary.Unavailable> = {
        ProjDatabaseCache.cap()
        return LoadedLibrary.load { trees_proj_load($0) }
    }()

    /// The functions, or why PROJ cannot be used.
    static func functions() throws(GISError) -> trees_proj {
        switch loaded {
        case .success(let functions): return functions
        case .failure(let failure): throw .projUnavailable(reason: failure.why)
        }
    }
}

/// PROJ's own connection to its database (`proj.db`, through the SQLite this process shares with
/// the store) keeps a page cache of 2 MB by default, pages it read once to build a transformation.
enum ProjDatabaseCache {
    /// Gives every connection opened from now on to a file named `proj.db` a page cache of 128 KiB
    /// (an automatic extension: SQLite calls it for each new connection of the process).
    static func cap() {
        let hook: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?) -> Int32 = { db, _, _ in
            guard let db, let name = sqlite3_db_filename(db, "main") else { return SQLITE_OK }
            let path = String(cString: name)
            if path == "proj.db" || path.hasSuffix("/proj.db") { sqlite3_exec(db, "PRAGMA cache_size = -128", nil, nil, nil) }
            return SQLITE_OK
        }
        sqlite3_auto_extension(unsafeBitCast(hook, to: (@convention(c) () -> Void).self))
    }
}
