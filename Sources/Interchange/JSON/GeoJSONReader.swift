import Foundation
import TreesKit

/// What the GeoJSON reader reports, in document order.
public enum GeoJSONEvent: Sendable, Equatable {
    case tree(ImportedTree)
    /// A feature that is not a tree (no geometry, a line or an area, no species), by the line it starts on.
    case skipped(line: Int, reason: String)
    /// The positions are in this CRS (a legacy `crs` member), carried to WGS 84 by `projection`.
    case projecting(crs: String)
}

/// Reads a GeoJSON FeatureCollection (RFC 7946, or a single Feature) as a stream: each Point
/// feature is a tree, its `properties` the tree's fields.
///
/// Properties are taken by name as a GeoPackage's columns are (`AttributeField`: species or spp or
/// name, variety or cultivar, notes or desc…, compared ignoring case, `_`, `-` and spaces; a
/// field's own name wins over its other names), or as `mapping` names them; our own export's
/// properties are collection JSON's tree members, so a GeoJSON export reads back whole. The id
/// is the `id` property, else the feature's `id` when it is a UUID. A third coordinate is the
/// altitude unless a property gives one.
///
/// A MultiPoint of one point is that point. Features without geometry, lines, areas and
/// multi-points of several points are not trees: each is reported as skipped, as is a point
/// without a species. A legacy `crs` member naming another CRS than WGS 84
/// (`urn:ogc:def:crs:EPSG::2056`, as GDAL writes) is handed to `projection`, which returns the
/// function carrying its positions to WGS 84. GDAL writes it before the features; a program that
/// writes it after them (members in another order) makes the reader throw `LateCRS` there, and the
/// file is read again from its start by a reader given that CRS (`init(…crs:)`). Positions out of
/// range for WGS 84 before any `crs` are therefore refused only at the end of the document, unless
/// a `crs` turns up. Anything else malformed refuses the file with line and column. Only one
/// feature is held in memory at a time.
public struct GeoJSONReader {
    private var tokenizer = JSONTokenizer()
    private var builder: GeoJSONBuilder

    /// A legacy `crs` member, other than WGS 84, after features it applies to: the reader has
    /// already handed them over as WGS 84 (or found one out of range). A reader given it
    /// (`init(…crs:)`) reads the same file whole.
    public struct LateCRS: Error, Sendable, Equatable {
        /// `EPSG:2056`.
        public let crs: String
        /// Where the `crs` member's value starts.
        public let line: Int, column: Int

        /// What to say when the file cannot be read a second time (standard input, a pipe).
        public var refusal: InterchangeError {
            .invalidContent(line: line, column: column,
                            reason: "\"crs\" (\(crs)) comes after the features, and a stream (standard input, a pipe) cannot be read twice: "
                                + "read it from a file, or put the crs first (or convert it to WGS 84: ogr2ogr -t_srs EPSG:4326)")
        }
    }

