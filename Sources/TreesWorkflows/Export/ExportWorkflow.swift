import Foundation
import GIS
import Interchange
import TreesKit
import TreesStore

/// Exporting a store's trees (all, or one collection's) as GPX, collection JSON, CSV, GeoJSON,
/// KML or GeoPackage, streamed tree by tree into an `OutputFile`: a file appears under its name
/// only when complete.
public struct ExportWorkflow: Sendable {
    public var format: ExportFormat
    /// Only the trees of the collection of this name.
    public var collection: String?
    /// Embed the photos' bytes (collection JSON).
    public var embedPhotos = false
    /// Write what the Tree Tracker app reads (collection JSON).
    public var treeTracker: TreeTrackerFlavour?
    /// The `creator` a GPX file names.
    public var creator: String
    /// The coordinate reference system of a GeoPackage's layer; nil for WGS 84.
    public var crs: CRSChoice?

    public init(format: ExportFormat, collection: String? = nil, embedPhotos: Bool = false,
                treeTracker: TreeTrackerFlavour? = nil, creator: String, crs: CRSChoice? = nil) {
        self.format = format
        self.crs = crs
        self.collection = collection
        self.embedPhotos = embedPhotos
        self.treeTracker = treeTracker
        self.creator = creator
    }

    /// What an export wrote.
    public struct Report: Sendable, Equatable {
        public var destination: OutputDestination
        public var trees: Int
        /// What the file could not carry as it was (characters XML cannot hold), one line each.
        public var warnings: [String] = []
    }

    /// Writes the export to `destination`. Fails with a `WorkflowError` (nothing is left at a
    /// file destination then).
    public func run(from store: TreeStore, to destination: OutputDestination, at now: Date) throws -> Report {
        do {
            if format == .gpkg { return try writeGeoPackage(from: store, to: destination) }
            return try write(from: store, to: destination, at: now)
        } catch let e as StoreError {
            throw WorkflowError.store(e, nothingStored: false)
        } catch let e as GISError {
            throw WorkflowError.gis(e)
        }
    }

    /// A GeoPackage is an SQLite database: built in the output's temporary file, then renamed.
    /// Photos are copied into a folder beside it (`NAME_photos/`), named by their SHA-256, and
    /// the layer holds their paths relative to the GeoPackage.
    private func writeGeoPackage(from store: TreeStore, to destination: OutputDestination) throws -> Report {
        guard destination.path != nil else { throw WorkflowError.notAStream(format: "a GeoPackage") }
        let output = try OutputFile(destination, protecting: store.files)
        guard let build = output.buildPath, let finalPath = output.destinationPath else {
            output.abandon()
            throw WorkflowError.cannotCreate(path: destination.displayName, reason: "a GeoPackage must be a regular file")
        }
        let file = URL(fileURLWithPath: finalPath)
        let photoFolderName = file.deletingPathExtension().lastPathComponent + "_photos"
        let photoFolder = file.deletingLastPathComponent().appendingPathComponent(photoFolderName).path
        var copied: [String] = []
        var createdFolder = false
        var written = 0
        do {
            try store.read { r in
                let (filter, _) = try filter(r)
                // With --collection, the collections table holds that one collection, as a JSON export does.
                let collections = try r.collections().map(\.collection).filter { c in
                    if case .collection(let id) = filter.collection { return c.id == id }
                    return true
                }
                var projection: Projection?
                if let crs { projection = try Projection(crs.code(centre: try centre(r, filter))) }
                let writer = try GeoPackageWriter(path: build, name: destination.displayName, projection: projection, collections: collections)
                let withPhotos = try r.treeIDsWithPhotos()
                try r.forEachTree(filter) { tree in
                    var paths: [String] = []
                    if withPhotos.contains(tree.id) {
                        for p in try r.photos(of: tree.id) {
                            let name = "\(p.sha256).\(p.format)"
                            let target = photoFolder + "/" + name
                            if !FileManager.default.fileExists(atPath: target) {
                                if !createdFolder && !FileManager.default.fileExists(atPath: photoFolder) {
                                    do { try FileManager.default.createDirectory(atPath: photoFolder, withIntermediateDirectories: false) }
                                    catch { throw WorkflowError.cannotCreate(path: photoFolder, reason: "the photo folder cannot be made") }
                                    createdFolder = true
                                }
                                let source = store.photoLibrary.path(of: p)
                                guard FileManager.default.fileExists(atPath: source) else {
                                    throw WorkflowError.photoMissing(path: source, tree: tree.shortID)
                                }
                                do { try FileManager.default.copyItem(atPath: source, toPath: target) }
                                catch { throw WorkflowError.cannotCreate(path: target, reason: "the photo cannot be copied") }
                                copied.append(target)
                            }
                            paths.append(photoFolderName + "/" + name)
                        }
                    }
                    try writer.write(tree, photoPaths: paths)
                }
                try writer.finish()
                written = writer.count
            }
            try output.commit()
        } catch {
            output.abandon()
            for path in copied { unlink(path) }
            if createdFolder { rmdir(photoFolder) }
            throw error
        }
        return Report(destination: destination, trees: written)
    }

