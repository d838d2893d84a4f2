import CPrefetch
import Foundation
import GIS
import Interchange
import TreesKit

/// The stored trees' positions and species, for finding duplicates of trees without ids: an
/// open-addressing multimap from (species, 2e-7° cell) to the tree's rowid, 6 bytes a slot (a
/// 16-bit fingerprint of the cell and the 32-bit rowid). A cell is twice the 1e-7° a duplicate
/// may be away, so a lookup needs only the point's cell and the neighbour on the side the point
/// is nearer to, in each axis: four cells. It gives the rowids of the trees that may lie there
/// (and, about once in 1,000 lookups when a table is at its fullest, one that does not: a run of
/// slots checked against four fingerprints of 16 bits); the store confirms each by its rowid.
///
/// A tree's slot is found from its species and its block of 8 × 8 cells (about 17 cm), not its
/// cell: the four cells of a lookup lie in one block three times in four, and their entries then
/// share one run of slots, one or two cache lines, where four cells hashed apart cost four misses
/// in a table larger than the processor's caches (7.5 MB for a million trees).
///
/// The hashes are not kept, so a full table is never rebuilt: a new one, half as large as all the
/// others together, takes the next trees, and a lookup probes each table.
///
/// It replaced a set of full keys (about 50 bytes a tree, growing by doubling) and a confirming
/// query that scanned the whole table, which made re-importing a survey quadratic.
struct PositionIndex {
    private struct Table {
        var fingerprints: [UInt16]
        var rowIDs: [UInt32]
        var count = 0

        init(size: Int) {
            fingerprints = [UInt16](repeating: 0, count: size)
            rowIDs = [UInt32](repeating: 0, count: size)
        }

        var isFull: Bool { (count + 1) * 5 > fingerprints.count * 4 }

        /// The home slot of a block's hash (from its high bits, by multiplication: any size will do).
        func home(_ block: UInt64) -> Int { Int(((block >> 32) &* UInt64(fingerprints.count)) >> 32) }

        mutating func place(_ block: UInt64, _ fingerprint: UInt16, _ rowID: UInt32) {
            var i = home(block)
            while fingerprints[i] != 0 { i = i + 1 == fingerprints.count ? 0 : i + 1 }
            fingerprints[i] = fingerprint
            rowIDs[i] = rowID
            count += 1
        }

        func collect(_ block: UInt64, _ fingerprint: UInt16, into found: inout [Int64]) {
            var i = home(block)
            while fingerprints[i] != 0 {
                if fingerprints[i] == fingerprint { found.append(Int64(rowIDs[i])) }
                i = i + 1 == fingerprints.count ? 0 : i + 1
            }
        }
    }

    private var tables: [Table]

    /// Room for about `capacity` trees before a second table is needed.
    init(capacity: Int = 1024) {
        tables = [Table(size: max(1024, capacity + capacity / 4 + 1))]
    }

    /// False once a tree could not be indexed (a rowid past 32 bits): answers are then incomplete.
    private(set) var overflowed = false

    /// The tables and the slots in all of them (what the index's memory is, 6 bytes a slot).
    var tableCount: Int { tables.count }
    var slotCount: Int { tables.reduce(0) { $0 + $1.fingerprints.count } }

    /// The cell a coordinate lies in: cells are 2e-7° wide.
    static func cell(_ degrees: Double) -> Int64 { Int64((degrees * 5e6).rounded(.down)) }

    /// The cells along one axis that can hold a coordinate within 1e-7° of `degrees`: its own and
    /// the neighbour on the side it is nearer to. Within a millionth of a cell of the middle, where
    /// rounding could tip a coordinate 1e-7° away into either neighbour, both neighbours.
    static func cells(around degrees: Double) -> ClosedRange<Int64> {
        let scaled = degrees * 5e6
        let floor = scaled.rounded(.down)
        let k = Int64(floor), fraction = scaled - floor
        if fraction < 0.5 - 1e-6 { return (k - 1)...k }
        if fraction > 0.5 + 1e-6 { return k...(k + 1) }
        return (k - 1)...(k + 1)
    }

