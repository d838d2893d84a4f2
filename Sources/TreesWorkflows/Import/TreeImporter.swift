import Foundation
import Interchange
import TreesKit
import TreesStore

/// Stores imported trees inside one transaction, resolving collections and duplicates.
struct TreeImporter {
    let w: StoreWriter
    let bulk: BulkTreeWriter
    let conflict: ImportWorkflow.ConflictPolicy
    let forced: TreeCollection?
    let photos: PhotoLibrary
    /// Counts and lines so far (the file, format and dry-run fields are the workflow's).
    var report = ImportWorkflow.Report(file: "", format: .json, dryRun: false)
    /// Photos this import put in the folder (discarded again if it is rolled back).
    var staged: [PhotoLibrary.StagedPhotos] = []
    /// File collection id → stored collection id.
    private var collectionMap: [UUID: UUID] = [:]
    /// Lower-cased collection name → stored collection id.
    private var namedCollections: [String: UUID] = [:]
    /// Trees whose collection id the file defines later on (rare: trees before collections).
    private var waiting: [ImportedTree] = []
    /// Stored positions, for files whose trees have no ids.
    private var positions: PositionIndex?
    /// The rowids a lookup in `positions` gives, kept from one tree to the next.
    private var candidateRows: [Int64] = []
    /// The position and species of each tree in the bulk writer's queue, in its order: they go into
    /// `positions` once the trees are stored.
    private var queued: [QueuedPosition] = []
    /// Ids for trees the file gives none, in increasing order.
    private var ids = TimeOrderedIDs()
    /// Care events of stored trees, stored together once every tree is (collection JSON).
    private var careEvents: [CareEvent] = []

    /// Why a tree without a species is skipped, and what to do, in the terms of the file's format.
    var noSpecies = "no species"
    /// About how many trees the file holds (from its size), to size the duplicate index.
    var expectedTrees = 0 { didSet { bulk.expectedTrees = expectedTrees } }
    /// True when the workflow gave the connection a larger page cache for a large file.
    var enlargedCache = false
    /// The trees stored when the duplicate index was first built.
    private var storedBeforeIndex = 0
    /// The duplicate index is built again, whole and with room for half as many trees again as are
    /// stored, once it has more tables than this: a file of unknown size (standard input) gives no
    /// estimate of its trees, and every table is probed on every lookup. A million surveyed trees
    /// from standard input had grown 17 tables and took 1.7 times as long as from the file.
    static let tablesBeforeRebuild = 3
    /// Set when the index has more tables than that (checked once a chunk of trees is stored).
    private var rebuildPositions = false
    /// The largest rowid before the import: a stored tree past it came from this file.
    private let storedBefore: Int64

    /// True when the stored tree `id` was stored by this import. Before it stored a tree, none can
    /// have been (a file imported again asks nothing); into a store that was empty, every one was.
    private func storedByThisFile(_ id: UUID) throws -> Bool {
        try report.imported > 0 && (storedBefore == 0 || (bulk.rowID(of: id) ?? 0) > storedBefore)
    }

    /// Counts a tree not stored because its id is stored already: in the store before the
    /// import, or given by an earlier tree of this file (said once, at the first such line).
    private mutating func notStored(id: UUID, line: Int) throws {
        guard try storedByThisFile(id) else {
            report.alreadyPresent += 1
            return
        }
        if report.repeatedInFile == 0 {
            report.warnings.append(.init(line: line, reason: "the id \(id.lowercaseText) was given to an earlier tree of this file; "
                                         + "the first tree with each id is kept, later ones are left out"))
        }
        report.repeatedInFile += 1
    }

    /// The reading thread's estimate of the file's trees (`ImportItem.expected`): the duplicate
    /// index, built or to be built, is sized by it rather than by the file's bytes.
    mutating func expect(trees: Int) {
        expectedTrees = trees
        positions?.expectedTotal = storedBeforeIndex + trees
    }

