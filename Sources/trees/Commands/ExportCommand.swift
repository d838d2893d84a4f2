import ArgumentParser
import Foundation
import GIS
import Interchange
import TreesKit
import TreesStore
import TreesWorkflows

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export trees as GPX, collection JSON, CSV, GeoJSON, KML or GeoPackage.",
        discussion: """
            Without --out, or with --out naming a folder, the file is named \
            {prefix}_{yyyy-MM-dd_HHmmss}.{ext}: prefix 'trees', or the collection's name as a slug; \
            a name already taken gets _2, _3 … before the extension, so no file is replaced. \
            --out - writes to standard output. A file is written under a temporary name beside its \
            destination and renamed when complete, so no half-written export is ever left behind.

            A GeoPackage (--format gpkg) holds a 'trees' point layer with an R-tree spatial index \
            and every attribute as a column, and a 'collections' table; photos are copied into a \
            folder NAME_photos beside it, their relative paths in the 'photo' and 'photos' columns. \
            --crs EPSG:CODE writes its positions in that coordinate reference system (any PROJ \
            knows), --crs utm in the UTM zone of the trees' centre. A CSV with --crs has two more \
            columns after longitude: easting and northing in metres to the millimetre (x and y, \
            in degrees, for a geographic CRS).
            """
    )

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("gpx, json, csv, geojson, kml or gpkg.", valueName: "format"))
    var format: ExportFormat
    @Option(help: ArgumentHelp("Only the trees of this collection ('none': trees in no collection).", valueName: "name"))
    var collection: String?
    @Flag(help: "Embed photos (base64) in a JSON export.")
    var photos = false
    @Option(help: ArgumentHelp("A file, a folder, or - for standard output.", valueName: "path"))
    var out: String?
    @Option(name: .customLong("for"), help: ArgumentHelp(
        "With --format json: 'tree-tracker' writes exactly what the iOS Tree Tracker app reads (its keys, whole seconds, its accuracy meaning).",
        valueName: "app"))
    var forApp: ExportApp?
    @Option(help: ArgumentHelp(
        "With --for tree-tracker: the accuracy to write for trees without one (the app needs one), in metres; without it such trees refuse the export.",
        valueName: "m"))
    var unknownAccuracy: Double?
    @Option(help: ArgumentHelp(
        "With --format gpkg or csv: the coordinate reference system of the positions, EPSG:CODE or utm (the zone of the trees' centre); WGS 84 without it.",
        valueName: "crs"))
    var crs: String?

    @Flag(help: "With --format csv: export the care log instead, one row per event, newest first.")
    var care = false

    func validate() throws {
        if care && format != .csv { throw ValidationError("--care works with --format csv only") }
        if care, let collection, TreeCollection.meansNone(collection) {
            throw ValidationError("--care exports the care log of all trees or of one collection; 'none' is not one")
        }
        if photos && format != .json {
            throw ValidationError("--photos works with --format json only")
        }
        if crs != nil {
            if format == .geojson {
                throw ValidationError("--crs does not work with --format geojson: GeoJSON positions are WGS 84 longitude and latitude (RFC 7946); use --format gpkg")
            }
            guard format == .gpkg || format == .csv else { throw ValidationError("--crs works with --format gpkg or csv only") }
        }
        if format == .gpkg, out == "-" { throw ValidationError("a GeoPackage is a database file and cannot be written to standard output; give --out a file or a folder") }
        if forApp != nil, format != .json { throw ValidationError("--for tree-tracker works with --format json only") }
        if let unknownAccuracy {
            guard forApp != nil else { throw ValidationError("--unknown-accuracy works with --for tree-tracker only") }
            guard unknownAccuracy.isFinite, unknownAccuracy >= 0 else { throw ValidationError("--unknown-accuracy must be metres, 0 or more") }
        }
    }

    func run() async throws {
        let db = try store.open()
        let now = db.now()
        let workflow = ExportWorkflow(format: format, collection: collection, embedPhotos: photos,
                                      treeTracker: forApp == nil ? nil : TreeTrackerFlavour(unknownAccuracy: unknownAccuracy),
                                      creator: "trees \(Trees.configuration.version)", crs: crs.map(CRSChoice.init))
        if care {
            let destination = try OutputDestination.resolve(out, generatedName: Format.generatedName(collection.map { $0 + " care" } ?? "care",
                                                                                                       at: now, extension: "csv"))
            let events = try CareExportWorkflow(collection: collection).run(from: db, to: destination)
            if let path = destination.path { Output.line("Exported \(events) care event\(events == 1 ? "" : "s") to \(path)") }
            return
        }
        let prefix = collection.map { TreeCollection.meansNone($0) ? "no collection" : $0 }
        let destination = try OutputDestination.resolve(out, generatedName: Format.generatedName(prefix, at: now, extension: format.fileExtension))
        let report = try workflow.run(from: db, to: destination, at: now)
        for warning in report.warnings { StandardError.write("trees: warning: \(warning)\n") }
        if let path = destination.path {
            Output.line("Exported \(report.trees) tree\(report.trees == 1 ? "" : "s") to \(path)")
        }
    }
}

/// `--for`: the app an export is shaped for.
enum ExportApp: String, CaseIterable, ExpressibleByArgument {
    case treeTracker = "tree-tracker"
}
