import Foundation
import Interchange
import TreesKit

/// The stored trees' positions and species, for finding duplicates of trees without ids: a
/// compact open-addressing multimap from a 32-bit fingerprint of (species, 1e-7° cell) to the
/// tree's rowid, 8 bytes a tree. A lookup gives the rowids of the trees that may be in one of
/// the nine cells around a point; the store confirms them by rowid (exact position and species).
///
/// It replaced a set of full keys (about 50 bytes a tree, growing by doubling) and a confirming
/// query that scanned the whole table: re-importing a survey was quadratic.
struct PositionIndex {
    /// fingerprint << 32 | rowid; 0 is an empty slot.
    private var slots: [UInt64]
    private var count = 0

    init(capacity: Int = 1024) {
        var size = 1024
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
    }

    static func cell(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded(.down)) }

    static func speciesHash(_ species: String) -> UInt64 {
        // FNV-1a over the lower-cased UTF-8: stable and cheap.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in species.lowercased().utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    private static func fingerprint(_ latCell: Int64, _ lonCell: Int64, _ species: UInt64) -> UInt64 {
        var x = species ^ UInt64(bitPattern: latCell) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: lonCell) &* 0xC2B2_AE3D_27D4_EB4F
        x ^= x >> 31; x &*= 0xBF58_476D_1CE4_E5B9; x ^= x >> 29
        let f = x >> 32
        return f == 0 ? 1 : f
    }

    /// Remembers a stored tree; a rowid past 32 bits is not indexed (`covers` turns false).
    mutating func insert(latitude: Double, longitude: Double, species: String, rowID: Int64) {
        guard rowID > 0, rowID <= Int64(UInt32.max) else { overflowed = true; return }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let f = Self.fingerprint(Self.cell(latitude), Self.cell(longitude), Self.speciesHash(species))
        place(f << 32 | UInt64(rowID))
        count += 1
    }

    /// False once a tree could not be indexed: answers are then incomplete.
    private(set) var overflowed = false

    /// The rowids of stored trees of this species whose cell is one of the nine around the point
    /// (and a few others whose fingerprints collide).
    func candidates(latitude: Double, longitude: Double, species: String) -> [Int64] {
        let la = Self.cell(latitude), lo = Self.cell(longitude), sp = Self.speciesHash(species)
        var found: [Int64] = []
        let mask = slots.count - 1
        for dLat in -1...1 {
            for dLon in -1...1 {
                let f = Self.fingerprint(la + Int64(dLat), lo + Int64(dLon), sp)
                var i = Int(truncatingIfNeeded: f &* 0x9E37_79B9_7F4A_7C15 >> 32) & mask
                while slots[i] != 0 {
                    if slots[i] >> 32 == f { found.append(Int64(slots[i] & 0xFFFF_FFFF)) }
                    i = (i + 1) & mask
                }
            }
        }
        return found
    }

    private mutating func place(_ entry: UInt64) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (entry >> 32) &* 0x9E37_79B9_7F4A_7C15 >> 32) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = entry
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        for e in old where e != 0 { place(e) }
    }
}

/// What the reading thread hands to the transaction, in file order.
enum ImportItem: Sendable {
    case tree(ImportedTree)
    case collection(ImportedCollection)
    case skipped(line: Int, reason: String)
    case warning(line: Int, reason: String)
}

/// Reads and parses the input file on its own thread, so parsing and storing overlap.
final class ImportReadJob: @unchecked Sendable {
    let input: InputFile
    let format: FileFormat
    let speciesSource: SpeciesSource
    let parts: Set<ImportWorkflow.GPXPart>
    let progress: @Sendable (Double) -> Void

    init(input: InputFile, format: FileFormat, speciesSource: SpeciesSource, parts: Set<ImportWorkflow.GPXPart>,
         progress: @escaping @Sendable (Double) -> Void) {
        self.input = input; self.format = format; self.speciesSource = speciesSource; self.parts = parts; self.progress = progress
    }

    func run(into pipeline: ImportPipeline) {
        var batch: [ImportItem] = []
        batch.reserveCapacity(ImportPipeline.batchSize)
        func emit(_ item: ImportItem) throws {
            batch.append(item)
            if batch.count >= ImportPipeline.batchSize {
                guard pipeline.put(batch) else { throw ImportPipeline.Cancelled() }
                batch.removeAll(keepingCapacity: true)
            }
        }
        do {
            try read(emit)
            if !batch.isEmpty { _ = pipeline.put(batch) }
            pipeline.finish(nil)
        } catch {
            pipeline.finish(error)
        }
    }

    private func read(_ emit: (ImportItem) throws -> Void) throws {
        let source = speciesSource
        switch format {
        case .gpx:
            var reader = GPXReader()
            func handle(_ e: GPXEvent) throws {
                switch e {
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
            try reader.finish(handle)
        case .csv:
            var reader = CSVTreeReader()
            try input.forEachChunk(progress: progress) { try reader.read($0) { try emit(.tree($0)) } }
            try reader.finish { try emit(.tree($0)) }
        case .nmea:
            break
        }
    }
}

/// A bounded hand-over of batches from the reading thread to the transaction.
final class ImportPipeline: @unchecked Sendable {
    static let batchSize = 1024
    static let capacity = 8
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private var batches: [[ImportItem]] = []
    private var done = false
    private var failure: (any Error)?
    private var cancelled = false

    /// Queues a batch, waiting while the queue is full; false once the consumer has given up.
    func put(_ batch: [ImportItem]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        batches.append(batch)
        condition.broadcast()
        return true
    }

    /// Marks the end of the input (with the reader's error, if any).
    func finish(_ error: (any Error)?) {
        condition.lock()
        done = true
        failure = error
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch; nil at the end; rethrows the reader's error.
    func next() throws -> [ImportItem]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !done { condition.wait() }
        if !batches.isEmpty {
            let b = batches.removeFirst()
            condition.broadcast()
            return b
        }
        if let failure, !(failure is Cancelled) { throw failure }
        return nil
    }

    /// Stops the reader (after a failure in the transaction, or at the end).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
