import Foundation
import TreesKit

/// Reads GPX 1.0 and 1.1 as a stream: feed chunks of bytes, receive waypoints, route points and
/// track points one at a time, so memory stays flat however long the file is.
///
/// ```swift
/// var reader = GPXReader()
/// for chunk in chunks { try reader.read(chunk) { event in … } }
/// let summary = try reader.finish { event in … }
/// ```
/// Malformed XML and documents that are not GPX throw `InterchangeError`. A point or value that
/// cannot be read (a point without coordinates, latitude 91, an unreadable time) arrives as a
/// `.diagnostic` event saying what was left out, or, in a strict reader (an import's), refuses the
/// document with its line.
/// Other tools' extensions, and GPX 1.0's inline foreign elements, are skipped.
public struct GPXReader {
    private var tokenizer = XMLTokenizer()
    private var parser = GPXParser()

    public init() {}

    /// A reader that, when `strict`, throws `InterchangeError.unstorableValue` with the line of a
    /// point or value it cannot read, so nothing is stored as another value or left out unseen. A
    /// `<trees:id>` that is not a UUID stays a diagnostic: the tree gets a new id, as in JSON.
    public init(strict: Bool) {
        parser.strict = strict
    }

    /// Reads the next chunk; events found in it are passed to `onEvent` before this returns.
    public mutating func read(_ chunk: some Collection<UInt8>, _ onEvent: (consuming GPXEvent) throws -> Void) throws {
        try tokenizer.feed(chunk, to: &parser)
        try drain(onEvent)
    }

    /// Ends the document and returns its summary; throws when the document is incomplete.
    public mutating func finish(_ onEvent: (consuming GPXEvent) throws -> Void) throws -> GPXSummary {
        try tokenizer.finish(&parser)
        try drain(onEvent)
        guard let summary = parser.summary else {
            throw InterchangeError.notGPX(line: 1, column: 1, reason: "no <gpx> root element")
        }
        var s = summary
        s.extensionNamespaces = parser.foreignNamespaces.sorted()
        return s
    }

    private var spare: [GPXEvent] = []

    private mutating func drain(_ onEvent: (consuming GPXEvent) throws -> Void) throws {
        guard !parser.events.isEmpty else { return }
        var events = spare
        swap(&events, &parser.events)
        defer {
            events.removeAll(keepingCapacity: true)
            spare = events
        }
        // Each event is handed over whole: swapped out of the array for an event with nothing in
        // it, so the point it carries is neither copied (its texts retained) nor released twice.
        for i in events.indices {
            var event = GPXEvent.routeStart(index: 0)
            swap(&event, &events[i])
            try onEvent(event)
        }
    }

    /// Reads a whole document held in memory.
    public static func read(_ bytes: some Collection<UInt8>, _ onEvent: (GPXEvent) throws -> Void) throws -> GPXSummary {
        var reader = GPXReader()
        try reader.read(bytes, onEvent)
        return try reader.finish(onEvent)
    }
}

/// The XML handler behind `GPXReader`: a small state machine over the element stack.
struct GPXParser: XMLHandler {
    var events: [GPXEvent] = []
    var summary: GPXSummary?
    var foreignNamespaces: Set<String> = []
    /// Whether a point or value that cannot be read refuses the document (see `GPXReader.init(strict:)`).
    var strict = false

    private enum Frame: Equatable {
        case gpx, metadata, point, route, track, segment, pointExtensions
        /// Text of a field being captured.
        case field(Field)
        /// The notes of a care event (`<trees:care>`, in `care`) being captured.
        case care
    }

    private enum Field: Equatable {
        case ele, time, name, cmt, desc, src, sym, type, fix, sat, hdop, vdop, pdop, geoidheight
        case routeName, routeDesc, trackName, trackDesc
        case metaName, metaDesc, metaTime
        case trees(TreesField)
    }

    enum TreesField: String, CaseIterable {
        case id, species, variety, rootstock, notes, horizontalAccuracy, accuracySource, collection, collectionId
        case createdAt, updatedAt, ellipsoidHeight, fixTime, averagedEpochs, locationSource
        case fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight
    }

    private enum PointKind { case waypoint, routePoint, trackPoint }

    private var gpxNamespace = ""
    private var frames: [Frame] = []
    /// Depth inside an ignored subtree; 0 when not skipping.
    private var skipDepth = 0
    private var lastForeignNamespace = ""
    private var capturing = false
    private var text: [UInt8] = []
    /// The care event whose notes are being captured; nil when its attributes were unusable. Kept
    /// out of the frames: a frame is copied in and out of their stack, and an event is large.
    private var care: CareEvent?

