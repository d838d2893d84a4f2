import Foundation
import TreesKit

/// A collection as read from a collection JSON file.
public struct ImportedCollection: Sendable, Equatable {
    public var id: UUID
    public var name: String
    public var createdAt: Date?
    public var updatedAt: Date?
    public var line: Int
    /// The collection's care schedules; their target is a placeholder until it is stored.
    public var schedules: [CareSchedule] = []
}

/// What the collection JSON reader reports, in document order.
public enum CollectionJSONEvent: Sendable, Equatable {
    case collection(ImportedCollection)
    case tree(ImportedTree)
}

/// Reads collection JSON as a stream: ours, the iOS Tree Tracker's `{collections, trees}` export,
/// and its older bare array of trees.
///
/// Only one tree (or collection) is held in memory at a time, so a huge `trees` array streams.
/// Everything else at the top level is read and ignored. Errors name line and column: invalid JSON,
/// the wrong shape, a missing required field (`id`, `latitude`, `longitude`, `species` for trees;
/// `id`, `name` for collections), a bad UUID, date, number or base64 photo.
///
/// Nothing from the file ever becomes a path: photos are taken as bytes only.
public struct CollectionJSONReader {
    private var tokenizer = JSONTokenizer()
    private var builder = CollectionJSONBuilder()

    public init() {}

    /// `exportedAt`, when the document has it (known once read past it).
    public var exportedAt: Date? { builder.exportedAt }
    /// The `format` key, when present.
    public var format: String? { builder.format }

    public mutating func read(_ chunk: some Collection<UInt8>, _ onEvent: (CollectionJSONEvent) throws -> Void) throws {
        try tokenizer.feed(chunk, to: &builder)
        try drain(onEvent)
    }

    /// Reads the end of the document; what is said of the whole file (negative accuracies, kept
    /// as none) goes to `warning` last.
    public mutating func finish(warning: (ReadWarning) throws -> Void = { _ in }, _ onEvent: (CollectionJSONEvent) throws -> Void) throws {
        try tokenizer.finish(&builder)
        try drain(onEvent)
        if !builder.topIsArray && !builder.sawTrees {
            throw InterchangeError.invalidContent(
                line: 1, column: 1, reason: "no \"trees\" array; expected {\"collections\": [...], \"trees\": [...]} or an array of trees")
        }
        if let w = builder.negativeAccuracies.warning { try warning(w) }
    }

    private mutating func drain(_ onEvent: (CollectionJSONEvent) throws -> Void) throws {
        try handOver(&builder.events, onEvent)
    }

    /// Reads a whole document held in memory.
    public static func read(_ bytes: some Collection<UInt8>, warning: (ReadWarning) throws -> Void = { _ in },
                            _ onEvent: (CollectionJSONEvent) throws -> Void) throws {
        var r = CollectionJSONReader()
        try r.read(bytes, onEvent)
        try r.finish(warning: warning, onEvent)
    }
}

/// Hands the events a builder made from one chunk to `onEvent`, emptying the list first, so that
/// a handler that throws leaves none to be handed over twice.
func handOver<Event>(_ events: inout [Event], _ onEvent: (Event) throws -> Void) throws {
    guard !events.isEmpty else { return }
    let taken = events
    events.removeAll(keepingCapacity: true)
    for e in taken { try onEvent(e) }
}

/// Names found by their UTF-8 bytes: a slot from the name's length and three of its bytes, the
/// names that land on a taken slot in the slots after it, each compared byte for byte.
///
/// Every key of a file goes through it. With the names kept by length and compared as strings,
/// finding them (then also once for each member a tree read) was a tenth of a JSON file's reading.
struct KeyTable {
    private var slots = [Int16](repeating: -1, count: 128)
    /// The names' bytes one after another, and where each starts (with the end after the last).
    private var bytes: [UInt8] = []
    private var starts: [Int] = [0]

    init(_ names: [String]) {
        precondition(names.count < slots.count / 2, "a key table is kept at most half full")
        for (i, name) in names.enumerated() {
            bytes.append(contentsOf: name.utf8)
            starts.append(bytes.count)
            var slot = bytes.withUnsafeBufferPointer { Self.slot(UnsafeBufferPointer(rebasing: $0[starts[i]...])) }
            while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = Int16(i)
        }
    }

    private static func slot(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        let n = name.count
        guard n > 0 else { return 0 }
        return (n &* 37 &+ Int(name[0]) &* 11 &+ Int(name[n - 1]) &* 5 &+ Int(name[n / 2])) & 127
    }

