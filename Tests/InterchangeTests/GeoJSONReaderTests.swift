import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

/// What the GeoJSON reader made of a file.
struct GeoJSONRead: Equatable {
    var trees: [ImportedTree] = []
    var skipped: [Int] = []
    var reasons: [String] = []
    var projecting: [String] = []
}

@Suite struct GeoJSONReaderTests {
    static func read(_ text: String, chunking: ChunkingVerifier.Chunking = .whole, mapping: [AttributeField: String] = [:],
                     projection: @escaping (String) throws -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> = { crs in
                         throw InterchangeError.invalidContent(line: 1, column: 1, reason: "no PROJ for \(crs)")
                     }) throws -> GeoJSONRead {
        var read = GeoJSONRead()
        var reader = GeoJSONReader(mapping: mapping, projection: projection)
        func handle(_ e: GeoJSONEvent) {
            switch e {
            case .tree(let t): read.trees.append(t)
            case .skipped(let line, let reason): read.skipped.append(line); read.reasons.append(reason)
            case .projecting(let crs): read.projecting.append(crs)
            }
        }
        for piece in chunking.split(Array(text.utf8)) { try reader.read(piece, handle) }
        try reader.finish(handle)
        return read
    }

    static func error(_ text: String, mapping: [AttributeField: String] = [:]) -> InterchangeError? {
        do { _ = try read(text, mapping: mapping); return nil } catch let e as InterchangeError { return e } catch { return nil }
    }

    /// A layer as QGIS or GDAL writes it: numbered features, properties of other names, a line,
    /// a feature without geometry and one without a species among the points.
    static let qgis = """
        {
        "type": "FeatureCollection",
        "name": "orchard",
        "features": [
        { "type": "Feature", "id": 1, "properties": { "fid": 1, "Species": "Malus domestica", "Cultivar": "Gala", "name": "A1", "Comment": "near gate", "ele": 410.5, "Accuracy": 0.8, "date": "2026-03-02T08:00:00Z", "time": "2026-03-02T07:59:58Z", "sat": 14 }, "geometry": { "type": "Point", "coordinates": [ 8.54, 47.37 ] } },
        { "type": "Feature", "id": 2, "properties": { "name": "Pyrus communis", "note": "by the wall", "photos": "DCIM/IMG_0001.jpg" }, "geometry": { "type": "Point", "coordinates": [ 8.541, 47.371, 412.25 ] } },
        { "type": "Feature", "id": 3, "properties": { "name": "hedge" }, "geometry": { "type": "LineString", "coordinates": [ [8.5, 47.3], [8.6, 47.4] ] } },
        { "type": "Feature", "id": 4, "properties": { "name": "lost" }, "geometry": null },
        { "type": "Feature", "id": "01a222d1-f31c-7599-a193-a5d935b112d6", "properties": { "remark": "no species here" }, "geometry": { "type": "Point", "coordinates": [ 8.542, 47.372 ] } }
        ]
        }
        """

    @Test(arguments: [ChunkingVerifier.Chunking.whole, .pieces(size: 1), .random(seed: 7, maximum: 40)])
    func aGISLayerBecomesTreesByThePropertiesNames(chunking: ChunkingVerifier.Chunking) throws {
        let r = try Self.read(Self.qgis, chunking: chunking)
        #expect(r.trees.count == 2)
        let a = try #require(r.trees.first)
        #expect(a.id == nil, "a feature numbered 1 gets an id of its own")
        #expect(a.coordinate == Coordinate(latitude: 47.37, longitude: 8.54))
        #expect(a.species == "Malus domestica", "Species is the species' own name; it wins over name")
        #expect(a.variety == "Gala")
        #expect(a.notes == "near gate")
        #expect(a.altitude == 410.5)
        #expect(a.horizontalAccuracy == 0.8)
        #expect(a.createdAt == TextCodec.parseISO8601("2026-03-02T08:00:00Z"))
        #expect(a.capture.fixTime == TextCodec.parseISO8601("2026-03-02T07:59:58Z"))
        #expect(a.capture.satellites == 14)
        #expect(a.line == 5)
        let b = r.trees[1]
        #expect(b.species == "Pyrus communis" && b.notes == "by the wall")
        #expect(b.altitude == 412.25, "the third coordinate is the altitude")
        #expect(r.skipped == [7, 8, 9])
        #expect(r.reasons == ["a LineString is not a tree (a Point is)", "a feature without geometry is not a tree", FileFormat.geojson.noSpeciesReason])
    }

