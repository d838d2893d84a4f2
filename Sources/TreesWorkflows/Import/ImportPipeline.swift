import Foundation
import Interchange
import TreesKit

/// Positions and species on a grid of 1e-7° cells: a compact, conservative test for "a tree of this
/// species within 1e-7°" (a hit is confirmed against the store).
struct PositionIndex {
    private struct Key: Hashable {
        var latitude: Int64
        var longitude: Int64
        var species: UInt32
    }

    private var keys = Set<Key>()

    private static func cell(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded(.down)) }

    private static func speciesHash(_ species: String) -> UInt32 {
        // FNV-1a over the lower-cased UTF-8: stable and small.
        var h: UInt32 = 2_166_136_261
        for b in species.lowercased().utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }

    mutating func insert(latitude: Double, longitude: Double, species: String) {
        keys.insert(Key(latitude: Self.cell(latitude), longitude: Self.cell(longitude), species: Self.speciesHash(species)))
    }

    /// False when no stored tree of this species lies within 1e-7° (the cells around the point are empty).
    func mightContain(latitude: Double, longitude: Double, species: String) -> Bool {
        let la = Self.cell(latitude), lo = Self.cell(longitude), sp = Self.speciesHash(species)
        for dLat in -1...1 {
            for dLon in -1...1 where keys.contains(Key(latitude: la + Int64(dLat), longitude: lo + Int64(dLon), species: sp)) {
                return true
            }
        }
        return false
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