    /// The place of the name with these bytes among the names the table was made of, or nil.
    func index(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let given = name.baseAddress else { return nil }
        var slot = Self.slot(name)
        return slots.withUnsafeBufferPointer { slots in
            bytes.withUnsafeBufferPointer { bytes in
                guard let all = bytes.baseAddress else { return nil }
                while true {
                    let entry = Int(slots[slot])
                    if entry < 0 { return nil }
                    let start = starts[entry]
                    if starts[entry + 1] - start == name.count, memcmp(all + start, given, name.count) == 0 { return entry }
                    slot = (slot + 1) & (slots.count - 1)
                }
            }
        }
    }
}

/// The members of a JSON object that a tree or collection reads (see `JSONKey`; no other is
/// kept), in the order they came; a name given twice keeps its last value.
///
/// A short list rather than a dictionary or a slot for every key: hashing each name as a
/// dictionary does was a third of reading a Tree Tracker file, and a slot for each of the keys
/// made every object as costly to let go of as one with all of them. An object has a dozen or so
/// members; a key is found by comparing small numbers.
struct JSONMembers {
    private var members: [(key: JSONKey, value: JSONValue)] = []

    subscript(key: JSONKey) -> JSONValue? {
        get {
            // By index: a loop over the members would copy (retain and release) each one it passes.
            var i = 0
            while i < members.count {
                if members[i].key == key { return members[i].value }
                i += 1
            }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                // Room for a tree's members at once, rather than the array growing four times.
                if members.isEmpty { members.reserveCapacity(16) }
                members.append((key, newValue))
            }
        }
    }

    /// The member of a name some object reads; nil for any other name.
    subscript(name: String) -> JSONValue? {
        get { JSONKey(name: name).flatMap { self[$0] } }
        set { if let key = JSONKey(name: name) { self[key] = newValue } }
    }
}

/// Every member name that a tree, a collection or a tree's `capture` in collection JSON is read
/// from, and a GeoJSON feature's; the values of all other members are skipped. A new field read
/// there must be added here.
///
/// Each key of a file is found once, when the tokenizer meets it; the reading of a tree then asks
/// for its members by case, not by name.
enum JSONKey: Int, CaseIterable {
    case id, latitude, longitude, horizontalAccuracy, altitude, species, variety, rootstock, notes
    case collectionId, collection, createdAt, updatedAt, accuracySource, ellipsoidHeight, photoCount
    case photoDates, photos, capture, fixTime, fixMode, satellites, hdop, averagedEpochs, locationSource
    case fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight
    case name, precise, care, schedules, kind, date, quantity, unit, health, who, everyDays, from, season
    case noteEntries, treePhotos, text, data, captureDate
    // GeoJSON's (`GeoJSONBuilder`): a feature's members and a legacy crs's.
    case type, geometry, coordinates, properties, crs

    /// The key's name in a file: the case's own.
    var name: String { Self.names[rawValue] }

    static let names: [String] = allCases.map { String(describing: $0) }

    /// The key of this name, or nil for a name nothing reads.
    init?(name: String) {
        var name = name
        guard let i = name.withUTF8({ Self.table.index(of: $0) }) else { return nil }
        self.init(rawValue: i)
    }

    private static let table = KeyTable(names)
}

/// A JSON value with the position it started at; only built for one tree or collection at a time.
indirect enum JSONValue {
    case object(JSONMembers, line: Int, column: Int)
    case array([JSONValue], line: Int, column: Int)
    case string(String, line: Int, column: Int)
    case number(Double, line: Int, column: Int)
    case bool(Bool, line: Int, column: Int)
    case null(line: Int, column: Int)

    var position: (line: Int, column: Int) {
        switch self {
        case .object(_, let l, let c), .array(_, let l, let c), .string(_, let l, let c), .number(_, let l, let c),
             .bool(_, let l, let c), .null(let l, let c): (l, c)
        }
    }

    var kind: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        }
    }
}

/// A container being materialised. A class, so its members grow in place: an enum payload taken
/// out, changed and put back would copy the whole dictionary or array on every member, which made
/// one object with n keys (or an array of n items) cost n² time.
final class JSONContainer {
    let isArray: Bool
    let line: Int
    let column: Int
    /// GeoJSON (`GeoJSONBuilder`): a feature's `properties`, whose names are fields' names or other
    /// names of them; a feature itself.
    let isProperties: Bool
    let isFeature: Bool
    // One reading uses a container, on one thread: its members are not checked for exclusive
    // access at run time (a check each time one was read or changed).
    @exclusivity(unchecked) var members = JSONMembers()
    @exclusivity(unchecked) var items: [JSONValue] = []
    @exclusivity(unchecked) var pendingKey: JSONKey?
    /// For properties: the rank of the name each field was last read from (lower wins), by the
    /// field's `JSONKey`; empty until a property is read.
    @exclusivity(unchecked) var ranks: [Int] = []