    init(writer: StoreWriter, conflict: ImportWorkflow.ConflictPolicy, collection: String?, photos: PhotoLibrary) throws {
        w = writer
        bulk = writer.bulkTrees()
        storedBefore = try bulk.largestRowID()
        self.conflict = conflict
        self.photos = photos
        if let collection {
            let existing = try? writer.reader.collection(named: collection)
            if let existing {
                forced = existing
            } else {
                let created = try writer.createCollection(named: collection)
                forced = created
                report.collectionsCreated.append(created.name)
            }
        } else {
            forced = nil
        }
    }

    mutating func add(_ c: ImportedCollection) throws {
        guard forced == nil else { return }
        try storeQueue()
        // As the store keeps names: " Orchard " is the stored "Orchard", not a second one.
        let name = c.name.trimmingCharacters(in: .whitespacesAndNewlines)
        if try w.reader.collection(id: c.id) != nil {
            collectionMap[c.id] = c.id
        } else if let existing = try? w.reader.collection(named: name) {
            collectionMap[c.id] = existing.id
        } else {
            do {
                try w.insert(TreeCollection(id: c.id, name: name, createdAt: c.createdAt ?? w.now, updatedAt: c.updatedAt))
            } catch let e as StoreError {
                throw Self.refusal(e, line: c.line)
            }
            collectionMap[c.id] = c.id
            report.collectionsCreated.append(name)
        }
        if let stored = collectionMap[c.id] {
            for var schedule in c.schedules {
                schedule.target = .collection(stored)
                try storeSchedule(schedule, line: c.line)
            }
        }
    }

    /// Keeps a stored tree's care log from the file: its schedules now, its events at the end.
    /// An event whose id is already stored is left as it is, so importing a file again adds nothing.
    /// A tree with photos taken for its events has its events stored at once, then the photos.
    private mutating func keepCare(of t: ImportedTree, treeID: UUID) throws {
        let events = t.care.events.map { e in
            var e = e
            e.treeID = treeID
            return e
        }
        if t.eventPhotos.isEmpty {
            careEvents += events
        } else {
            do {
                report.careEvents += try w.insert(careEvents: events, skippingExisting: true)
            } catch let e as StoreError {
                throw Self.refusal(e, line: t.line)
            }
            for (event, photo) in t.eventPhotos { try storePhoto(photo, treeID: treeID, careEvent: event, line: t.line) }
        }
        for var schedule in t.care.schedules {
            schedule.target = .tree(treeID)
            try storeSchedule(schedule, line: t.line)
        }
    }

    private func storeSchedule(_ schedule: CareSchedule, line: Int) throws {
        do { try w.setSchedule(schedule) } catch let e as StoreError { throw Self.refusal(e, line: line) }
    }

    /// The stored collection for a tree; `.none` when it must wait for a collection defined later.
    private mutating func collection(for t: ImportedTree) throws -> UUID?? {
        if let forced { return .some(forced.id) }
        if let cid = t.collectionID {
            if let mapped = collectionMap[cid] { return .some(mapped) }
            try storeQueue()
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
            ImportRefusal(line: line, reason: collectionNameProblem(name))
        case .unstorable(let reason): ImportRefusal(line: line, reason: "cannot store \(reason)")
        // The tree itself is unacceptable; a storage failure is not the file's fault and passes on.
        case .invalidTree(let problem): ImportRefusal(line: line, reason: problem)
        default: error
        }
    }

