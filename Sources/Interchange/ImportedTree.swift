import Foundation
import TreesKit

/// A tree as read from a file, before the store gives it its final identity.
///
/// Every field of a tree is read and written through `fields` (a `Tree`, so a field added to the
/// model needs nothing here: `imported.variety` is `imported.fields.variety`); the id and the
/// dates, which a file may leave out, are optional beside it, with what only a file has: the
/// collection's name, embedded photos, the line. `tree(…)` fills what the file left out.
@dynamicMemberLookup
public struct ImportedTree: Sendable, Equatable {
    /// The tree's fields as read; its `id`, `createdAt` and `updatedAt` are placeholders, the
    /// values read are the optional ones below.
    public var fields: Tree
    public var id: UUID?
    public var createdAt: Date?
    public var updatedAt: Date?
    /// The collection's name, when the file names it (GPX, CSV) rather than referring to it by id.
    public var collectionName: String?
    /// Photos carried in the file (collection JSON with photos).
    public var photos: [ImportedPhoto]
    /// How many photos the source says the tree has (which may exceed `photos.count`).
    public var photoCount: Int?
    /// The line where the tree starts in the file.
    public var line: Int
    /// The file's id for the tree when it is not a UUID (older Tree Tracker exports): the tree
    /// gets a new id, and the import says so.
    public var unusableID: String?
    /// The tree's care log (collection JSON); each event's and schedule's tree is a placeholder
    /// until the tree is stored.
    public var care = TreeCare()
    /// Photos taken for care events of `care` (by event id); they are the tree's photos too.
    public var eventPhotos: [(event: UUID, photo: ImportedPhoto)] = []

    public static func == (a: ImportedTree, b: ImportedTree) -> Bool {
        a.fields == b.fields && a.id == b.id && a.createdAt == b.createdAt && a.updatedAt == b.updatedAt
            && a.collectionName == b.collectionName && a.photos == b.photos && a.photoCount == b.photoCount && a.line == b.line
            && a.unusableID == b.unusableID && a.care == b.care
            && a.eventPhotos.elementsEqual(b.eventPhotos) { $0.event == $1.event && $0.photo == $1.photo }
    }

    public init(id: UUID? = nil, coordinate: Coordinate, species: String, line: Int) {
        self.fields = Tree(id: Self.unsetID, coordinate: coordinate, species: species, createdAt: Self.unsetDate)
        self.id = id; self.line = line; self.photos = []
    }

    /// What `fields` holds for the id and creation time until `tree(id:collectionID:now:)` sets them.
    static let unsetID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    static let unsetDate = Date(timeIntervalSince1970: 0)

    public subscript<T>(dynamicMember field: WritableKeyPath<Tree, T>) -> T {
        get { fields[keyPath: field] }
        set { fields[keyPath: field] = newValue }
    }

    /// The tree to store: `id` and `now` fill what the file left out.
    public func tree(id: UUID, collectionID: UUID?, now: Date) -> Tree {
        var t = fields
        t.id = id
        t.collectionID = collectionID
        t.createdAt = createdAt ?? now
        t.updatedAt = updatedAt ?? t.createdAt
        if t.accuracySource == nil, t.horizontalAccuracy != nil { t.accuracySource = .imported }
        return t
    }
}

/// A value a reader left out or changed, at the line that holds it: the file is still read, and
/// the import says what happened.
public struct ReadWarning: Sendable, Equatable {
    public var line: Int
    public var reason: String
    public init(line: Int, reason: String) { self.line = line; self.reason = reason }
}

/// The trees of a file whose horizontal accuracy is negative, which are kept with no accuracy:
/// said once for the whole file, at the first of them.
struct NegativeAccuracies {
    private var first: Int?
    private var count = 0

    mutating func note(line: Int) {
        if first == nil { first = line }
        count += 1
    }

    /// Leaves out `tree`'s accuracy when it is negative, noting its line.
    mutating func leaveOut(from tree: inout ImportedTree) {
        guard let a = tree.horizontalAccuracy, a < 0 else { return }
        tree.horizontalAccuracy = nil
        note(line: tree.line)
    }

    /// Nil when no tree had one.
    var warning: ReadWarning? {
        guard let first else { return nil }
        let trees = count == 1 ? "the tree is" : "this tree and \(count - 1) more after it are"
        return ReadWarning(line: first, reason: "negative horizontal accuracy: \(trees) stored without an accuracy (an accuracy is a radius, 0 or more)")
    }
}

/// A photo carried inside an import file. Only bytes and a date: names and paths from the file
/// are never used.
public struct ImportedPhoto: Sendable, Equatable {
    public var data: [UInt8]
    public var capturedAt: Date?
    public init(data: [UInt8], capturedAt: Date?) { self.data = data; self.capturedAt = capturedAt }
}

/// A photo of an exported tree: its date, and its bytes when the export embeds photos.
public struct ExportPhoto: Sendable, Equatable {
    /// When the photo was taken; nil when unknown, written as `""` in JSON as the Tree Tracker app
    /// writes it.
    public var capturedAt: Date?
    public var data: [UInt8]?
    /// The care event it was taken for, if any.
    public var careEventID: UUID?
    public init(capturedAt: Date?, data: [UInt8]? = nil, careEventID: UUID? = nil) {
        self.capturedAt = capturedAt; self.data = data; self.careEventID = careEventID
    }
}

/// Which GPX text field holds the species when the file has no `trees` extension.
public enum SpeciesSource: String, Sendable, CaseIterable {
    case name, type, desc, cmt
}