    static func speciesHash(_ species: String) -> UInt64 {
        // FNV-1a over the UTF-8 with ASCII letters in lower case, as the species are compared
        // (`TreeImporter.sameIgnoringASCIICase`): stable, cheap, and it makes no string.
        // Read through the string's contiguous bytes: its UTF-8 view, walked a byte at a time,
        // cost about 35 instructions a byte.
        var species = species
        return species.withUTF8 { bytes in
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b >= 65 && b <= 90 ? b + 32 : b)) &* 0x100_0000_01b3 }
            return h
        }
    }

    private static func hash(_ latCell: Int64, _ lonCell: Int64, _ species: UInt64) -> UInt64 {
        var x = species ^ UInt64(bitPattern: latCell) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: lonCell) &* 0xC2B2_AE3D_27D4_EB4F
        x ^= x >> 31; x &*= 0xBF58_476D_1CE4_E5B9; x ^= x >> 29; x &*= 0x94D0_49BB_1331_11EB; x ^= x >> 32
        return x
    }

    /// A cell's block hash (where its entries go) and fingerprint (the low 16 bits of its own
    /// hash, never 0: 0 marks an empty slot). Blocks are cells divided by 8, rounded down.
    private static func key(_ latCell: Int64, _ lonCell: Int64, _ species: UInt64) -> (block: UInt64, fingerprint: UInt16) {
        let f = UInt16(truncatingIfNeeded: hash(latCell, lonCell, species))
        return (hash(latCell >> 3, lonCell >> 3, species), f == 0 ? 1 : f)
    }

    /// About how many trees the index will hold in all (0 when unknown): a table added when the
    /// last is full is sized for the rest of them (but at most 4 times the others: an estimate
    /// from the start of a file can be far off), not only half as large as the others.
    ///
    /// Sized from the file's bytes alone, the first table of a dense CSV (70 bytes a tree) held a
    /// quarter of its trees, and tables half as large as the others took a million trees to 11 MB
    /// of index where 7.5 MB hold them.
    var expectedTotal = 0

    /// Remembers a stored tree.
    mutating func insert(latitude: Double, longitude: Double, species: String, rowID: Int64) {
        insert(latitude: latitude, longitude: longitude, speciesHash: Self.speciesHash(species), rowID: rowID)
    }

    /// Remembers a stored tree whose species' `speciesHash` is known.
    mutating func insert(latitude: Double, longitude: Double, speciesHash: UInt64, rowID: Int64) {
        guard rowID > 0, rowID <= Int64(UInt32.max) else { overflowed = true; return }
        if tables[tables.count - 1].isFull {
            let total = tables.reduce(0) { $0 + $1.fingerprints.count }
            let held = tables.reduce(0) { $0 + $1.count }
            tables.append(Table(size: max(total / 2, min(total * 4, (expectedTotal - held) * 5 / 4)) + 1))
        }
        let (block, fingerprint) = Self.key(Self.cell(latitude), Self.cell(longitude), speciesHash)
        tables[tables.count - 1].place(block, fingerprint, UInt32(rowID))
    }

    /// The rowids of stored trees of this species that may lie within 1e-7° of the point, into
    /// `found` (emptied first; a buffer kept across lookups saves an allocation each).
    func candidates(latitude: Double, longitude: Double, species: String, into found: inout [Int64]) {
        candidates(latitude: latitude, longitude: longitude, speciesHash: Self.speciesHash(species), into: &found)
    }

    /// The same, for a species whose `speciesHash` is known.
    func candidates(latitude: Double, longitude: Double, speciesHash: UInt64, into found: inout [Int64]) {
        found.removeAll(keepingCapacity: true)
        let longitudes = Self.cells(around: longitude)
        for la in Self.cells(around: latitude) {
            for lo in longitudes {
                // Cells of one block walk the same run of slots, found in the cache after the first.
                let (block, fingerprint) = Self.key(la, lo, speciesHash)
                for i in tables.indices { tables[i].collect(block, fingerprint, into: &found) }
            }
        }
    }

    /// Slots from which `prefetch` pays (512 KB of fingerprints, a processor's second-level
    /// cache): in a smaller index the lookups find their slots in the cache anyway, and making
    /// the key twice cost a smaller import 1% of its storing thread.
    static let prefetchedFrom = 1 << 18

    /// Asks the processor for the slots where a lookup near the point starts (those of the point's
    /// own block), without waiting for them. Asked for a batch of trees before their lookups, the
    /// reads of the batch wait on memory together: in a table larger than the processor's caches
    /// (a million trees), each lookup otherwise waited in turn for its first slot.
    func prefetch(latitude: Double, longitude: Double, speciesHash: UInt64) {
        let (block, _) = Self.key(Self.cell(latitude), Self.cell(longitude), speciesHash)
        for i in tables.indices {
            let slot = tables[i].home(block)
            tables[i].fingerprints.withUnsafeBufferPointer { trees_prefetch($0.baseAddress! + slot) }
        }
    }

    /// The same, as a new array.
    func candidates(latitude: Double, longitude: Double, species: String) -> [Int64] {
        var found: [Int64] = []
        candidates(latitude: latitude, longitude: longitude, species: species, into: &found)
        return found
    }
}