    /// Why the store refuses a collection name, and what to do.
    static func collectionNameProblem(_ name: String) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "the collection name is blank; leave it out for no collection" }
        if TreeCollection.meansNone(trimmed) {
            return "collection name \"\(trimmed)\" is reserved: 'none' means no collection; rename it"
        }
        let shown = String(trimmed.prefix(60)).replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if trimmed.contains(where: \.isNewline) { return "collection name \"\(shown)\" has a line break; a name is one line" }
        return "collection name \"\(shown)\" holds a NUL character; no name may hold one"
    }

    private mutating func named(_ given: String, id: UUID?, line: Int) throws -> UUID {
        // As the store keeps names: " Orchard" is the stored "Orchard", not a second one.
        let name = given.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = name.lowercased()
        if let known = namedCollections[key] { return known }
        try storeQueue()
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
            report.collectionsCreated.append(created.name)
            resolved = created.id
        }
        namedCollections[key] = resolved
        return resolved
    }

    /// Before the trees `range` of a batch are added one by one: asks the processor for the places
    /// in the duplicate index where each of them without an id will be looked up, so that their
    /// lookups find those in its cache. In a store of a million trees the index outgrows the caches,
    /// and the lookups, each waiting on memory in turn, took a tenth of the storing thread.
    func prepare(_ batch: [ImportItem], _ range: Range<Int>) {
        guard conflict != .newID, let index = positions, !rebuildPositions, !index.overflowed,
              index.slotCount >= PositionIndex.prefetchedFrom else { return }
        for i in range {
            guard case .tree(let t) = batch[i], t.id == nil else { continue }
            index.prefetch(latitude: t.coordinate.latitude, longitude: t.coordinate.longitude,
                           speciesHash: PositionIndex.speciesHash(t.species))
        }
    }

    mutating func add(_ t: ImportedTree) throws {
        if let old = t.unusableID {
            report.warnings.append(.init(line: t.line, reason: "id \"\(old)\" is not a UUID; the tree gets a new id"))
        }
        // White space as Unicode defines it; ASCII answered without a property lookup.
        guard t.species.unicodeScalars.contains(where: { $0.isASCII ? !($0 == " " || (0x09...0x0D).contains($0.value)) : !$0.properties.isWhitespace }) else {
            report.skipped.append(.init(line: t.line, reason: noSpecies))
            return
        }
        guard let resolved = try collection(for: t) else {
            waiting.append(t)
            return
        }
        try store(t, collectionID: resolved)
    }

    private mutating func store(_ t: ImportedTree, collectionID: UUID?) throws {
        if conflict == .skip, let given = t.id, t.photos.isEmpty, t.care.isEmpty {
            // The common case: insert unless the id is already stored, many trees a statement.
            do {
                queued.append(QueuedPosition(t))
                try count(try bulk.queueIfNew(t.tree(id: given, collectionID: collectionID, now: w.now)))
            } catch let e as StoreError {
                throw Self.refusal(e, line: t.line)
            }
            return
        }
        if t.id == nil, t.photos.isEmpty, t.care.isEmpty {
            // A surveyed tree: unless it is a duplicate, stored with the next trees in one statement,
            // under an id made here (which no stored tree has).
            let speciesHash = PositionIndex.speciesHash(t.species)
            if conflict != .newID, try samePlaceAndSpecies(t, speciesHash: speciesHash) {
                report.alreadyPresent += 1
                return
            }
            do {
                queued.append(QueuedPosition(t, speciesHash: speciesHash))
                try count(try bulk.queueIfNew(t.tree(id: ids.next(at: w.now), collectionID: collectionID, now: w.now)))
            } catch let e as StoreError {
                throw Self.refusal(e, line: t.line)
            }
            return
        }
        try storeQueue()
        if conflict == .skip, let given = t.id {
            // One statement: insert unless the id is already stored.
            let inserted: Bool
            do {
                inserted = try bulk.insertIfNew(t.tree(id: given, collectionID: collectionID, now: w.now))
            } catch let e as StoreError {
                throw Self.refusal(e, line: t.line)
            }
            guard inserted else {
                try notStored(id: given, line: t.line)
                return
            }
            report.imported += 1
            for photo in t.photos { try storePhoto(photo, treeID: given, line: t.line) }
            try keepCare(of: t, treeID: given)
            return
        }
        var id = t.id ?? ids.next(at: w.now)
        if let given = t.id, try bulk.exists(given) {
            switch conflict {
            case .skip:
                try notStored(id: given, line: t.line)
                return
            case .replace:
                // A tree this file stored already is not replaced by a later one of the file.
                if try storedByThisFile(given) {
                    try notStored(id: given, line: t.line)
                    return
                }
                do {
                    try bulk.upsert(t.tree(id: given, collectionID: collectionID, now: w.now))
                } catch let e as StoreError {
                    throw Self.refusal(e, line: t.line)
                }
                report.replaced += 1
                try keepCare(of: t, treeID: given)
                return
            case .newID:
                id = ids.next(at: w.now)
            }
        } else if t.id == nil, conflict != .newID, try samePlaceAndSpecies(t) {
            report.alreadyPresent += 1
            return
        }
        do {
            try bulk.insert(t.tree(id: id, collectionID: collectionID, now: w.now))
        } catch let e as StoreError {
            throw Self.refusal(e, line: t.line)
        }
        positions?.insert(latitude: t.coordinate.latitude, longitude: t.coordinate.longitude, species: t.species, rowID: bulk.lastRowID)
        report.imported += 1
        for photo in t.photos { try storePhoto(photo, treeID: id, line: t.line) }
        try keepCare(of: t, treeID: id)
    }

    /// Stores the trees queued in the bulk writer (and their version rows), which comes before
    /// anything else that reads or writes the store.
    private mutating func storeQueue() throws {
        // Failures here are the store's (the trees were checked when queued), not the file's.
        try count(try bulk.storeQueue())
    }

    /// Counts what the bulk writer says of its queue, and indexes the position of each tree it
    /// stored under its rowid.
    private mutating func count(_ outcomes: [Bool]) throws {
        guard !outcomes.isEmpty else { return }
        assert(outcomes.count == queued.count, "the queue and its positions go in step")
        var rowID = bulk.lastQueuedRowID - Int64(outcomes.lazy.filter { $0 }.count)
        for (inserted, position) in zip(outcomes, queued) {
            guard inserted else {
                if let id = position.id { try notStored(id: id, line: position.line) } else { report.alreadyPresent += 1 }
                continue
            }
            report.imported += 1
            rowID += 1
            // The hash is made only when there is an index (the arguments of an optional chain are
            // not evaluated without one).
            positions?.insert(latitude: position.latitude, longitude: position.longitude,
                              speciesHash: position.speciesHash ?? PositionIndex.speciesHash(position.species), rowID: rowID)
        }
        queued.removeAll(keepingCapacity: true)
        if let tables = positions?.tableCount, tables > Self.tablesBeforeRebuild { rebuildPositions = true }
    }

    /// Same species (ignoring case) within 1e-7° in latitude and longitude of a stored tree.
    ///
    /// An in-memory index of stored positions (built on the first tree without an id) names the
    /// few stored trees that may be one; each is confirmed by its rowid.
    private mutating func samePlaceAndSpecies(_ t: ImportedTree, speciesHash: UInt64? = nil) throws -> Bool {
        let (lat, lon) = (t.coordinate.latitude, t.coordinate.longitude)
        func same(_ la: Double, _ lo: Double, _ species: String) -> Bool {
            abs(la - lat) <= 1e-7 && abs(lo - lon) <= 1e-7 && Self.sameIgnoringASCIICase(species, t.species)
        }
        // Trees queued and not yet stored are neither in the store nor in the index.
        if queued.contains(where: { same($0.latitude, $0.longitude, $0.species) }) { return true }
        if positions == nil || rebuildPositions {
            // The index is read from the store: the queue goes first.
            try storeQueue()
            let first = positions == nil
            // Trees without ids get ids this import makes, which increase: the table and its
            // indexes grow at their right-hand edges alone, where SQLite's smallest cache serves as
            // well as a larger one (1,000,000 surveyed trees took no longer), and the index takes
            // the memory a large file's cache would have.
            if first, enlargedCache { try w.reserveBulkCache(megabytes: 2) }
            positions = nil  // the old index's memory goes before the new one takes its own
            rebuildPositions = false
            let stored = try w.reader.count()
            if first { storedBeforeIndex = stored }
            let total = storedBeforeIndex + expectedTrees
            var index = PositionIndex(capacity: first ? total : max(total, stored + stored / 2))
            index.expectedTotal = total
            try w.reader.forEachPosition { index.insert(latitude: $0, longitude: $1, species: $2, rowID: $3) }
            positions = index
        }
        guard let index = positions, !index.overflowed else {
            return try w.reader.trees(species: t.species, near: t.coordinate, within: 0.05).contains { same($0.latitude, $0.longitude, $0.species) }
        }
        index.candidates(latitude: lat, longitude: lon, speciesHash: speciesHash ?? PositionIndex.speciesHash(t.species), into: &candidateRows)
        for rowID in candidateRows {
            if let p = try w.reader.position(rowID: rowID), same(p.latitude, p.longitude, p.species) { return true }
        }
        return false
    }

    /// Equal but for the case of ASCII letters: SQLite's NOCASE, as every species query compares.
    static func sameIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        for (p, q) in zip(x, y) where p != q {
            let lp = p >= 65 && p <= 90 ? p + 32 : p, lq = q >= 65 && q <= 90 ? q + 32 : q
            if lp != lq { return false }
        }
        return true
    }

    mutating func finish() throws {
        try storeQueue()
        let late = waiting
        waiting = []
        // Trees of a collection neither the file nor the store has: stored without one, and each
        // such collection said once, with the lines of the trees that were stored (not those
        // already present).
        var missing: [(id: UUID, lines: [Int])] = []
        for t in late {
            if let cid = t.collectionID, let mapped = collectionMap[cid] {
                try store(t, collectionID: mapped)
                continue
            }
            let before = report.imported + report.replaced
            try store(t, collectionID: nil)
            try storeQueue()
            guard report.imported + report.replaced > before, let cid = t.collectionID else { continue }
            if let i = missing.firstIndex(where: { $0.id == cid }) { missing[i].lines.append(t.line) } else { missing.append((cid, [t.line])) }
        }
        try storeQueue()
        for (id, lines) in missing {
            report.warnings.append(.init(line: lines[0], reason: Self.missingCollection(id, lines: lines)))
        }
        if !careEvents.isEmpty {
            do {
                report.careEvents += try w.insert(careEvents: careEvents, skippingExisting: true)
            } catch let e as StoreError {
                throw Self.refusal(e, line: 0)
            }
            careEvents = []
        }
    }

    /// What happened to the trees of a collection that is neither in the file nor in the store.
    static func missingCollection(_ id: UUID, lines: [Int]) -> String {
        let shown = lines.prefix(5).map(String.init).joined(separator: ", ") + (lines.count > 5 ? ", …" : "")
        let trees = lines.count == 1 ? "the tree (line \(shown)) is" : "its \(lines.count) trees (lines \(shown)) are"
        return "collection \(id.uuidString) is neither in the file nor in the store; \(trees) imported without a collection; give its name in the file to create it"
    }

    /// Stores photo bytes under their SHA-256 (only the bytes: nothing from the file names the
    /// path). A photo the file gives no date (the Tree Tracker app's "") is dated as `photo add`
    /// dates it: by its EXIF DateTimeOriginal, else the time of the import.
    private mutating func storePhoto(_ photo: ImportedPhoto, treeID: UUID, careEvent: UUID? = nil, line: Int) throws {
        guard let staged = try photos.stage(bytes: photo.data, capturedAt: photo.capturedAt) else {
            report.warnings.append(.init(line: line, reason: "a photo is not JPEG, PNG or HEIC; skipped"))
            return
        }
        self.staged.append(staged)
        do {
            report.photos += try photos.attach(staged, to: treeID, careEvent: careEvent, in: w).added.count
        } catch let e as StoreError {
            throw Self.refusal(e, line: line)
        }
    }
}

/// A queued tree, as the index of positions keeps it.
private struct QueuedPosition {
    var latitude: Double
    var longitude: Double
    var species: String
    /// `PositionIndex.speciesHash(species)` when the duplicate check made it (a tree without an
    /// id); nil otherwise, and made only if the tree goes into an index.
    var speciesHash: UInt64?
    /// The id the file gave the tree, and its line: a tree not stored is told apart by them.
    var id: UUID?
    var line: Int

    init(_ t: ImportedTree, speciesHash: UInt64? = nil) {
        (latitude, longitude, species) = (t.coordinate.latitude, t.coordinate.longitude, t.species)
        self.speciesHash = speciesHash
        (id, line) = (t.id, t.line)
    }
}
