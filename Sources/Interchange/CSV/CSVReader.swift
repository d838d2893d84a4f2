import Foundation
import TreesKit

/// Reads RFC 4180 CSV as a stream of records, fed in chunks of any size.
///
/// Quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF or LF.
/// Each record comes with the line it starts on.
struct CSVRecordReader {
    /// Longest record accepted, in bytes (1 MiB): far beyond any tree's row, and short enough that a
    /// file with one endless line (or an unterminated quote) is refused without reading it all into
    /// memory.
    static let maximumRecordBytes = 1 << 20

    private var recordBytes = 0
    private var field: [UInt8] = []
    private var record: [String] = []
    private var inQuotes = false
    private var quoteJustClosed = false
    private var fieldStarted = false
    private var pendingCR = false
    private var line = 1
    private var recordLine = 1
    private var bomChecked = false
    private var head: [UInt8] = []

    mutating func feed(_ chunk: some Collection<UInt8>, _ onRecord: ([String], Int) throws -> Void) throws {
        if !bomChecked {
            head.append(contentsOf: chunk)
            guard head.count >= 3 else { return }
            bomChecked = true
            let h = head
            head = []
            let start = h.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            try consume(h[start...], onRecord)
            return
        }
        try consume(chunk, onRecord)
    }

    private mutating func consume(_ chunk: some Collection<UInt8>, _ onRecord: ([String], Int) throws -> Void) throws {
        for b in chunk {
            recordBytes += 1
            if recordBytes > Self.maximumRecordBytes {
                throw InterchangeError.invalidCSV(
                    line: recordLine,
                    reason: inQuotes
                        ? "a quoted field runs on for more than \(Self.maximumRecordBytes >> 20) MiB; is a closing quote missing?"
                        : "a record longer than \(Self.maximumRecordBytes >> 20) MiB")
            }
            if b == 0 { throw InterchangeError.invalidCSV(line: line, reason: "a NUL byte; a CSV file is text and no field may hold one") }
            if pendingCR {
                pendingCR = false
                if b == 0x0A { continue }
            }
            if inQuotes {
                if b == UInt8(ascii: "\"") {
                    inQuotes = false
                    quoteJustClosed = true
                } else {
                    if b == 0x0A { line += 1 }
                    field.append(b)
                }
                continue
            }
            if quoteJustClosed && b == UInt8(ascii: "\"") {
                // A doubled quote inside a quoted field.
                field.append(b)
                inQuotes = true
                quoteJustClosed = false
                continue
            }
            switch b {
            case UInt8(ascii: ","):
                endField()
            case 0x0A, 0x0D:
                endField()
                let r = record
                record.removeAll(keepingCapacity: true)
                fieldStarted = false
                if !(r.count == 1 && r[0].isEmpty) { try onRecord(r, recordLine) }
                line += 1
                recordLine = line
                recordBytes = 0
                if b == 0x0D { pendingCR = true }
            case UInt8(ascii: "\"") where !fieldStarted:
                inQuotes = true
                fieldStarted = true
            case UInt8(ascii: "\""):
                throw InterchangeError.invalidCSV(line: line, reason: "a quote inside an unquoted field; quote the whole field and double the quote")
            default:
                if quoteJustClosed {
                    throw InterchangeError.invalidCSV(line: line, reason: "text after a closing quote; expected ',' or the end of the line")
                }
                fieldStarted = true
                field.append(b)
            }
        }
    }

    private mutating func endField() {
        record.append(String(decoding: field, as: UTF8.self))
        field.removeAll(keepingCapacity: true)
        quoteJustClosed = false
        fieldStarted = false
    }

    mutating func finish(_ onRecord: ([String], Int) throws -> Void) throws {
        if !bomChecked {
            bomChecked = true
            let h = head
            head = []
            try consume(h.starts(with: [0xEF, 0xBB, 0xBF]) ? h[3...] : h[...], onRecord)
        }
        if inQuotes { throw InterchangeError.invalidCSV(line: recordLine, reason: "unterminated quoted field") }
        if fieldStarted || !record.isEmpty || !field.isEmpty {
            endField()
            let r = record
            record.removeAll()
            if !(r.count == 1 && r[0].isEmpty) { try onRecord(r, recordLine) }
        }
    }
}

