import Foundation

/// How a tree's position was captured.
public struct CaptureInfo: Sendable, Equatable, Codable {
    /// Receiver time of the fix (or of the last averaged fix).
    public var fixTime: Date?
    public var fixMode: FixMode?
    public var satellites: Int?
    public var hdop: Double?
    /// Number of epochs averaged into the position (1 for a single fix).
    public var averagedEpochs: Int?
    /// The location source, e.g. `gpsd://localhost:2947` or `replay:orchard-walk.nmea`.
    public var locationSource: String?
    /// The fix's quality: no corrections, DGPS, RTK float, RTK fixed, dead reckoning, ….
    public var fixStatus: FixStatus?
    /// Seconds since the receiver last applied corrections, when it said.
    public var correctionAge: Double?
    /// Half-width of the 95% confidence interval of the height, in metres.
    public var verticalAccuracy: Double?
    /// Where `verticalAccuracy` comes from.
    public var verticalAccuracySource: AccuracySource?
    /// Height of the antenna above the ground at the tree, in metres; already subtracted from
    /// the tree's altitude and ellipsoid height.
    public var antennaHeight: Double?

    public init(fixTime: Date? = nil, fixMode: FixMode? = nil, satellites: Int? = nil, hdop: Double? = nil,
                averagedEpochs: Int? = nil, locationSource: String? = nil, fixStatus: FixStatus? = nil,
                correctionAge: Double? = nil, verticalAccuracy: Double? = nil,
                verticalAccuracySource: AccuracySource? = nil, antennaHeight: Double? = nil) {
        self.fixTime = fixTime; self.fixMode = fixMode; self.satellites = satellites; self.hdop = hdop
        self.averagedEpochs = averagedEpochs; self.locationSource = locationSource
        self.fixStatus = fixStatus; self.correctionAge = correctionAge; self.verticalAccuracy = verticalAccuracy
        self.verticalAccuracySource = verticalAccuracySource; self.antennaHeight = antennaHeight
    }

    public var isEmpty: Bool {
        fixTime == nil && fixMode == nil && satellites == nil && hdop == nil && averagedEpochs == nil && locationSource == nil
            && fixStatus == nil && correctionAge == nil && verticalAccuracy == nil && verticalAccuracySource == nil
            && antennaHeight == nil
    }
}

/// A tree: a position and what grows there.
public struct Tree: Sendable, Equatable, Identifiable, Codable {
    public var id: UUID
    public var coordinate: Coordinate
    /// Radius of the 95% confidence circle, in metres.
    public var horizontalAccuracy: Double?
    public var accuracySource: AccuracySource?
    /// Altitude above mean sea level, in metres.
    public var altitude: Double?
    /// Height above the WGS 84 ellipsoid, in metres.
    public var ellipsoidHeight: Double?
    public var species: String
    public var variety: String?
    public var rootstock: String?
    public var notes: String?
    /// The collection the tree belongs to; nil when unassigned.
    public var collectionID: UUID?
    public var createdAt: Date
    public var updatedAt: Date
    public var capture: CaptureInfo

    // Inlinable: a store reads every tree row through it, and inlined it costs no call (about 130
    // instructions a tree of an export).
    @inlinable
    public init(
        id: UUID = .random(), coordinate: Coordinate, horizontalAccuracy: Double? = nil,
        accuracySource: AccuracySource? = nil, altitude: Double? = nil, ellipsoidHeight: Double? = nil,
        species: String, variety: String? = nil, rootstock: String? = nil, notes: String? = nil,
        collectionID: UUID? = nil, createdAt: Date, updatedAt: Date? = nil, capture: CaptureInfo = .init()
    ) {
        self.id = id; self.coordinate = coordinate; self.horizontalAccuracy = horizontalAccuracy
        self.accuracySource = accuracySource; self.altitude = altitude; self.ellipsoidHeight = ellipsoidHeight
        self.species = species; self.variety = variety; self.rootstock = rootstock; self.notes = notes
        self.collectionID = collectionID; self.createdAt = createdAt; self.updatedAt = updatedAt ?? createdAt
        self.capture = capture
    }

    public var latitude: Double { coordinate.latitude }
    public var longitude: Double { coordinate.longitude }
    public var accuracyClass: AccuracyClass { AccuracyClass(metres: horizontalAccuracy) }

    /// The id as listings show it (see `ShortID`).
    public var shortID: String { ShortID.of(id) }
}

