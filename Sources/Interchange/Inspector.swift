import Foundation
import TreesKit

/// The file formats `trees` reads.
public enum FileFormat: String, Sendable, CaseIterable, Codable {
    case gpx, json, csv, nmea, gpkg, geojson

    /// Tells the format from the first bytes of a file, falling back to its name's extension.
    ///
    /// Content wins: `<…<gpx` is GPX, `{` or `[` is JSON, `$`/`!` sentences are NMEA; otherwise
    /// `.gpx`, `.json`, `.csv`, `.nmea`/`.log`/`.txt` by name; otherwise text with commas is CSV.
    public static func detect(prefix: some Collection<UInt8>, fileName: String?) -> FileFormat? {
        var bytes = Array(prefix.prefix(4096))
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return .gpx
        }
        let ext = fileName.map { URL(fileURLWithPath: $0).pathExtension.lowercased() } ?? ""
        // An SQLite database: a GeoPackage, whatever its name.
        if bytes.starts(with: Array("SQLite format 3".utf8) + [0]) { return .gpkg }
        let first = bytes.first { !ByteParsing.isSpace($0) }
        switch first {
        case UInt8(ascii: "<"):
            let text = String(decoding: bytes, as: UTF8.self)
            if text.contains("<gpx") || ext == "gpx" { return .gpx }
            return ext == "gpx" ? .gpx : nil
        case UInt8(ascii: "{"):
            return ext == "geojson" || GeoJSONReader.looksLikeGeoJSON(bytes) ? .geojson : .json
        case UInt8(ascii: "["):
            return .json
        case UInt8(ascii: "$"), UInt8(ascii: "!"):
            return .nmea
        default: break
        }
        switch ext {
        case "gpx": return .gpx
        case "json": return .json
        case "geojson": return .geojson
        case "csv", "tsv": return .csv
        case "nmea", "log", "txt": return .nmea
        case "gpkg": return .gpkg
        default: break
        }
        if let newline = bytes.firstIndex(of: 0x0A) ?? (bytes.isEmpty ? nil : bytes.count),
           bytes[..<newline].contains(UInt8(ascii: ",")) {
            return .csv
        }
        return nil
    }

    /// The format named by a file extension alone.
    public static func fromExtension(_ fileName: String) -> FileFormat? {
        switch URL(fileURLWithPath: fileName).pathExtension.lowercased() {
        case "gpx": .gpx
        case "json": .json
        case "geojson": .geojson
        case "csv": .csv
        case "nmea", "log": .nmea
        case "gpkg": .gpkg
        default: nil
        }
    }
}

/// A summary of an NMEA 0183 log: sentence counts and the extent of its positions.
public struct NMEASummary: Sendable, Equatable {
    public var lines = 0
    public var sentences = 0
    /// Sentences by type (`GGA`, `RMC`, …; proprietary ones by their full address, e.g. `PGRME`).
    public var sentenceTypes: [String: Int] = [:]
    public var talkers: [String: Int] = [:]
    public var badChecksums = 0
    public var otherLines = 0
    /// Positions found in GGA, RMC and GLL sentences.
    public var positions = 0
}

/// What `trees inspect` reports about a file.
public struct InspectionReport: Sendable, Equatable {
    public var format: FileFormat
    /// GPX: the full summary (counts, bounds, times, creator, namespaces).
    public var gpx: GPXSummary?
    public var nmea: NMEASummary?
    /// JSON and CSV: trees and collections found.
    public var trees = 0
    public var collections = 0
    /// Bounds of all positions.
    public var bounds: GeoBounds?
    public var earliestTime: Date?
    public var latestTime: Date?
    /// JSON: the `format` key, or `tree-tracker` for the app's files; GeoJSON: the CRS of a legacy
    /// `crs` member other than WGS 84.
    public var variant: String?
    /// GeoJSON: features that are not trees (no geometry, not a Point, no species).
    public var skippedFeatures = 0
    /// The first problems found (at most 20).
    public var diagnostics: [Diagnostic] = []

