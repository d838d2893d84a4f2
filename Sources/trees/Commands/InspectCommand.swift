import ArgumentParser
import Foundation
import GIS
import Interchange
import TreesKit
import TreesWorkflows

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Summarise a GPX, collection JSON, GeoJSON, CSV, NMEA or GeoPackage file without importing it.",
        discussion: "GPX: counts of waypoints, routes, route points, tracks, segments and track points, bounds, time span, creator and extension namespaces. GeoPackage: each layer with its geometry type, CRS, row count and extent (in the layer's CRS)."
    )

    @Argument(help: ArgumentHelp("The file to inspect (- for standard input).", valueName: "file"))
    var file: String
    @Option(help: ArgumentHelp("gpx, json, csv, nmea or gpkg (default: from the content and the name).", valueName: "format"))
    var format: FileFormat?
    @Option(help: ArgumentHelp("CSV: the coordinate reference system of easting and northing columns, EPSG:CODE.", valueName: "crs"))
    var crs: String?
    @Flag(help: "Print the summary as JSON.") var json = false

    func run() async throws {
        var input = try InputFile(file)
        let fmt = try format ?? input.detectedFormat()
        if fmt == .gpkg { return try inspectGeoPackage(input) }
        if crs != nil, fmt != .csv {
            throw WorkflowError.optionNotForFormat(option: "--crs", format: fmt.rawValue.uppercased(), applies: "CSV")
        }
        // A GeoJSON's crs after its features: read again (a file, not a stream), carried from it from the start.
        let report = try GeoJSONReader.readingAgainAfterLateCRS { late in
            if let late { input = try input.reopened(after: late) }
            var inspector = Inspector(format: fmt, projection: { crs in try CSVGrid(crs).transform }, lateCRS: late)
            if let crs { inspector.csvTransform = try CSVGrid(crs).transform }
            do {
                try input.forEachChunk { try inspector.feed($0) }
                return try inspector.finish()
            } catch let e as InterchangeError {
                throw input.failure(e)
            }
        }
        if json {
            Output.json(Self.json(report, file: file))
        } else {
            Output.human(Self.text(report, file: file))
        }
    }

    private func inspectGeoPackage(_ input: InputFile) throws {
        guard input.path != "-" else { throw WorkflowError.notAStream(format: "a GeoPackage", reading: true) }
        let layers: [GeoPackageLayer]
        do {
            layers = try GeoPackageReader(path: input.path, name: input.displayName).layers()
        } catch {
            throw WorkflowError.gis(error)
        }
        if json {
            Output.json(.object([
                ("file", .string(file)), ("format", .string("gpkg")),
                ("layers", .array(layers.map { l in
                    .object([
                        ("name", .string(l.name)), ("dataType", .string(l.dataType)), ("geometryType", .optional(l.geometryType)),
                        ("crs", .optional(l.crs)), ("rows", .int(l.rows)),
                        ("extent", l.extent.map { e in
                            .object([("minX", .number(e.minX)), ("minY", .number(e.minY)), ("maxX", .number(e.maxX)), ("maxY", .number(e.maxY))])
                        } ?? .null),
                    ])
                })),
            ]))
            return
        }
        var text = "\(file): GeoPackage, \(layers.count) layer\(layers.count == 1 ? "" : "s")\n"
        for l in layers {
            text += "  \(l.name): \(l.geometryType.map { $0.lowercased() } ?? l.dataType), \(l.rows) row\(l.rows == 1 ? "" : "s")"
            if let crs = l.crs { text += ", \(crs)" }
            text += "\n"
            if let e = l.extent {
                func f(_ v: Double) -> String { String(format: "%.6f", v) }
                text += "    extent \(f(e.minX)), \(f(e.minY)) … \(f(e.maxX)), \(f(e.maxY))\n"
            }
        }
        Output.human(text)
    }

    static func json(_ r: InspectionReport, file: String) -> JSON {
        var pairs: [(String, JSON)] = [("file", .string(file)), ("format", .string(r.format.rawValue))]
        if let g = r.gpx {
            pairs.append(("version", .string(g.metadata.version.rawValue)))
            pairs.append(("creator", .optional(g.metadata.creator)))
            pairs.append(("name", .optional(g.metadata.name)))
            pairs.append(("time", .optional(g.metadata.time)))
            pairs.append(("counts", .object([
                ("waypoints", .int(g.waypoints)), ("routes", .int(g.routes)), ("routePoints", .int(g.routePoints)),
                ("tracks", .int(g.tracks)), ("trackSegments", .int(g.trackSegments)), ("trackPoints", .int(g.trackPoints)),
            ])))
            pairs.append(("extensionNamespaces", .array(g.extensionNamespaces.map(JSON.string))))
        } else if let n = r.nmea {
            pairs.append(("counts", .object([
                ("lines", .int(n.lines)), ("sentences", .int(n.sentences)), ("positions", .int(n.positions)),
                ("badChecksums", .int(n.badChecksums)), ("otherLines", .int(n.otherLines)),
            ])))
            pairs.append(("sentenceTypes", .object(n.sentenceTypes.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })))
        } else {
            if r.format == .geojson {
                pairs.append(("crs", .string(r.variant ?? "EPSG:4326")))
                pairs.append(("counts", .object([("trees", .int(r.trees)), ("skippedFeatures", .int(r.skippedFeatures))])))
            } else {
                if let v = r.variant { pairs.append(("variant", .string(v))) }
                pairs.append(("counts", .object([("trees", .int(r.trees)), ("collections", .int(r.collections))])))
            }
        }
        pairs.append(("bounds", r.bounds.map { b in
            .object([("minLatitude", .number(b.minLatitude)), ("minLongitude", .number(b.minLongitude)),
                     ("maxLatitude", .number(b.maxLatitude)), ("maxLongitude", .number(b.maxLongitude))])
        } ?? .null))
        pairs.append(("timeSpan", r.earliestTime.map { start in
            .object([("start", .string(ISOTime.string(start))), ("end", .optional(r.latestTime))])
        } ?? .null))
        pairs.append(("diagnostics", .array(r.diagnostics.map { .object([("line", .int($0.line)), ("message", .string($0.message))]) })))
        return .object(pairs)
    }

    static func text(_ r: InspectionReport, file: String) -> String {
        var lines: [(String, String)] = []
        var title = "\(file): "
        if let g = r.gpx {
            title += g.metadata.version == .noNamespace ? "GPX (no namespace)" : "GPX \(g.metadata.version.rawValue)"
            if let c = g.metadata.creator { title += ", creator \"\(c)\"" }
            if let n = g.metadata.name { lines.append(("name", n)) }
            lines.append(("waypoints", String(g.waypoints)))
            lines.append(("routes", "\(g.routes) (\(g.routePoints) point\(g.routePoints == 1 ? "" : "s"))"))
            lines.append(("tracks", "\(g.tracks) (\(g.trackSegments) segment\(g.trackSegments == 1 ? "" : "s"), \(g.trackPoints) point\(g.trackPoints == 1 ? "" : "s"))"))
            if !g.extensionNamespaces.isEmpty { lines.append(("extensions", g.extensionNamespaces.joined(separator: ", "))) }
        } else if let n = r.nmea {
            title += "NMEA 0183"
            lines.append(("sentences", "\(n.sentences) (" + n.sentenceTypes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
            lines.append(("positions", String(n.positions)))
            if n.badChecksums > 0 { lines.append(("bad checksums", String(n.badChecksums))) }
            if n.otherLines > 0 { lines.append(("other lines", String(n.otherLines))) }
        } else {
            switch r.format {
            case .json: title += "collection JSON (\(r.variant ?? "tree-tracker"))"
            case .geojson: title += "GeoJSON (\(r.variant.map { "positions in \($0)" } ?? "WGS 84"))"
            default: title += "CSV"
            }
            lines.append(("trees", String(r.trees)))
            if r.format == .json { lines.append(("collections", String(r.collections))) }
            if r.format == .geojson { lines.append(("not trees", "\(r.skippedFeatures) feature\(r.skippedFeatures == 1 ? "" : "s")")) }
        }
        if let b = r.bounds {
            lines.append(("bounds", "latitude \(Format.degrees(b.minLatitude)) … \(Format.degrees(b.maxLatitude)), longitude \(Format.degrees(b.minLongitude)) … \(Format.degrees(b.maxLongitude))"))
        }
        if let s = r.earliestTime, let e = r.latestTime {
            lines.append(("time", "\(ISOTime.string(s)) … \(ISOTime.string(e))"))
        }
        for d in r.diagnostics { lines.append(("warning", "line \(d.line): \(d.message)")) }
        let width = lines.map(\.0.count).max() ?? 0
        return title + "\n" + lines.map { "  " + $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 + "\n" }.joined()
    }
}
