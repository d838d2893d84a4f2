import ArgumentParser
import Foundation
import GIS
import Interchange
import TreesWorkflows

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import trees from GPX, collection JSON, CSV, GeoPackage or GeoJSON, in one all-or-nothing transaction.",
        discussion: """
            Re-importing a file adds nothing: a tree whose id is already stored is 'already present' \
            (see --on-conflict), and so is a tree without an id at the same position (within 1e-7°) \
            with the same species. A tree whose id an earlier tree of the same file gave is 'repeated in the file': \
            the first is kept, and a warning names the first such line. A malformed file is refused with FILE:LINE: reason and the store \
            is left unchanged. GPX waypoints become trees; --include adds route and track points. \
            A store that does not exist yet is built beside its path under a name of its own and put \
            in place when the import ends (empty when the file is refused); a dry run or Ctrl-C \
            leaves no file.

            A GeoPackage's first point layer (or --layer NAME) becomes trees, its positions carried \
            from the CRS the file declares to WGS 84 through PROJ. Columns are taken by name \
            (species or spp or name, variety or cultivar, rootstock, notes or comment or desc, \
            collection, horizontalAccuracy or accuracy, altitude or ele, createdAt or date, fixTime \
            or time, and the other columns trees writes); --map species=Spp,notes=Remarks names \
            others. A row that cannot be read is refused as FILE: layer L, row FID: reason.

            A GeoJSON FeatureCollection (or one Feature): each Point feature becomes a tree, its \
            properties taken by name as a GeoPackage's columns are (and --map), its id the id \
            property or the feature's id when that is a UUID, a third coordinate its altitude; a \
            GeoJSON export of trees reads back whole; a MultiPoint of one point is that point. \
            Features without geometry, lines, areas and multi-points of several points are not \
            trees and are reported skipped. A legacy "crs" member (as GDAL \
            writes it) naming another CRS than WGS 84 is carried to WGS 84 through PROJ; a file \
            with it after the features is read twice (not from standard input or a pipe).

            A surveyor's CSV: the separator (',', ';' or tab) is told from the header line, and with \
            ';' or tab numbers may have a decimal comma; a first line sep=; (as Excel writes it) \
            names the separator; what was detected is said on standard error. Where a header has \
            both a field's own name and an alias of it (latitude and lat), the own name is read and \
            the other column is named in a warning. The file must be UTF-8: text in another \
            encoding is refused with its line. Negative satellites, HDOP or epochs refuse the file; \
            a negative accuracy is stored as none, with one warning. --crs EPSG:27700 reads easting and northing columns (easting, east, E, x; \
            northing, north, N, y) in that CRS and refuses a row outside the CRS's area of use. \
            --columns species=Spp,easting=East,… names the column of a field outright.
            """
    )

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The file to import (- for standard input).", valueName: "file"))
    var file: String
    @Option(help: ArgumentHelp("gpx, json, csv, gpkg or geojson (default: from the content and the name).", valueName: "format"))
    var format: FileFormat?
    @Option(help: ArgumentHelp("Put every imported tree in this collection (created when missing).", valueName: "name"))
    var collection: String?
    @Flag(help: "Read and check everything, report what would happen, store nothing.")
    var dryRun = false
    @Option(help: ArgumentHelp("When a tree's id is already stored: skip (default), replace, or new-id.", valueName: "policy"))
    var onConflict = ImportWorkflow.ConflictPolicy.skip
    @Option(help: ArgumentHelp("GPX without trees extensions: take the species from name (default), type, desc or cmt.", valueName: "field"))
    var speciesFrom = SpeciesSource.name
    @Option(help: ArgumentHelp("GPX: also import points of routes, tracks or both (routes,tracks).", valueName: "list"))
    var include = GPXParts()
    @Option(help: ArgumentHelp("GeoPackage: the layer to import (default: the first point layer).", valueName: "name"))
    var layer: String?
    @Option(help: ArgumentHelp("GeoPackage and GeoJSON: the column or property of each field, as field=name,… (fields: \(GeoPackageField.allCases.map { $0.rawValue }.joined(separator: ", "))).", valueName: "list"))
    var map: ColumnMap?
    @Option(help: ArgumentHelp("CSV: the coordinate reference system of the positions, EPSG:CODE (default: WGS 84 latitude and longitude).", valueName: "crs"))
    var crs: String?
    @Option(help: ArgumentHelp("CSV: the column of each field, as field=column,… (species=Spp,easting=East,northing=North).", valueName: "list"))
    var columns: CSVColumnOverrides?
    @Flag(help: "Print the summary as JSON.") var json = false

    func validate() throws {
        if let crs, crs.lowercased() == "utm" {
            throw ValidationError("--crs utm names no zone when importing; give the zone's code, e.g. EPSG:32630 for UTM zone 30N")
        }
        if crs != nil || columns != nil, let format, format != .csv {
            throw ValidationError("--crs and --columns work with CSV files only")
        }
        if layer != nil, let format, format != .gpkg {
            throw ValidationError("--layer works with GeoPackage files only")
        }
        if map != nil, let format, format != .gpkg, format != .geojson {
            throw ValidationError("--map works with GeoPackage and GeoJSON files only")
        }
    }

    func run() async throws {
        let input = try InputFile(file)
        var workflow = ImportWorkflow(format: format, collection: collection, dryRun: dryRun, conflict: onConflict,
                                      speciesSource: speciesFrom, gpxParts: include.parts)
        workflow.layer = layer
        workflow.columnMap = map?.fields ?? [:]
        workflow.crs = crs
        workflow.columnOverrides = columns?.fields ?? [:]
        let progress = ProgressLine(name: input.displayName, enabled: isatty(STDERR_FILENO) == 1 && (input.size ?? 0) > 8 << 20)
        defer { progress.clear() }
        let report = try workflow.run(input, opening: { try store.open(unseenWhenNew: true, creating: true) }, progress: progress.update)
        progress.clear()
        if let how = report.detected { StandardError.write("trees: \(input.displayName): read with \(how)\n") }
        if json {
            Output.json(report.json(file: file))
        } else {
            Output.human(report.text)
        }
    }
}

/// `--map species=Spp,notes=Remarks`: the GeoPackage column or GeoJSON property each field is read from.
struct ColumnMap: ExpressibleByArgument {
    var fields: [GeoPackageField: String] = [:]

    init?(argument: String) {
        for pair in argument.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[1].isEmpty,
                  let field = GeoPackageField.allCases.first(where: { $0.rawValue.lowercased() == parts[0].lowercased() })
            else { return nil }
            fields[field] = parts[1]
        }
        if fields.isEmpty { return nil }
    }
}

/// `--columns species=Spp,easting=East`: the CSV column each field is read from.
struct CSVColumnOverrides: ExpressibleByArgument {
    var fields: [String: String] = [:]

    init?(argument: String) {
        for pair in argument.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
            fields[parts[0]] = parts[1]
        }
        if fields.isEmpty { return nil }
    }
}