    public init(format: FileFormat) { self.format = format }

    mutating func include(_ c: Coordinate, time: Date?) {
        if bounds == nil { bounds = GeoBounds(c) } else { bounds?.include(c) }
        if let t = time {
            if earliestTime.map({ t < $0 }) ?? true { earliestTime = t }
            if latestTime.map({ t > $0 }) ?? true { latestTime = t }
        }
    }
}

/// Inspects a file fed in chunks and summarises it without keeping its content.
public struct Inspector {
    private let format: FileFormat
    private var report: InspectionReport
    private var gpx = GPXReader()
    private var json = CollectionJSONReader()
    private var csv = CSVTreeReader()
    private var nmea = NMEAScanner()
    private var geojson: GeoJSONReader

    /// `projection`: for a GeoJSON whose legacy `crs` is not WGS 84 (see `GeoJSONReader`);
    /// `lateCRS`: the one after the features that an earlier inspection of the file met.
    public init(format: FileFormat,
                projection: @escaping (String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> = GeoJSONReader.noProjection,
                lateCRS: GeoJSONReader.LateCRS? = nil) {
        self.format = format
        self.report = InspectionReport(format: format)
        self.geojson = GeoJSONReader(projection: projection, crs: lateCRS)
    }

    /// A CSV's positions in another CRS: see `CSVTreeReader.transform`.
    public var csvTransform: ((_ x: Double, _ y: Double) -> Result<Coordinate, CSVPositionProblem>)? {
        get { csv.transform }
        set { csv.transform = newValue }
    }

    public mutating func feed(_ chunk: some Collection<UInt8>) throws {
        var r = report
        defer { report = r }
        switch format {
        case .gpx: try gpx.read(chunk) { e in Self.note(e, &r) }
        case .json: try json.read(chunk) { e in Self.handle(e, &r) }
        case .csv: try csv.read(chunk) { t in r.trees += 1; r.include(t.coordinate, time: t.createdAt) }
        case .geojson: try geojson.read(chunk) { e in Self.handle(e, &r) }
        case .nmea: nmea.feed(chunk)
        case .gpkg: throw Self.database
        }
    }

    /// A GeoPackage is a database, read through its file (GIS's `GeoPackageReader`), not as bytes.
    private static let database = InterchangeError.unknownFormat("a GeoPackage is a database file: it is read from a file, not as a stream")

    private static func note(_ e: GPXEvent, _ report: inout InspectionReport) {
        if case .diagnostic(let d) = e, report.diagnostics.count < 20 { report.diagnostics.append(d) }
    }

    private static func handle(_ e: CollectionJSONEvent, _ report: inout InspectionReport) {
        switch e {
        case .collection: report.collections += 1
        case .tree(let t):
            report.trees += 1
            report.include(t.coordinate, time: t.createdAt)
        }
    }

    private static func handle(_ e: GeoJSONEvent, _ report: inout InspectionReport) {
        switch e {
        case .tree(let t):
            report.trees += 1
            report.include(t.coordinate, time: t.createdAt)
        case .skipped(let line, let reason):
            report.skippedFeatures += 1
            if report.diagnostics.count < 20 { report.diagnostics.append(Diagnostic(line: line, message: reason, kind: .pointSkipped)) }
        case .projecting(let crs): report.variant = crs
        }
    }

    public mutating func finish() throws -> InspectionReport {
        var r = report
        defer { report = r }
        switch format {
        case .gpx:
            let s = try gpx.finish { e in Self.note(e, &r) }
            r.gpx = s
            r.bounds = s.bounds
            r.earliestTime = s.earliestTime
            r.latestTime = s.latestTime
        case .json:
            try json.finish { e in Self.handle(e, &r) }
            r.variant = json.format ?? "tree-tracker"
        case .csv:
            try csv.finish { t in r.trees += 1; r.include(t.coordinate, time: t.createdAt) }
        case .geojson:
            try geojson.finish { e in Self.handle(e, &r) }
        case .nmea:
            let s = nmea.finish()
            r.nmea = s.summary
            r.bounds = s.bounds
        case .gpkg: throw Self.database
        }
        return r
    }

    /// Inspects bytes held in memory.
    public static func inspect(_ bytes: some Collection<UInt8>, fileName: String? = nil, format: FileFormat? = nil) throws -> InspectionReport {
        guard let f = format ?? FileFormat.detect(prefix: bytes, fileName: fileName) else {
            throw InterchangeError.unknownFormat("cannot tell the format of \(fileName ?? "the input"); use --format")
        }
        return try GeoJSONReader.readingAgainAfterLateCRS { late in
            var i = Inspector(format: f, lateCRS: late)
            try i.feed(bytes)
            return try i.finish()
        }
    }
}

/// Counts NMEA sentences line by line; reads positions from GGA, RMC and GLL.
struct NMEAScanner {
    private var summary = NMEASummary()
    private var bounds: GeoBounds?
    private var line: [UInt8] = []

