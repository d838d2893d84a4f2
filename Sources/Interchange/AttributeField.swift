import Foundation

/// The fields of a tree a GeoPackage column or a GeoJSON property can fill, with the names each
/// takes by default (compared ignoring case, `_`, `-` and spaces), first match wins. The raw value
/// is the field's own name, as collection JSON and `--map` spell it.
public enum AttributeField: String, CaseIterable, Sendable {
    case id, species, variety, rootstock, notes, collection, horizontalAccuracy, accuracySource, altitude
    case ellipsoidHeight, createdAt, updatedAt, fixTime, fixMode, satellites, hdop, averagedEpochs, locationSource
    case fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight

    public var defaultColumns: [String] {
        switch self {
        case .id: ["id", "uuid", "treeid"]
        case .species: ["species", "spp", "name"]
        case .variety: ["variety", "cultivar", "cv"]
        case .rootstock: ["rootstock"]
        case .notes: ["notes", "note", "comment", "comments", "desc", "description", "cmt"]
        case .collection: ["collection"]
        case .horizontalAccuracy: ["horizontalaccuracy", "accuracy"]
        case .accuracySource: ["accuracysource"]
        case .altitude: ["altitude", "ele", "elevation"]
        case .ellipsoidHeight: ["ellipsoidheight"]
        case .createdAt: ["createdat", "date"]
        case .updatedAt: ["updatedat"]
        case .fixTime: ["fixtime", "time"]
        case .fixMode: ["fixmode", "fix"]
        case .satellites: ["satellites", "sat"]
        case .hdop: ["hdop"]
        case .averagedEpochs: ["averagedepochs"]
        case .locationSource: ["locationsource"]
        case .fixStatus: ["fixstatus", "fixquality"]
        case .correctionAge: ["correctionage", "diffage"]
        case .verticalAccuracy: ["verticalaccuracy", "vacc"]
        case .verticalAccuracySource: ["verticalaccuracysource"]
        case .antennaHeight: ["antennaheight", "antenna"]
        }
    }

    public static func normalised(_ name: String) -> String {
        String(name.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
    }
}
