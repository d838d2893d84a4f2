import Foundation
import GIS
import Interchange
import TreesKit
import TreesStore

/// Importing trees from a GPX, collection JSON or CSV file into a store, in one all-or-nothing
/// transaction: the file is read and parsed on its own thread while the transaction stores what
/// it has parsed so far; a malformed file or a value the store cannot hold rolls everything back,
/// photo files included.
public struct ImportWorkflow: Sendable {
    /// What to do when a tree's id is already stored.
    public enum ConflictPolicy: String, CaseIterable, Sendable {
        case skip, replace, newID = "new-id"
    }

    /// Points of a GPX file besides its waypoints that become trees.
    public enum GPXPart: String, CaseIterable, Sendable, Hashable {
        case routes, tracks
    }

    /// The format; nil to tell it from the name and the first bytes.
    public var format: FileFormat?
    /// Put every imported tree in this collection (created when missing).
    public var collection: String?
    /// Read and check everything, store nothing.
    public var dryRun = false
    public var conflict = ConflictPolicy.skip
    /// GPX without trees extensions: the field that holds the species.
    public var speciesSource = SpeciesSource.name
    public var gpxParts: Set<GPXPart> = []
    /// GeoPackage: the layer to read (nil for the first point layer).
    public var layer: String?
    /// GeoPackage: the column each field is read from where the default names do not fit.
    public var columnMap: [GeoPackageField: String] = [:]
    /// CSV: the CRS of the positions (`EPSG:27700`); nil for WGS 84 latitude and longitude.
    public var crs: String?
    /// CSV: the column each field is read from, by field name, where the default names do not fit.
    public var columnOverrides: [String: String] = [:]

    public init(format: FileFormat? = nil, collection: String? = nil, dryRun: Bool = false, conflict: ConflictPolicy = .skip,
                speciesSource: SpeciesSource = .name, gpxParts: Set<GPXPart> = []) {
        self.format = format
        self.collection = collection
        self.dryRun = dryRun
        self.conflict = conflict
        self.speciesSource = speciesSource
        self.gpxParts = gpxParts
    }

    /// What an import did (or, in a dry run, would do).
    public struct Report: Sendable, Equatable {
        /// A line of the file and what happened to it.
        public struct Item: Sendable, Equatable {
            public var line: Int
            public var reason: String
            public init(line: Int, reason: String) { self.line = line; self.reason = reason }
        }

        public var file: String
        public var format: FileFormat
        public var dryRun: Bool
        public var imported = 0
        /// Trees whose id the store held before the import.
        public var alreadyPresent = 0
        /// Trees whose id an earlier tree of the same file gave: the first of each is kept.
        public var repeatedInFile = 0
        public var replaced = 0
        public var photos = 0
        /// Records left out (no coordinates, no species), the rest was imported.
        public var skipped: [Item] = []
        /// Values left out or changed (an unreadable time, an id that is not a UUID).
        public var warnings: [Item] = []
        public var collectionsCreated: [String] = []
        /// How the file was read, when it is worth saying (a CSV's separator, decimal commas, CRS).
        public var detected: String?
        /// Care events stored (collection JSON); events already in the store are not counted.
        public var careEvents = 0
    }