/// What the reading thread hands to the transaction, in file order.
enum ImportItem: Sendable {
    case tree(ImportedTree)
    case collection(ImportedCollection)
    case skipped(line: Int, reason: String)
    case warning(line: Int, reason: String)
    /// How the file was read (a CSV's separator, decimal commas, position columns, CRS).
    case detected(String)
    /// Positions are carried from this CRS to WGS 84 through PROJ, whose libraries and database
    /// then take about 13 MB of the process. Sent before the first tree.
    case projecting(crs: String)
    /// About how many trees the whole file holds, from the trees and bytes read so far: sent once,
    /// between chunks, when at least 1,000 trees have been read.
    case expected(trees: Int)
}

/// Reads and parses the input file on its own thread, so parsing and storing overlap.
final class ImportReadJob: @unchecked Sendable {
    let input: InputFile
    let format: FileFormat
    let speciesSource: SpeciesSource
    let parts: Set<ImportWorkflow.GPXPart>
    let progress: @Sendable (Double) -> Void
    /// GeoPackage: the layer (nil for the first point layer) and the columns that override the default names.
    var layer: String?
    var columnMap: [GeoPackageField: String] = [:]
    /// CSV: the CRS of the positions (nil for WGS 84) and the columns named outright.
    var crs: String?
    var columnOverrides: [String: String] = [:]
    /// GeoJSON: the `crs` after the features that a first reading of the file met.
    var lateCRS: GeoJSONReader.LateCRS?

    init(input: InputFile, format: FileFormat, speciesSource: SpeciesSource, parts: Set<ImportWorkflow.GPXPart>,
         progress: @escaping @Sendable (Double) -> Void) {
        self.input = input; self.format = format; self.speciesSource = speciesSource; self.parts = parts; self.progress = progress
    }

    func run(into pipeline: ImportPipeline) {
        var batch: [ImportItem] = []
        batch.reserveCapacity(ImportPipeline.batchSize)
        var handedOver = 0
        func emit(_ item: consuming ImportItem) throws {
            batch.append(consume item)
            if batch.count >= ImportPipeline.batchSize {
                guard pipeline.put(batch) else { throw ImportPipeline.Cancelled() }
                handedOver += batch.count
                batch.removeAll(keepingCapacity: true)
            }
        }
        // Between chunks: the items so far (nearly all trees) over the share of the file read.
        var estimated = false
        func paced(_ fraction: Double) {
            progress(fraction)
            let items = handedOver + batch.count
            if !estimated, items >= 1000, fraction > 0, fraction < 1 {
                estimated = true
                batch.append(.expected(trees: Int((Double(items) / fraction).rounded(.up))))
            }
        }
        do {
            try read(emit, progress: paced)
            if !batch.isEmpty { _ = pipeline.put(batch) }
            pipeline.finish(nil)
        } catch {
            pipeline.finish(error)
        }
    }

