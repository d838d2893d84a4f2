import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

@Suite struct GPXWriterTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder("interchange-tests") }

    func writeSample() throws -> URL {
        let url = folder.url("trees.gpx")
        try exportString(Fixtures.trees, format: .gpx, context: Fixtures.context).write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func roundTripRestoresEveryField() throws {
        let text = try exportString(Fixtures.trees, format: .gpx, context: Fixtures.context)
        var imported: [ImportedTree] = []
        var diagnostics: [Diagnostic] = []
        let summary = try GPXReader.read(Array(text.utf8)) { e in
            if case .waypoint(let p) = e { imported.append(ImportedTree(p)) }
            if case .diagnostic(let d) = e { diagnostics.append(d) }
        }
        #expect(diagnostics.isEmpty)
        #expect(summary.metadata.version == .v1_1)
        #expect(summary.metadata.name == "Victoria's Orchard")
        #expect(summary.waypoints == 3)
        #expect(imported.count == 3)
        for (original, read) in zip(Fixtures.trees, imported) {
            let back = read.tree(id: try #require(read.id), collectionID: read.collectionID, now: .distantPast)
            // −180° and 180° are the same meridian; GPX writes −180.
            #expect(back == original)
        }
        #expect(imported[0].collectionName == "Victoria's Orchard")
    }

    @Test(.enabled(if: Tool.xmllint.shouldRun)) func validatesAgainstTheGPX11Schema() throws {
        let url = try writeSample()
        let r = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", Corpus.path("schema/gpx11.xsd"), url.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("validates"))
    }

    /// The trees of `text`, read back.
    func readBack(_ text: String) throws -> [ImportedTree] {
        var trees: [ImportedTree] = []
        _ = try GPXReader.read(Array(text.utf8)) { e in if case .waypoint(let p) = e { trees.append(ImportedTree(p)) } }
        return trees
    }

    /// `text` checked by xmllint against the GPX 1.1 schema: its complaints, empty when it validates.
    func schemaComplaints(_ text: String, _ name: String) throws -> String {
        let url = folder.url(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let r = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", Corpus.path("schema/gpx11.xsd"), url.path])
        return r.status == 0 && r.stderr.contains("validates") ? "" : r.stderr
    }

    /// XML reads a carriage return in the file as a line feed: one in a tree's text is written
    /// `&#13;`, so it comes back as itself.
    @Test func aCarriageReturnInTextComesBack() throws {
        var tree = Fixtures.bare
        tree.notes = "first\rsecond\r\nthird"
        tree.variety = "Old\rRed"
        let text = try exportString([tree], format: .gpx, context: Fixtures.context)
        #expect(text.contains("<trees:notes>first&#13;second&#13;\nthird</trees:notes>"))
        #expect(!text.contains("\r"))
        let back = try #require(try readBack(text).first)
        #expect(back.fields.notes == "first\rsecond\r\nthird")
        #expect(back.fields.variety == "Old\rRed")
    }

    /// A reader turns a tab, a newline or a return in an attribute value into a space: in
    /// attributes (care's `who` and `unit`, `creator`) they are written as references, so they
    /// come back as themselves; element text keeps tab and newline as they are.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func tabsAndLineBreaksInAttributesComeBack() throws {
        let tree = Fixtures.bare
        let event = CareEvent(treeID: tree.id, kind: .harvest, date: Date(timeIntervalSince1970: 1_717_236_000),
                              notes: "row\t3\nnorth", quantity: CareQuantity(value: 2.5, unit: "kg\tper\ntree"),
                              who: "Ann\tand\nBob\r\nCarter", createdAt: Date(timeIntervalSince1970: 1_717_236_000))
        var context = Fixtures.context
        context.creator = "trees\t2.0\nbuild"
        let box = StringBox()
        var writer = GPXWriter(context: context) { box.bytes.append(contentsOf: $0) }
        try writer.begin()
        try writer.write(tree, photos: [], care: TreeCare(events: [event], schedules: []))
        try writer.finish()
        let text = box.string
        #expect(text.contains(#"creator="trees&#9;2.0&#10;build""#))
        #expect(text.contains(#"unit="kg&#9;per&#10;tree""#) && text.contains(#"who="Ann&#9;and&#10;Bob&#13;&#10;Carter""#))
        #expect(text.contains(">row\t3\nnorth</trees:care>"))
        #expect(try schemaComplaints(text, "attributes.gpx") == "")
        var back: [ImportedTree] = []
        let summary = try GPXReader.read(Array(text.utf8)) { e in if case .waypoint(let p) = e { back.append(ImportedTree(p)) } }
        #expect(summary.metadata.creator == "trees\t2.0\nbuild")
        let read = try #require(back.first?.care.events.first)
        #expect(read.who == "Ann\tand\nBob\r\nCarter")
        #expect(read.quantity == CareQuantity(value: 2.5, unit: "kg\tper\ntree"))
        #expect(read.notes == "row\t3\nnorth")
        #expect(TextCodec.xmlAttributeEscaped("a\tb\nc\rd\u{1}\"") == "a&#9;b&#10;c&#13;d&quot;")
    }

    /// Characters XML 1.0 cannot carry are left out of the file (tab, line feed and return stay);
    /// the document stays well formed and valid.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func charactersXMLCannotCarryAreLeftOut() throws {
        var tree = Fixtures.bare
        tree.species = "Malus\u{1}\u{FFFE} domestica\u{FFFF}\u{1B}"
        tree.notes = "bell\u{7}\ttab\u{0}\u{FFFD}\u{10FFFF}"
        let text = try exportString([tree], format: .gpx, context: Fixtures.context)
        #expect(try schemaComplaints(text, "controls.gpx") == "")
        let back = try #require(try readBack(text).first)
        #expect(back.fields.species == "Malus domestica")
        #expect(back.fields.notes == "bell\ttab\u{FFFD}\u{10FFFF}")
        #expect(TextCodec.xmlDropsCharacters(tree.species) && !TextCodec.xmlDropsCharacters("tab\tline\nreturn\r\u{FFFD}"))
    }

    /// Numbers are `xsd:decimal` (no exponent, no `-0`) and longitudes within [−180, 180), for the
    /// waypoints and for the bounds, however tiny the numbers or near the antimeridian the trees.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func numbersAndBoundsNearTheAntimeridianAreValid() throws {
        var east = Fixtures.bare
        east.coordinate = Coordinate(latitude: 1e-7, longitude: 180)
        east.altitude = -1e-9
        var west = Fixtures.bare
        west.id = UUID(uuidString: "2F3E4D5C-6B7A-4988-8A9B-ACBDCEDFE0F1")!
        west.coordinate = Coordinate(latitude: -0.0, longitude: -179.99999999999997)
        west.altitude = 5e-324
        west.horizontalAccuracy = 1e-7
        var context = Fixtures.context
        context.bounds = GeoBounds.of([east.coordinate, west.coordinate])
        let text = try exportString([east, west], format: .gpx, context: context)
        #expect(try schemaComplaints(text, "antimeridian.gpx") == "", "\(text)")
        #expect(!text.contains("e-") && !text.contains("\"-0\"") && !text.contains(">-0<"))
        #expect(text.contains("<wpt lat=\"0.0000001\" lon=\"-180\">"))
        #expect(text.contains("<bounds minlat=\"0\" minlon=\"-179.99999999999997\" maxlat=\"0.0000001\" maxlon=\"-180\"/>"))
        let patch = String(decoding: GPXWriter.boundsPatch(context.bounds), as: UTF8.self)
        #expect(patch.hasPrefix("    <bounds minlat=\"0\" minlon=\"-179.99999999999997\" maxlat=\"0.0000001\" maxlon=\"-180\"/>"))
        #expect(patch.utf8.count == GPXWriter.boundsWidth)
    }

    /// A longitude just short of 180° never comes out as 180 (the schema's longitudes stop short
    /// of it): a track point rounded to 9 places is written as −180, a waypoint as it is.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func longitudesJustShortOf180StayValid() throws {
        var track = GPXTrackWriter(name: "east")
        var out: [UInt8] = []
        track.begin(into: &out)
        for lon in [179.9999999996, 179.9999999994, -180, 180, -179.9999999996] {
            track.add(Fix(mode: .threeD, coordinate: Coordinate(latitude: 90, longitude: lon)), into: &out)
        }
        track.end(into: &out)
        let text = String(decoding: out, as: UTF8.self)
        let lons = text.components(separatedBy: "lon=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(lons == ["-180", "179.999999999", "-180", "-180", "-180"], "\(text)")
        #expect(try schemaComplaints(text, "track180.gpx") == "", "\(text)")

        var tree = Fixtures.bare
        tree.coordinate = Coordinate(latitude: -90, longitude: 179.9999999996)
        let waypoints = try exportString([tree], format: .gpx, context: Fixtures.context)
        #expect(waypoints.contains("<wpt lat=\"-90\" lon=\"179.9999999996\">"))
        #expect(try schemaComplaints(waypoints, "wpt180.gpx") == "", "\(waypoints)")
    }

    /// Schema processors read `xsd:decimal` to 24 digits (libxml2): a number of GPX's own
    /// elements of 1e24 or more is written as the largest one they read, with a warning; just
    /// below, in full; our extension keeps the number itself.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func hugeNumbersAreWrittenAsDecimalsSchemaProcessorsRead() throws {
        var high = Fixtures.bare
        high.altitude = 1e24
        high.capture.hdop = 1e300
        high.ellipsoidHeight = -1e30
        var low = Fixtures.bare
        low.id = UUID(uuidString: "2F3E4D5C-6B7A-4988-8A9B-ACBDCEDFE0F1")!
        low.altitude = -9.999999999999999e23
        let box = StringBox()
        var writer = GPXWriter(context: Fixtures.context) { box.bytes.append(contentsOf: $0) }
        try writer.begin()
        try writer.write(high)
        try writer.write(low)
        try writer.finish()
        let text = box.string
        #expect(try schemaComplaints(text, "huge.gpx") == "", "\(text)")
        #expect(text.contains("<ele>999999999999999999999999</ele>") && text.contains("<hdop>999999999999999999999999</hdop>"))
        #expect(text.contains("<ele>-999999999999999800000000</ele>"))
        #expect(text.contains("<trees:ellipsoidHeight>-1000000000000000000000000000000</trees:ellipsoidHeight>"))
        #expect(writer.warnings == ["2 numbers of 1e24 or more (an altitude or an HDOP) written as 999999999999999999999999, "
            + "the largest GPX readers take; the first in tree \(high.shortID) (trees show \(high.shortID))"])

        var track = GPXTrackWriter(name: "high")
        var out: [UInt8] = []
        track.begin(into: &out)
        track.add(Fix(mode: .threeD, coordinate: Coordinate(latitude: 1, longitude: 2), altitudeMSL: -1e24, geoidSeparation: 1e40, hdop: 5e30),
                  into: &out)
        track.end(into: &out)
        let trackText = String(decoding: out, as: UTF8.self)
        #expect(try schemaComplaints(trackText, "hugetrack.gpx") == "", "\(trackText)")
        #expect(trackText.contains("<ele>-999999999999999999999999</ele>"))
    }

    /// A document without trees reserves no room for bounds: no line of padding is left in it.
    @Test(.enabled(if: Tool.xmllint.shouldRun)) func aDocumentWithoutTreesHasNoPadding() throws {
        var context = ExportContext(collections: [], exportedAt: Fixtures.context.exportedAt)
        context.reserveBounds = true
        let box = StringBox()
        var writer = GPXWriter(context: context) { box.bytes.append(contentsOf: $0) }
        try writer.begin()
        try writer.finish()
        #expect(writer.boundsPlaceholder == nil)
        #expect(box.string.hasSuffix("  <metadata>\n    <time>2024-06-01T12:00:00Z</time>\n  </metadata>\n</gpx>\n"))
        #expect(!box.string.contains("  \n") && !box.string.contains("\n\n"))
        #expect(try schemaComplaints(box.string, "empty.gpx") == "")

        var one = GPXWriter(context: context) { _ in }
        try one.begin()
        try one.write(Fixtures.bare)
        try one.finish()
        #expect(one.boundsPlaceholder != nil)
    }

    @Test(.enabled(if: Tool.gpsbabel.shouldRun)) func gpsbabelReadsItBack() throws {
        let url = try writeSample()
        let r = try Program.run("/usr/bin/gpsbabel", ["-i", "gpx", "-f", url.path, "-o", "unicsv", "-F", "-"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.count == 4)
        let header = lines[0].split(separator: ",").map(String.init)
        let lat = try #require(header.firstIndex(of: "Latitude"))
        let lon = try #require(header.firstIndex(of: "Longitude"))
        let name = try #require(header.firstIndex(of: "Name"))
        let row1 = parseCSVLine(lines[1])
        // unicsv prints six decimals.
        #expect(abs(try #require(Double(row1[lat])) - 47.3769123) <= 1e-6)
        #expect(abs(try #require(Double(row1[lon])) - -8.5417456) <= 1e-6)
        #expect(row1[name] == "Malus domestica 'Boskoop & <Rote>'")
        let row3 = parseCSVLine(lines[3])
        #expect(Double(row3[lat]) == 0.00001)
        #expect(Double(row3[lon]) == -180)
        #expect(row3[name] == "Quercus robur")
    }

    @Test(.enabled(if: Tool.ogr2ogr.shouldRun)) func gdalReadsIt() throws {
        let url = try writeSample()
        let r = try Program.run("/usr/bin/ogrinfo", ["-ro", "-al", "-so", url.path, "waypoints"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Feature Count: 3"), "\(r.stdout)")
        let dir = url.deletingLastPathComponent()
        let csv = dir.appendingPathComponent("waypoints.csv")
        let c = try Program.run("/usr/bin/ogr2ogr", ["-f", "CSV", csv.path, url.path, "waypoints", "-lco", "GEOMETRY=AS_XY"])
        #expect(c.status == 0, "\(c.stderr)")
        let text = try String(contentsOf: csv, encoding: .utf8)
        #expect(text.contains("-8.5417456,47.3769123"))
        #expect(text.contains("Malus domestica"))
    }

    @Test func elementsFollowSchemaOrderAndEscape() throws {
        let text = try exportString([Fixtures.full], format: .gpx, context: Fixtures.context)
        let order = ["<ele>", "<time>", "<name>", "<desc>", "<sym>", "<type>", "<fix>", "<sat>", "<hdop>", "<extensions>"]
        let wpt = try #require(text.range(of: "<wpt"))
        let positions = order.map { text.range(of: $0, range: wpt.lowerBound..<text.endIndex)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(text.contains("<name>Malus domestica &apos;Boskoop &amp; &lt;Rote&gt;&apos;</name>"))
        #expect(text.contains("<time>2024-05-01T09:59:58Z</time>"))
        #expect(text.contains("<bounds minlat=\"-33.8688\" minlon=\"-180\" maxlat=\"47.3769123\" maxlon=\"151.2093\"/>"))
        #expect(text.contains("""
                  <trees:locationSource>gpsd://localhost:2947</trees:locationSource>
                  <trees:fixStatus>rtk-fixed</trees:fixStatus>
                  <trees:correctionAge>1.2</trees:correctionAge>
                  <trees:verticalAccuracy>0.035</trees:verticalAccuracy>
                  <trees:verticalAccuracySource>gst</trees:verticalAccuracySource>
                  <trees:antennaHeight>1.8</trees:antennaHeight>

            """))
    }

    /// A fix quality that cannot be read refuses the file at its line: an unknown status or
    /// source name, a negative or unreadable number.
    @Test(arguments: [
        ("<trees:fixStatus>rtk</trees:fixStatus>", "<trees:fixStatus> \"rtk\" is not a fix status; expected one of unknown, gps, dgps, "
            + "rtk-fixed, rtk-float, dead-reckoning, gnss-dead-reckoning, time-only, simulated, pps"),
        ("<trees:antennaHeight>-1.8</trees:antennaHeight>", "<trees:antennaHeight> -1.8 is negative; expected 0 or more"),
        ("<trees:correctionAge>old</trees:correctionAge>", "<trees:correctionAge> \"old\" is not a number"),
        ("<trees:verticalAccuracy>-2</trees:verticalAccuracy>", "<trees:verticalAccuracy> -2 is negative; expected 0 or more"),
        ("<trees:verticalAccuracySource>guess</trees:verticalAccuracySource>", "<trees:verticalAccuracySource> \"guess\" is not an "
            + "accuracy source; expected one of receiver, gst, gbs, dop, manual, averaged, imported, phone"),
    ])
    func refusesAnUnreadableFixQualityWithItsLine(element: String, reason: String) throws {
        let text = """
            <?xml version="1.0"?>
            <gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:trees="\(GPXNamespace.trees)" version="1.1" creator="t">
              <wpt lat="1" lon="2"><extensions>
                <trees:species>Apple</trees:species>
                \(element)
              </extensions></wpt>
            </gpx>
            """
        #expect(throws: InterchangeError.unstorableValue(line: 5, reason: reason)) {
            try GPXReader.read(Array(text.utf8)) { _ in }
        }
    }
}

/// A minimal CSV line splitter for tool output (quotes, doubled quotes).
func parseCSVLine(_ line: String) -> [String] {
    var fields: [String] = []
    var field = ""
    var quoted = false
    var chars = Array(line)
    var i = 0
    while i < chars.count {
        let c = chars[i]
        if quoted {
            if c == "\"" {
                if i + 1 < chars.count && chars[i + 1] == "\"" { field.append("\""); i += 1 } else { quoted = false }
            } else { field.append(c) }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            fields.append(field); field = ""
        } else {
            field.append(c)
        }
        i += 1
    }
    fields.append(field)
    chars.removeAll()
    return fields
}