    init(isArray: Bool, line: Int, column: Int, isProperties: Bool = false, isFeature: Bool = false) {
        self.isArray = isArray; self.line = line; self.column = column
        self.isProperties = isProperties; self.isFeature = isFeature
    }

    /// Adds a finished value: an array's next item, or the member of the pending key (dropped
    /// when no key is pending: a member that is not read).
    func take(_ value: JSONValue) {
        if isArray {
            items.append(value)
        } else if let k = pendingKey {
            members[k] = value
            pendingKey = nil
        }
    }

    /// The container as a value. The box lets go of its storage, so the value holds the only reference.
    func finish() -> JSONValue {
        let value: JSONValue = isArray ? .array(items, line: line, column: column) : .object(members, line: line, column: column)
        members = JSONMembers()
        items = []
        return value
    }
}

struct CollectionJSONBuilder: JSONHandler {
    var events: [CollectionJSONEvent] = []
    /// Trees whose negative horizontal accuracy was left out.
    var negativeAccuracies = NegativeAccuracies()
    var exportedAt: Date?
    var format: String?

    /// Where the value being read sits in the document.
    private enum Slot { case tree, collection, other }

    private typealias Partial = JSONContainer

    /// Depth of containers opened so far (0 outside everything).
    private var depth = 0
    private(set) var topIsArray = false
    private(set) var sawTrees = false
    private var topKey: String?
    /// Containers being materialised (from depth 2 in an object document, depth 1 in a bare array).
    private var partials: [Partial] = []
    private var currentSlot = Slot.other
    /// Containers being skipped: the value of a member no tree, collection or capture reads. Its
    /// syntax is still checked; it is just not built, so another program's extra keys or large
    /// nested data cost neither time per key nor memory.
    private var skipDepth = 0
    /// The next value belongs to a member that is not read.
    private var skipNext = false

    private func fail(_ reason: String, _ line: Int, _ column: Int) -> InterchangeError {
        .invalidContent(line: line, column: column, reason: reason)
    }

    /// The slot of a value starting at the current depth, when values there are to be materialised.
    private func slotForNewValue() -> Slot? {
        if topIsArray { return depth == 1 ? .tree : nil }
        if depth == 2 {
            switch topKey {
            case "trees": return .tree
            case "collections": return .collection
            default: return .other
            }
        }
        if depth == 1 { return .other }
        return nil
    }

    private mutating func begin(_ p: Partial, line: Int, column: Int, isArray: Bool) throws {
        if depth == 0 {
            depth = 1
            topIsArray = isArray
            return
        }
        if partials.isEmpty {
            if !topIsArray && depth == 1 {
                // A top-level member: `trees` and `collections` must be arrays.
                if (topKey == "trees" || topKey == "collections") && !isArray {
                    throw fail("\"\(topKey ?? "")\" must be an array", line, column)
                }
                if topKey == "trees" || topKey == "collections" { depth += 1; return }
            }
            currentSlot = slotForNewValue() ?? .other
            if topIsArray && depth == 1 && isArray {
                throw fail("expected a tree object, found an array", line, column)
            }
        }
        depth += 1
        partials.append(p)
    }

    /// True (and the skip state advanced) when a container starting now is to be skipped.
    private mutating func skipsContainer() -> Bool {
        if skipDepth > 0 || skipNext {
            skipNext = false
            skipDepth += 1
            return true
        }
        return false
    }

    /// True when a container ending now was skipped.
    private mutating func endsSkipped() -> Bool {
        guard skipDepth > 0 else { return false }
        skipDepth -= 1
        return true
    }

    /// True when a scalar now is to be skipped.
    private mutating func skipsScalar() -> Bool {
        if skipDepth > 0 { return true }
        if skipNext { skipNext = false; return true }
        return false
    }

    mutating func beginObject(line: Int, column: Int) throws {
        if skipsContainer() { return }
        try begin(Partial(isArray: false, line: line, column: column), line: line, column: column, isArray: false)
    }

    mutating func beginArray(line: Int, column: Int) throws {
        if skipsContainer() { return }
        try begin(Partial(isArray: true, line: line, column: column), line: line, column: column, isArray: true)
    }

    private mutating func end() throws {
        depth -= 1
        guard let p = partials.popLast() else {
            if depth == 1 && !topIsArray { topKey = nil }
            return
        }
        try add(p.finish())
    }

    mutating func endObject() throws { if !endsSkipped() { try end() } }
    mutating func endArray() throws { if !endsSkipped() { try end() } }

