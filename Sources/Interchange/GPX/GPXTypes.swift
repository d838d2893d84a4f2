import Foundation
import TreesKit

/// GPX namespaces, and the namespace of the elements `trees` adds under `<extensions>`.
public enum GPXNamespace {
    public static let gpx10 = "http://www.topografix.com/GPX/1/0"
    public static let gpx11 = "http://www.topografix.com/GPX/1/1"
    /// The namespace of our own extension elements (`<trees:species>` …), prefix `trees`.
    ///
    /// The `.invalid` top-level domain is reserved and never resolves, so the URI is a stable name
    /// that no one else can own; nothing is ever fetched from it. Version 1; new elements may be
    /// added, existing ones never change meaning.
    public static let trees = "https://trees.invalid/xmlns/trees/1"
}

/// Which GPX a document is, judged by the namespace of its root element.
public enum GPXVersion: String, Sendable, Equatable, Codable {
    case v1_0 = "1.0"
    case v1_1 = "1.1"
    /// A `<gpx>` root in no namespace (read like 1.0).
    case noNamespace = "none"
}

/// A latitude/longitude box, in degrees.
public struct GeoBounds: Sendable, Equatable, Codable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude; self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude; self.maxLongitude = maxLongitude
    }

    public init(_ coordinate: Coordinate) {
        self.init(minLatitude: coordinate.latitude, minLongitude: coordinate.longitude,
                  maxLatitude: coordinate.latitude, maxLongitude: coordinate.longitude)
    }

    public mutating func include(_ c: Coordinate) {
        minLatitude = min(minLatitude, c.latitude); maxLatitude = max(maxLatitude, c.latitude)
        minLongitude = min(minLongitude, c.longitude); maxLongitude = max(maxLongitude, c.longitude)
    }

    /// The bounds of `coordinates`; nil when there are none.
    public static func of(_ coordinates: some Sequence<Coordinate>) -> GeoBounds? {
        var b: GeoBounds?
        for c in coordinates {
            if b == nil { b = GeoBounds(c) } else { b?.include(c) }
        }
        return b
    }
}

/// File-level information of a GPX document (1.1 `<metadata>`, or the 1.0 top-level elements).
public struct GPXMetadata: Sendable, Equatable {
    public var version: GPXVersion
    /// The `version` attribute as written.
    public var versionAttribute: String?
    public var creator: String?
    public var name: String?
    public var description: String?
    public var time: Date?
    public var bounds: GeoBounds?

    public init(version: GPXVersion, versionAttribute: String? = nil, creator: String? = nil, name: String? = nil,
                description: String? = nil, time: Date? = nil, bounds: GeoBounds? = nil) {
        self.version = version; self.versionAttribute = versionAttribute; self.creator = creator
        self.name = name; self.description = description; self.time = time; self.bounds = bounds
    }
}

/// The fields of our `trees` extension namespace on one point: what GPX has no element for.
public struct TreesPointFields: Sendable, Equatable {
    public var id: UUID?
    public var species: String?
    public var variety: String?
    public var rootstock: String?
    public var notes: String?
    /// Radius of the 95% confidence circle, in metres.
    public var horizontalAccuracy: Double?
    public var accuracySource: AccuracySource?
    /// Collection name.
    public var collection: String?
    public var collectionID: UUID?
    public var createdAt: Date?
    public var updatedAt: Date?
    /// Height above the WGS 84 ellipsoid, in metres.
    public var ellipsoidHeight: Double?
    public var fixTime: Date?
    public var averagedEpochs: Int?
    public var locationSource: String?
    /// The fix quality of a captured tree: status, correction age (seconds), vertical accuracy
    /// (metres, 95%) and its source, antenna height (metres).
    public var fixStatus: FixStatus?
    public var correctionAge: Double?
    public var verticalAccuracy: Double?
    public var verticalAccuracySource: AccuracySource?
    public var antennaHeight: Double?
    /// The tree's care events (`<trees:care>`); each event's tree is a placeholder.
    public var care: [CareEvent] = []
    /// The tree's own care schedules (`<trees:schedule>`).
    public var schedules: [CareSchedule] = []

    public init() {}

    public var isEmpty: Bool { self == TreesPointFields() }
}

/// A waypoint, route point or track point.
public struct GPXPoint: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    /// Elevation (GPX `ele`), in metres.
    public var elevation: Double?
    public var time: Date?
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    public var symbol: String?
    public var type: String?
    /// `none`, `2d`, `3d`, `dgps` or `pps`.
    public var fix: String?
    public var satellites: Int?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// Height of the geoid above the WGS 84 ellipsoid, in metres.
    public var geoidHeight: Double?
    /// Our own extension fields, when the point carries them.
    public var trees: TreesPointFields
    /// The line of the point's start tag.
    public var line: Int

    public init(latitude: Double, longitude: Double, line: Int = 0) {
        self.latitude = latitude; self.longitude = longitude
        self.trees = TreesPointFields(); self.line = line
    }

    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

/// A route, as known at its end tag.
public struct GPXRoute: Sendable, Equatable {
    /// 0-based position among the file's routes.
    public var index: Int
    public var name: String?
    public var description: String?
    public var pointCount: Int
}

/// A track, as known at its end tag.
public struct GPXTrack: Sendable, Equatable {
    public var index: Int
    public var name: String?
    public var description: String?
    /// Points in each segment; empty when the track has no `<trkseg>`.
    public var segments: [Int]
}

/// What the GPX reader reports while it reads, in document order.
public enum GPXEvent: Sendable, Equatable {
    /// Sent once, before the first point (or at the end of a document without points).
    case metadata(GPXMetadata)
    case waypoint(GPXPoint)
    case routeStart(index: Int)
    case routePoint(GPXPoint, route: Int)
    case routeEnd(GPXRoute)
    case trackStart(index: Int)
    case segmentStart(track: Int, segment: Int)
    case trackPoint(GPXPoint, track: Int, segment: Int)
    case segmentEnd(track: Int, segment: Int, points: Int)
    case trackEnd(GPXTrack)
    /// A point that could not be read (no coordinates, latitude out of range), or an unreadable value.
    case diagnostic(Diagnostic)
}

/// Counts and extents of a whole GPX document.
public struct GPXSummary: Sendable, Equatable {
    public var metadata: GPXMetadata
    public var waypoints = 0
    public var routes = 0
    public var routePoints = 0
    public var tracks = 0
    public var trackSegments = 0
    public var trackPoints = 0
    /// Bounds of all readable points.
    public var bounds: GeoBounds?
    public var earliestTime: Date?
    public var latestTime: Date?
    /// Namespaces of elements outside GPX (others' extensions), sorted.
    public var extensionNamespaces: [String] = []
    /// How many diagnostics were reported.
    public var diagnosticCount = 0

    public init(metadata: GPXMetadata) { self.metadata = metadata }
}