    /// Imports `input` into the store `opening` opens (called while the file is already being
    /// parsed; its errors are passed on as they are); `progress` gets the fraction of the file read
    /// so far. Fails with a `WorkflowError`.
    ///
    /// A store `opening` makes unseen (`TreeStore.init(…unseenWhenNew: true)`) is given its name once
    /// the import has stored its trees (none, for a file that holds none). An import that fails
    /// (a malformed file, a full disk) or only looks (`dryRun`) leaves no store where there was
    /// none. When another process made a store of that name meanwhile, the file is read again into
    /// that one.
    ///
    /// A GeoJSON file whose `crs` comes after its features is read a second time, carried from
    /// that CRS from its first feature (the first reading's transaction rolled back); from standard
    /// input or a pipe, which cannot be read again, it is refused.
    public func run(_ input: InputFile, opening: () throws -> TreeStore,
                    progress: @escaping @Sendable (Double) -> Void = { _ in }) throws -> Report {
        var input = input
        var late: GeoJSONReader.LateCRS?
        let outcome = try GeoJSONReader.readingAgainAfterLateCRS { crs in
            if let crs { (input, late) = (try input.reopened(after: crs), crs) }
            return try runOnce(input, lateCRS: late, opening: opening, progress: progress)
        }
        switch outcome {
        case .done(let report): return report
        case .storeMadeMeanwhile(let path):
            let again = input.canBeReadAgain ? try InputFile(input.path) : nil
            if let again, case .done(let report) = try runOnce(again, lateCRS: late, opening: opening, progress: progress) { return report }
            throw WorkflowError.storeMadeMeanwhile(store: path, file: input.displayName)
        }
    }

    private enum Outcome {
        case done(Report)
        /// The import went into a store made unseen, and another process made one of its name meanwhile.
        case storeMadeMeanwhile(path: String)
    }

    private func runOnce(_ input: InputFile, lateCRS: GeoJSONReader.LateCRS?, opening: () throws -> TreeStore,
                         progress: @escaping @Sendable (Double) -> Void) throws -> Outcome {
        let format = try self.format ?? input.detectedFormat()
        if format == .nmea { throw WorkflowError.positionsNotTrees(file: input.displayName, path: input.path) }
        if format != .csv, crs != nil || !columnOverrides.isEmpty {
            throw WorkflowError.optionNotForFormat(option: crs != nil ? "--crs" : "--columns", format: format.rawValue.uppercased(), applies: "CSV")
        }
        if format != .gpkg, layer != nil {
            throw WorkflowError.optionNotForFormat(option: "--layer", format: format.rawValue.uppercased(), applies: "GeoPackage")
        }
        if format != .gpkg, format != .geojson, !columnMap.isEmpty {
            throw WorkflowError.optionNotForFormat(option: "--map", format: format.rawValue.uppercased(), applies: "GeoPackage and GeoJSON")
        }
        let pipeline = ImportPipeline()
        let reading = DispatchSemaphore(value: 0)
        let job = ImportReadJob(input: input, format: format, speciesSource: speciesSource, parts: gpxParts, progress: progress)
        job.layer = layer
        job.columnMap = columnMap
        job.crs = crs
        job.columnOverrides = columnOverrides
        job.lateCRS = lateCRS
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
        let store = try opening()
        // Ctrl-C while a store made unseen is filled leaves no file of it behind.
        if let unseen = store.unseenPath { InterruptCleanup.arm(unseen, companions: ["-wal", "-shm"], folders: store.madeFolders) }
        defer { if store.unseenPath != nil { InterruptCleanup.disarm() } }
        let result = Result<Report, any Error> { try importing(into: store, input: input, format: format, pipeline: pipeline) }
        let failed = if case .failure = result { true } else { false }
        if store.unseenPath != nil && (dryRun || failed) {
            // Nothing was stored: not even the empty store the file was read against is kept.
            store.discardUnseen()
        } else if store.unseenPath != nil {
            let published: Bool
            do {
                published = try store.publish()
            } catch {
                if case .failure(let failure) = result { throw failure }
                throw Self.mapped(error, input: input)
            }
            if !published, case .success = result { return .storeMadeMeanwhile(path: store.path) }
        }
        return .done(try result.get())
    }