    mutating func key(_ key: String, line: Int, column: Int) throws {
        if skipDepth > 0 { return }
        if partials.isEmpty {
            if depth == 1 {
                topKey = key
                if key == "trees" { sawTrees = true }
            }
            return
        }
        if let top = partials.last, !top.isArray {
            if let k = JSONKey(name: key) { top.pendingKey = k } else { top.pendingKey = nil; skipNext = true }
        }
    }

    /// Adds a finished value to the container being built, or handles it when it is complete.
    private mutating func add(_ value: JSONValue) throws {
        if let top = partials.last {
            top.take(value)
            return
        }
        // A complete value at the materialisation depth.
        if topIsArray && depth == 0 { return }
        if !topIsArray && depth == 1 {
            // A scalar or container directly under the top object.
            switch (topKey, value) {
            case ("exportedAt", .string(let s, _, _)): exportedAt = TextCodec.parseISO8601(s)
            case ("format", .string(let s, _, _)): format = s
            case ("trees", _), ("collections", _):
                let (l, c) = value.position
                throw fail("\"\(topKey ?? "")\" must be an array, found \(value.kind)", l, c)
            default: break
            }
            topKey = nil
            return
        }
        switch currentSlot {
        case .tree:
            var t = try Self.tree(value)
            negativeAccuracies.leaveOut(from: &t)
            // A file that is not ours (no "format": "trees-collection" before its trees: the iOS
            // Tree Tracker app's export, or its bare array) carries the phone's own accuracy figure.
            if format != CollectionJSONWriter.formatName, t.accuracySource == nil, let a = t.horizontalAccuracy {
                t.horizontalAccuracy = a * AccuracyModel.phoneTo95
                t.accuracySource = .phone
            }
            events.append(.tree(t))
        case .collection: events.append(.collection(try Self.collection(value)))
        case .other: break
        }
    }

    private mutating func scalar(_ v: JSONValue) throws {
        if depth == 0 {
            let (l, c) = v.position
            throw fail("expected an object with \"trees\" or an array of trees, found \(v.kind)", l, c)
        }
        if topIsArray && depth == 1 && partials.isEmpty {
            let (l, c) = v.position
            throw fail("expected a tree object, found \(v.kind)", l, c)
        }
        if !topIsArray && depth == 2 && partials.isEmpty {
            let (l, c) = v.position
            throw fail("expected \(topKey == "collections" ? "a collection" : "a tree") object, found \(v.kind)", l, c)
        }
        try add(v)
    }

    mutating func string(_ value: String, line: Int, column: Int) throws { if skipsScalar() { return }; try scalar(.string(value, line: line, column: column)) }
    mutating func number(_ value: Double, line: Int, column: Int) throws { if skipsScalar() { return }; try scalar(.number(value, line: line, column: column)) }
    mutating func bool(_ value: Bool, line: Int, column: Int) throws { if skipsScalar() { return }; try scalar(.bool(value, line: line, column: column)) }
    mutating func null(line: Int, column: Int) throws { if skipsScalar() { return }; try scalar(.null(line: line, column: column)) }

    // MARK: - Mapping

    private struct Fields {
        let members: JSONMembers
        let line: Int
        let column: Int
        /// What the object is ("the tree"), named with its line in an error.
        let what: String

        func fail(_ reason: String, at v: JSONValue? = nil) -> InterchangeError {
            let (l, c) = v?.position ?? (line, column)
            return .invalidContent(line: l, column: c, reason: reason)
        }

        func present(_ key: JSONKey) -> JSONValue? {
            guard let v = members[key] else { return nil }
            if case .null = v { return nil }
            return v
        }

        func required(_ key: JSONKey) throws -> JSONValue {
            guard let v = present(key) else { throw fail("\(what) at line \(line) is missing the required field \"\(key.name)\"") }
            return v
        }

        func string(_ key: JSONKey) throws -> String? {
            guard let v = present(key) else { return nil }
            guard case .string(let s, _, _) = v else { throw fail("\"\(key.name)\" must be a string, found \(v.kind)", at: v) }
            return s
        }

        func number(_ key: JSONKey) throws -> Double? {
            guard let v = present(key) else { return nil }
            guard case .number(let n, _, _) = v else { throw fail("\"\(key.name)\" must be a number, found \(v.kind)", at: v) }
            return n
        }

        func int(_ key: JSONKey) throws -> Int? {
            guard let n = try number(key) else { return nil }
            guard n == n.rounded(), abs(n) < 1e15 else { throw fail("\"\(key.name)\" must be a whole number", at: members[key]) }
            return Int(n)
        }

