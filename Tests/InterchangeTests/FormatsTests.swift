import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

@Suite struct CSVTests {
    @Test func writesRFC4180WithFormulaNeutralisationButNumbersAsNumbers() throws {
        let text = try exportString([Fixtures.full, Fixtures.edge], format: .csv, context: Fixtures.context)
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines[0] == CSVColumns.all.joined(separator: ","))
        #expect(lines[1] == "6F9619FF-8B86-D011-B42D-00C04FC964FF,47.3769123,-8.5417456,3.25,gst,408.5,455.75,Malus domestica,Boskoop & <Rote>,M9,\"'=SUM(A1) \"\"quoted\"\", 'single'\nsecond line — Grüße 🌳\",Victoria's Orchard,0B6E61D4-3B8F-4C4B-9E0A-6A57C1D2E3F4,2024-05-01T10:00:00.250Z,2024-05-02T11:00:00Z,2024-05-01T09:59:58Z,3d,9,0.8,10,gpsd://localhost:2947,0,rtk-fixed,1.2,0.035,gst,1.8")
        #expect(lines[2] == "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE,0.00001,-180,25,dop,-12.5,,Quercus robur,,,,,,2040-01-01T00:00:00Z,2040-01-01T00:00:00Z,,2d,4,,,,0,,,,,")
        #expect(lines[3] == "")
    }

    @Test func readsItsOwnOutputBackInAnyChunking() throws {
        let text = try exportString(Fixtures.trees, format: .csv, context: Fixtures.context)
        let trees = try ChunkingVerifier.standard.verify(text) { try readCSV($0) }
        #expect(trees.count == 3)
        let back = trees[0].tree(id: trees[0].id!, collectionID: trees[0].collectionID, now: .distantPast)
        #expect(back == Fixtures.full)
        #expect(trees[0].collectionName == "Victoria's Orchard")
        #expect(trees[0].line == 2)
        #expect(trees[1].line == 4)
        #expect(trees[2].coordinate.longitude == -180)
    }

    /// Texts a spreadsheet would run as formulas are written with a leading `'` and read back
    /// without it; a text that itself starts with `'` comes back as it was, whatever follows.
    @Test func textsComeBackAsTheyWereWhateverTheirFirstCharacters() throws {
        let texts = ["=SUM(A1)", "-5 m", "+1", "@home", "\tindented", "'=quoted", "'-", "''x", "'", "'plain", "it's", "=", "-"]
        let trees = texts.enumerated().map { i, text in
            Tree(id: UUID(uuidString: String(format: "AAAAAAAA-BBBB-4CCC-8DDD-%012d", i))!,
                 coordinate: Coordinate(latitude: 1, longitude: Double(i)), species: text, variety: text, notes: text,
                 createdAt: TextCodec.parseISO8601("2024-05-01T10:00:00Z")!)
        }
        let text = try exportString(trees, format: .csv, context: Fixtures.context)
        #expect(text.contains(",\"'=SUM(A1)\","))
        #expect(text.contains(",\"''=quoted\","))
        #expect(text.contains(",'plain,"))
        let back = try ChunkingVerifier.standard.verify(text) { try readCSV($0) }
        #expect(back.map(\.species) == texts)
        #expect(back.map(\.variety) == texts)
        #expect(back.map(\.notes) == texts)
    }

    @Test func readsAliasesAndTheAppColumns() throws {
        let text = "Name,Lat,Lon,Ele,Notes\nApple,47.5,8.25,400,old tree\n\n\"Pear, Williams\",-1,-2,,\n"
        var trees: [ImportedTree] = []
        try CSVTreeReader.read(Array(text.utf8)) { trees.append($0) }
        #expect(trees.map(\.species) == ["Apple", "Pear, Williams"])
        #expect(trees[0].altitude == 400)
        #expect(trees[0].notes == "old tree")
        #expect(trees[1].coordinate == Coordinate(latitude: -1, longitude: -2))
        #expect(trees[1].line == 4)

        let app = "id,latitude,longitude,horizontalAccuracy,altitude,species,variety,rootstock,notes,photoCount,collectionId,createdAt,updatedAt\r\n"
            + "D1D1D1D1-1111-4222-8333-444455556666,47.1,8.25,4.5,410.2,Pyrus communis,Williams,,,0,,2024-04-01T08:04:00Z,2024-04-01T08:04:00Z\r\n"
        trees = []
        try CSVTreeReader.read(Array(app.utf8)) { trees.append($0) }
        #expect(trees.count == 1)
        #expect(trees[0].id == UUID(uuidString: "D1D1D1D1-1111-4222-8333-444455556666"))
        #expect(trees[0].variety == "Williams")
        #expect(trees[0].createdAt == TextCodec.parseISO8601("2024-04-01T08:04:00Z"))
    }

    @Test(arguments: [
        ("species,lat\nA,1\n", InterchangeError.invalidCSV(line: 1, reason: "missing required column \"longitude\" (or an alias such as lon)")),
        ("species,lat,lon\nA,1,2\nB,north,2\n", .invalidCSV(line: 3, reason: "column 2 (lat): \"north\" is not a number")),
        ("lat,lon\n91,2\n", .invalidCSV(line: 2, reason: "latitude 91 is out of range; expected degrees between -90 and 90")),
        ("lat,lon,name\n1,2,\"open\n", .invalidCSV(line: 2, reason: "unterminated quoted field")),
        ("", .invalidCSV(line: 1, reason: "empty file; expected a header row")),
        ("lat,lon,species,fixStatus\n1,2,A,gps\n1,2,B,rtk\n", .invalidCSV(line: 3, reason: "column 4 (fixStatus): \"rtk\" is not a fix status "
            + "(unknown, gps, dgps, rtk-fixed, rtk-float, dead-reckoning, gnss-dead-reckoning, time-only, simulated, pps)")),
        ("lat,lon,species,antennaHeight\n1,2,A,-1.5\n", .invalidCSV(line: 2, reason: "column 4 (antennaHeight): \"-1.5\" is not a finite number, 0 or more")),
        ("lat,lon,species,correctionAge\n1,2,A,soon\n", .invalidCSV(line: 2, reason: "column 4 (correctionAge): \"soon\" is not a number")),
        ("lat,lon,species,verticalAccuracySource\n1,2,A,guess\n", .invalidCSV(line: 2, reason: "column 4 (verticalAccuracySource): \"guess\" is not an accuracy source")),
    ])
    func refusesBadInputWithLineNumbers(text: String, expected: InterchangeError) {
        do {
            try CSVTreeReader.read(Array(text.utf8)) { _ in }
            Issue.record("accepted")
        } catch let e as InterchangeError {
            #expect(e == expected)
        } catch {
            Issue.record("\(error)")
        }
    }
}

