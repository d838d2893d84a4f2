import Foundation
import TreesKit

/// Reads RFC 4180 CSV as a stream of records, fed in chunks of any size.
///
/// The text must be UTF-8 (a byte order mark is skipped): a field in another encoding refuses the
/// file, rather than being stored with its letters replaced.
///
/// Quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF or LF.
/// Each record comes with the line it starts on. The separator is `,`, `;` or a tab, whichever
/// the first line holds most of outside quotes (a comma when it holds none).
struct CSVRecordReader {
    /// The separator, known once the first line has been seen.
    private(set) var separator: UInt8 = UInt8(ascii: ",")

    /// Longest record accepted, in bytes (1 MiB): far beyond any tree's row, and short enough that a
    /// file with one endless line (or an unterminated quote) is refused without reading it all into
    /// memory.
    static let maximumRecordBytes = 1 << 20

    /// Most fields a record may have: far beyond any tree's columns, and it keeps a line of
    /// separators from becoming hundreds of thousands of cells.
    static let maximumFields = 1 << 16

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

    mutating func feed(_ chunk: some Collection<UInt8>, _ onRecord: ([String], Int, UInt8) throws -> Void) throws {
        if !bomChecked {
            head.append(contentsOf: chunk)
            // The first line decides the separator: wait for its end (or its first 64 KiB), so
            // that however the bytes arrive the same bytes decide.
            guard chunk.contains(0x0A) || chunk.contains(0x0D) || head.count >= Self.separatorScan else { return }
            let start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            if let hint = Self.separatorHint(head[start...]) {
                // Excel's `sep=;` line names the separator; the header is the next line.
                bomChecked = true
                separator = hint.separator
                line = 2
                recordLine = 2
                pendingCR = hint.endsInCR
                let h = head
                head = []
                try consume(h[(start + hint.length)...], onRecord)
                return
            }
            guard let found = Self.separator(ofFirstLine: head[start...], complete: false) else { return }
            bomChecked = true
            let h = head
            head = []
            separator = found
            try consume(h[start...], onRecord)
            return
        }
        try consume(chunk, onRecord)
    }

    /// Reads the bytes through a pointer (a `Data` chunk's iterator cost more than the rest of the
    /// record reading).
    private mutating func consume(_ chunk: some Collection<UInt8>, _ onRecord: ([String], Int, UInt8) throws -> Void) throws {
        let done: Void? = try chunk.withContiguousStorageIfAvailable { try consumeBytes($0, onRecord) }
        if done == nil { try Array(chunk).withUnsafeBufferPointer { try consumeBytes($0, onRecord) } }
    }

    private func tooLong() -> InterchangeError {
        InterchangeError.invalidCSV(
            line: recordLine,
            reason: inQuotes
                ? "a quoted field runs on for more than \(Self.maximumRecordBytes >> 20) MiB; is a closing quote missing?"
                : "a record longer than \(Self.maximumRecordBytes >> 20) MiB")
    }