    mutating func feed(_ chunk: some Collection<UInt8>) {
        for b in chunk {
            if b == 0x0A || b == 0x0D {
                if !line.isEmpty { take() }
                line.removeAll(keepingCapacity: true)
            } else if line.count < 4096 {
                line.append(b)
            }
        }
    }

    mutating func finish() -> (summary: NMEASummary, bounds: GeoBounds?) {
        if !line.isEmpty { take() }
        line.removeAll()
        return (summary, bounds)
    }

    private mutating func take() {
        summary.lines += 1
        guard let start = line.firstIndex(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: "!") }) else {
            summary.otherLines += 1
            return
        }
        var body = line[(start + 1)...]
        if let star = body.lastIndex(of: UInt8(ascii: "*")) {
            let given = body[(star + 1)...].prefix(2)
            var sum: UInt8 = 0
            for b in body[..<star] { sum ^= b }
            let hex = String(format: "%02X", sum)
            if String(decoding: given, as: UTF8.self).uppercased() != hex {
                summary.badChecksums += 1
                return
            }
            body = body[..<star]
        }
        let fields = body.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard let address = fields.first, address.count >= 3 else { summary.otherLines += 1; return }
        summary.sentences += 1
        let type: String
        if address.hasPrefix("P") || address.count != 5 {
            type = address
        } else {
            type = String(address.suffix(3))
            summary.talkers[String(address.prefix(2)), default: 0] += 1
        }
        summary.sentenceTypes[type, default: 0] += 1
        var lat: String?, ns: String?, lon: String?, ew: String?
        switch type {
        case "GGA" where fields.count > 6 && fields[6] != "0": (lat, ns, lon, ew) = (fields[2], fields[3], fields[4], fields[5])
        case "RMC" where fields.count > 6 && fields[2] == "A": (lat, ns, lon, ew) = (fields[3], fields[4], fields[5], fields[6])
        case "GLL" where fields.count > 6 && fields[6] == "A": (lat, ns, lon, ew) = (fields[1], fields[2], fields[3], fields[4])
        default: break
        }
        if let lat, let ns, let lon, let ew, let la = Self.degrees(lat, ns), let lo = Self.degrees(lon, ew) {
            let c = Coordinate(latitude: la, longitude: lo)
            guard c.isValid else { return }
            summary.positions += 1
            if bounds == nil { bounds = GeoBounds(c) } else { bounds?.include(c) }
        }
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` with a hemisphere letter, in signed degrees.
    static func degrees(_ value: String, _ hemisphere: String) -> Double? {
        guard let v = Double(value), !value.isEmpty else { return nil }
        let d = (v / 100).rounded(.towardZero)
        let deg = d + (v - d * 100) / 60
        switch hemisphere {
        case "N", "E": return deg
        case "S", "W": return -deg
        default: return nil
        }
    }
}