    /// The centre of the trees' extent, for `--crs utm` (another pass over the trees); (0, 0) otherwise.
    private func centre(_ r: StoreReader, _ filter: TreeFilter) throws -> Coordinate {
        guard crs == .utmOfCentre else { return Coordinate(latitude: 0, longitude: 0) }
        var bounds: GeoBounds?
        try r.forEachTree(filter) { t in
            if bounds == nil { bounds = GeoBounds(t.coordinate) } else { bounds?.include(t.coordinate) }
        }
        guard let b = bounds else { return Coordinate(latitude: 0, longitude: 0) }
        return Coordinate(latitude: (b.minLatitude + b.maxLatitude) / 2, longitude: (b.minLongitude + b.maxLongitude) / 2)
    }

    private func filter(_ r: StoreReader) throws -> (TreeFilter, name: String?) {
        var filter = TreeFilter()
        guard let collection else { return (filter, nil) }
        // `none` chooses the trees in no collection, as `list` does.
        if TreeCollection.meansNone(collection) {
            filter.collection = .unassigned
            return (filter, nil)
        }
        let c = try r.collection(named: collection)
        filter.collection = .collection(c.id)
        return (filter, c.name)
    }

    private func write(from store: TreeStore, to destination: OutputDestination, at now: Date) throws -> Report {
        if let treeTracker, treeTracker.unknownAccuracy == nil {
            // The app refuses a whole file with one tree without an accuracy: say which, before writing.
            let (count, examples) = try store.read { r in
                var names: [String] = []
                var count = 0
                try r.forEachTree(try filter(r).0) { t in
                    guard t.horizontalAccuracy == nil else { return }
                    count += 1
                    if names.count < 5 { names.append("\(t.shortID) (\(t.species))") }
                }
                return (count, names)
            }
            if count > 0 { throw WorkflowError.accuracyMissing(count: count, examples: examples) }
        }
        var written = 0
        var warnings: [String] = []
        var sinkError: WorkflowError?
        let output = try OutputFile(destination, protecting: store.files)
        do {
            try store.read { r in
                let (filter, name) = try filter(r)
                let collections = try r.collections().map(\.collection)
                let listed = filter.collection == .any ? collections : collections.filter { c in
                    if case .collection(let id) = filter.collection { return c.id == id }
                    return false
                }
                var context = ExportContext(collections: listed, exportedAt: now, name: name, creator: creator)
                // GPX needs its bounds before the waypoints: a file gets them patched in afterwards
                // (one pass over the trees); standard output takes a first pass to compute them.
                let patchBounds = format == .gpx && output.isSeekable
                if format == .gpx && !patchBounds {
                    var bounds: GeoBounds?
                    try r.forEachTree(filter) { t in
                        if bounds == nil { bounds = GeoBounds(t.coordinate) } else { bounds?.include(t.coordinate) }
                    }
                    context.bounds = bounds
                }
                context.reserveBounds = patchBounds
                context.treeTracker = treeTracker
                // Our collection JSON carries the care log: collections' schedules here, trees' own with each tree.
                let withCare = try (format == .json || format == .gpx) && treeTracker == nil && r.hasCareLog()
                if withCare {
                    for c in listed { context.collectionSchedules[c.id] = try r.careSchedules(for: .collection(c.id)) }
                }
                let sink: ByteOutput.Sink = { bytes in
                    do throws(WorkflowError) { try output.write(bytes) } catch { sinkError = error; throw error }
                }
                var writer = makeTreeWriter(format, context: context, sink: sink)
                if format == .csv, let crs {
                    let projection = try Projection(crs.code(centre: try centre(r, filter)))
                    let target = projection.target
                    let name = target.code ?? target.name
                    var csv = CSVWriter(context: context, sink: sink)
                    csv.grid = (names: target.isGeographic ? ("x", "y") : ("easting", "northing"), places: target.isGeographic ? 9 : 3,
                                position: { c in
                                    guard let p = projection.project(c) else {
                                        throw GISError.cannotTransform(crs: name, what: "\(c.latitude), \(c.longitude)")
                                    }
                                    return p
                                })
                    writer = csv
                }
                let withPhotos = format == .gpx ? [] : try r.treeIDsWithPhotos()
                var bounds: GeoBounds?
                // The trees are read here and written by a thread of their own, a batch at a time:
                // reading the store and making the text take about as long as each other.
                let queue = BatchQueue<ExportItem>()
                let writing = WritingJob(writer: writer)
                let finished = DispatchSemaphore(value: 0)
                let thread = Thread {
                    writing.run(queue)
                    finished.signal()
                }
                thread.stackSize = 8 << 20
                thread.start()
                do {
                    var batch: [ExportItem] = []
                    batch.reserveCapacity(BatchQueue<ExportItem>.batchSize)
                    try r.forEachTree(filter) { tree in
                        var list: [ExportPhoto] = []
                        if !withPhotos.isEmpty, withPhotos.contains(tree.id) {
                            for p in try r.photos(of: tree.id) {
                                var data: [UInt8]?
                                if embedPhotos {
                                    let path = store.photoLibrary.path(of: p)
                                    guard let bytes = FileManager.default.contents(atPath: path) else {
                                        throw WorkflowError.photoMissing(path: path, tree: tree.shortID)
                                    }
                                    data = [UInt8](bytes)
                                }
                                list.append(ExportPhoto(capturedAt: p.capturedAt, data: data, careEventID: p.careEventID))
                            }
                        }
                        if patchBounds {
                            if bounds == nil { bounds = GeoBounds(tree.coordinate) } else { bounds?.include(tree.coordinate) }
                        }
                        var care: TreeCare?
                        if withCare {
                            // Oldest first, as the log was kept.
                            let events = try r.careEntries(CareFilter(scope: .tree(tree.id))).map(\.event).reversed()
                            care = TreeCare(events: Array(events), schedules: try r.careSchedules(for: .tree(tree.id)))
                        }
                        batch.append(ExportItem(tree: consume tree, photos: list, care: care))
                        written += 1
                        if batch.count == BatchQueue<ExportItem>.batchSize {
                            guard queue.put(batch) else { throw BatchQueue<ExportItem>.Cancelled() }
                            batch.removeAll(keepingCapacity: true)
                        }
                    }
                    if !batch.isEmpty { _ = queue.put(batch) }
                    queue.finish(nil)
                } catch {
                    queue.finish(error)
                    finished.wait()
                    // The writer's failure (a full disk) is what stopped the reading.
                    throw writing.failure ?? error
                }
                finished.wait()
                if let failure = writing.failure { throw failure }
                warnings = writing.writer.warnings
                if patchBounds, let placeholder = (writing.writer as? GPXWriter)?.boundsPlaceholder {
                    try output.patch(at: placeholder.lowerBound, GPXWriter.boundsPatch(bounds))
                }
            }
            try output.commit()
        } catch {
            output.abandon()
            throw sinkError ?? error
        }
        return Report(destination: destination, trees: written, warnings: warnings)
    }
}

/// One tree for the writer, with its photos and (for formats that carry it) its care log.
struct ExportItem: Sendable {
    var tree: Tree
    var photos: [ExportPhoto]
    var care: TreeCare?
}

/// Writes the trees an export reads, on a thread of its own; the writer is used by that thread
/// alone until `run` returns.
final class WritingJob: @unchecked Sendable {
    private(set) var writer: any TreeWriter
    /// Why the writing stopped, if it failed.
    private(set) var failure: (any Error)?

    init(writer: any TreeWriter) { self.writer = writer }

    func run(_ queue: BatchQueue<ExportItem>) {
        do {
            try writer.begin()
            while let batch = try queue.next() {
                // Each item is read where the batch holds it: a `for` over the batch copied every
                // item out first. (The call through `any TreeWriter` still copies each tree once.)
                try batch.withUnsafeBufferPointer { items in
                    for i in items.indices {
                        if let care = items[i].care {
                            try writer.write(items[i].tree, photos: items[i].photos, care: care)
                        } else {
                            try writer.write(items[i].tree, photos: items[i].photos)
                        }
                    }
                }
            }
            try writer.finish()
        } catch {
            failure = error
            queue.cancel()
        }
    }
}