@Suite struct MapFormatTests {
    @Test func geoJSONIsAFeatureCollectionOfPoints() throws {
        let text = try exportString(Fixtures.trees, format: .geojson, context: Fixtures.context)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        #expect(features.count == 3)
        let geometry = try #require(features[0]["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        #expect(geometry["coordinates"] as? [Double] == [-8.5417456, 47.3769123, 408.5])
        let bareGeometry = try #require(features[1]["geometry"] as? [String: Any])
        #expect(bareGeometry["coordinates"] as? [Double] == [151.2093, -33.8688])
        let props = try #require(features[0]["properties"] as? [String: Any])
        #expect(props["species"] as? String == "Malus domestica")
        #expect(props["collection"] as? String == "Victoria's Orchard")
        #expect(props["accuracyClass"] as? String == "excellent")
        #expect(props["latitude"] == nil)
        // The fix quality in the capture member, numbers in metres and seconds.
        let capture = try #require(props["capture"] as? [String: Any])
        #expect(capture["fixStatus"] as? String == "rtk-fixed")
        #expect(capture["correctionAge"] as? Double == 1.2)
        #expect(capture["verticalAccuracy"] as? Double == 0.035)
        #expect(capture["verticalAccuracySource"] as? String == "gst")
        #expect(capture["antennaHeight"] as? Double == 1.8)
        let bareProps = try #require(features[1]["properties"] as? [String: Any])
        #expect(bareProps["capture"] == nil)
    }