        func uuid(_ key: JSONKey) throws -> UUID? {
            guard let s = try string(key) else { return nil }
            guard let u = ByteParsing.uuid(s) else { throw fail("\"\(key.name)\" is not a UUID: \"\(s.prefix(60))\"", at: members[key]) }
            return u
        }

        /// A date, or nil for `""` (the Tree Tracker app's unknown date).
        static func date(_ v: JSONValue, key: String, fail: (String) -> InterchangeError) throws -> Date? {
            // A date a store cannot hold refuses the file here, so it is never stored as another value.
            switch v {
            case .string(let s, _, _):
                // By Unicode scalars, ASCII answered without a property lookup: by `Character`
                // this took 1.4% of a JSON import, three dates a tree.
                if ByteParsing.isBlank(s) { return nil }
                guard let d = TextCodec.parseISO8601(s) else { throw fail("\"\(key)\" is not an ISO 8601 date: \"\(s.prefix(60))\"") }
                if let problem = StorableDates.problem(d, text: s) { throw fail("\"\(key)\" \(problem)") }
                return d
            case .number(let n, _, _):
                // Foundation's default date encoding: seconds since 2001-01-01.
                let d = Date(timeIntervalSinceReferenceDate: n)
                if !StorableDates.contains(d) {
                    throw fail("\"\(key)\" \(n) seconds after 2001-01-01 is outside \(StorableDates.span)")
                }
                return d
            default:
                throw fail("\"\(key)\" must be an ISO 8601 date string, found \(v.kind)")
            }
        }

        func date(_ key: JSONKey) throws -> Date? {
            guard let v = present(key) else { return nil }
            return try Self.date(v, key: key.name) { fail($0, at: v) }
        }
    }