extension ImportedTree {
    /// Maps a GPX point: our extension fields win; otherwise the species comes from the chosen
    /// field, and the point's time becomes the creation and fix time.
    public init(_ p: GPXPoint, speciesFrom: SpeciesSource = .name) {
        // The point's extension fields are read where they are: a copy of `p.trees` retained each
        // of their texts once more (4.5 M instructions for 10,000 waypoints).
        let field: String?
        switch speciesFrom {
        case .name: field = p.name
        case .type: field = p.type
        case .desc: field = p.description
        case .cmt: field = p.comment
        }
        let chosen = ByteParsing.nonBlank(field)
        let species = p.trees.species ?? chosen ?? ByteParsing.nonBlank(p.name) ?? ByteParsing.nonBlank(p.type) ?? ""
        self.init(id: p.trees.id, coordinate: p.coordinate, species: species, line: p.line)
        let ours = p.trees.createdAt != nil || p.trees.id != nil
        fields.horizontalAccuracy = p.trees.horizontalAccuracy
        fields.accuracySource = p.trees.accuracySource
        fields.altitude = p.elevation
        fields.ellipsoidHeight = p.trees.ellipsoidHeight ?? (ours ? nil : p.geoidHeight.flatMap { g in p.elevation.map { $0 + g } })
        fields.variety = p.trees.variety
        fields.rootstock = p.trees.rootstock
        care = TreeCare(events: p.trees.care, schedules: p.trees.schedules)
        if ours {
            fields.notes = p.trees.notes
        } else {
            let text = speciesFrom == .desc ? p.comment : p.description
            let app = Self.appDescription(text)
            fields.notes = ByteParsing.nonBlank(app.notes)
            if fields.variety == nil { fields.variety = app.variety }
            if fields.rootstock == nil { fields.rootstock = app.rootstock }
        }
        fields.collectionID = p.trees.collectionID
        collectionName = p.trees.collection
        createdAt = p.trees.createdAt ?? p.time
        updatedAt = p.trees.updatedAt
        fields.capture.fixTime = ours ? p.trees.fixTime : p.time
        fields.capture.fixMode = p.fix.flatMap(Self.fixMode)
        fields.capture.satellites = p.satellites
        fields.capture.hdop = p.hdop
        fields.capture.averagedEpochs = p.trees.averagedEpochs
        fields.capture.locationSource = p.trees.locationSource
        fields.capture.fixStatus = p.trees.fixStatus
        fields.capture.correctionAge = p.trees.correctionAge
        fields.capture.verticalAccuracy = p.trees.verticalAccuracy
        fields.capture.verticalAccuracySource = p.trees.verticalAccuracySource
        fields.capture.antennaHeight = p.trees.antennaHeight
    }

    /// The iOS Tree Tracker app's GPX `desc`: leading `Variety: …` and `Rootstock: …` lines, then
    /// the notes. Text without those lines is all notes.
    static func appDescription(_ text: String?) -> (variety: String?, rootstock: String?, notes: String?) {
        guard let text else { return (nil, nil, nil) }
        // Most text (every survey's) opens with neither label: it is all notes, as it stands.
        guard opensWithAppLabel(text) else { return (nil, nil, text) }
        var variety: String?, rootstock: String?
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        while let first = lines.first {
            let line = first.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("Variety:") {
                variety = ByteParsing.nonBlank(String(line.dropFirst("Variety:".count)))
            } else if line.hasPrefix("Rootstock:") {
                rootstock = ByteParsing.nonBlank(String(line.dropFirst("Rootstock:".count)))
            } else {
                break
            }
            lines = lines.dropFirst()
        }
        return (variety, rootstock, lines.joined(separator: "\n"))
    }

    /// True when the text's first line, after white space, starts with `Variety:` or `Rootstock:`.
    ///
    /// Asked of every waypoint's description: spaces and tabs are skipped byte by byte, and only a
    /// text opening with other characters (a no-break space) takes the slower path through
    /// `CharacterSet`, whose every use costs a dynamic cast here.
    private static func opensWithAppLabel(_ text: String) -> Bool {
        var text = text
        let opens: Bool? = text.withUTF8 { b in
            var i = 0
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 }
            guard i < b.count, let base = b.baseAddress else { return false }
            guard b[i] < 0x80 else { return nil }
            let start = i
            func label(_ l: StaticString) -> Bool {
                b.count - start >= l.utf8CodeUnitCount && memcmp(base + start, l.utf8Start, l.utf8CodeUnitCount) == 0
            }
            return label("Variety:") || label("Rootstock:")
        }
        if let opens { return opens }
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first, CharacterSet.whitespaces.contains(first) { scalars = scalars.dropFirst() }
        return scalars.starts(with: "Variety:".unicodeScalars) || scalars.starts(with: "Rootstock:".unicodeScalars)
    }

    static func fixMode(_ text: String) -> FixMode? {
        switch text.lowercased() {
        case "none": .noFix
        case "2d": .twoD
        case "3d", "dgps", "pps": .threeD
        default: nil
        }
    }
}

extension FileFormat {
    /// Why a tree of this format has no species, for a skipped record, in the file's own terms
    /// and with the option that chooses where the species is read from, where there is one.
    public var noSpeciesReason: String {
        switch self {
        case .gpx: "no species; choose the field with --species-from"
        case .csv: "no species: the row's species cell is empty (name the species column with --columns species=COLUMN)"
        case .json: "no species: the tree's \"species\" is empty"
        case .geojson: "no species: the feature has none, or an empty one (name its property with --map species=PROPERTY)"
        case .gpkg: "no species: the row's species is empty (name the species column with --map species=COLUMN)"
        case .nmea: "no species"
        }
    }
}
