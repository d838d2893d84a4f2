import ArgumentParser
import Foundation
import Interchange
import TreesKit
import TreesStore

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import trees from GPX, collection JSON or CSV, in one all-or-nothing transaction.",
        discussion: """
            Re-importing a file adds nothing: a tree whose id is already stored is 'already present' \
            (see --on-conflict), and so is a tree without an id at the same position (within 1e-7°) \
            with the same species. A malformed file is refused with FILE:LINE: reason and the store \
            is left unchanged. GPX waypoints become trees; --include adds route and track points.
            """
    )

    enum Conflict: String, CaseIterable { case skip, replace, newID = "new-id" }

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The file to import (- for standard input).", valueName: "file"))
    var file: String
    @Option(help: ArgumentHelp("gpx, json or csv (default: from the content and the name).", valueName: "format"))
    var format: String?
    @Option(help: ArgumentHelp("Put every imported tree in this collection (created when missing).", valueName: "name"))
    var collection: String?
    @Flag(help: "Read and check everything, report what would happen, store nothing.")
    var dryRun = false
    @Option(help: ArgumentHelp("When a tree's id is already stored: skip (default), replace, or new-id.", valueName: "policy"))
    var onConflict: String = "skip"
    @Option(help: ArgumentHelp("GPX without trees extensions: take the species from name (default), type, desc or cmt.", valueName: "field"))
    var speciesFrom: String = "name"
    @Option(help: ArgumentHelp("GPX: also import points of routes, tracks or both (routes,tracks).", valueName: "list"))
    var include: String?
    @Flag(help: "Print the summary as JSON.") var json = false

    func validate() throws {
        guard Conflict(rawValue: onConflict) != nil else {
            throw ValidationError("--on-conflict must be skip, replace or new-id, not '\(onConflict)'")
        }
        guard SpeciesSource(rawValue: speciesFrom) != nil else {
            throw ValidationError("--species-from must be name, type, desc or cmt, not '\(speciesFrom)'")
        }
        for part in includedParts where part != "routes" && part != "tracks" {
            throw ValidationError("--include takes routes, tracks or routes,tracks, not '\(part)'")
        }
    }

    private var includedParts: [String] {
        (include ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    struct DryRunRollback: Error {}

    func run() async throws {
        let input = try InputFile(file)
        let fmt = try input.format(forced: format)
        if fmt == .nmea {
            throw CLIError("\(input.displayName) is an NMEA log: it holds positions, not trees; use 'trees capture --source replay:\(file)'", status: .dataError)
        }
        let conflict = Conflict(rawValue: onConflict) ?? .skip
        let speciesSource = SpeciesSource(rawValue: speciesFrom) ?? .name
        let parts = Set(includedParts)
        let progress = Progress(name: input.displayName, enabled: isatty(STDERR_FILENO) == 1 && (input.size ?? 0) > 8 << 20)
        var summary = ImportSummary()
        var createdFiles: [String] = []
        let pipeline = ImportPipeline()
        let reading = DispatchSemaphore(value: 0)
        let job = ImportReadJob(input: input, format: fmt, speciesSource: speciesSource, parts: parts, progress: progress)
        let thread = Thread {
            job.run(into: pipeline)
            reading.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        defer {
            pipeline.cancel()
            reading.wait()
        }
        // The file is already being read and parsed while the store opens (and, when new, is created).
        let db = try store.open()
        do {
            try db.write { w in
                if (input.size ?? 0) > 16 << 20 { try w.reserveBulkCache(megabytes: 40) }
                var importer = try TreeImporter(writer: w, conflict: conflict, collection: collection, photoFolder: db.photoFolder)
                defer { createdFiles = importer.createdFiles }
                while let batch = try pipeline.next() {
                    for item in batch {
                        switch item {
                        case .tree(let t): try importer.add(t)
                        case .collection(let c): try importer.add(c)
                        case .skipped(let line, let reason): importer.summary.skipped.append(.init(line: line, reason: reason))
                        case .warning(let line, let reason): importer.summary.warnings.append(.init(line: line, reason: reason))
                        }
                    }
                }
                try importer.finish()
                summary = importer.summary
                if dryRun { throw DryRunRollback() }
            }
        } catch is DryRunRollback {
            for path in createdFiles { try? FileManager.default.removeItem(atPath: path) }
        } catch {
            progress.clear()
            for path in createdFiles { try? FileManager.default.removeItem(atPath: path) }
            if let e = error as? InterchangeError { throw input.failure(e) }
            if let e = error as? ImportRefusal { throw CLIError("\(input.displayName):\(e.line): \(e.reason)", status: .dataError) }
            if case StoreError.storage = error { throw CLIError("\(CLIError.from(error).message); nothing was imported", status: .ioError) }
            throw CLIError.from(error)
        }
        progress.clear()
        if json {
            Output.json(summary.json(file: file, format: fmt, dryRun: dryRun))
        } else {
            Output.human(summary.text(file: input.displayName, dryRun: dryRun))
        }
    }
}

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
    let parts: Set<String>
    let progress: Progress

    init(input: InputFile, format: FileFormat, speciesSource: SpeciesSource, parts: Set<String>, progress: Progress) {
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
                case .routePoint(let p, _) where parts.contains("routes"): try emit(.tree(ImportedTree(p, speciesFrom: source)))
                case .trackPoint(let p, _, _) where parts.contains("tracks"): try emit(.tree(ImportedTree(p, speciesFrom: source)))
                case .diagnostic(let d):
                    try emit(d.message.hasSuffix("point skipped") ? .skipped(line: d.line, reason: d.message) : .warning(line: d.line, reason: d.message))
                default: break
                }
            }
            try input.forEachChunk(progress: progress.update) { try reader.read($0, handle) }
            _ = try reader.finish(handle)
        case .json:
            var reader = CollectionJSONReader()
            func handle(_ e: CollectionJSONEvent) throws {
                switch e {
                case .collection(let c): try emit(.collection(c))
                case .tree(let t): try emit(.tree(t))
                }
            }
            try input.forEachChunk(progress: progress.update) { try reader.read($0, handle) }
            try reader.finish(handle)
        case .csv:
            var reader = CSVTreeReader()
            try input.forEachChunk(progress: progress.update) { try reader.read($0) { try emit(.tree($0)) } }
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

/// A tree the importer refuses outright (the whole file is refused).
struct ImportRefusal: Error {
    var line: Int
    var reason: String
}

/// What an import did.
struct ImportSummary {
    struct Item { var line: Int; var reason: String }
    var imported = 0
    var alreadyPresent = 0
    var replaced = 0
    var photos = 0
    var skipped: [Item] = []
    var warnings: [Item] = []
    var collectionsCreated: [String] = []

    func json(file: String, format: FileFormat, dryRun: Bool) -> JSON {
        .object([
            ("file", .string(file)), ("format", .string(format.rawValue)), ("dryRun", .bool(dryRun)),
            ("imported", .int(imported)), ("alreadyPresent", .int(alreadyPresent)), ("replaced", .int(replaced)),
            ("photos", .int(photos)),
            ("skipped", .array(skipped.map { .object([("line", .int($0.line)), ("reason", .string($0.reason))]) })),
            ("warnings", .array(warnings.map { .object([("line", .int($0.line)), ("reason", .string($0.reason))]) })),
            ("collectionsCreated", .array(collectionsCreated.map(JSON.string))),
        ])
    }

    func text(file: String, dryRun: Bool) -> String {
        func trees(_ n: Int) -> String { "\(n) tree\(n == 1 ? "" : "s")" }
        var parts = ["\(alreadyPresent) already present"]
        if replaced > 0 { parts.append("\(replaced) replaced") }
        parts.append("\(skipped.count) skipped")
        var out = dryRun
            ? "Dry run: would import \(trees(imported)) from \(file); \(parts.joined(separator: ", ")). Nothing was stored.\n"
            : "Imported \(trees(imported)) from \(file); \(parts.joined(separator: ", ")).\n"
        if photos > 0 { out += "  \(photos) photo\(photos == 1 ? "" : "s")\n" }
        if !collectionsCreated.isEmpty {
            out += "  new collection\(collectionsCreated.count == 1 ? "" : "s"): \(collectionsCreated.joined(separator: ", "))\n"
        }
        for s in skipped { out += "  skipped \(file):\(s.line): \(s.reason)\n" }
        for w in warnings { out += "  warning \(file):\(w.line): \(w.reason)\n" }
        return out
    }
}

/// Stores imported trees inside one transaction, resolving collections and duplicates.
struct TreeImporter {
    let w: StoreWriter
    let bulk: BulkTreeWriter
    let conflict: ImportCommand.Conflict
    let forced: TreeCollection?
    let photoFolder: String
    var summary = ImportSummary()
    /// Photo files written by this import (removed again if it is rolled back).
    var createdFiles: [String] = []
    /// File collection id → stored collection id.
    private var collectionMap: [UUID: UUID] = [:]
    /// Lower-cased collection name → stored collection id.
    private var namedCollections: [String: UUID] = [:]
    /// Trees whose collection id the file defines later on (rare: trees before collections).
    private var waiting: [ImportedTree] = []
    /// Stored positions, for files whose trees have no ids.
    private var positions: PositionIndex?

    init(writer: StoreWriter, conflict: ImportCommand.Conflict, collection: String?, photoFolder: String) throws {
        w = writer
        bulk = writer.bulkTrees()
        self.conflict = conflict
        self.photoFolder = photoFolder
        if let collection {
            let existing = try? writer.reader.collection(named: collection)
            if let existing {
                forced = existing
            } else {
                let created = try writer.createCollection(named: collection)
                forced = created
                summary.collectionsCreated.append(created.name)
            }
        } else {
            forced = nil
        }
    }

    mutating func add(_ c: ImportedCollection) throws {
        guard forced == nil else { return }
        if try w.reader.collection(id: c.id) != nil {
            collectionMap[c.id] = c.id
        } else if let existing = try? w.reader.collection(named: c.name) {
            collectionMap[c.id] = existing.id
        } else {
            do {
                try w.insert(TreeCollection(id: c.id, name: c.name, createdAt: c.createdAt ?? w.now, updatedAt: c.updatedAt))
            } catch let e as StoreError {
                throw Self.refusal(e, line: c.line)
            }
            collectionMap[c.id] = c.id
            summary.collectionsCreated.append(c.name)
        }
    }

    /// The stored collection for a tree; `.none` when it must wait for a collection defined later.
    private mutating func collection(for t: ImportedTree) throws -> UUID?? {
        if let forced { return .some(forced.id) }
        if let cid = t.collectionID {
            if let mapped = collectionMap[cid] { return .some(mapped) }
            if try w.reader.collection(id: cid) != nil {
                collectionMap[cid] = cid
                return .some(cid)
            }
            guard let name = t.collectionName else { return .none }
            let id = try named(name, id: cid, line: t.line)
            collectionMap[cid] = id
            return .some(id)
        }
        if let name = t.collectionName { return .some(try named(name, id: nil, line: t.line)) }
        return .some(nil)
    }

    /// A value the store refuses (a reserved or blank collection name, a date it cannot hold),
    /// as a refusal of the file at the line that holds it.
    static func refusal(_ error: StoreError, line: Int) -> any Error {
        switch error {
        case .invalidCollectionName(let name):
            ImportRefusal(line: line, reason: "collection name \"\(name.prefix(60))\" is reserved or blank; 'none' means no collection")
        case .unstorable(let reason): ImportRefusal(line: line, reason: "cannot store \(reason)")
        default: error
        }
    }

    private mutating func named(_ name: String, id: UUID?, line: Int) throws -> UUID {
        let key = name.lowercased()
        if let known = namedCollections[key] { return known }
        let resolved: UUID
        if let existing = try? w.reader.collection(named: name) {
            resolved = existing.id
        } else {
            let created: TreeCollection
            do {
                created = try w.createCollection(named: name, id: id ?? .random())
            } catch let e as StoreError {
                throw Self.refusal(e, line: line)
            }
            summary.collectionsCreated.append(created.name)
            resolved = created.id
        }
        namedCollections[key] = resolved
        return resolved
    }

    mutating func add(_ t: ImportedTree) throws {
        if let old = t.unusableID {
            summary.warnings.append(.init(line: t.line, reason: "id \"\(old)\" is not a UUID; the tree gets a new id"))
        }
        guard t.species.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            summary.skipped.append(.init(line: t.line, reason: "no species; choose the field with --species-from"))
            return
        }
        guard let resolved = try collection(for: t) else {
            waiting.append(t)
            return
        }
        try store(t, collectionID: resolved)
    }

    private mutating func store(_ t: ImportedTree, collectionID: UUID?) throws {
        if conflict == .skip, let given = t.id {
            // The common case in one statement: insert unless the id is already stored.
            let inserted: Bool
            do {
                inserted = try bulk.insertIfNew(t.tree(id: given, collectionID: collectionID, now: w.now))
            } catch StoreError.database(let reason) {
                // The tree itself is unacceptable (a check failed); a storage failure is not the file's fault.
                throw ImportRefusal(line: t.line, reason: StoreError.database(reason).description)
            } catch let e as StoreError {
                throw Self.refusal(e, line: t.line)
            }
            guard inserted else {
                summary.alreadyPresent += 1
                return
            }
            summary.imported += 1
            for photo in t.photos { try storePhoto(photo, treeID: given, line: t.line) }
            return
        }
        var id = t.id ?? .random()
        if let given = t.id, try bulk.exists(given) {
            switch conflict {
            case .skip:
                summary.alreadyPresent += 1
                return
            case .replace:
                do {
                    try bulk.upsert(t.tree(id: given, collectionID: collectionID, now: w.now))
                } catch StoreError.database(let reason) {
                    throw ImportRefusal(line: t.line, reason: StoreError.database(reason).description)
                } catch let e as StoreError {
                    throw Self.refusal(e, line: t.line)
                }
                summary.replaced += 1
                return
            case .newID:
                id = .random()
            }
        } else if t.id == nil, conflict != .newID, try samePlaceAndSpecies(t) {
            summary.alreadyPresent += 1
            return
        }
        do {
            try bulk.insert(t.tree(id: id, collectionID: collectionID, now: w.now))
        } catch StoreError.database(let reason) {
            throw ImportRefusal(line: t.line, reason: StoreError.database(reason).description)
        } catch let e as StoreError {
            throw Self.refusal(e, line: t.line)
        }
        positions?.insert(latitude: t.coordinate.latitude, longitude: t.coordinate.longitude, species: t.species)
        summary.imported += 1
        for photo in t.photos { try storePhoto(photo, treeID: id, line: t.line) }
    }

    /// Same species (ignoring case) within 1e-7° in latitude and longitude of a stored tree.
    ///
    /// An in-memory grid of stored positions (built on the first tree without an id) answers most
    /// questions; only a probable match is confirmed against the store.
    private mutating func samePlaceAndSpecies(_ t: ImportedTree) throws -> Bool {
        if positions == nil {
            var index = PositionIndex()
            try w.reader.forEachPosition { index.insert(latitude: $0, longitude: $1, species: $2) }
            positions = index
        }
        guard positions?.mightContain(latitude: t.coordinate.latitude, longitude: t.coordinate.longitude, species: t.species) == true else {
            return false
        }
        let near = try w.reader.trees(species: t.species, near: t.coordinate, within: 0.05)
        return near.contains {
            abs($0.latitude - t.coordinate.latitude) <= 1e-7 && abs($0.longitude - t.coordinate.longitude) <= 1e-7
        }
    }

    mutating func finish() throws {
        let late = waiting
        waiting = []
        for t in late {
            if let cid = t.collectionID, let mapped = collectionMap[cid] {
                try store(t, collectionID: mapped)
            } else {
                summary.warnings.append(.init(line: t.line, reason: "collection \(t.collectionID?.uuidString ?? "?") is not in the file; tree left without a collection"))
                try store(t, collectionID: nil)
            }
        }
    }

    /// Stores photo bytes under their SHA-256 (only the bytes: nothing from the file names the path).
    private mutating func storePhoto(_ photo: ImportedPhoto, treeID: UUID, line: Int) throws {
        let bytes = photo.data
        guard let kind = PhotoFormat(header: bytes) else {
            summary.warnings.append(.init(line: line, reason: "a photo is not JPEG, PNG or HEIC; skipped"))
            return
        }
        let format = kind.fileExtension
        // A photo the file gives no date (the Tree Tracker app's "") is dated as `photo add` dates
        // it: by its EXIF DateTimeOriginal, else the time of the import.
        var capturedAt = photo.capturedAt
        if capturedAt == nil, let exif = PhotoMetadata.read(format: kind, bytes: bytes).dateTimeOriginal,
           let date = exif.date(in: .current), StorableDates.contains(date) {
            capturedAt = date
        }
        let hash = SHA256.hex(bytes)
        let path = photoFolder + "/" + hash + "." + format
        if !FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.createDirectory(atPath: photoFolder, withIntermediateDirectories: true)
            let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)), rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: temporary)
                throw CLIError("cannot write photo \(path): \(reason)", status: .ioError)
            }
            createdFiles.append(path)
        }
        do {
            try w.insert(Photo(treeID: treeID, sha256: hash, format: format, byteCount: bytes.count,
                               capturedAt: capturedAt ?? w.now, createdAt: w.now))
        } catch let e as StoreError {
            throw Self.refusal(e, line: line)
        }
        summary.photos += 1
    }
}

/// Progress on standard error for large files on a terminal.
final class Progress: @unchecked Sendable {
    let name: String
    let enabled: Bool
    private var lastPercent = -1

    init(name: String, enabled: Bool) { self.name = name; self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int(fraction * 100)
        guard percent != lastPercent else { return }
        lastPercent = percent
        StandardError.write("\rimporting \(name): \(percent)%")
    }

    func clear() {
        guard enabled, lastPercent >= 0 else { return }
        StandardError.write("\r\u{1B}[K")
        lastPercent = -1
    }
}