/// Reads trees from CSV with a header row: our columns (`CSVColumns`), the iOS Tree Tracker's
/// (named as its JSON keys), and common aliases (`lat`, `lon`, `lng`, `name`, `ele`, `time` …).
/// Header names are matched without regard to case, spaces, `_` and `-`.
///
/// `latitude` and `longitude` columns are required. A bad number, date or UUID is an error naming
/// the line and column. A cell neutralised against formulas on export (`'=…`) is read back without
/// its leading `'`.
public struct CSVTreeReader {
    private var records = CSVRecordReader()
    private var columns: [Field?] = []
    private var headerRead = false
    private var header: [String] = []

    enum Field: String, CaseIterable {
        case id, latitude, longitude, horizontalAccuracy, accuracySource, altitude, ellipsoidHeight, species, variety
        case rootstock, notes, collection, collectionId, createdAt, updatedAt, fixTime, fixMode, satellites, hdop
        case averagedEpochs, locationSource, photoCount
        /// The iOS Tree Tracker app's `accuracy_meters`: the phone's figure, converted to the 95% radius.
        case phoneAccuracy
    }

    static let aliases: [String: Field] = {
        var a: [String: Field] = [:]
        for f in Field.allCases where f != .phoneAccuracy { a[normalise(f.rawValue)] = f }
        let extra: [String: Field] = [
            "uuid": .id, "lat": .latitude, "y": .latitude, "lon": .longitude, "lng": .longitude, "long": .longitude,
            "x": .longitude, "accuracy": .horizontalAccuracy, "hacc": .horizontalAccuracy, "ele": .altitude,
            "elevation": .altitude, "alt": .altitude, "name": .species, "description": .notes, "desc": .notes,
            "comment": .notes, "note": .notes, "created": .createdAt, "time": .createdAt, "date": .createdAt,
            "timestamp": .createdAt, "updated": .updatedAt, "sat": .satellites, "sats": .satellites,
            "collectionname": .collection, "collectionid": .collectionId, "photos": .photoCount,
            "accuracymeters": .phoneAccuracy,
        ]
        for (k, v) in extra { a[k] = v }
        return a
    }()