    private func read(_ emit: (consuming ImportItem) throws -> Void, progress: (Double) -> Void) throws {
        let source = speciesSource
        switch format {
        case .gpx:
            var reader = GPXReader(strict: true)
            func handle(_ e: consuming GPXEvent) throws {
                switch consume e {
                case .waypoint(let p): try emit(.tree(ImportedTree(p, speciesFrom: source)))
                case .routePoint(let p, _) where parts.contains(.routes): try emit(.tree(ImportedTree(p, speciesFrom: source)))
                case .trackPoint(let p, _, _) where parts.contains(.tracks): try emit(.tree(ImportedTree(p, speciesFrom: source)))
                case .diagnostic(let d):
                    try emit(d.kind == .pointSkipped ? .skipped(line: d.line, reason: d.message) : .warning(line: d.line, reason: d.message))
                default: break
                }
            }
            try input.forEachChunk(progress: progress) { try reader.read($0, handle) }
            _ = try reader.finish(handle)
        case .json:
            var reader = CollectionJSONReader()
            func handle(_ e: CollectionJSONEvent) throws {
                switch e {
                case .collection(let c): try emit(.collection(c))
                case .tree(let t): try emit(.tree(t))
                }
            }
            try input.forEachChunk(progress: progress) { try reader.read($0, handle) }
            try reader.finish(warning: { try emit(.warning(line: $0.line, reason: $0.reason)) }, handle)
        case .csv:
            var reader = CSVTreeReader()
            reader.columnOverrides = columnOverrides
            var crsName: String?
            if let crs {
                let grid = try CSVGrid(crs)
                crsName = grid.name
                reader.transform = grid.transform
                try emit(.projecting(crs: grid.name))
            }
            func warn(_ w: ReadWarning) throws { try emit(.warning(line: w.line, reason: w.reason)) }
            try input.forEachChunk(progress: progress) { try reader.read($0, warning: warn) { try emit(.tree($0)) } }
            try reader.finish(warning: warn) { try emit(.tree($0)) }
            let d = reader.detection
            if d.separator != "','" || d.decimalComma || crsName != nil || !columnOverrides.isEmpty {
                try emit(.detected(d.description + (crsName.map { " in \($0)" } ?? "")))
            }
        case .geojson:
            var reader = GeoJSONReader(mapping: columnMap, projection: { crs in try CSVGrid(crs).transform }, crs: lateCRS)
            func handle(_ e: GeoJSONEvent) throws {
                switch e {
                case .tree(let t): try emit(.tree(t))
                case .skipped(let line, let reason): try emit(.skipped(line: line, reason: reason))
                case .projecting(let crs):
                    try emit(.projecting(crs: crs))
                    try emit(.detected("positions in \(crs), carried to WGS 84"))
                }
            }
            try input.forEachChunk(progress: progress) { try reader.read($0, handle) }
            try reader.finish(warning: { try emit(.warning(line: $0.line, reason: $0.reason)) }, handle)
        case .nmea:
            break
        case .gpkg:
            guard input.path != "-" else { throw WorkflowError.notAStream(format: "a GeoPackage", reading: true) }
            let reader = try GeoPackageReader(path: input.path, name: input.displayName)
            try reader.readTrees(layer: layer, mapping: columnMap, progress: progress,
                                 projecting: { try emit(.projecting(crs: $0)) },
                                 skipped: { row, reason in try emit(.skipped(line: row, reason: reason)) },
                                 { try emit(.tree($0)) })
        }
    }
}

/// The hand-over from the reading thread to the transaction.
typealias ImportPipeline = BatchQueue<ImportItem>

/// A CSV's positions in a CRS other than WGS 84: the function `CSVTreeReader.transform` takes,
/// carrying (x, y) to WGS 84 through PROJ and refusing a position outside the CRS's area of use.
/// For one thread (the one reading the file).
public struct CSVGrid {
    /// `EPSG:27700`, as messages name the CRS.
    public let name: String
    public let transform: (Double, Double) -> Result<Coordinate, CSVPositionProblem>

    /// Fails with `WorkflowError.gis` when PROJ does not know `crs`.
    public init(_ crs: String) throws {
        let projection: Projection
        do { projection = try Projection(crs) } catch { throw WorkflowError.gis(error) }
        let name = projection.target.code ?? projection.target.name
        let area = projection.target.areaOfUse
        self.name = name
        transform = { x, y in
            let shown = "\(TextCodec.decimal(x) ?? "\(x)"), \(TextCodec.decimal(y) ?? "\(y)")"
            guard let c = projection.unproject(x: x, y: y) else {
                return .failure(CSVPositionProblem(reason: "\(shown) cannot be carried from \(name) to WGS 84"))
            }
            if let area, !area.contains(c) {
                return .failure(CSVPositionProblem(reason: "\(shown) is outside the area of use of \(name) (\(area.description)); are the columns swapped, or is it another CRS?"))
            }
            return .success(c)
        }
    }
}