    private mutating func consumeBytes(_ p: UnsafeBufferPointer<UInt8>, _ onRecord: ([String], Int, UInt8) throws -> Void) throws {
        var i = 0
        while i < p.count {
            // A run of bytes that are only text (no quote, separator, line end or NUL) is appended at
            // once; the byte that ends it goes through the rules below.
            if !pendingCR && !quoteJustClosed {
                var j = i
                if inQuotes {
                    while j < p.count, p[j] != UInt8(ascii: "\""), p[j] != 0 {
                        if p[j] == 0x0A { line += 1 }
                        j += 1
                    }
                } else {
                    let separator = separator
                    while j < p.count {
                        let c = p[j]
                        if c == separator || c == 0x0A || c == 0x0D || c == UInt8(ascii: "\"") || c == 0 { break }
                        j += 1
                    }
                }
                if j > i {
                    recordBytes += j - i
                    if recordBytes > Self.maximumRecordBytes { throw tooLong() }
                    field.append(contentsOf: UnsafeBufferPointer(rebasing: p[i..<j]))
                    if !inQuotes { fieldStarted = true }
                    i = j
                    continue
                }
            }
            let b = p[i]
            i += 1
            recordBytes += 1
            if recordBytes > Self.maximumRecordBytes { throw tooLong() }
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
            case separator:
                try endField()
            case 0x0A, 0x0D:
                try endField()
                fieldStarted = false
                if !(record.count == 1 && record[0].isEmpty) { try onRecord(record, recordLine, separator) }
                record.removeAll(keepingCapacity: true)
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

    private mutating func endField() throws {
        if record.count == Self.maximumFields {
            throw InterchangeError.invalidCSV(
                line: recordLine, reason: "a record with more than \(Self.maximumFields) fields; is this a CSV file of trees, and is its separator the header's?")
        }
        if field.isEmpty {
            // Half the cells of a wide file are empty: nothing to decode, nothing to empty.
            record.append("")
        } else {
            guard let text = field.withUnsafeBufferPointer({ ByteParsing.utf8Text($0) }) else {
                throw InterchangeError.invalidCSV(
                    line: recordLine,
                    reason: "column \(record.count + 1) is not UTF-8 text; save the file as UTF-8 (\"CSV UTF-8\" in a spreadsheet)")
            }
            record.append(text)
            field.removeAll(keepingCapacity: true)
        }
        quoteJustClosed = false
        fieldStarted = false
    }

    /// The separator a first line `sep=X` names (as Excel writes it, X being `,`, `;` or a tab),
    /// the bytes of that line with its end, and whether it ended in a CR (a LF may follow);
    /// nil for any other first line.
    static func separatorHint(_ bytes: ArraySlice<UInt8>) -> (separator: UInt8, length: Int, endsInCR: Bool)? {
        let b = Array(bytes.prefix(7))
        guard b.count >= 6, b[0] | 0x20 == UInt8(ascii: "s"), b[1] | 0x20 == UInt8(ascii: "e"), b[2] | 0x20 == UInt8(ascii: "p"),
              b[3] == UInt8(ascii: "="), [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09].contains(b[4]) else { return nil }
        switch b[5] {
        case 0x0A: return (b[4], 6, false)
        case 0x0D: return b.count == 7 && b[6] == 0x0A ? (b[4], 7, false) : (b[4], 6, true)
        default: return nil
        }
    }

    /// How much of the first line decides the separator, in bytes.
    static let separatorScan = 1 << 16

    /// `,`, `;` or tab: the one the first line (up to its end outside quotes, or its first 64 KiB)
    /// holds most of outside quotes; ties go to the tab, then `;`. Nil when `bytes` end before the
    /// line does and more may come (`complete` false).
    static func separator(ofFirstLine bytes: some Collection<UInt8>, complete: Bool) -> UInt8? {
        var counts: [UInt8: Int] = [UInt8(ascii: ","): 0, UInt8(ascii: ";"): 0, 0x09: 0]
        var quoted = false
        var ended = false
        var seen = 0
        for b in bytes {
            if seen == separatorScan || (b == 0x0A || b == 0x0D) && !quoted { ended = true; break }
            seen += 1
            if b == UInt8(ascii: "\"") { quoted.toggle(); continue }
            if !quoted, counts[b] != nil { counts[b, default: 0] += 1 }
        }
        guard ended || complete else { return nil }
        let tabs = counts[0x09] ?? 0, semicolons = counts[UInt8(ascii: ";")] ?? 0, commas = counts[UInt8(ascii: ",")] ?? 0
        if tabs > 0 && tabs >= semicolons && tabs >= commas { return 0x09 }
        if semicolons > 0 && semicolons >= commas { return UInt8(ascii: ";") }
        return UInt8(ascii: ",")
    }

    mutating func finish(_ onRecord: ([String], Int, UInt8) throws -> Void) throws {
        if !bomChecked {
            bomChecked = true
            let h = head
            head = []
            separator = Self.separator(ofFirstLine: h.starts(with: [0xEF, 0xBB, 0xBF]) ? h[3...] : h[...], complete: true) ?? UInt8(ascii: ",")
            try consume(h.starts(with: [0xEF, 0xBB, 0xBF]) ? h[3...] : h[...], onRecord)
        }
        if inQuotes { throw InterchangeError.invalidCSV(line: recordLine, reason: "unterminated quoted field") }
        if fieldStarted || !record.isEmpty || !field.isEmpty {
            try endField()
            let r = record
            record.removeAll()
            if !(r.count == 1 && r[0].isEmpty) { try onRecord(r, recordLine, separator) }
        }
    }
}

/// Reads trees from CSV with a header row: our columns (`CSVColumns`), the iOS Tree Tracker's
/// (named as its JSON keys), and common aliases (`lat`, `lon`, `lng`, `name`, `ele`, `time` …),
/// and a surveyor's (`easting`/`E`, `northing`/`N`, `point id`, `spp`, `cultivar`, `comment`).
/// Header names are matched without regard to case, spaces, `_` and `-`; `columnOverrides`
/// names the column of a field outright. Separators `,`, `;` and tab are told from the header
/// line; with `;` or tab, numbers may have a decimal comma.
///
/// `latitude` and `longitude` columns are required, or with `transform` (a CRS other than WGS 84)
/// `easting` and `northing` (or `x` and `y`), which it carries to WGS 84. A bad number, date or UUID is an error naming
/// the line and column. A cell neutralised on export (`'=…`, `''…`; see `CSVWriter.looksNeutralised`)
/// is read back without its leading `'`.
public struct CSVTreeReader {
    /// Carries a position the file gives (x: easting or longitude, y: northing or latitude, in the
    /// file's CRS) to WGS 84, or says why it cannot; nil when the file is in WGS 84.
    public var transform: ((_ x: Double, _ y: Double) -> Result<Coordinate, CSVPositionProblem>)?
    /// The column each field is read from, by field name (`species`, `x`, `easting`, `lat`…),
    /// overriding the names matched by default.
    public var columnOverrides: [String: String] = [:]
    /// What the reader found in the file: separator, decimal commas, position columns.
    public private(set) var detection = CSVDetection()
    private var records = CSVRecordReader()
    /// The separator the header line uses.
    private var separator = UInt8(ascii: ",")
    private var columns: [Field?] = []
    private var headerRead = false
    private var header: [String] = []
    private var negativeAccuracies = NegativeAccuracies()

    /// A field of a tree a column can give; its raw value indexes `fieldColumn`.
    enum Field: Int, CaseIterable {
        case id, latitude, longitude, horizontalAccuracy, accuracySource, altitude, ellipsoidHeight, species, variety
        case rootstock, notes, collection, collectionId, createdAt, updatedAt, fixTime, fixMode, satellites, hdop
        case averagedEpochs, locationSource, photoCount
        case fixStatus, correctionAge, verticalAccuracy, verticalAccuracySource, antennaHeight
        /// A surveyor's grid position, in the CRS `transform` knows.
        case easting, northing
        /// A surveyor's point number: kept in the notes.
        case pointID
        /// The iOS Tree Tracker app's `accuracy_meters`: the phone's figure, converted to the 95% radius.
        case phoneAccuracy

        /// The field's name, as our CSV's header writes it.
        var name: String { String(describing: self) }
    }

    /// The column of each field (by `Field.rawValue`), -1 for a field the file has no column for.
    private var fieldColumn: [Int] = []

    static let aliases: [String: Field] = {
        var a: [String: Field] = [:]
        for f in Field.allCases where f != .phoneAccuracy { a[normalise(f.name)] = f }
        let extra: [String: Field] = [
            "uuid": .id, "lat": .latitude, "y": .latitude, "lon": .longitude, "lng": .longitude, "long": .longitude,
            "x": .longitude, "accuracy": .horizontalAccuracy, "hacc": .horizontalAccuracy, "ele": .altitude,
            "elevation": .altitude, "alt": .altitude, "name": .species, "description": .notes, "desc": .notes,
            "comment": .notes, "note": .notes, "created": .createdAt, "time": .createdAt, "date": .createdAt,
            "timestamp": .createdAt, "updated": .updatedAt, "sat": .satellites, "sats": .satellites,
            "collectionname": .collection, "collectionid": .collectionId, "photos": .photoCount,
            "accuracymeters": .phoneAccuracy,
            "e": .easting, "east": .easting, "n": .northing, "north": .northing,
            "point": .pointID, "pt": .pointID, "ptid": .pointID, "pointno": .pointID, "pointnumber": .pointID,
            "fixquality": .fixStatus, "vacc": .verticalAccuracy, "antenna": .antennaHeight,
            "spp": .species, "cultivar": .variety, "cv": .variety, "comments": .notes, "remarks": .notes,
        ]
        for (k, v) in extra { a[k] = v }
        return a
    }()

    /// The fields by their own names (as our CSV's header writes them), normalised.
    static let ownNames: [String: Field] = {
        var names: [String: Field] = [:]
        for f in Field.allCases where f != .phoneAccuracy { names[normalise(f.name)] = f }
        return names
    }()

    static func normalise(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { !" _-.".unicodeScalars.contains($0) }.map(Character.init))
    }

    public init() {}

    /// Reads a chunk: each tree to `onTree`, and to `warning` what was left out or changed (a
    /// column ignored for another of the same field), in file order.
    public mutating func read(_ chunk: some Collection<UInt8>, warning: (ReadWarning) throws -> Void = { _ in },
                              _ onTree: (ImportedTree) throws -> Void) throws {
        var reader = records
        records = CSVRecordReader()
        defer { records = reader }
        try reader.feed(chunk) { r, l, sep in try self.record(r, line: l, separator: sep, warning, onTree) }
    }

    /// Reads the end of the file; what is said of the whole file (negative accuracies) goes to
    /// `warning` last.
    public mutating func finish(warning: (ReadWarning) throws -> Void = { _ in }, _ onTree: (ImportedTree) throws -> Void) throws {
        var reader = records
        records = CSVRecordReader()
        defer { records = reader }
        try reader.finish { r, l, sep in try self.record(r, line: l, separator: sep, warning, onTree) }
        if !headerRead { throw InterchangeError.invalidCSV(line: 1, reason: "empty file; expected a header row") }
        if let w = negativeAccuracies.warning { try warning(w) }
    }

    public static func read(_ bytes: some Collection<UInt8>, warning: (ReadWarning) throws -> Void = { _ in },
                            _ onTree: (ImportedTree) throws -> Void) throws {
        var r = CSVTreeReader()
        try r.read(bytes, warning: warning, onTree)
        try r.finish(warning: warning, onTree)
    }

    private mutating func record(_ cells: [String], line: Int, separator: UInt8, _ warning: (ReadWarning) throws -> Void,
                                 _ onTree: (ImportedTree) throws -> Void) throws {
        if !headerRead {
            self.separator = separator
            for w in try readHeader(cells, line: line) { try warning(w) }
            return
        }
        if cells.count < header.count {
            // A row split by another separator than the header's (a file pasted together from two exports).
            let own = Character(Unicode.Scalar(separator))
            for other in [",", ";", "\t"] where Character(other) != own {
                let joined = cells.joined(separator: String(own))
                if joined.filter({ $0 == Character(other) }).count + 1 >= header.count {
                    throw InterchangeError.invalidCSV(
                        line: line,
                        reason: "this line is separated by \(CSVDetection.name(of: other)) but the header by \(CSVDetection.name(of: String(own))) (mixed separators)")
                }
            }
        }
        // Each field's cell is found through `fieldColumn`: a dictionary of the row's cells by
        // field, made for every row, took a fifth of a CSV import's reading.
        func cell(_ f: Field) -> String? {
            let i = fieldColumn[f.rawValue]
            guard i >= 0, i < cells.count else { return nil }
            return Self.unneutralise(cells[i])
        }
        func text(_ f: Field) -> String? {
            guard let v = cell(f), !v.isEmpty else { return nil }
            return v
        }
        func problem(_ f: Field, _ what: String) -> InterchangeError { problem(f, saying: "is not \(what)") }
        func problem(_ f: Field, saying reason: String) -> InterchangeError {
            let value = cell(f) ?? ""
            let col = max(0, fieldColumn[f.rawValue]) + 1
            return .invalidCSV(line: line, reason: "column \(col) (\(header[col - 1])): \"\(value.prefix(40))\" \(reason)")
        }
        let decimalCommas = separator != UInt8(ascii: ",")
        func number(_ f: Field) throws -> Double? {
            guard var s = text(f) else { return nil }
            if decimalCommas, s.contains(","), !s.contains(".") {
                s = s.replacingOccurrences(of: ",", with: ".")
                detection.decimalComma = true
            }
            guard let v = ByteParsing.double(Array(s.utf8)[...]) else {
                // A number written right but beyond a Double ("1e999") says so, as JSON's does.
                let plain = s.trimmingCharacters(in: .whitespaces)
                if let d = Double(plain), d.isInfinite, !plain.lowercased().contains("inf") {
                    throw problem(f, saying: "is too large (beyond ±1.8e308)")
                }
                throw problem(f, "a number")
            }
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
        let coordinate: Coordinate
        if let transform {
            let grid = columns.contains(.easting)
            let (xf, yf) = grid ? (Field.easting, Field.northing) : (Field.longitude, Field.latitude)
            guard let x = try number(xf) else { throw InterchangeError.invalidCSV(line: line, reason: "no \(grid ? "easting" : "x")") }
            guard let y = try number(yf) else { throw InterchangeError.invalidCSV(line: line, reason: "no \(grid ? "northing" : "y")") }
            switch transform(x, y) {
            case .success(let c): coordinate = c
            case .failure(let p): throw InterchangeError.invalidCSV(line: line, reason: p.reason)
            }
        } else {
            guard let lat = try number(.latitude) else {
                throw InterchangeError.invalidCSV(line: line, reason: "no latitude")
            }
            guard let lon = try number(.longitude) else {
                throw InterchangeError.invalidCSV(line: line, reason: "no longitude")
            }
            if let p = CoordinateCheck.latitudeProblem(lat) ?? CoordinateCheck.longitudeProblem(lon) {
                throw InterchangeError.invalidCSV(line: line, reason: p)
            }
            coordinate = Coordinate(latitude: lat, longitude: lon)
        }
        var t = ImportedTree(id: nil, coordinate: coordinate, species: text(.species) ?? "", line: line)
        // An id that is not a UUID (the Tree Tracker app's older files, a spreadsheet's row number)
        // is replaced by a new one, as the app does; the import says so.
        if let s = text(.id) {
            if let u = ByteParsing.uuid(s) { t.id = u } else { t.unusableID = String(s.prefix(60)) }
        }
        var negativeAccuracy = false
        if let a = try number(.horizontalAccuracy) {
            if a >= 0 { t.horizontalAccuracy = a } else { negativeAccuracy = true }
        }
        if t.horizontalAccuracy == nil, let phone = try number(.phoneAccuracy) {
            if phone >= 0 {
                t.horizontalAccuracy = phone * AccuracyModel.phoneTo95
                t.accuracySource = .phone
            } else {
                negativeAccuracy = true
            }
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
        if let point = text(.pointID) { t.notes = t.notes.map { "\($0) (point \(point))" } ?? "point \(point)" }
        // A blank name is no collection, as an empty cell is.
        t.collectionName = ByteParsing.nonBlank(text(.collection))
        t.collectionID = try uuid(.collectionId)
        t.createdAt = try date(.createdAt)
        t.updatedAt = try date(.updatedAt)
        t.capture.fixTime = try date(.fixTime)
        if let m = text(.fixMode) {
            guard let mode = FixModeText.mode(m) else { throw problem(.fixMode, "none, 2d or 3d") }
            t.capture.fixMode = mode
        }
        func count(_ f: Field) throws -> Int? {
            guard let v = try int(f) else { return nil }
            guard v >= 0 else { throw problem(f, "a whole number, 0 or more") }
            return v
        }
        t.capture.satellites = try count(.satellites)
        if let hdop = try number(.hdop) {
            guard hdop >= 0 else { throw problem(.hdop, "a number, 0 or more") }
            t.capture.hdop = hdop
        }
        t.capture.averagedEpochs = try count(.averagedEpochs)
        t.capture.locationSource = text(.locationSource)
        t.photoCount = try int(.photoCount)
        if let s = text(.fixStatus) {
            guard let status = FixStatus(name: s) else { throw problem(.fixStatus, "a fix status (\(FixQualityText.statusNames))") }
            t.capture.fixStatus = status
        }
        if let s = text(.verticalAccuracySource) {
            guard let source = AccuracySource(rawValue: s) else { throw problem(.verticalAccuracySource, "an accuracy source") }
            t.capture.verticalAccuracySource = source
        }
        func measure(_ f: Field) throws -> Double? {
            guard let v = try number(f) else { return nil }
            guard FixQualityText.measureProblem(v) == nil else { throw problem(f, "a finite number, 0 or more") }
            return v
        }
        t.capture.correctionAge = try measure(.correctionAge)
        t.capture.verticalAccuracy = try measure(.verticalAccuracy)
        t.capture.antennaHeight = try measure(.antennaHeight)
        if negativeAccuracy { negativeAccuracies.note(line: line) }
        try onTree(t)
    }

    /// Matches the header's names to fields: `columnOverrides` first, then the fields' own names,
    /// then aliases. A column ignored because an earlier or exact one gives its field is a warning.
    private mutating func readHeader(_ cells: [String], line: Int) throws -> [ReadWarning] {
        headerRead = true
        header = cells
        columns = Array(repeating: nil, count: cells.count)
        var seen = Set<Field>()
        for (key, name) in columnOverrides.sorted(by: { $0.key < $1.key }) {
            guard let f = Self.aliases[Self.normalise(key)] else {
                throw InterchangeError.invalidCSV(line: line, reason: "--columns \(key)=\(name): \(key) is not a field")
            }
            let field = transform != nil && f == .longitude && Self.normalise(key) == "x" ? Field.easting
                : transform != nil && f == .latitude && Self.normalise(key) == "y" ? Field.northing : f
            guard let i = cells.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == name })
                ?? cells.firstIndex(where: { Self.normalise($0) == Self.normalise(name) }) else {
                throw InterchangeError.invalidCSV(line: line, reason: "--columns \(key)=\(name): no column \(name) (columns: \(cells.joined(separator: ", ")))")
            }
            columns[i] = field
            seen.insert(field)
        }
        let overridden = seen
        let keys = cells.map { Self.normalise($0.trimmingCharacters(in: .whitespaces)) }
        // A field's own name wins over its aliases wherever it stands (`latitude` over `lat`).
        for names in [Self.ownNames, Self.aliases] {
            for (i, key) in keys.enumerated() where columns[i] == nil {
                guard let f = names[key], !seen.contains(f) else { continue }
                seen.insert(f)
                columns[i] = f
            }
        }
        var warnings: [ReadWarning] = []
        for (i, key) in keys.enumerated() where columns[i] == nil {
            guard let f = Self.aliases[key], !overridden.contains(f), let used = columns.firstIndex(of: f) else { continue }
            let option = f == .phoneAccuracy ? "accuracy_meters" : f.name
            warnings.append(ReadWarning(
                line: line,
                reason: "column \(i + 1) (\(cells[i].prefix(40))) is ignored: column \(used + 1) (\(cells[used].prefix(40))) gives the same field; to read the other, give --columns \(option)=\(cells[i].prefix(40))"))
        }
        fieldColumn = Array(repeating: -1, count: Field.allCases.count)
        for (i, f) in columns.enumerated() { if let f { fieldColumn[f.rawValue] = i } }
        func column(_ f: Field) -> String { columns.firstIndex(of: f).map { cells[$0] } ?? "" }
        detection.separator = CSVDetection.name(of: String(Character(Unicode.Scalar(separator))))
        if transform != nil {
            if seen.contains(.easting) && seen.contains(.northing) {
                detection.position = "easting from \(column(.easting)), northing from \(column(.northing))"
                return warnings
            }
            guard seen.contains(.latitude) && seen.contains(.longitude) else {
                throw InterchangeError.invalidCSV(line: line, reason: "no position columns: expected easting and northing (or E and N, x and y), or latitude and longitude; name them with --columns easting=…,northing=…")
            }
            detection.position = "x from \(column(.longitude)), y from \(column(.latitude))"
            return warnings
        }
        if !seen.contains(.latitude) && !seen.contains(.longitude) && seen.contains(.easting) && seen.contains(.northing) {
            throw InterchangeError.invalidCSV(line: line, reason: "columns \(column(.easting)) and \(column(.northing)) are grid positions: give their coordinate reference system with --crs (EPSG:27700 for the British National Grid)")
        }
        for required in [Field.latitude, .longitude] where !seen.contains(required) {
            throw InterchangeError.invalidCSV(line: line, reason: "missing required column \"\(required.name)\" (or an alias such as \(required == .latitude ? "lat" : "lon"))")
        }
        detection.position = "latitude from \(column(.latitude)), longitude from \(column(.longitude))"
        return warnings
    }

    /// Removes the `'` that export puts before a text (see `CSVWriter.looksNeutralised`).
    static func unneutralise(_ cell: String) -> String {
        // `String.UTF8View`'s own `first` tells most cells at once; through the generic
        // `looksNeutralised` it would be `Collection`'s, slower (7 M instructions for 10,000 rows).
        guard cell.utf8.first == UInt8(ascii: "'"), CSVWriter.looksNeutralised(cell.utf8) else { return cell }
        return String(cell.dropFirst())
    }
}

/// Why a position of a CSV row cannot be used (outside its CRS's area of use, say).
public struct CSVPositionProblem: Error, Sendable, Equatable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

/// What a CSV reader found in a file's layout, for the import to say.
public struct CSVDetection: Sendable, Equatable {
    /// `','`, `';'` or `tab`.
    public var separator = "','"
    public var decimalComma = false
    /// `easting from East, northing from North`.
    public var position = ""

    public init() {}

    static func name(of separator: String) -> String { separator == "\t" ? "tab" : "'\(separator)'" }

    /// `separator ';', decimal commas, easting from East, northing from North`.
    public var description: String {
        "separator \(separator)" + (decimalComma ? ", decimal commas" : "") + (position.isEmpty ? "" : ", \(position)")
    }
}