    private var metadataSent = false
    private var point = GPXPoint(latitude: 0, longitude: 0)
    private var pointValid = false
    private var pointKind = PointKind.waypoint
    private var route = GPXRoute(index: -1, name: nil, description: nil, pointCount: 0)
    private var track = GPXTrack(index: -1, name: nil, description: nil, segments: [])

    private static func pointField(_ local: String) -> Field? {
        switch local {
        case "ele": .ele
        case "time": .time
        case "name": .name
        case "cmt": .cmt
        case "desc": .desc
        case "src": .src
        case "sym": .sym
        case "type": .type
        case "fix": .fix
        case "sat": .sat
        case "hdop": .hdop
        case "vdop": .vdop
        case "pdop": .pdop
        case "geoidheight": .geoidheight
        default: nil
        }
    }

    /// The field named `local` (compared by length first: cheaper than `TreesField(rawValue:)`).
    private static func treesField(_ local: String) -> TreesField? {
        switch local.utf8.count {
        case 2: local == "id" ? .id : nil
        case 5: local == "notes" ? .notes : nil
        case 7: local == "species" ? .species : local == "variety" ? .variety : local == "fixTime" ? .fixTime : nil
        case 9:
            local == "createdAt" ? .createdAt : local == "updatedAt" ? .updatedAt : local == "rootstock" ? .rootstock
                : local == "fixStatus" ? .fixStatus : nil
        case 10: local == "collection" ? .collection : nil
        case 12: local == "collectionId" ? .collectionId : nil
        case 13: local == "correctionAge" ? .correctionAge : local == "antennaHeight" ? .antennaHeight : nil
        case 14:
            local == "accuracySource" ? .accuracySource : local == "averagedEpochs" ? .averagedEpochs
                : local == "locationSource" ? .locationSource : nil
        case 15: local == "ellipsoidHeight" ? .ellipsoidHeight : nil
        case 16: local == "verticalAccuracy" ? .verticalAccuracy : nil
        case 18: local == "horizontalAccuracy" ? .horizontalAccuracy : nil
        case 22: local == "verticalAccuracySource" ? .verticalAccuracySource : nil
        default: nil
        }
    }

    /// The namespace string of our extension as the tokenizer hands it out (same storage, fast to compare).
    private var treesNamespace: String?

    private mutating func isTrees(_ namespace: String) -> Bool {
        if let t = treesNamespace { return namespace == t }
        guard namespace == GPXNamespace.trees else { return false }
        treesNamespace = namespace
        return true
    }

    mutating func startElement(_ name: XMLName, attributes: XMLAttributes, line: Int, column: Int) throws {
        if skipDepth > 0 {
            skipDepth += 1
            noteForeign(name.namespace)
            return
        }
        guard let frame = frames.last else {
            try root(name, attributes: attributes, line: line, column: column)
            return
        }
        let inGPX = name.namespace == gpxNamespace
        switch frame {
        case .gpx:
            guard inGPX else { skip(name); return }
            switch name.local {
            case "wpt": try startPoint(.waypoint, attributes: attributes, line: line)
            case "rte":
                sendMetadata()
                summary?.routes += 1
                route = GPXRoute(index: route.index + 1, name: nil, description: nil, pointCount: 0)
                events.append(.routeStart(index: route.index))
                frames.append(.route)
            case "trk":
                sendMetadata()
                summary?.tracks += 1
                track = GPXTrack(index: track.index + 1, name: nil, description: nil, segments: [])
                events.append(.trackStart(index: track.index))
                frames.append(.track)
            case "metadata": frames.append(.metadata)
            case "name" where !metadataSent: capture(.metaName)
            case "desc" where !metadataSent: capture(.metaDesc)
            case "time" where !metadataSent: capture(.metaTime)
            case "bounds": readBounds(attributes); skip(name)
            default: skip(name)
            }
        case .metadata:
            guard inGPX else { skip(name); return }
            switch name.local {
            case "name": capture(.metaName)
            case "desc": capture(.metaDesc)
            case "time": capture(.metaTime)
            case "bounds": readBounds(attributes); skip(name)
            default: skip(name)
            }
        case .point:
            if inGPX {
                if name.local == "extensions" {
                    frames.append(.pointExtensions)
                } else if let field = Self.pointField(name.local) {
                    capture(field)
                } else {
                    skip(name)
                }
            } else if isTrees(name.namespace), let field = Self.treesField(name.local) {
                capture(.trees(field))
            } else {
                skip(name)
            }
        case .pointExtensions:
            if isTrees(name.namespace), let field = Self.treesField(name.local) {
                capture(.trees(field))
            } else if isTrees(name.namespace), name.local == "care" {
                care = try careEvent(attributes, line: line)
                frames.append(.care)
                capturing = true
                text.removeAll(keepingCapacity: true)
            } else if isTrees(name.namespace), name.local == "schedule" {
                if let s = try schedule(attributes, line: line) { point.trees.schedules.append(s) }
                skip(name)
            } else {
                skip(name)
            }
        case .route:
            guard inGPX else { skip(name); return }
            switch name.local {
            case "rtept": try startPoint(.routePoint, attributes: attributes, line: line)
            case "name": capture(.routeName)
            case "desc": capture(.routeDesc)
            default: skip(name)
            }
        case .track:
            guard inGPX else { skip(name); return }
            switch name.local {
            case "trkseg":
                summary?.trackSegments += 1
                track.segments.append(0)
                events.append(.segmentStart(track: track.index, segment: track.segments.count - 1))
                frames.append(.segment)
            case "name": capture(.trackName)
            case "desc": capture(.trackDesc)
            default: skip(name)
            }
        case .segment:
            guard inGPX, name.local == "trkpt" else { skip(name); return }
            try startPoint(.trackPoint, attributes: attributes, line: line)
        case .field, .care:
            // Markup inside a simple field: keep the field's own text, ignore the child.
            skip(name)
        }
    }