/// A named group of trees (an orchard block, a street, a survey).
///
/// Named `TreeCollection` in code so it never shadows Swift's `Collection` protocol.
public struct TreeCollection: Sendable, Equatable, Identifiable, Codable {
    public var id: UUID
    /// Unique among collections, compared as `sameName` compares names.
    public var name: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID = .random(), name: String, createdAt: Date, updatedAt: Date? = nil) {
        self.id = id; self.name = name; self.createdAt = createdAt; self.updatedAt = updatedAt ?? createdAt
    }

    /// True when `text` names no collection: `none`, in any case, with blanks around it or not.
    /// Wherever a collection is named (options, prompts, files) it means no collection, so no
    /// collection may be called so.
    public static func meansNone(_ text: String) -> Bool {
        text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == "none"
    }

    /// True when `a` and `b` name the same collection: equal but for case, in any script, and
    /// however their accented letters are composed ("ÄPFEL" is "Äpfel", "STRASSE" is "Straße").
    ///
    /// Lower-casing, upper-casing, then lower-casing again folds as Unicode's case folding does the
    /// letters whose upper case is more than one letter (ß and ẞ both become "ss") and those with
    /// two lower cases (σ and ς); the comparison itself is Swift's, which holds a composed "Ä"
    /// equal to "A" and its diaeresis.
    public static func sameName(_ a: String, _ b: String) -> Bool {
        a == b || nameKey(a) == nameKey(b)
    }

    /// What `sameName` compares: equal (and, as Swift's strings are, of equal hash) for two names
    /// of one collection.
    public static func nameKey(_ name: String) -> String { name.lowercased().uppercased().lowercased() }
}

/// A photo of a tree. The bytes live in a file named by their SHA-256, beside the database.
public struct Photo: Sendable, Equatable, Identifiable, Codable {
    public var id: UUID
    public var treeID: UUID
    /// Lower-case hex SHA-256 of the bytes; also the file name.
    public var sha256: String
    /// `jpeg`, `png` or `heic`.
    public var format: String
    public var byteCount: Int
    /// When the photo was taken (EXIF DateTimeOriginal, else the file's modification time).
    public var capturedAt: Date
    public var createdAt: Date
    /// The care event the photo was taken for (an inspection's fire blight), if any; the photo is
    /// the tree's either way.
    public var careEventID: UUID?

    public init(id: UUID = .random(), treeID: UUID, sha256: String, format: String, byteCount: Int, capturedAt: Date, createdAt: Date,
                careEventID: UUID? = nil) {
        self.id = id; self.treeID = treeID; self.sha256 = sha256; self.format = format
        self.byteCount = byteCount; self.capturedAt = capturedAt; self.createdAt = createdAt; self.careEventID = careEventID
    }
}

/// Short ids, as listings show them and as commands take them.
///
/// A random id's short id is its first eight hex digits, like git's. A time-ordered id (version 7,
/// as imports make) starts with the time it was made, the same for every tree of an import, so its
/// short id is its last eight hex digits, which are random.
public enum ShortID {
    public static let length = 8

    public static func of(_ id: UUID) -> String { form(of: id, digits: length) }

    /// The short id of a stored (dashed, lower-case) id.
    public static func of(storageKey key: String) -> String {
        isTimeOrdered(storageKey: key) ? String(key.suffix(length)) : String(key.prefix(length))
    }

    /// True for version-7 ids, whose first digits are a time.
    public static func isTimeOrdered(_ id: UUID) -> Bool { id.uuid.6 >> 4 == 7 }

    /// True for the stored (dashed, lower-case) form of a version-7 id.
    public static func isTimeOrdered(storageKey key: String) -> Bool {
        let u = key.utf8
        return u.count == 36 && u[u.index(u.startIndex, offsetBy: 14)] == UInt8(ascii: "7")
    }

    /// The id's short form with `digits` characters of its text: the start of a random id, the end
    /// of a time-ordered one.
    public static func form(of id: UUID, digits: Int) -> String {
        let text = id.lowercaseText
        return isTimeOrdered(id) ? String(text.suffix(digits)) : String(text.prefix(digits))
    }

    /// Short forms for `ids`, all of one length (at least `length`), as long as it takes to tell them
    /// apart: for listing the trees a typed id could mean.
    public static func distinct(_ ids: [UUID]) -> [String] {
        var n = length
        while n < 36 && Set(ids.map { form(of: $0, digits: n) }).count < Set(ids).count { n += 1 }
        return ids.map { form(of: $0, digits: n) }
    }
}