    /// The tree `value` describes; without `requiringID` (GeoJSON), a tree may come without an id.
    static func tree(_ value: JSONValue, requiringID: Bool = true) throws -> ImportedTree {
        guard case .object(let members, let line, let column) = value else {
            let (l, c) = value.position
            throw InterchangeError.invalidContent(line: l, column: c, reason: "expected a tree object, found \(value.kind)")
        }
        let f = Fields(members: members, line: line, column: column, what: "the tree")
        let idValue = requiringID ? try f.required(.id) : f.present(.id)
        // An id that is not a UUID (the app's older exports) is replaced by a new one, as the app does.
        var id: UUID?
        var unusableID: String?
        switch idValue {
        case .string(let text, _, _)?:
            if let u = ByteParsing.uuid(text) { id = u } else { unusableID = String(text.prefix(60)) }
        case .number(let n, _, _)?:
            unusableID = String(n)
        case nil: break
        case let other?:
            throw f.fail("\"id\" must be a string, found \(other.kind)", at: other)
        }
        let latValue = try f.required(.latitude)
        let lonValue = try f.required(.longitude)
        guard let lat = try f.number(.latitude), let lon = try f.number(.longitude) else { throw f.fail("bad coordinates") }
        if let p = CoordinateCheck.latitudeProblem(lat) { throw f.fail(p, at: latValue) }
        if let p = CoordinateCheck.longitudeProblem(lon) { throw f.fail(p, at: lonValue) }
        _ = try f.required(.species)
        let species = try f.string(.species) ?? ""
        var t = ImportedTree(id: id, coordinate: Coordinate(latitude: lat, longitude: lon), species: species, line: line)
        t.unusableID = unusableID
        // A negative one is kept here, for the builder to leave out and count.
        t.horizontalAccuracy = try f.number(.horizontalAccuracy)
        t.altitude = try f.number(.altitude)
        t.variety = try f.string(.variety).flatMap { $0.isEmpty ? nil : $0 }
        t.rootstock = try f.string(.rootstock).flatMap { $0.isEmpty ? nil : $0 }
        t.notes = try f.string(.notes).flatMap { $0.isEmpty ? nil : $0 }
        t.collectionID = try f.uuid(.collectionId)
        // "" (or white space) is no collection, as for the other optional texts.
        t.collectionName = ByteParsing.nonBlank(try f.string(.collection))
        t.createdAt = try f.date(.createdAt)
        t.updatedAt = try f.date(.updatedAt)
        if let s = try f.string(.accuracySource) {
            guard let src = AccuracySource(rawValue: s) else {
                throw f.fail("\"accuracySource\" \"\(s.prefix(40))\" is not one of \(AccuracySource.allCases.map(\.rawValue).joined(separator: ", "))",
                             at: members[.accuracySource])
            }
            t.accuracySource = src
        }
        t.ellipsoidHeight = try f.number(.ellipsoidHeight)
        t.photoCount = try f.int(.photoCount)
        var dates: [Date?] = []
        if let v = f.present(.photoDates) {
            guard case .array(let items, _, _) = v else { throw f.fail("\"photoDates\" must be an array, found \(v.kind)", at: v) }
            for item in items { dates.append(try Fields.date(item, key: "photoDates") { f.fail($0, at: item) }) }
        }
        // Our own exports repeat dates to the millisecond under "precise" (the app's keys carry whole seconds).
        if let v = f.present(.precise) {
            guard case .object(let pm, let pl, let pc) = v else { throw f.fail("\"precise\" must be an object, found \(v.kind)", at: v) }
            let pf = Fields(members: pm, line: pl, column: pc, what: "the precise dates")
            if let d = try pf.date(.createdAt) { t.createdAt = d }
            if let d = try pf.date(.updatedAt) { t.updatedAt = d }
            if let pv = pf.present(.photoDates) {
                guard case .array(let items, _, _) = pv else { throw pf.fail("\"photoDates\" must be an array, found \(pv.kind)", at: pv) }
                if items.count == dates.count {
                    dates = try items.map { item in try Fields.date(item, key: "photoDates") { pf.fail($0, at: item) } }
                }
            }
        }
        if let v = f.present(.treePhotos) {
            // The app's version 2: the tree's own photos, each with its date; its notes' photos are
            // in "noteEntries", and the flat "photos" is left out.
            t.photos = try appPhotos(v, in: f, what: "\"treePhotos\"")
        } else if let v = f.present(.photos) {
            guard case .array(let items, _, _) = v else { throw f.fail("\"photos\" must be an array, found \(v.kind)", at: v) }
            for (i, item) in items.enumerated() {
                guard case .string(let s, _, _) = item else { throw f.fail("each photo must be a base64 string, found \(item.kind)", at: item) }
                guard let data = Data(base64Encoded: s, options: .ignoreUnknownCharacters), !data.isEmpty else {
                    throw f.fail("photo \(i + 1) is not valid base64", at: item)
                }
                t.photos.append(ImportedPhoto(data: [UInt8](data), capturedAt: i < dates.count ? dates[i] : nil))
            }
        }
        let (events, photoPositions) = try careEvents(f)
        t.care = TreeCare(events: events, schedules: try schedules(f, target: .tree(placeholderID)))
        if !photoPositions.isEmpty && !t.photos.isEmpty {
            // Our own files: an event's "photos" are positions in the tree's "photos".
            var taken = Set<Int>()
            for (event, positions, at) in photoPositions {
                for p in positions {
                    guard p < t.photos.count else {
                        throw f.fail("care event photo \(p) is not one of the tree's \(t.photos.count) photos", at: at)
                    }
                    if taken.insert(p).inserted { t.eventPhotos.append((event: event, photo: t.photos[p])) }
                }
            }
            t.photos = t.photos.enumerated().filter { !taken.contains($0.offset) }.map(\.element)
        }
        if t.care.events.isEmpty, let v = f.present(.noteEntries) {
            // The app's version 2 keeps a tree's notes as dated entries (its "notes" joins their
            // texts with " | "): each becomes an inspection on its date, with its photos.
            try noteEntries(v, into: &t, in: f, treeKey: id?.lowercaseText ?? unusableID ?? "")
        }
        if let v = f.present(.capture) {
            guard case .object(let cm, let cl, let cc) = v else { throw f.fail("\"capture\" must be an object, found \(v.kind)", at: v) }
            let cf = Fields(members: cm, line: cl, column: cc, what: "the capture")
            t.capture.fixTime = try cf.date(.fixTime)
            if let m = try cf.string(.fixMode) {
                guard let mode = FixModeText.mode(m) else { throw cf.fail("\"fixMode\" \"\(m.prefix(20))\" is not none, 2d or 3d", at: cm[.fixMode]) }
                t.capture.fixMode = mode
            }
            func count(_ key: JSONKey) throws -> Int? {
                guard let n = try cf.int(key) else { return nil }
                guard n >= 0 else { throw cf.fail("\"\(key.name)\" must be 0 or more, found \(n)", at: cm[key]) }
                return n
            }
            t.capture.satellites = try count(.satellites)
            if let hdop = try cf.number(.hdop) {
                guard hdop >= 0 else { throw cf.fail("\"hdop\" must be 0 or more, found \(TextCodec.decimal(hdop) ?? "\(hdop)")", at: cm[.hdop]) }
                t.capture.hdop = hdop
            }
            t.capture.averagedEpochs = try count(.averagedEpochs)
            t.capture.locationSource = try cf.string(.locationSource)
            if let s = try cf.string(.fixStatus) {
                guard let status = FixStatus(name: s) else { throw cf.fail("\"fixStatus\" \(FixQualityText.unknownStatus(s))", at: cm[.fixStatus]) }
                t.capture.fixStatus = status
            }
            if let s = try cf.string(.verticalAccuracySource) {
                guard let source = AccuracySource(rawValue: s) else {
                    throw cf.fail("\"verticalAccuracySource\" \(FixQualityText.unknownSource(s))", at: cm[.verticalAccuracySource])
                }
                t.capture.verticalAccuracySource = source
            }
            func measure(_ key: JSONKey) throws -> Double? {
                guard let v = try cf.number(key) else { return nil }
                if let problem = FixQualityText.measureProblem(v) { throw cf.fail("\"\(key.name)\" \(problem)", at: cm[key]) }
                return v
            }
            t.capture.correctionAge = try measure(.correctionAge)
            t.capture.verticalAccuracy = try measure(.verticalAccuracy)
            t.capture.antennaHeight = try measure(.antennaHeight)
        }
        return t
    }

