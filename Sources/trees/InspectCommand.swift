import ArgumentParser
import Foundation
import Interchange
import TreesKit

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Summarise a GPX, collection JSON, CSV or NMEA file without importing it.",
        discussion: "GPX: counts of waypoints, routes, route points, tracks, segments and track points, bounds, time span, creator and extension namespaces."
    )

    @Argument(help: ArgumentHelp("The file to inspect (- for standard input).", valueName: "file"))
    var file: String
    @Option(help: ArgumentHelp("gpx, json, csv or nmea (default: from the content and the name).", valueName: "format"))
    var format: String?
    @Flag(help: "Print the summary as JSON.") var json = false

    func validate() throws {
        if let format, FileFormat(rawValue: format.lowercased()) == nil {
            throw ValidationError("--format must be one of gpx, json, csv, nmea, not '\(format)'")
        }
    }

    func run() async throws {
        let input = try InputFile(file)
        let fmt = try input.format(forced: format)
        var inspector = Inspector(format: fmt)
        let report: InspectionReport
        do {
            try input.forEachChunk { try inspector.feed($0) }
            report = try inspector.finish()
        } catch let e as InterchangeError {
            throw input.failure(e)
        }
        if json {
            Output.json(Self.json(report, file: file))
        } else {
            Output.human(Self.text(report, file: file))
        }
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
            if let v = r.variant { pairs.append(("variant", .string(v))) }
            pairs.append(("counts", .object([("trees", .int(r.trees)), ("collections", .int(r.collections))])))
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
            title += r.format == .json ? "collection JSON (\(r.variant ?? "tree-tracker"))" : "CSV"
            lines.append(("trees", String(r.trees)))
            if r.format == .json { lines.append(("collections", String(r.collections))) }
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

/// An input file read in chunks (or standard input), with error messages that name it.
struct InputFile: @unchecked Sendable {
    let path: String
    let handle: FileHandle
    let size: Int?
    /// The first bytes, kept for format detection and replayed by `forEachChunk`.
    private let head: [UInt8]

    static let chunkSize = 1 << 18

    init(_ path: String) throws {
        self.path = path
        if path == "-" {
            handle = FileHandle.standardInput
            size = nil
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CLIError("\(path): no such file", status: .noInput)
            }
            guard !isDirectory.boolValue else { throw CLIError("\(path) is a folder, not a file", status: .noInput) }
            guard let h = FileHandle(forReadingAtPath: path) else { throw CLIError("\(path): cannot be read", status: .noInput) }
            handle = h
            size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        }
        do {
            head = [UInt8](try handle.read(upToCount: Self.chunkSize) ?? Data())
        } catch {
            throw CLIError("\(path): \(error.localizedDescription)", status: .ioError)
        }
    }

    var displayName: String { path == "-" ? "<stdin>" : path }

    func format(forced: String?) throws -> FileFormat {
        if let forced {
            guard let f = FileFormat(rawValue: forced.lowercased()) else {
                throw CLIError("unknown format '\(forced)'; expected gpx, json, csv or nmea", status: .usage)
            }
            return f
        }
        guard let f = FileFormat.detect(prefix: head, fileName: path == "-" ? nil : path) else {
            throw CLIError("\(displayName): cannot tell the format from the name or content; use --format gpx|json|csv", status: .dataError)
        }
        return f
    }

    /// Passes the file's bytes in chunks; `progress` gets the fraction read so far (when the size is known).
    func forEachChunk(progress: ((Double) -> Void)? = nil, _ body: (Data) throws -> Void) throws {
        var done = head.count
        try body(Data(head))
        while true {
            // read(2) straight into a large buffer: FileHandle reads a regular file 4 KiB at a time here.
            var buffer = Data(count: Self.chunkSize)
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                var r: Int
                repeat { r = read(handle.fileDescriptor, raw.baseAddress, raw.count) } while r < 0 && errno == EINTR
                return r
            }
            if n < 0 { throw CLIError("\(displayName): \(String(cString: strerror(errno)))", status: .ioError) }
            if n == 0 { break }
            buffer.count = n
            let chunk = buffer
            done += chunk.count
            try body(chunk)
            if let size, size > 0 { progress?(Double(done) / Double(size)) }
        }
    }

    /// The one-line refusal of a malformed file: `FILE:LINE: reason`.
    func failure(_ e: InterchangeError) -> CLIError {
        if let line = e.line { return CLIError("\(displayName):\(line): \(e.reason)", status: .dataError) }
        return CLIError("\(displayName): \(e.reason)", status: .dataError)
    }
}
