import Foundation
import Testing
@testable import Interchange
import TreesKit
import TreesTestSupport

/// The GPX corpus: every file must read with exactly the expected counts, structure and end points.
///
/// The folder comes from `TREES_GPX_CORPUS` (a `gpx` folder, or a corpus root holding one),
/// default `Tests/Corpus/gpx` in the repository,
/// so the same test runs on another set unchanged.
enum GPXCorpus {
    static var folder: URL {
        let path = ProcessInfo.processInfo.environment["TREES_GPX_CORPUS"] ?? Corpus.path("gpx")
        let url = URL(fileURLWithPath: path)
        let nested = url.appendingPathComponent("gpx")
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: nested.path, isDirectory: &isDir), isDir.boolValue { return nested }
        return url
    }

    /// Paths of the `.gpx` files, relative to the folder.
    static func files() -> [String] {
        let root = folder
        guard let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var out: [String] = []
        for case let url as URL in e where url.pathExtension == "gpx" {
            out.append(String(url.path.dropFirst(root.path.count + 1)))
        }
        return out.sorted()
    }
}

/// What the reader saw, in the expected JSON's terms.
struct ReadResult: Equatable {
    struct Route: Equatable {
        var points: Int
        var name: String?
    }

    struct Track: Equatable {
        var segments: [Int]
        var name: String?
    }

    var counts: [String: Int] = [:]
    var routes: [Route] = []
    var tracks: [Track] = []
    var points: [String: [GPXPoint]] = ["waypoint": [], "route_point": [], "track_point": []]
    var summary: GPXSummary?
    var diagnostics: [Diagnostic] = []
}

/// What the GPX reader makes of `pieces` fed one after the other, for `ChunkingVerifier`.
func readGPX(_ pieces: [ArraySlice<UInt8>]) throws -> ReadResult {
    var result = ReadResult()
    var reader = GPXReader()
    func handle(_ e: GPXEvent) {
        switch e {
        case .waypoint(let p): result.points["waypoint"]!.append(p)
        case .routePoint(let p, _): result.points["route_point"]!.append(p)
        case .trackPoint(let p, _, _): result.points["track_point"]!.append(p)
        case .routeEnd(let r): result.routes.append(.init(points: r.pointCount, name: r.name))
        case .trackEnd(let t): result.tracks.append(.init(segments: t.segments, name: t.name))
        case .diagnostic(let d): result.diagnostics.append(d)
        default: break
        }
    }
    for piece in pieces { try reader.read(piece, handle) }
    let s = try reader.finish(handle)
    result.summary = s
    result.counts = [
        "waypoints": s.waypoints, "routes": s.routes, "route_points": s.routePoints,
        "tracks": s.tracks, "track_segments": s.trackSegments, "track_points": s.trackPoints,
    ]
    return result
}

@Suite struct GPXCorpusTests {
    @Test func corpusIsThere() {
        #expect(GPXCorpus.files().count > 0, "no .gpx files in \(GPXCorpus.folder.path)")
    }

    @Test(arguments: GPXCorpus.files())
    func readsAsExpected(file: String) throws {
        let url = GPXCorpus.folder.appendingPathComponent(file)
        let expectedURL = url.deletingPathExtension().appendingPathExtension("expected.json")
        let expected = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: expectedURL)) as? [String: Any])
        let bytes = [UInt8](try Data(contentsOf: url))

        if expected["parse_error"] is String {
            do {
                _ = try readGPX(ChunkingVerifier.Chunking.pieces(size: 4096).split(bytes))
                Issue.record("\(file) should be refused")
            } catch let error as InterchangeError {
                #expect(error.line != nil, "\(error)")
                #expect(!error.reason.isEmpty)
            }
            return
        }

        // The same answer whatever the chunking: whole, in pieces of 4 KiB as a file is read, and small.
        let result = try ChunkingVerifier(sizes: [4096, 82], randomSplits: 0).verify(bytes) { try readGPX($0) }
        let counts = try #require(expected["counts"] as? [String: Int])
        #expect(result.counts == counts, "\(file)")

        let routes = try #require(expected["routes"] as? [[String: Any]])
        #expect(result.routes.map(\.points) == routes.map { $0["points"] as? Int ?? -1 }, "\(file) route points")
        for (r, e) in zip(result.routes, routes) where e["name"] is String {
            #expect(r.name == e["name"] as? String, "\(file) route name")
        }
        let tracks = try #require(expected["tracks"] as? [[String: Any]])
        #expect(result.tracks.map(\.segments) == tracks.map { $0["segments"] as? [Int] ?? [-1] }, "\(file) track segments")
        for (t, e) in zip(result.tracks, tracks) where e["name"] is String {
            #expect(t.name == e["name"] as? String, "\(file) track name")
        }

        for kind in ["waypoint", "route_point", "track_point"] {
            let seen = result.points[kind]!
            for (which, point) in [("first", seen.first), ("last", seen.last)] {
                let exp = expected["\(which)_\(kind)"] as? [String: Any]
                guard let exp else {
                    #expect(point == nil, "\(file) \(which) \(kind) should not exist")
                    continue
                }
                let p = try #require(point, "\(file) \(which) \(kind) missing")
                let label = "\(file) \(which) \(kind)"
                #expect(abs(p.latitude - (exp["lat"] as! Double)) <= 1e-6, "\(label) lat")
                #expect(abs(p.longitude - (exp["lon"] as! Double)) <= 1e-6, "\(label) lon")
                if let ele = exp["ele"] as? Double {
                    #expect(abs((p.elevation ?? .nan) - ele) <= 0.001, "\(label) ele")
                } else {
                    #expect(p.elevation == nil, "\(label) ele")
                }
                if let epoch = exp["time_epoch"] as? Double {
                    let t = try #require(p.time, "\(label) time")
                    #expect(abs(t.timeIntervalSince1970 - epoch) <= 0.001, "\(label) time \(t) vs \(epoch)")
                } else {
                    #expect(p.time == nil, "\(label) time")
                }
                if let name = exp["name"] as? String {
                    #expect(p.name == name, "\(label) name")
                } else {
                    #expect(p.name == nil, "\(label) name")
                }
            }
        }

        // File-level facts.
        let fileInfo = try #require(expected["file"] as? [String: Any])
        let s = try #require(result.summary)
        #expect(s.extensionNamespaces == (fileInfo["extension_namespaces"] as? [String] ?? []).sorted(), "\(file) extension namespaces")
        #expect(s.metadata.creator == fileInfo["creator"] as? String, "\(file) creator")
        #expect(s.metadata.versionAttribute == fileInfo["version_attribute"] as? String, "\(file) version")
        let meta = try #require(expected["metadata"] as? [String: Any])
        #expect(s.metadata.name == meta["name"] as? String, "\(file) metadata name")
        #expect(s.metadata.description == meta["desc"] as? String, "\(file) metadata desc")
        if let time = meta["time"] as? String {
            let t = try #require(s.metadata.time, "\(file) metadata time")
            let e = try #require(TextCodec.parseISO8601(time))
            #expect(abs(t.timeIntervalSince(e)) < 0.001)
        }
        #expect(result.diagnostics.isEmpty, "\(file): \(result.diagnostics)")
    }
}