    static func normalise(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { !" _-.".unicodeScalars.contains($0) }.map(Character.init))
    }

    public init() {}

    public mutating func read(_ chunk: some Collection<UInt8>, _ onTree: (ImportedTree) throws -> Void) throws {
        var reader = records
        records = CSVRecordReader()
        defer { records = reader }
        try reader.feed(chunk) { r, l in try self.record(r, line: l, onTree) }
    }

    public mutating func finish(_ onTree: (ImportedTree) throws -> Void) throws {
        var reader = records
        records = CSVRecordReader()
        defer { records = reader }
        try reader.finish { r, l in try self.record(r, line: l, onTree) }
        if !headerRead { throw InterchangeError.invalidCSV(line: 1, reason: "empty file; expected a header row") }
    }

    public static func read(_ bytes: some Collection<UInt8>, _ onTree: (ImportedTree) throws -> Void) throws {
        var r = CSVTreeReader()
        try r.read(bytes, onTree)
        try r.finish(onTree)
    }

    private mutating func record(_ cells: [String], line: Int, _ onTree: (ImportedTree) throws -> Void) throws {
        if !headerRead {
            headerRead = true
            header = cells
            var seen = Set<Field>()
            columns = cells.map { name in
                guard let f = Self.aliases[Self.normalise(name.trimmingCharacters(in: .whitespaces))], !seen.contains(f) else { return nil }
                seen.insert(f)
                return f
            }
            for required in [Field.latitude, .longitude] where !seen.contains(required) {
                throw InterchangeError.invalidCSV(line: line, reason: "missing required column \"\(required.rawValue)\" (or an alias such as \(required == .latitude ? "lat" : "lon"))")
            }
            return
        }
        var values: [Field: (String, Int)] = [:]
        for (i, cell) in cells.enumerated() where i < columns.count {
            guard let f = columns[i] else { continue }
            values[f] = (Self.unneutralise(cell), i)
        }
        func text(_ f: Field) -> String? {
            guard let v = values[f]?.0, !v.isEmpty else { return nil }
            return v
        }
        func problem(_ f: Field, _ what: String) -> InterchangeError {
            let value = values[f]?.0 ?? ""
            let col = (values[f]?.1 ?? 0) + 1
            return .invalidCSV(line: line, reason: "column \(col) (\(header[col - 1])): \"\(value.prefix(40))\" is not \(what)")
        }
        func number(_ f: Field) throws -> Double? {
            guard let s = text(f) else { return nil }
            guard let v = ByteParsing.double(Array(s.utf8)[...]) else { throw problem(f, "a number") }
            return v
        }
        func int(_ f: Field) throws -> Int? {
            guard let s = text(f) else { return nil }
            guard let v = ByteParsing.int(Array(s.utf8)[...]) else { throw problem(f, "a whole number") }
            return v
        }
        func date(_ f: Field) throws -> Date? {
            guard let s = text(f) else { return nil }
            guard let v = TextCodec.parseISO8601(s) else { throw problem(f, "an ISO 8601 date") }
            // A date a store cannot hold refuses the file here, so it is never stored as another value.
            guard StorableDates.contains(v) else { throw problem(f, "a date within \(StorableDates.span)") }
            return v
        }
        func uuid(_ f: Field) throws -> UUID? {
            guard let s = text(f) else { return nil }
            guard let v = ByteParsing.uuid(s) else { throw problem(f, "a UUID") }
            return v
        }
        guard let lat = try number(.latitude) else {
            throw InterchangeError.invalidCSV(line: line, reason: "no latitude")
        }
        guard let lon = try number(.longitude) else {
            throw InterchangeError.invalidCSV(line: line, reason: "no longitude")
        }
        if let p = CoordinateCheck.latitudeProblem(lat) ?? CoordinateCheck.longitudeProblem(lon) {
            throw InterchangeError.invalidCSV(line: line, reason: p)
        }
        var t = ImportedTree(id: nil, coordinate: Coordinate(latitude: lat, longitude: lon), species: text(.species) ?? "", line: line)
        // An id that is not a UUID (the Tree Tracker app's older files, a spreadsheet's row number)
        // is replaced by a new one, as the app does; the import says so.
        if let s = text(.id) {
            if let u = ByteParsing.uuid(s) { t.id = u } else { t.unusableID = String(s.prefix(60)) }
        }
        t.horizontalAccuracy = try number(.horizontalAccuracy).flatMap { $0 >= 0 ? $0 : nil }
        if t.horizontalAccuracy == nil, let phone = try number(.phoneAccuracy), phone >= 0 {
            t.horizontalAccuracy = phone * AccuracyModel.phoneTo95
            t.accuracySource = .phone
        }
        if let s = text(.accuracySource) {
            guard let src = AccuracySource(rawValue: s) else { throw problem(.accuracySource, "an accuracy source") }
            t.accuracySource = src
        }
        t.altitude = try number(.altitude)
        t.ellipsoidHeight = try number(.ellipsoidHeight)
        t.variety = text(.variety)
        t.rootstock = text(.rootstock)
        t.notes = text(.notes)
        t.collectionName = text(.collection)
        t.collectionID = try uuid(.collectionId)
        t.createdAt = try date(.createdAt)
        t.updatedAt = try date(.updatedAt)
        t.capture.fixTime = try date(.fixTime)
        if let m = text(.fixMode) {
            guard let mode = FixModeText.mode(m) else { throw problem(.fixMode, "none, 2d or 3d") }
            t.capture.fixMode = mode
        }
        t.capture.satellites = try int(.satellites)
        t.capture.hdop = try number(.hdop)
        t.capture.averagedEpochs = try int(.averagedEpochs)
        t.capture.locationSource = text(.locationSource)
        t.photoCount = try int(.photoCount)
        try onTree(t)
    }

    /// Removes the `'` that export puts before a cell a spreadsheet would run as a formula.
    static func unneutralise(_ cell: String) -> String {
        let u = Array(cell.utf8)
        if u.count >= 2, u[0] == UInt8(ascii: "'"), CSVWriter.isFormulaStart(u[1]) { return String(cell.dropFirst()) }
        return cell
    }
}