    static func collection(_ value: JSONValue) throws -> ImportedCollection {
        guard case .object(let members, let line, let column) = value else {
            let (l, c) = value.position
            throw InterchangeError.invalidContent(line: l, column: c, reason: "expected a collection object, found \(value.kind)")
        }
        let f = Fields(members: members, line: line, column: column, what: "the collection")
        let idValue = try f.required(.id)
        guard let id = try f.uuid(.id) else { throw f.fail("bad id", at: idValue) }
        _ = try f.required(.name)
        guard let name = TextTools.nonEmpty(try f.string(.name)) else { throw f.fail("the collection name is empty", at: members[.name]) }
        if TreeCollection.meansNone(name) {
            throw f.fail("the collection name \"\(name)\" is reserved: 'none' means no collection; rename it", at: members[.name])
        }
        if name.contains(where: \.isNewline) { throw f.fail("the collection name has a line break", at: members[.name]) }
        var created = try f.date(.createdAt), updated = try f.date(.updatedAt)
        if let v = f.present(.precise) {
            guard case .object(let pm, let pl, let pc) = v else { throw f.fail("\"precise\" must be an object, found \(v.kind)", at: v) }
            let pf = Fields(members: pm, line: pl, column: pc, what: "the precise dates")
            created = try pf.date(.createdAt) ?? created
            updated = try pf.date(.updatedAt) ?? updated
        }
        var collection = ImportedCollection(id: id, name: name, createdAt: created, updatedAt: updated, line: line)
        collection.schedules = try schedules(f, target: .collection(id))
        return collection
    }

    /// The id events and schedules carry until their tree is stored.
    static let placeholderID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    /// The app's version 2 photos: `[{"data":"base64…","captureDate":"…"}]`.
    private static func appPhotos(_ v: JSONValue, in f: Fields, what: String) throws -> [ImportedPhoto] {
        guard case .array(let items, _, _) = v else { throw f.fail("\(what) must be an array, found \(v.kind)", at: v) }
        return try items.enumerated().map { i, item in
            guard case .object(let m, let l, let c) = item else { throw f.fail("each photo of \(what) must be an object, found \(item.kind)", at: item) }
            let p = Fields(members: m, line: l, column: c, what: "the photo")
            let dataValue = try p.required(.data)
            guard let s = try p.string(.data), let data = Data(base64Encoded: s, options: .ignoreUnknownCharacters), !data.isEmpty else {
                throw p.fail("photo \(i + 1) of \(what) is not valid base64", at: dataValue)
            }
            return ImportedPhoto(data: [UInt8](data), capturedAt: try p.date(.captureDate))
        }
    }

    /// The app's `noteEntries` (`[{"text","createdAt","updatedAt","photos"}]`) as `inspect` events
    /// of the tree, dated by their creation. The entries carry no id; each event's id is derived from
    /// the tree, the date and the text, so importing the same file again adds nothing.
    private static func noteEntries(_ v: JSONValue, into t: inout ImportedTree, in f: Fields, treeKey: String) throws {
        guard case .array(let items, _, _) = v else { throw f.fail("\"noteEntries\" must be an array, found \(v.kind)", at: v) }
        for item in items {
            guard case .object(let m, let l, let c) = item else { throw f.fail("each note entry must be an object, found \(item.kind)", at: item) }
            let n = Fields(members: m, line: l, column: c, what: "the note")
            _ = try n.required(.text)
            let text = try n.string(.text) ?? ""
            guard let date = try n.date(.createdAt) ?? t.createdAt else {
                throw n.fail("the note has no \"createdAt\" and its tree none either; a note needs its date", at: item)
            }
            let id = UUID(derivedFrom: "tree-tracker-note\u{1F}\(treeKey)\u{1F}\(TextCodec.iso8601(date))\u{1F}\(text)")
            t.care.events.append(CareEvent(id: id, treeID: placeholderID, kind: .inspect, date: date, notes: text.isEmpty ? nil : text,
                                           createdAt: date, updatedAt: try n.date(.updatedAt) ?? date))
            if let pv = n.present(.photos) {
                for photo in try appPhotos(pv, in: n, what: "the note's \"photos\"") { t.eventPhotos.append((event: id, photo: photo)) }
            }
        }
        // The joined text is the entries' texts again; the events hold them now.
        if !items.isEmpty { t.notes = nil }
    }