    /// `mapping` names the property a field is read from; `projection` gives the function that
    /// carries positions in a CRS (as `EPSG:2056`) to WGS 84, or throws when it cannot; `crs` is
    /// the `LateCRS` an earlier reading of the same file met, so that its first features are
    /// carried from that CRS too.
    public init(mapping: [AttributeField: String] = [:],
                projection: @escaping (String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> = GeoJSONReader.noProjection,
                crs: LateCRS? = nil) {
        builder = GeoJSONBuilder(mapping: mapping, projection: projection, late: crs)
    }

    /// The projection of a reader given none: positions in any CRS but WGS 84 refuse the file.
    public static func noProjection(_ crs: String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> {
        throw InterchangeError.invalidContent(line: 1, column: 1, reason: "positions in \(crs) cannot be read here")
    }

    public mutating func read(_ chunk: some Collection<UInt8>, _ onEvent: (GeoJSONEvent) throws -> Void) throws {
        do {
            try tokenizer.feed(chunk, to: &builder)
        } catch {
            throw builder.firstFailure(error)
        }
        try drain(onEvent)
    }

    /// Reads the end of the document; what is said of the whole file (negative accuracies, kept
    /// as none) goes to `warning` last.
    public mutating func finish(warning: (ReadWarning) throws -> Void = { _ in }, _ onEvent: (GeoJSONEvent) throws -> Void) throws {
        do {
            try tokenizer.finish(&builder)
            try builder.finishDocument()
        } catch {
            throw builder.firstFailure(error)
        }
        try drain(onEvent)
        if let w = builder.negativeAccuracies.warning { try warning(w) }
    }

    private mutating func drain(_ onEvent: (GeoJSONEvent) throws -> Void) throws {
        try handOver(&builder.events, onEvent)
    }

    /// Runs `reading` (a whole reading of one file, by readers given its argument as `crs`) once,
    /// and when that meets a `crs` after the features, once more given it: what import, inspect
    /// and the readings in memory all do. A reading given a late crs never meets another.
    public static func readingAgainAfterLateCRS<T>(_ reading: (LateCRS?) throws -> T) throws -> T {
        do {
            return try reading(nil)
        } catch let late as LateCRS {
            return try reading(late)
        }
    }

    /// Reads a whole document held in memory (twice when its `crs` comes after the features).
    public static func read(_ bytes: some Collection<UInt8>, mapping: [AttributeField: String] = [:],
                            projection: @escaping (String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> = GeoJSONReader.noProjection,
                            warning: (ReadWarning) throws -> Void = { _ in }, _ onEvent: (GeoJSONEvent) throws -> Void) throws {
        // The events of a reading that may yet meet a late crs are held back until its end.
        let (events, warnings) = try readingAgainAfterLateCRS { late in
            var events: [GeoJSONEvent] = []
            var warnings: [ReadWarning] = []
            var r = GeoJSONReader(mapping: mapping, projection: projection, crs: late)
            try r.read(bytes) { events.append($0) }
            try r.finish(warning: { warnings.append($0) }) { events.append($0) }
            return (events, warnings)
        }
        for e in events { try onEvent(e) }
        for w in warnings { try warning(w) }
    }

    /// True when `prefix` (the start of a JSON document) is GeoJSON: a member `"type"` in it is
    /// `"FeatureCollection"` or `"Feature"` (not necessarily the first: a file written with sorted
    /// keys starts with its features, whose geometries' types come first).
    static func looksLikeGeoJSON(_ prefix: [UInt8]) -> Bool {
        let text = String(decoding: prefix, as: UTF8.self)
        var rest = text[...]
        while let r = rest.range(of: "\"type\"") {
            rest = rest[r.upperBound...]
            let value = rest.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard value.first == ":" else { continue }
            let quoted = value.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if quoted.hasPrefix("\"FeatureCollection\"") || quoted.hasPrefix("\"Feature\"") { return true }
        }
        return false
    }
}

/// Builds one feature at a time from the tokenizer's events (see `CollectionJSONBuilder`, whose
/// values and tree mapping it shares).
struct GeoJSONBuilder: JSONHandler {
    var events: [GeoJSONEvent] = []
    var negativeAccuracies = NegativeAccuracies()
    /// Property name as the file spells it → the field it fills, from `--map`.
    private let mapped: [String: String]
    private let projection: (String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem>
    private var transform: ((Double, Double) -> Result<Coordinate, CSVPositionProblem>)?
    /// The late `crs` an earlier reading met, read from the document's start.
    private let late: GeoJSONReader.LateCRS?
    /// The CRS a `crs` member named (as `crsCode` gives it).
    private var namedCRS: String?
    /// A position out of range for WGS 84 before any `crs`: the file is refused for it at the end
    /// of the document, unless a `crs` after the features says the positions are in another CRS.
    /// Features after it are not read.
    private var outOfRange: InterchangeError?
    private var features = 0
    private var sawFeatures = false
    /// The `--map` names some feature had.
    private var mappedSeen = Set<String>()

    private typealias Partial = JSONContainer

    private var depth = 0
    private var topKey: String?
    /// The members of the document's object that are read (type, crs; a single Feature's own).
    private var top = JSONMembers()
    private var topLine = 1, topColumn = 1
    private var partials: [Partial] = []
    private var skipDepth = 0
    private var skipNext = false

    /// The document's members that are read; others are skipped.
    private static let topKeys: Set<String> = ["type", "features", "crs", "id", "geometry", "properties"]
    /// The members of a tree's `capture` in collection JSON, read from a feature's properties.
    private static let captureKeys: [JSONKey] = [.fixTime, .fixMode, .satellites, .hdop, .averagedEpochs, .locationSource,
                                                 .fixStatus, .correctionAge, .verticalAccuracy, .verticalAccuracySource, .antennaHeight]
    /// A property name, normalised, → the field it fills and its rank among the field's names.
    private static let aliases: [String: (field: String, rank: Int)] = {
        var table: [String: (field: String, rank: Int)] = [:]
        for field in AttributeField.allCases {
            for (rank, name) in field.defaultColumns.enumerated() where table[name] == nil {
                table[name] = (field.rawValue, rank)
            }
        }
        return table
    }()

    init(mapping: [AttributeField: String], projection: @escaping (String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem>,
         late: GeoJSONReader.LateCRS?) {
        var mapped: [String: String] = [:]
        for (field, name) in mapping { mapped[name] = field.rawValue }
        self.mapped = mapped
        self.projection = projection
        self.late = late
    }

    /// The error to report when reading stopped with `error`: a position out of range found
    /// earlier comes first (a late crs aside, which explains it).
    func firstFailure(_ error: any Error) -> any Error {
        if error is GeoJSONReader.LateCRS { return error }
        return outOfRange ?? error
    }

    private func fail(_ reason: String, _ line: Int, _ column: Int) -> InterchangeError {
        .invalidContent(line: line, column: column, reason: reason)
    }

    /// The key a property fills and the rank of its name, as `field(ofProperty:)` gives them, kept
    /// for the first `resolvedLimit` names met: a layer's features repeat a few names, and a name
    /// beside a field's own (`accuracyClass`, `Art`) was normalised again for every feature.
    private mutating func property(_ name: String) -> (key: JSONKey, rank: Int)? {
        // A field's own name with no `--map`: what `field(ofProperty:)` answers, found by its bytes
        // rather than by hashing the name (our own export's every property).
        if mapped.isEmpty, let k = JSONKey(name: name), Self.ownNames[k.rawValue] { return (k, 0) }
        if let known = resolved[name] { return known }
        let answer = field(ofProperty: name).flatMap { field, rank in JSONKey(name: field).map { (key: $0, rank: rank) } }
        if resolved.count < Self.resolvedLimit { resolved[name] = answer }
        return answer
    }

    private var resolved: [String: (key: JSONKey, rank: Int)?] = [:]
    private static let resolvedLimit = 256

    /// The field a property fills and the rank of its name (a `--map` name first, then a field's
    /// own name, then its other names in order), or nil for a property no field reads.
    private mutating func field(ofProperty name: String) -> (String, Int)? {
        if !mapped.isEmpty, let f = mapped[name] { mappedSeen.insert(name); return (f, -1) }
        // A field's own name (what our export writes) is found without normalising it.
        if let k = JSONKey(name: name), Self.ownNames[k.rawValue] {
            return mapped.values.contains(name) ? nil : (name, 0)
        }
        if let a = Self.aliases[AttributeField.normalised(name)] {
            // A name that --map gave to another field is that field's alone.
            if mapped.values.contains(a.field) { return nil }
            return a
        }
        return Self.ownMembers.contains(name) ? (name, 0) : nil
    }

    /// By `JSONKey`: whether the name is a field's own (`species`, `horizontalAccuracy`) or one of
    /// `ownMembers`.
    private static let ownNames: [Bool] = JSONKey.names.map { key in
        AttributeField(rawValue: key) != nil || ownMembers.contains(key)
    }

    /// The members our GeoJSON export writes besides the fields' (see `GeoJSONWriter`). Others a
    /// collection JSON tree has (base64 `photos`, the care log) are not read from properties: a GIS
    /// layer's `photos` holds file names.
    private static let ownMembers: Set<String> = ["precise", "capture", "photoCount", "photoDates", "collectionId"]

    // MARK: - Events

    private mutating func begin(isArray: Bool, line: Int, column: Int) throws {
        if skipDepth > 0 || skipNext {
            skipNext = false
            skipDepth += 1
            return
        }
        if depth == 0 {
            guard !isArray else { throw fail("expected a GeoJSON object ({\"type\": \"FeatureCollection\", \"features\": [...]}), found an array", line, column) }
            (topLine, topColumn) = (line, column)
            depth = 1
            if let late { try project(late.crs, late.line, late.column) }
            return
        }
        if partials.isEmpty && depth == 1 && topKey == "features" {
            guard isArray else { throw fail("\"features\" must be an array", line, column) }
            sawFeatures = true
            depth = 2
            return
        }
        let partial: Partial
        if partials.isEmpty && depth == 2 {
            guard !isArray else { throw fail("expected a Feature object, found an array", line, column) }
            partial = Partial(isArray: false, line: line, column: column, isFeature: true)
        } else if partials.isEmpty {
            // A member of the document (a single Feature's geometry or properties, the crs).
            partial = Partial(isArray: isArray, line: line, column: column, isProperties: !isArray && topKey == "properties")
        } else {
            let parent = partials[partials.count - 1]
            partial = Partial(isArray: isArray, line: line, column: column,
                              isProperties: !isArray && parent.isFeature && parent.pendingKey == .properties)
        }
        depth += 1
        partials.append(partial)
    }

    mutating func beginObject(line: Int, column: Int) throws { try begin(isArray: false, line: line, column: column) }
    mutating func beginArray(line: Int, column: Int) throws { try begin(isArray: true, line: line, column: column) }

    private mutating func end() throws {
        if skipDepth > 0 { skipDepth -= 1; return }
        depth -= 1
        guard let p = partials.popLast() else {
            if depth == 1 { topKey = nil }
            return
        }
        try add(p.finish())
    }

    mutating func endObject() throws { try end() }
    mutating func endArray() throws { try end() }

    mutating func key(_ key: String, line: Int, column: Int) throws {
        if skipDepth > 0 { return }
        if partials.isEmpty {
            if depth == 1 {
                topKey = key
                if !Self.topKeys.contains(key) { skipNext = true }
            }
            return
        }
        let p = partials[partials.count - 1]
        guard !p.isArray else { return }
        if p.isProperties {
            guard let (slot, rank) = property(key) else {
                p.pendingKey = nil
                skipNext = true
                return
            }
            if p.ranks.isEmpty { p.ranks = Array(repeating: .max, count: JSONKey.allCases.count) }
            guard rank <= p.ranks[slot.rawValue] else {
                p.pendingKey = nil
                skipNext = true
                return
            }
            p.ranks[slot.rawValue] = rank
            p.pendingKey = slot
        } else if let k = JSONKey(name: key) {
            p.pendingKey = k
        } else {
            p.pendingKey = nil
            skipNext = true
        }
    }

    private mutating func add(_ value: JSONValue) throws {
        if let p = partials.last {
            p.take(value)
            return
        }
        if depth == 1 {
            if let k = topKey {
                top[k] = value
                if k == "crs" { try crs(value) }
            }
            topKey = nil
        } else if depth == 2 {
            try feature(value)
        }
    }

    private mutating func scalar(_ v: JSONValue) throws {
        if skipDepth > 0 { return }
        if skipNext { skipNext = false; return }
        if depth == 0 {
            let (l, c) = v.position
            throw fail("expected a GeoJSON object ({\"type\": \"FeatureCollection\", \"features\": [...]}), found \(v.kind)", l, c)
        }
        if partials.isEmpty && depth == 1 && topKey == "features" {
            let (l, c) = v.position
            throw fail("\"features\" must be an array, found \(v.kind)", l, c)
        }
        if partials.isEmpty && depth == 2 {
            let (l, c) = v.position
            throw fail("expected a Feature object, found \(v.kind)", l, c)
        }
        try add(v)
    }

    mutating func string(_ value: String, line: Int, column: Int) throws { try scalar(.string(value, line: line, column: column)) }
    mutating func number(_ value: Double, line: Int, column: Int) throws { try scalar(.number(value, line: line, column: column)) }
    mutating func bool(_ value: Bool, line: Int, column: Int) throws { try scalar(.bool(value, line: line, column: column)) }
    mutating func null(line: Int, column: Int) throws { try scalar(.null(line: line, column: column)) }

    /// The end of the document: its type, the features array, a single Feature, the `--map` names.
    mutating func finishDocument() throws {
        if let outOfRange { throw outOfRange }
        guard case .string(let type, let l, let c)? = top[.type] else {
            throw fail("no \"type\"; a GeoJSON file is {\"type\": \"FeatureCollection\", \"features\": [...]}", topLine, topColumn)
        }
        switch type {
        case "FeatureCollection":
            if !sawFeatures { throw fail("a FeatureCollection without a \"features\" array", topLine, topColumn) }
        case "Feature":
            try feature(.object(top, line: topLine, column: topColumn))
            if let outOfRange { throw outOfRange }
        default:
            throw fail("\"type\" is \"\(type.prefix(40))\"; expected \"FeatureCollection\" or \"Feature\"", l, c)
        }
        for (name, field) in mapped.sorted(by: { $0.key < $1.key }) where !mappedSeen.contains(name) {
            throw fail("--map \(field)=\(name): no feature has a property \"\(name)\"", topLine, topColumn)
        }
    }

    // MARK: - Mapping

    /// A legacy `crs` member: WGS 84 (CRS84, EPSG:4326) as it is, any other through `projection`.
    private mutating func crs(_ value: JSONValue) throws {
        let (l, c) = value.position
        guard case .object(let m, _, _) = value, case .object(let p, _, _)? = m[.properties],
              case .string(let name, _, _)? = p[.name] else {
            if case .null = value { return }
            throw fail("\"crs\" must be {\"type\": \"name\", \"properties\": {\"name\": \"urn:ogc:def:crs:EPSG::…\"}}", l, c)
        }
        let code = Self.crsCode(name)
        func isWGS84(_ code: String) -> Bool { code == "EPSG:4326" || code == "OGC:CRS84" }
        // A reading given a late crs took it before the document's first member: this is that one
        // (or a second that must agree with it).
        if let earlier = namedCRS ?? late?.crs {
            guard code == earlier || (isWGS84(code) && isWGS84(earlier)) else {
                throw fail("a second \"crs\" (\(code)) names another system than the first (\(earlier))", l, c)
            }
            return
        }
        namedCRS = code
        if isWGS84(code) {
            if let outOfRange { throw outOfRange }
            return
        }
        if features > 0 { throw GeoJSONReader.LateCRS(crs: code, line: l, column: c) }
        try project(code, l, c)
    }

    /// Carries the positions from `code` to WGS 84 from here on (the `crs` at line `l`, column `c`).
    private mutating func project(_ code: String, _ l: Int, _ c: Int) throws {
        do {
            transform = try projection(code)
        } catch let e as InterchangeError {
            throw e
        } catch {
            throw fail("the positions are in \(code), which cannot be read: \(error)", l, c)
        }
        events.append(.projecting(crs: code))
    }

    /// `urn:ogc:def:crs:EPSG::2056` → `EPSG:2056`; `urn:ogc:def:crs:OGC:1.3:CRS84` → `OGC:CRS84`.
    static func crsCode(_ name: String) -> String {
        let parts = name.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count >= 7, parts[0].lowercased() == "urn", parts[2].lowercased() == "def", parts[3].lowercased() == "crs" {
            return "\(parts[4].uppercased()):\(parts[6])"
        }
        return name
    }

    private mutating func feature(_ value: JSONValue) throws {
        features += 1
        if outOfRange != nil { return }
        guard case .object(let m, let line, let column) = value else {
            let (l, c) = value.position
            throw fail("expected a Feature object, found \(value.kind)", l, c)
        }
        guard case .string(let type, let tl, let tc)? = m[.type] else {
            throw fail("the feature at line \(line) has no \"type\": \"Feature\"", line, column)
        }
        guard type == "Feature" else { throw fail("expected \"type\": \"Feature\", found \"\(type.prefix(40))\"", tl, tc) }
        guard let geometry = m[.geometry], !Self.isNull(geometry) else {
            events.append(.skipped(line: line, reason: "a feature without geometry is not a tree"))
            return
        }
        guard case .object(let g, let gl, let gc) = geometry else {
            let (l, c) = geometry.position
            throw fail("\"geometry\" must be an object, found \(geometry.kind)", l, c)
        }
        guard case .string(let geometryType, _, _)? = g[.type] else { throw fail("the geometry has no \"type\"", gl, gc) }
        guard geometryType == "Point" || geometryType == "MultiPoint" else {
            events.append(.skipped(line: line, reason: "a \(geometryType.prefix(40)) is not a tree (a Point is)"))
            return
        }
        guard case .array(var items, var al, var ac)? = g[.coordinates] else { throw fail("the \(geometryType) has no \"coordinates\" array", gl, gc) }
        if geometryType == "MultiPoint" {
            // A multipoint of one point (what a point layer becomes through some GIS conversions) is that point.
            guard items.count == 1 else {
                events.append(.skipped(line: line, reason: "a MultiPoint of \(items.count) points is not one tree (split it into points)"))
                return
            }
            guard case .array(let point, let l, let c) = items[0] else {
                let (l, c) = items[0].position
                throw fail("a MultiPoint's point must be an array, found \(items[0].kind)", l, c)
            }
            (items, al, ac) = (point, l, c)
        }
        var numbers: [Double] = []
        for item in items {
            guard case .number(let n, _, _) = item else {
                let (l, c) = item.position
                throw fail("a coordinate must be a number, found \(item.kind)", l, c)
            }
            numbers.append(n)
        }
        if numbers.isEmpty {
            events.append(.skipped(line: line, reason: "an empty Point is not a tree"))
            return
        }
        guard numbers.count >= 2 else { throw fail("a Point needs [longitude, latitude], found \(numbers.count) number", al, ac) }
        let coordinate: Coordinate
        if let transform {
            switch transform(numbers[0], numbers[1]) {
            case .success(let c): coordinate = c
            case .failure(let problem): throw fail(problem.reason, al, ac)
            }
        } else {
            if let p = CoordinateCheck.longitudeProblem(numbers[0]) ?? CoordinateCheck.latitudeProblem(numbers[1]) {
                // Easting and northing, perhaps, of a crs that comes after the features.
                guard namedCRS == nil else { throw fail(p, al, ac) }
                outOfRange = fail(p, al, ac)
                return
            }
            coordinate = Coordinate(latitude: numbers[1], longitude: numbers[0])
        }
        var properties = JSONMembers()
        var pl = line, pc = column
        switch m[.properties] {
        case .object(let p, let l, let c)?: (properties, pl, pc) = (p, l, c)
        case nil, .null?: break
        case let other?:
            let (l, c) = other.position
            throw fail("\"properties\" must be an object, found \(other.kind)", l, c)
        }
        properties[.latitude] = .number(coordinate.latitude, line: al, column: ac)
        properties[.longitude] = .number(coordinate.longitude, line: al, column: ac)
        if properties[.altitude] == nil, numbers.count >= 3 { properties[.altitude] = .number(numbers[2], line: al, column: ac) }
        // The feature's id is the tree's when it is a UUID and no property gives one (GIS programs
        // number their features 1, 2, 3).
        if properties[.id] == nil, case .string(let s, let l, let c)? = m[.id], ByteParsing.uuid(s) != nil {
            properties[.id] = .string(s, line: l, column: c)
        }
        if properties[.capture] == nil {
            var capture = JSONMembers()
            var any = false
            for key in Self.captureKeys {
                if let v = properties[key] { capture[key] = v; any = true }
            }
            if any { properties[.capture] = .object(capture, line: pl, column: pc) }
        }
        // No species, null or blank is a point that is not a tree; another kind of value refuses the file below.
        switch properties[.species] {
        case nil, .null?: events.append(.skipped(line: line, reason: FileFormat.geojson.noSpeciesReason)); return
        case .string(let s, _, _)? where ByteParsing.isBlank(s): events.append(.skipped(line: line, reason: FileFormat.geojson.noSpeciesReason)); return
        default: break
        }
        var t = try CollectionJSONBuilder.tree(.object(properties, line: line, column: column), requiringID: false)
        negativeAccuracies.leaveOut(from: &t)
        events.append(.tree(t))
    }

    private static func isNull(_ v: JSONValue) -> Bool {
        if case .null = v { return true }
        return false
    }
}