    @Test func kmlHasStyledPlacemarksWithExtendedData() throws {
        let text = try exportString(Fixtures.trees, format: .kml, context: Fixtures.context)
        #expect(text.contains("<Style id=\"accuracy-excellent\">\n    <IconStyle><color>ff449e2e</color>"))
        #expect(text.contains("<Style id=\"accuracy-poor\">\n    <IconStyle><color>ff2a33d6</color>"))
        #expect(text.contains("<styleUrl>#accuracy-excellent</styleUrl>"))
        #expect(text.contains("<styleUrl>#accuracy-unknown</styleUrl>"))
        // A tree without an accuracy figure has a position all the same: its class is unknown, not "No fix".
        #expect(text.contains("<Data name=\"accuracyClass\"><value>Unknown</value></Data>"))
        #expect(!text.contains("No fix"))
        #expect(text.contains("<styleUrl>#accuracy-poor</styleUrl>"))
        #expect(text.contains("<Data name=\"variety\"><value>Boskoop &amp; &lt;Rote&gt;</value></Data>"))
        #expect(text.contains("<coordinates>-8.5417456,47.3769123,408.5</coordinates>"))
        #expect(text.contains("""
                  <Data name="fixStatus"><value>rtk-fixed</value></Data>
                  <Data name="correctionAge"><value>1.2</value></Data>
                  <Data name="verticalAccuracy"><value>0.035</value></Data>
                  <Data name="verticalAccuracySource"><value>gst</value></Data>
                  <Data name="antennaHeight"><value>1.8</value></Data>

            """))
        #expect(text.contains("<Style id=\"accuracy-survey\">\n    <IconStyle><color>ffd16f1f</color>"))
        // Well-formed XML, by our own tokenizer and by xmllint.
        _ = try tokenize(text)
        let folder = try TemporaryFolder("interchange-tests")
        defer { folder.remove() }
        let url = folder.url("t.kml")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let r = try Program.run("/usr/bin/ogrinfo", ["-ro", "-al", "-so", url.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Feature Count: 3"))
    }
}

@Suite struct InspectorTests {
    @Test func summarisesGPX() throws {
        let bytes = [UInt8](try Data(contentsOf: GPXCorpus.folder.appendingPathComponent("gpxpassthrough10.gpx")))
        let r = try Inspector.inspect(bytes, fileName: "x.gpx")
        #expect(r.format == .gpx)
        let s = try #require(r.gpx)
        #expect([s.waypoints, s.routes, s.routePoints, s.tracks, s.trackSegments, s.trackPoints] as [Int] == [3, 1, 3, 1, 1, 3])
        #expect(s.metadata.creator == "hand crafted")
        #expect(s.extensionNamespaces == ["http://www.gpsbabel.org/testonlyschema"])
        #expect(r.earliestTime == TextCodec.parseISO8601("2002-05-25T17:06:21.250Z"))
        #expect(r.latestTime == TextCodec.parseISO8601("2002-05-25T17:12:00.200Z"))
        #expect(r.bounds?.minLatitude == 30.062183333)
    }

    @Test func summarisesJSONAndCSV() throws {
        let json = try Inspector.inspect(Array(CollectionJSONTests.appExport.utf8), fileName: "export.json")
        #expect(json.format == .json)
        #expect(json.trees == 2)
        #expect(json.collections == 1)
        #expect(json.variant == "tree-tracker")
        #expect(json.bounds == GeoBounds(minLatitude: -1.5, minLongitude: -70.125, maxLatitude: 47.1, maxLongitude: 8.25))
        let csv = try Inspector.inspect(Array(try exportString(Fixtures.trees, format: .csv, context: Fixtures.context).utf8),
                                        fileName: "trees.csv")
        #expect(csv.format == .csv)
        #expect(csv.trees == 3)
        #expect(csv.earliestTime == TextCodec.parseISO8601("1969-07-20T20:17:40Z"))
    }

    @Test func summarisesNMEA() throws {
        let text = "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1*39\r\n$GPGGA,bad*00\r\nnoise\r\n"
        let r = try Inspector.inspect(Array(text.utf8), fileName: "walk.nmea")
        #expect(r.format == .nmea)
        let n = try #require(r.nmea)
        #expect(n.sentences == 3)
        #expect(n.sentenceTypes == ["GGA": 1, "RMC": 1, "GSA": 1])
        #expect(n.badChecksums == 1)
        #expect(n.positions == 2)
        #expect(abs((r.bounds?.minLatitude ?? 0) - 48.1173) < 1e-9)
    }

    @Test func detectsFormatsByContentThenName() {
        #expect(FileFormat.detect(prefix: Array("<?xml version='1.0'?><gpx>".utf8), fileName: "a.txt") == .gpx)
        #expect(FileFormat.detect(prefix: Array(" {\"trees\":[]}".utf8), fileName: "a.csv") == .json)
        #expect(FileFormat.detect(prefix: Array("$GPGGA,".utf8), fileName: nil) == .nmea)
        #expect(FileFormat.detect(prefix: Array("lat,lon\n1,2\n".utf8), fileName: "data") == .csv)
        #expect(FileFormat.detect(prefix: Array("hello".utf8), fileName: "data") == nil)
    }
}

@Suite struct GPXReaderTests {
    @Test func reportsBadPointsAsDiagnosticsWithLines() throws {
        let doc = """
            <gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="t">
              <wpt lat="91" lon="2"><name>too far north</name></wpt>
              <wpt lon="2"/>
              <wpt lat="1" lon="2"><time>not a time</time><name>kept</name></wpt>
            </gpx>
            """
        var points: [GPXPoint] = []
        var diagnostics: [Diagnostic] = []
        let s = try GPXReader.read(Array(doc.utf8)) { e in
            if case .waypoint(let p) = e { points.append(p) }
            if case .diagnostic(let d) = e { diagnostics.append(d) }
        }
        #expect(points.map(\.name) == ["kept"])
        #expect(diagnostics == [
            Diagnostic(line: 2, message: "<wpt> latitude 91 is out of range; expected degrees between -90 and 90; point skipped", kind: .pointSkipped),
            Diagnostic(line: 3, message: "<wpt> has no lat attribute; point skipped", kind: .pointSkipped),
            Diagnostic(line: 4, message: "<time> \"not a time\" is not an ISO 8601 time; ignored"),
        ])
        #expect(s.waypoints == 3)
    }

    @Test(arguments: [
        ("<kml xmlns=\"http://www.opengis.net/kml/2.2\"/>", InterchangeError.notGPX(line: 1, column: 1, reason: "the root element is <kml>, not <gpx>")),
        ("<?xml version=\"1.0\"?>\n<gpx xmlns=\"http://www.topografix.com/GPX/1/2\"/>",
         .notGPX(line: 2, column: 1, reason: "the <gpx> element is in namespace http://www.topografix.com/GPX/1/2, not GPX 1.0 or 1.1")),
    ])
    func refusesDocumentsThatAreNotGPX(doc: String, expected: InterchangeError) {
        do {
            _ = try GPXReader.read(Array(doc.utf8)) { _ in }
            Issue.record("accepted")
        } catch let e as InterchangeError {
            #expect(e == expected)
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func readsEveryPointFieldAndIgnoresOthersExtensions() throws {
        let doc = """
            <gpx xmlns="http://www.topografix.com/GPX/1/0" xmlns:g="urn:garmin" version="1.0">
              <wpt lat="-12.5" lon="130.25">
                <ele>12.5</ele><time>2001-02-03T04:05:06.789-02:30</time><g:depth>3</g:depth>
                <name> n </name><cmt>c</cmt><desc>d</desc><src>s</src><sym>Flag</sym><type>t</type>
                <fix>dgps</fix><sat>7</sat><hdop>1.1</hdop><vdop>1.2</vdop><pdop>1.3</pdop>
                <extensions><g:x><name>not mine</name></g:x></extensions>
              </wpt>
            </gpx>
            """
        var points: [GPXPoint] = []
        let s = try GPXReader.read(Array(doc.utf8)) { e in if case .waypoint(let p) = e { points.append(p) } }
        let p = try #require(points.first)
        #expect(p.elevation == 12.5)
        #expect(p.time == TextCodec.parseISO8601("2001-02-03T06:35:06.789Z"))
        #expect([p.name, p.comment, p.description, p.source, p.symbol, p.type, p.fix] == [" n ", "c", "d", "s", "Flag", "t", "dgps"])
        #expect(p.satellites == 7)
        #expect([p.hdop, p.vdop, p.pdop] == [1.1, 1.2, 1.3])
        #expect(s.extensionNamespaces == ["urn:garmin"])
        #expect(s.metadata.version == .v1_0)
    }
}

@Suite struct ByteParsingTests {
    @Test(arguments: [
        ("2024-05-01T10:00:00Z", 1714557600.0),
        ("2024-05-01T10:00:00", 1714557600.0),
        ("2024-05-01T12:00:00+02:00", 1714557600.0),
        ("2024-05-01T05:30:00-0430", 1714557600.0),
        ("2024-05-01T10:00:00.125Z", 1714557600.125),
        ("1901-12-13T20:45:52Z", -2147483648.0),
        ("2100-02-28T23:59:59Z", 4107542399.0),
        ("1601-01-01T00:00:00Z", -11644473600.0),
        ("2024-05-01", 1714521600.0),
    ])
    func parsesISO8601(text: String, epoch: Double) {
        #expect(TextCodec.parseISO8601(text)?.timeIntervalSince1970 == epoch)
    }

    @Test(arguments: ["2024-02-30T00:00:00Z", "2024-05-01T25:00:00Z", "yesterday", "2024-05-01T10:00:00Zjunk", ""])
    func refusesBadTimes(text: String) {
        #expect(TextCodec.parseISO8601(text) == nil)
    }

    @Test func formatsTimesAndDecimals() {
        #expect(TextCodec.iso8601(Date(timeIntervalSince1970: -2147483648), fraction: .whenPresent) == "1901-12-13T20:45:52Z")
        #expect(TextCodec.iso8601(Date(timeIntervalSince1970: 1714557600.125), fraction: .whenPresent) == "2024-05-01T10:00:00.125Z")
        #expect(TextCodec.decimal(0.00001) == "0.00001")
        #expect(TextCodec.decimal(-1.5e-7) == "-0.00000015")
        #expect(TextCodec.decimal(1e21) == "1000000000000000000000")
        #expect(TextCodec.decimal(512) == "512")
        #expect(TextCodec.decimal(-8.5417456) == "-8.5417456")
    }

    @Test func parsesNumbersExactly() {
        for text in ["47.3769123", "-8.5417456", "0.1", "1e-5", "123456789012345678901234", "-0", "3.14159265358979323846"] {
            #expect(ByteParsing.double(Array(text.utf8)[...]) == Double(text), "\(text)")
        }
        for bad in ["", "-", "1.2.3", "nan", "inf", "1e", "0x10", "1,5"] {
            #expect(ByteParsing.double(Array(bad.utf8)[...]) == nil, "\(bad)")
        }
    }

    /// A field's text is kept as it is when it neither starts nor ends with white space (XML's
    /// space, tab, line feed and return, or white space beyond ASCII), trimmed when it does, and
    /// nothing when it is all white.
    @Test(arguments: [
        ("Malus domestica", "Malus domestica"), ("x", "x"), ("Ölbaum", "Ölbaum"), ("Gala 🌳", "Gala 🌳"),
        (" Gala", "Gala"), ("Gala\n", "Gala"), ("\tGala\r", "Gala"), ("\u{00A0}Gala", "Gala"), ("Gala\u{3000}", "Gala"),
        ("Gala\u{000B}", "Gala\u{000B}"), ("Gala\u{0085}", "Gala"), ("a b", "a b"), ("", nil), ("   ", nil), ("\u{00A0}\n", nil),
    ] as [(String, String?)])
    func keepsNonBlankTextAndTrimsItsEnds(text: String, kept: String?) {
        #expect(ByteParsing.nonBlank(text) == kept)
    }

    /// Bytes are text exactly when they are well-formed UTF-8, U+FFFD's own bytes included.
    @Test(arguments: [
        ([], ""), (Array("Malus domestica".utf8), "Malus domestica"), (Array("Grüße 🌳 Ölbaum 𝔸".utf8), "Grüße 🌳 Ölbaum 𝔸"),
        ([0xEF, 0xBF, 0xBD], "\u{FFFD}"), ([0x61, 0xF4, 0x8F, 0xBF, 0xBF], "a\u{10FFFF}"),
        ([0x80], nil), ([0x61, 0xC3], nil), ([0xC0, 0xAF], nil), ([0xE0, 0x80, 0xAF], nil), ([0xED, 0xA0, 0x80], nil),
        ([0xF4, 0x90, 0x80, 0x80], nil), ([0xF8, 0x88, 0x80, 0x80, 0x80], nil), ([0xFF], nil),
        (Array("twelve bytes".utf8) + [0xE2, 0x82], nil), (Array("eight by".utf8) + [0xC3, 0xA9] + Array("tes".utf8), "eight byétes"),
    ] as [([UInt8], String?)])
    func readsUTF8TextAndRefusesWhatIsNot(bytes: [UInt8], text: String?) {
        #expect(bytes.withUnsafeBufferPointer { ByteParsing.utf8Text($0) } == text)
    }

    /// Against the standard library's own check, on random bytes that are mostly text.
    @Test func readsUTF8TextAsTheStandardLibraryValidatesIt() {
        var random = SplitMix64(seed: 17)
        let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("€".utf8), Array("🌳".utf8), [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBD], [0x7F]]
        for _ in 0..<5_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &random) {
                bytes += Int.random(in: 0..<4, using: &random) == 0 ? pieces.randomElement(using: &random)! : pieces[0]
            }
            let expected = String(validating: bytes, as: UTF8.self)
            #expect(bytes.withUnsafeBufferPointer { ByteParsing.utf8Text($0) } == expected, "\(bytes)")
        }
    }

    /// A text id is read in either case, with white space around it, and nothing else is one.
    @Test func readsATextUUIDWithWhiteSpaceAroundIt() {
        let id = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")
        for text in ["6F9619FF-8B86-D011-B42D-00C04FC964FF", "6f9619ff-8b86-d011-b42d-00c04fc964ff", " 6F9619FF-8B86-D011-B42D-00C04FC964FF\n",
                     "\t6f9619ff-8b86-d011-b42d-00c04fc964ff\r\n "] {
            #expect(ByteParsing.uuid(text) == id, "\(text)")
        }
        for text in ["", "   ", "6F9619FF-8B86-D011-B42D-00C04FC964F", "6F9619FF-8B86-D011-B42D-00C04FC964FF0", "6F9619FF 8B86-D011-B42D-00C04FC964FF",
                     "6G9619FF-8B86-D011-B42D-00C04FC964FF", "6F9619FF-8B86-D011-B42D-00C04FC964FF x", "{6F9619FF-8B86-D011-B42D-00C04FC964FF}"] {
            #expect(ByteParsing.uuid(text) == nil, "\(text)")
        }
    }

    @Test func findsEveryKeyOfAKeyTableAndNoOtherName() {
        let names = JSONKey.names
        let table = KeyTable(names)
        for (i, name) in names.enumerated() {
            #expect(Array(name.utf8).withUnsafeBufferPointer { table.index(of: $0) } == i, "\(name)")
            #expect(JSONKey(name: name)?.rawValue == i)
        }
        for other in ["", "i", "ID", "latitudes", "latitud", "Species", "geometr", "speciesX", "xspecies", "crs ", "notes\u{0}"] {
            #expect(Array(other.utf8).withUnsafeBufferPointer { table.index(of: $0) } == nil, "\(other)")
            #expect(JSONKey(name: other) == nil)
        }
        #expect(names.contains("horizontalAccuracy") && names.contains("verticalAccuracySource") && names.count == JSONKey.allCases.count)
    }
}
