/// Why a GeoPackage or a coordinate reference system could not be used.
public enum GISError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A CRS PROJ cannot make (an unknown code, a definition it cannot read).
    case unknownCRS(String, reason: String)
    /// A position PROJ cannot carry into or out of the CRS.
    case cannotTransform(crs: String, what: String)
    /// A file that is not a GeoPackage (not SQLite, or without the GeoPackage tables).
    case notAGeoPackage(file: String, reason: String)
    /// A GeoPackage without a point layer, or without the one asked for.
    case noPointLayer(file: String, reason: String)
    /// A row of a layer that cannot be read (a malformed geometry, a CRS without a definition).
    case badRow(file: String, layer: String, row: Int64, reason: String)
    /// A layer's declaration that cannot be used.
    case badLayer(file: String, layer: String, reason: String)
    /// SQLite failed while reading or writing the file.
    case sqlite(file: String, reason: String)
    /// A scratch file the writer needs (beside the file it builds) cannot be made, written or read.
    case scratch(file: String, reason: String)
    /// PROJ, the library that knows coordinate reference systems, cannot be loaded.
    case projUnavailable(reason: String)

    public var description: String {
        switch self {
        case .unknownCRS(let crs, let reason): "unknown coordinate reference system \(crs): \(reason)"
        case .cannotTransform(let crs, let what): "cannot transform \(what) into \(crs)"
        case .notAGeoPackage(let file, let reason): "\(file): not a GeoPackage: \(reason)"
        case .noPointLayer(let file, let reason): "\(file): \(reason)"
        case .badRow(let file, let layer, let row, let reason): "\(file): layer \(layer), row \(row): \(reason)"
        case .badLayer(let file, let layer, let reason): "\(file): layer \(layer): \(reason)"
        case .sqlite(let file, let reason), .scratch(let file, let reason): "\(file): \(reason)"
        case .projUnavailable(let reason): "coordinate reference systems need PROJ, which cannot be loaded: \(reason)"
        }
    }
}