    /// A `<trees:care>` element's attributes as an event; a value that cannot be read leaves the
    /// event out with a warning naming it, as other unreadable values of our extension are.
    private mutating func careEvent(_ a: XMLAttributes, line: Int) throws -> CareEvent? {
        func fail(_ reason: String) throws -> CareEvent? {
            try unreadable(line, "<trees:care> \(reason)", "the event is left out"); return nil
        }
        guard let idText = a.string("id"), let id = ByteParsing.uuid(idText) else { return try fail("has no UUID id") }
        guard let kindText = a.string("kind"), let kind = try? CareKind(kindText) else { return try fail("kind \"\(a.string("kind") ?? "")\" is not a kind of care") }
        guard let date = try attributeTime(a, "date", line: line) else { return try fail("has no ISO 8601 date") }
        var quantity: CareQuantity?
        if let q = a.string("quantity") {
            guard let v = ByteParsing.double(Array(q.utf8)[...]), v.isFinite else { return try fail("quantity \"\(q)\" is not a number") }
            quantity = CareQuantity(value: v, unit: a.string("unit"))
        }
        var health: HealthStatus?
        if let h = a.string("health") {
            guard let s = HealthStatus(rawValue: h) else { return try fail("health \"\(h)\" is not a status") }
            health = s
        }
        let created = try attributeTime(a, "createdAt", line: line) ?? date
        return CareEvent(id: id, treeID: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), kind: kind, date: date,
                         quantity: quantity, health: health, who: a.string("who"), createdAt: created,
                         updatedAt: try attributeTime(a, "updatedAt", line: line) ?? created)
    }

    /// A `<trees:schedule>` element's attributes as a schedule of the point's tree.
    private mutating func schedule(_ a: XMLAttributes, line: Int) throws -> CareSchedule? {
        func fail(_ reason: String) throws -> CareSchedule? {
            try unreadable(line, "<trees:schedule> \(reason)", "the schedule is left out"); return nil
        }
        guard let idText = a.string("id"), let id = ByteParsing.uuid(idText) else { return try fail("has no UUID id") }
        guard let kindText = a.string("kind"), let kind = try? CareKind(kindText) else { return try fail("kind \"\(a.string("kind") ?? "")\" is not a kind of care") }
        guard let days = a.string("everyDays").flatMap({ Int($0) }), days > 0 else { return try fail("everyDays \"\(a.string("everyDays") ?? "")\" is not a number of days") }
        guard let fromText = a.string("from"), let from = try? Day(parsing: fromText) else { return try fail("from \"\(a.string("from") ?? "")\" is not a YYYY-MM-DD date") }
        var season: Season?
        if let s = a.string("season") {
            guard let parsed = try? Season(parsing: s) else { return try fail("season \"\(s)\" is not MM-DD..MM-DD") }
            season = parsed
        }
        let created = try attributeTime(a, "createdAt", line: line) ?? Date(timeIntervalSince1970: 0)
        return CareSchedule(id: id, target: .tree(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), kind: kind, everyDays: days,
                            from: from, season: season, createdAt: created, updatedAt: try attributeTime(a, "updatedAt", line: line) ?? created)
    }

    /// An ISO 8601 time attribute; a time a store cannot hold refuses the file.
    private func attributeTime(_ a: XMLAttributes, _ local: String, line: Int) throws -> Date? {
        guard let s = a.string(local), let d = TextCodec.parseISO8601(s) else { return nil }
        if let problem = StorableDates.problem(d, text: s) {
            throw InterchangeError.unstorableValue(line: line, reason: "<trees:care> \(local) \(problem)")
        }
        return d
    }

    private mutating func root(_ name: XMLName, attributes: XMLAttributes, line: Int, column: Int) throws {
        guard name.local == "gpx" else {
            throw InterchangeError.notGPX(line: line, column: column, reason: "the root element is <\(name.local)>, not <gpx>")
        }
        let version: GPXVersion
        switch name.namespace {
        case GPXNamespace.gpx10: version = .v1_0
        case GPXNamespace.gpx11: version = .v1_1
        case "": version = .noNamespace
        default:
            throw InterchangeError.notGPX(
                line: line, column: column,
                reason: "the <gpx> element is in namespace \(name.namespace), not GPX 1.0 or 1.1")
        }
        gpxNamespace = name.namespace
        summary = GPXSummary(metadata: GPXMetadata(
            version: version, versionAttribute: attributes.string("version"), creator: attributes.string("creator")))
        frames.append(.gpx)
    }

    private mutating func noteForeign(_ namespace: String) {
        if namespace != lastForeignNamespace && namespace != gpxNamespace && !namespace.isEmpty {
            lastForeignNamespace = namespace
            foreignNamespaces.insert(namespace)
        }
    }

    private mutating func skip(_ name: XMLName) {
        skipDepth = 1
        noteForeign(name.namespace)
    }

    private mutating func capture(_ field: Field) {
        frames.append(.field(field))
        capturing = true
        text.removeAll(keepingCapacity: true)
    }

    private mutating func readBounds(_ attributes: XMLAttributes) {
        guard let minLat = attributes.value("minlat").flatMap(ByteParsing.double),
              let minLon = attributes.value("minlon").flatMap(ByteParsing.double),
              let maxLat = attributes.value("maxlat").flatMap(ByteParsing.double),
              let maxLon = attributes.value("maxlon").flatMap(ByteParsing.double) else { return }
        summary?.metadata.bounds = GeoBounds(minLatitude: minLat, minLongitude: minLon, maxLatitude: maxLat, maxLongitude: maxLon)
    }

    private mutating func sendMetadata() {
        guard !metadataSent, let s = summary else { return }
        metadataSent = true
        events.append(.metadata(s.metadata))
    }

    private mutating func diagnose(_ line: Int, _ message: String, _ kind: Diagnostic.Kind = .valueIgnored) {
        summary?.diagnosticCount += 1
        events.append(.diagnostic(Diagnostic(line: line, message: message, kind: kind)))
    }

    /// A point or value that cannot be read: refuses the document when strict, else a diagnostic
    /// ending in what was done about it (`outcome`).
    private mutating func unreadable(_ line: Int, _ problem: String, _ outcome: String, _ kind: Diagnostic.Kind = .valueIgnored) throws {
        if strict { throw InterchangeError.unstorableValue(line: line, reason: problem) }
        diagnose(line, "\(problem); \(outcome)", kind)
    }

    private mutating func startPoint(_ kind: PointKind, attributes: XMLAttributes, line: Int) throws {
        sendMetadata()
        pointKind = kind
        frames.append(.point)
        point = GPXPoint(latitude: 0, longitude: 0, line: line)
        let element = kind == .waypoint ? "wpt" : kind == .routePoint ? "rtept" : "trkpt"
        switch kind {
        case .waypoint: summary?.waypoints += 1
        case .routePoint: summary?.routePoints += 1; route.pointCount += 1
        case .trackPoint:
            summary?.trackPoints += 1
            if !track.segments.isEmpty { track.segments[track.segments.count - 1] += 1 }
        }
        pointValid = false
        guard let latBytes = attributes.value("lat"), let lonBytes = attributes.value("lon") else {
            let missing = attributes.value("lat") == nil ? "lat" : "lon"
            try unreadable(line, "<\(element)> has no \(missing) attribute", "point skipped", .pointSkipped)
            return
        }
        guard let lat = ByteParsing.double(latBytes) else {
            try unreadable(line, "<\(element)> latitude \"\(String(decoding: latBytes, as: UTF8.self))\" is not a number", "point skipped", .pointSkipped)
            return
        }
        guard let lon = ByteParsing.double(lonBytes) else {
            try unreadable(line, "<\(element)> longitude \"\(String(decoding: lonBytes, as: UTF8.self))\" is not a number", "point skipped", .pointSkipped)
            return
        }
        if let problem = CoordinateCheck.latitudeProblem(lat) ?? CoordinateCheck.longitudeProblem(lon) {
            try unreadable(line, "<\(element)> \(problem)", "point skipped", .pointSkipped)
            return
        }
        point.latitude = lat
        point.longitude = lon
        pointValid = true
    }

    private mutating func endPoint() {
        guard pointValid else { return }
        let c = point.coordinate
        if summary?.bounds == nil { summary?.bounds = GeoBounds(c) } else { summary?.bounds?.include(c) }
        if let t = point.time {
            if summary?.earliestTime.map({ t < $0 }) ?? true { summary?.earliestTime = t }
            if summary?.latestTime.map({ t > $0 }) ?? true { summary?.latestTime = t }
        }
        // Moved out, not copied: the next point starts afresh anyway.
        var done = GPXPoint(latitude: 0, longitude: 0)
        swap(&done, &point)
        switch pointKind {
        case .waypoint: events.append(.waypoint(done))
        case .routePoint: events.append(.routePoint(done, route: route.index))
        case .trackPoint:
            events.append(.trackPoint(done, track: track.index, segment: max(track.segments.count - 1, 0)))
        }
    }

    mutating func endElement(_ name: XMLName, line: Int) throws {
        if skipDepth > 0 { skipDepth -= 1; return }
        guard let frame = frames.popLast() else { return }
        switch frame {
        case .gpx: sendMetadata()
        case .metadata, .pointExtensions: break
        case .point: endPoint()
        case .route: events.append(.routeEnd(route))
        case .track: events.append(.trackEnd(track))
        case .segment:
            events.append(.segmentEnd(track: track.index, segment: track.segments.count - 1, points: track.segments.last ?? 0))
        case .field(let field):
            capturing = false
            try setField(field, line: line)
        case .care:
            capturing = false
            if var event = care {
                care = nil
                event.notes = text.isEmpty ? nil : string
                point.trees.care.append(event)
            }
        }
    }

    mutating func characters(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if capturing && skipDepth == 0 { text.append(contentsOf: bytes) }
    }

    private var string: String { String(decoding: text, as: UTF8.self) }

    private mutating func number(_ what: @autoclosure () -> String, line: Int) throws -> Double? {
        guard let v = ByteParsing.double(text[...]) else {
            if !ByteParsing.trimmed(text[...]).isEmpty { try unreadable(line, "\(what()) \"\(string)\" is not a number", "ignored") }
            return nil
        }
        return v
    }

    private mutating func integer(_ what: @autoclosure () -> String, line: Int) throws -> Int? {
        guard let v = ByteParsing.int(text[...]) else {
            if !ByteParsing.trimmed(text[...]).isEmpty { try unreadable(line, "\(what()) \"\(string)\" is not a whole number", "ignored") }
            return nil
        }
        return v
    }

    /// A time; one that cannot be read is ignored with a diagnostic, one outside what a store can
    /// hold (years 0000 to 9999) refuses the file, so it is never stored as another value.
    private mutating func time(_ what: @autoclosure () -> String, line: Int) throws -> Date? {
        guard let v = TextCodec.parseISO8601(text[...]) else {
            if !ByteParsing.trimmed(text[...]).isEmpty { try unreadable(line, "\(what()) \"\(string)\" is not an ISO 8601 time", "ignored") }
            return nil
        }
        if let problem = StorableDates.problem(v, text: trimmedString) {
            throw InterchangeError.unstorableValue(line: line, reason: "\(what()) \(problem)")
        }
        return v
    }

    private mutating func uuid(_ what: @autoclosure () -> String, line: Int) -> UUID? {
        guard let v = ByteParsing.uuid(text[...]) else {
            if let s = trimmedString { diagnose(line, "\(what()) \"\(s)\" is not a UUID; ignored") }
            return nil
        }
        return v
    }

    private var trimmedString: String? {
        let t = ByteParsing.trimmed(text[...])
        return t.isEmpty ? nil : String(decoding: t, as: UTF8.self)
    }

    private mutating func setField(_ field: Field, line: Int) throws {
        switch field {
        case .ele: point.elevation = try number("<ele>", line: line)
        case .time: point.time = try time("<time>", line: line)
        case .name: point.name = string
        case .cmt: point.comment = string
        case .desc: point.description = string
        case .src: point.source = string
        case .sym: point.symbol = string
        case .type: point.type = string
        case .fix: point.fix = trimmedString
        case .sat: point.satellites = try integer("<sat>", line: line)
        case .hdop: point.hdop = try number("<hdop>", line: line)
        case .vdop: point.vdop = try number("<vdop>", line: line)
        case .pdop: point.pdop = try number("<pdop>", line: line)
        case .geoidheight: point.geoidHeight = try number("<geoidheight>", line: line)
        case .routeName: route.name = string
        case .routeDesc: route.description = string
        case .trackName: track.name = string
        case .trackDesc: track.description = string
        case .metaName: let s = string; summary?.metadata.name = s
        case .metaDesc: let s = string; summary?.metadata.description = s
        case .metaTime: let t = try time("metadata <time>", line: line); summary?.metadata.time = t
        case .trees(let f): try setTreesField(f, line: line)
        }
    }

    private mutating func setTreesField(_ field: TreesField, line: Int) throws {
        // Built only for a diagnostic: most fields never need it.
        func what() -> String { "<trees:\(field.rawValue)>" }
        switch field {
        case .id: point.trees.id = uuid(what(), line: line)
        case .species: point.trees.species = string
        case .variety: point.trees.variety = string
        case .rootstock: point.trees.rootstock = string
        case .notes: point.trees.notes = string
        case .horizontalAccuracy: point.trees.horizontalAccuracy = try number(what(), line: line)
        case .accuracySource:
            let s = trimmedString
            point.trees.accuracySource = s.flatMap(AccuracySource.init(rawValue:))
            if let s, point.trees.accuracySource == nil { try unreadable(line, "\(what()) \"\(s)\" is not a known accuracy source", "ignored") }
        case .collection: point.trees.collection = string
        case .collectionId: point.trees.collectionID = uuid(what(), line: line)
        case .createdAt: point.trees.createdAt = try time(what(), line: line)
        case .updatedAt: point.trees.updatedAt = try time(what(), line: line)
        case .ellipsoidHeight: point.trees.ellipsoidHeight = try number(what(), line: line)
        case .fixTime: point.trees.fixTime = try time(what(), line: line)
        case .averagedEpochs: point.trees.averagedEpochs = try integer(what(), line: line)
        case .locationSource: point.trees.locationSource = string
        // A fix quality that cannot be read refuses the file: a tree is never stored as better
        // (or worse) surveyed than it was.
        case .fixStatus:
            guard let s = trimmedString else { point.trees.fixStatus = nil; return }
            guard let status = FixStatus(name: s) else {
                throw InterchangeError.unstorableValue(line: line, reason: "\(what()) \(FixQualityText.unknownStatus(s))")
            }
            point.trees.fixStatus = status
        case .correctionAge: point.trees.correctionAge = try measure(what(), line: line)
        case .verticalAccuracy: point.trees.verticalAccuracy = try measure(what(), line: line)
        case .verticalAccuracySource:
            guard let s = trimmedString else { point.trees.verticalAccuracySource = nil; return }
            guard let source = AccuracySource(rawValue: s) else {
                throw InterchangeError.unstorableValue(line: line, reason: "\(what()) \(FixQualityText.unknownSource(s))")
            }
            point.trees.verticalAccuracySource = source
        case .antennaHeight: point.trees.antennaHeight = try measure(what(), line: line)
        }
    }

    /// A number of the fix quality: seconds or metres, 0 or more; anything else refuses the file.
    private mutating func measure(_ what: String, line: Int) throws -> Double? {
        guard let s = trimmedString else { return nil }
        guard let v = ByteParsing.double(text[...]) else {
            throw InterchangeError.unstorableValue(line: line, reason: "\(what) \"\(s.prefix(40))\" is not a number")
        }
        if let problem = FixQualityText.measureProblem(v) { throw InterchangeError.unstorableValue(line: line, reason: "\(what) \(problem)") }
        return v
    }
}