    @Test func mapNamesThePropertyOfAField() throws {
        // --map takes the field's property outright: the other names of that field are not read.
        let r = try Self.read(Self.qgis, mapping: [.species: "name", .notes: "remark"])
        #expect(r.trees.map(\.species) == ["A1", "Pyrus communis"])
        #expect(r.trees.map(\.notes) == [nil, nil])
        #expect(r.trees.map(\.variety) == ["Gala", nil])
        #expect(r.skipped == [7, 8, 9])
        let e = Self.error(Self.qgis, mapping: [.species: "Art"])
        #expect(e?.description.contains("--map species=Art: no feature has a property \"Art\"") == true, "\(String(describing: e))")
    }

    @Test func aUUIDFeatureIdIsTheTreesIdAndAPropertyIdWins() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":"01a222d1-f31c-7599-a193-a5d935b112d6","geometry":{"type":"Point","coordinates":[8.5,47.3]},"properties":{"species":"Fig"}},
            {"type":"Feature","id":"01a222d1-f31c-7599-a193-a5d935b112d6","geometry":{"type":"Point","coordinates":[8.5,47.3]},"properties":{"species":"Fig","id":"2b0b3f4e-0000-4000-8000-000000000001"}}
            ]}
            """
        let r = try Self.read(text)
        #expect(r.trees.map { $0.id?.uuidString } == ["01A222D1-F31C-7599-A193-A5D935B112D6", "2B0B3F4E-0000-4000-8000-000000000001"])
    }

    @Test func aMultiPointOfOnePointIsThatPointAndOfSeveralIsSkipped() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[8.5,47.3,401]]},"properties":{"species":"Fig"}},
            {"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[8.5,47.3],[8.6,47.4]]},"properties":{"species":"Fig"}},
            {"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[]},"properties":{"species":"Fig"}}
            ]}
            """
        let r = try Self.read(text)
        #expect(r.trees.map(\.coordinate) == [Coordinate(latitude: 47.3, longitude: 8.5)])
        #expect(r.trees.first?.altitude == 401)
        #expect(r.skipped == [3, 4])
        #expect(r.reasons == ["a MultiPoint of 2 points is not one tree (split it into points)", "a MultiPoint of 0 points is not one tree (split it into points)"])
        #expect(Self.error(#"{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[8.5]},"properties":{"species":"Fig"}}"#)?.description
                == "line 1, column 66: a MultiPoint's point must be an array, found a number")
    }

    @Test func aSingleFeatureIsOneTree() throws {
        let r = try Self.read(#"{"properties":{"species":"Oak"},"geometry":{"coordinates":[-0.2956,51.4787,9],"type":"Point"},"type":"Feature"}"#)
        #expect(r.trees.count == 1)
        #expect(r.trees.first?.species == "Oak" && r.trees.first?.altitude == 9)
        #expect(r.trees.first?.coordinate == Coordinate(latitude: 51.4787, longitude: -0.2956))
    }

    @Test func aLegacyCRSIsCarriedToWGS84() throws {
        let text = """
            {"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2056"}},"features":[
            {"type":"Feature","geometry":{"type":"Point","coordinates":[2600000,1200000]},"properties":{"species":"Oak"}}]}
            """
        var asked: [String] = []
        let r = try Self.read(text) { crs in
            asked.append(crs)
            return { x, y in .success(Coordinate(latitude: y / 1e5, longitude: x / 1e6)) }
        }
        #expect(asked == ["EPSG:2056"])
        #expect(r.projecting == ["EPSG:2056"])
        #expect(r.trees.first?.coordinate == Coordinate(latitude: 12, longitude: 2.6))
        // WGS 84 under any of its names needs no projection.
        for name in ["urn:ogc:def:crs:OGC:1.3:CRS84", "urn:ogc:def:crs:EPSG::4326", "EPSG:4326"] {
            let plain = text.replacingOccurrences(of: "urn:ogc:def:crs:EPSG::2056", with: name).replacingOccurrences(of: "2600000,1200000", with: "8.5,47.3")
            #expect(try Self.read(plain).trees.first?.coordinate == Coordinate(latitude: 47.3, longitude: 8.5), "\(name)")
        }
    }

    /// Easting and northing of LV95 as the test's projection carries them (x / 1e6, y / 1e5).
    static let lateCRS = """
        {"type":"FeatureCollection","features":[
        {"type":"Feature","geometry":null,"properties":{"species":"Oak"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[2600000,1200000]},"properties":{"species":"Oak"}},
        {"type":"Feature","geometry":{"type":"Point","coordinates":[2683000,1247000,412]},"properties":{"species":"Fig"}}],
        "name":"orchard","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2056"}}}
        """

    static func tenths(_ crs: String) -> (Double, Double) -> Result<Coordinate, CSVPositionProblem> {
        { x, y in .success(Coordinate(latitude: y / 1e5, longitude: x / 1e6)) }
    }

    @Test(arguments: [ChunkingVerifier.Chunking.whole, .pieces(size: 1), .random(seed: 3, maximum: 30)])
    func aCRSAfterTheFeaturesIsMetThereAndAReaderGivenItReadsTheFileWhole(chunking: ChunkingVerifier.Chunking) throws {
        // Read as WGS 84, the first point is out of range: the reading goes on to the crs, which explains it.
        do {
            _ = try Self.read(Self.lateCRS, chunking: chunking, projection: Self.tenths)
            Issue.record("a crs after the features was not reported")
        } catch let late as GeoJSONReader.LateCRS {
            #expect(late == GeoJSONReader.LateCRS(crs: "EPSG:2056", line: 5, column: 24))
            // Given it, a reader carries every feature from it, from the first one on.
            var r = GeoJSONRead()
            var reader = GeoJSONReader(projection: Self.tenths, crs: late)
            func handle(_ e: GeoJSONEvent) {
                switch e {
                case .tree(let t): r.trees.append(t)
                case .skipped(let line, let reason): r.skipped.append(line); r.reasons.append(reason)
                case .projecting(let crs): r.projecting.append(crs)
                }
            }
            for piece in chunking.split(Array(Self.lateCRS.utf8)) { try reader.read(piece, handle) }
            try reader.finish(handle)
            #expect(r.projecting == ["EPSG:2056"])
            #expect(r.skipped == [2])
            #expect(r.trees.map(\.coordinate) == [Coordinate(latitude: 12, longitude: 2.6), Coordinate(latitude: 12.47, longitude: 2.683)])
            #expect(r.trees.map(\.altitude) == [nil, 412])
        }
        // Positions that are degrees are handed over as they come; the crs then still says they are not.
        let degrees = Self.lateCRS.replacingOccurrences(of: "2600000,1200000", with: "8.5,47.3").replacingOccurrences(of: "2683000,1247000,412", with: "8.6,47.4")
        var reader = GeoJSONReader(projection: Self.tenths)
        #expect(throws: GeoJSONReader.LateCRS(crs: "EPSG:2056", line: 5, column: 24)) {
            for piece in chunking.split(Array(degrees.utf8)) { try reader.read(piece) { _ in } }
            try reader.finish { _ in }
        }
    }

    @Test func readingADocumentInMemoryTakesALateCRSFromItsStart() throws {
        var trees: [ImportedTree] = []
        var projecting: [String] = []
        try GeoJSONReader.read(Array(Self.lateCRS.utf8), projection: Self.tenths) { e in
            if case .tree(let t) = e { trees.append(t) }
            if case .projecting(let crs) = e { projecting.append(crs) }
        }
        #expect(projecting == ["EPSG:2056"])
        #expect(trees.map(\.species) == ["Oak", "Fig"])
        #expect(trees.first?.coordinate == Coordinate(latitude: 12, longitude: 2.6))
        // Inspected, the file is read again too: the inspector of bytes has no projection to carry it.
        #expect(throws: InterchangeError.invalidContent(line: 1, column: 1, reason: "positions in EPSG:2056 cannot be read here")) {
            try Inspector.inspect(Array(Self.lateCRS.utf8), format: .geojson)
        }
    }

    @Test(arguments: [
        (#"[{"type":"Feature"}]"#, 1, 1, "expected a GeoJSON object ({\"type\": \"FeatureCollection\", \"features\": [...]}), found an array"),
        (#"{"features":[]}"#, 1, 1, "no \"type\"; a GeoJSON file is {\"type\": \"FeatureCollection\", \"features\": [...]}"),
        (#"{"type":"Topology","features":[]}"#, 1, 9, "\"type\" is \"Topology\"; expected \"FeatureCollection\" or \"Feature\""),
        (#"{"type":"FeatureCollection"}"#, 1, 1, "a FeatureCollection without a \"features\" array"),
        (#"{"type":"FeatureCollection","features":{}}"#, 1, 40, "\"features\" must be an array"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n7]}", 2, 1, "expected a Feature object, found a number"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,\"47\"]},\"properties\":{\"species\":\"Oak\"}}]}",
         2, 65, "a coordinate must be a number, found a string"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[47.3,95]},\"properties\":{\"species\":\"Oak\"}}]}",
         2, 60, "latitude 95 is out of range; expected degrees between -90 and 90"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,47.3]},\"properties\":{\"species\":\"Oak\",\"createdAt\":\"soon\"}}]}",
         2, 114, "\"createdAt\" is not an ISO 8601 date: \"soon\""),
        // Out of range, and no crs, or one of WGS 84, after it: refused where it is, even when
        // the file is malformed further on.
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[2600000,1200000]},\"properties\":{\"species\":\"Oak\"}},\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,47.3]},\"properties\":{\"species\":\"Oak\"}}]}",
         2, 60, "longitude 2600000 is out of range; expected degrees between -180 and 180"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,147.3]},\"properties\":{\"species\":\"Oak\"}}],\n\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"urn:ogc:def:crs:OGC:1.3:CRS84\"}}}",
         2, 60, "latitude 147.3 is out of range; expected degrees between -90 and 90"),
        ("{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,147.3]},\"properties\":{\"species\":\"Oak\"}},\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,\"47\"]},\"properties\":{\"species\":\"Oak\"}}\n",
         2, 60, "latitude 147.3 is out of range; expected degrees between -90 and 90"),
        ("{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,147.3]},\"properties\":{\"species\":\"Oak\"}}",
         1, 60, "latitude 147.3 is out of range; expected degrees between -90 and 90"),
        // Two crs members that disagree.
        ("{\"type\":\"FeatureCollection\",\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"EPSG:4326\"}},\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,47.3]},\"properties\":{\"species\":\"Oak\"}}],\n\"crs\":{\"type\":\"name\",\"properties\":{\"name\":\"urn:ogc:def:crs:EPSG::2056\"}}}",
         3, 7, "a second \"crs\" (EPSG:2056) names another system than the first (EPSG:4326)"),
    ] as [(String, Int, Int, String)])
    func aMalformedFileIsRefusedWithItsLine(text: String, line: Int, column: Int, reason: String) throws {
        let e = try #require(Self.error(text))
        guard case .invalidContent(let l, let c, let r) = e else { Issue.record("\(e)"); return }
        #expect(r.hasPrefix(reason), "\(r)")
        #expect(l == line, "\(r)")
        #expect(c == column, "\(r)")
    }

    @Test func aFileCutShortIsRefusedWhereItEnds() {
        let text = "{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.5,47.3]},\"properties\":{\"species\":\"Oak\"}}\n"
        #expect(Self.error(text)?.description == "line 3, column 1: unexpected end of file")
    }

    @Test func theFormatIsToldFromTheContent() {
        #expect(FileFormat.detect(prefix: Array(#"{"type": "FeatureCollection", "features": []}"#.utf8), fileName: "x.json") == .geojson)
        #expect(FileFormat.detect(prefix: Array("{\n\"type\"\n:\n\"Feature\" }".utf8), fileName: nil) == .geojson)
        // Keys sorted, as Python's json.dumps(sort_keys=True) writes them: the features come first.
        #expect(FileFormat.detect(prefix: Array(#"{"features": [{"geometry": {"coordinates": [8.5, 47.3], "type": "Point"}, "properties": {}, "type": "Feature"}], "type": "FeatureCollection"}"#.utf8), fileName: nil) == .geojson)
        #expect(FileFormat.detect(prefix: Array(#"{"format": "trees-collection", "trees": []}"#.utf8), fileName: "x.geojson") == .geojson)
        #expect(FileFormat.detect(prefix: Array(#"{"format": "trees-collection", "trees": [{"type": "x"}]}"#.utf8), fileName: nil) == .json)
        #expect(FileFormat.detect(prefix: Array(#"[{"id": "a"}]"#.utf8), fileName: nil) == .json)
    }
}