    /// A tree's `care` array, and for each event the positions of its photos among the tree's.
    private static func careEvents(_ f: Fields) throws -> ([CareEvent], [(UUID, [Int], JSONValue)]) {
        guard let v = f.present(.care) else { return ([], []) }
        guard case .array(let items, _, _) = v else { throw f.fail("\"care\" must be an array, found \(v.kind)", at: v) }
        var positions: [(UUID, [Int], JSONValue)] = []
        let events = try items.map { item in
            guard case .object(let m, let l, let c) = item else { throw f.fail("each care event must be an object, found \(item.kind)", at: item) }
            let e = Fields(members: m, line: l, column: c, what: "the care event")
            let idValue = try e.required(.id)
            guard let id = try e.uuid(.id) else { throw e.fail("bad id", at: idValue) }
            let kindText = try e.string(.kind) ?? ""
            let kind: CareKind
            do throws(CareInputError) { kind = try CareKind(kindText) } catch { throw e.fail(error.message, at: m[.kind]) }
            _ = try e.required(.date)
            guard let date = try e.date(.date) else { throw e.fail("the care event's \"date\" is empty", at: m[.date]) }
            var health: HealthStatus?
            if let h = try e.string(.health) {
                do throws(CareInputError) { health = try HealthStatus(parsing: h) } catch { throw e.fail(error.message, at: m[.health]) }
            }
            let quantity = try e.number(.quantity).map { CareQuantity(value: $0, unit: try e.string(.unit)) }
            let created = try e.date(.createdAt) ?? date
            if let pv = e.present(.photos) {
                guard case .array(let list, _, _) = pv else { throw e.fail("the care event's \"photos\" must be an array, found \(pv.kind)", at: pv) }
                let numbers = try list.map { p -> Int in
                    guard case .number(let x, _, _) = p, x >= 0, x == x.rounded(), x < 1e9 else {
                        throw e.fail("the care event's \"photos\" are positions among the tree's photos (0, 1, …), found \(p.kind)", at: p)
                    }
                    return Int(x)
                }
                if !numbers.isEmpty { positions.append((id, numbers, pv)) }
            }
            return CareEvent(id: id, treeID: placeholderID, kind: kind, date: date, notes: try e.string(.notes), quantity: quantity,
                             health: health, who: try e.string(.who), createdAt: created, updatedAt: try e.date(.updatedAt) ?? created)
        }
        return (events, positions)
    }

    /// A tree's or collection's `schedules` array.
    private static func schedules(_ f: Fields, target: CareSchedule.Target) throws -> [CareSchedule] {
        guard let v = f.present(.schedules) else { return [] }
        guard case .array(let items, _, _) = v else { throw f.fail("\"schedules\" must be an array, found \(v.kind)", at: v) }
        return try items.map { item in
            guard case .object(let m, let l, let c) = item else { throw f.fail("each schedule must be an object, found \(item.kind)", at: item) }
            let s = Fields(members: m, line: l, column: c, what: "the schedule")
            let idValue = try s.required(.id)
            guard let id = try s.uuid(.id) else { throw s.fail("bad id", at: idValue) }
            do {
                let kind = try CareKind(try s.string(.kind) ?? "")
                _ = try s.required(.everyDays)
                let days = try s.int(.everyDays) ?? 0
                guard days > 0 else { throw s.fail("\"everyDays\" must be 1 or more, found \(days)", at: m[.everyDays]) }
                _ = try s.required(.from)
                let from = try Day(parsing: try s.string(.from) ?? "")
                let season = try s.string(.season).map { text throws(CareInputError) in try Season(parsing: text) }
                let created = try s.date(.createdAt) ?? Date(timeIntervalSince1970: 0)
                return CareSchedule(id: id, target: target, kind: kind, everyDays: days, from: from, season: season,
                                    createdAt: created, updatedAt: try s.date(.updatedAt) ?? created)
            } catch let error as CareInputError {
                throw s.fail(error.message)
            }
        }
    }
}