    /// Stores what `pipeline` brings in one transaction.
    private func importing(into store: TreeStore, input: InputFile, format: FileFormat, pipeline: ImportPipeline) throws -> Report {
        var report = Report(file: input.displayName, format: format, dryRun: dryRun)
        var staged: [PhotoLibrary.StagedPhotos] = []
        do {
            do {
                // A small file into a new store is written straight into the store's file (see
                // `TreeStore.write`): the WAL would have every page written twice.
                try store.write(bulk: true, direct: (input.size ?? .max) <= 16 << 20) { w in
                    // A large file's trees with ids made at random (the Tree Tracker app's) land all
                    // over the id index, which at a million trees (48 MB) outgrows any cache an
                    // import may keep: each page missed is read back and written out again. Into a
                    // new store, a million such trees took 1.24× the time per tree of 100,000 with
                    // 8 MB of cache, 1.13× with 12 MB (peak 43 MB) and about 1.1× with 16 MB (peak
                    // 49 MB, too near the 50 MB an import keeps under). Ids that increase (those
                    // trees and this import make) need only the right-hand edges; `TreeImporter`
                    // gives the memory back then.
                    let large = (input.size ?? 0) > 16 << 20
                    if large { try w.reserveBulkCache(megabytes: StoreWriter.largeImportCacheMegabytes) }
                    var importer = try TreeImporter(writer: w, conflict: conflict, collection: collection, photos: store.photoLibrary)
                    importer.enlargedCache = large
                    importer.noSpecies = Self.noSpecies(format)
                    // A surveyed tree takes 150 to 700 bytes of GPX, JSON or CSV: the index is sized for
                    // the smaller figure's count and adds a table if a file holds more.
                    importer.expectedTrees = Int((input.size ?? 0) / 250)
                    defer { staged = importer.staged }
                    while var batch = try pipeline.next() {
                        for i in batch.indices {
                            // A statement's worth of trees at a time (see `TreeImporter.prepare`).
                            let chunk = BulkTreeWriter.chunkSize
                            if i % chunk == 0 { importer.prepare(batch, i..<min(i + chunk, batch.count)) }
                            // Taken out of the batch (swapped for an item with nothing in it), not
                            // copied: a copy of a tree retained every text in it.
                            var item = ImportItem.expected(trees: 0)
                            swap(&item, &batch[i])
                            switch consume item {
                            case .tree(let t): try importer.add(t)
                            case .collection(let c): try importer.add(c)
                            case .skipped(let line, let reason): importer.report.skipped.append(.init(line: line, reason: reason))
                            case .warning(let line, let reason): importer.report.warnings.append(.init(line: line, reason: reason))
                            case .detected(let how): importer.report.detected = how
                            case .projecting:
                                // PROJ's 13 MB come out of the cache, so the import still peaks
                                // under 50 MB: 1 MiB serves ids that increase (a survey's, ours)
                                // as well as 12; ids made at random then cost a page read more often.
                                // (Not the importer's 2 MiB for trees without ids either.)
                                try w.reserveBulkCache(megabytes: 1)
                                importer.enlargedCache = false
                            case .expected(let trees): importer.expect(trees: trees)
                            }
                        }
                    }
                    try importer.finish()
                    let (file, dry) = (report.file, report.dryRun)
                    report = importer.report
                    (report.file, report.format, report.dryRun) = (file, format, dry)
                    if dryRun { throw DryRunRollback() }
                }
            } catch is DryRunRollback {
                for s in staged { store.photoLibrary.discard(s, store: store) }
                return report
            } catch {
                for s in staged { store.photoLibrary.discard(s, store: store) }
                throw error
            }
        } catch {
            throw Self.mapped(error, input: input)
        }
        return report
    }

    /// Why a tree without a species is skipped, and where its species may be, by format.
    static func noSpecies(_ format: FileFormat) -> String { format.noSpeciesReason }

    struct DryRunRollback: Error {}

    static func mapped(_ error: any Error, input: InputFile) -> any Error {
        switch error {
        case let e as InterchangeError: input.failure(e)
        case let e as ImportRefusal: WorkflowError.malformed(file: input.displayName, line: e.line, reason: e.reason)
        case let e as GISError: WorkflowError.gis(e)
        case StoreError.photo(let p): WorkflowError.photo(p)
        case let e as StoreError:
            if case .storage = e { WorkflowError.store(e, nothingStored: true) } else { WorkflowError.store(e, nothingStored: false) }
        default: error
        }
    }
}

/// A tree the importer refuses outright (the whole file is refused).
struct ImportRefusal: Error {
    var line: Int
    var reason: String
}
