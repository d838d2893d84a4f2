import Foundation
import Testing
import TreesKit
import TreesStore
import TreesTestSupport
@testable import TreesWorkflows

/// Finding duplicates of trees without ids: same species (ASCII case ignored, as SQLite's NOCASE)
/// within 1e-7° in latitude and longitude of a stored tree, through the compact position index.
@Suite struct DuplicatePositionTests {
    @Test func theIndexNamesEveryTreeWithin1e7DegreesOfAPoint() {
        var index = PositionIndex(capacity: 10)  // small: the trees below fill several tables
        var generator = SplitMix64(seed: 3)
        var stored: [(Double, Double, String, Int64)] = []
        for i in 1...5_000 {
            let lat = 47 + Double(generator.next() % 1_000_000) * 1e-7, lon = 8 + Double(generator.next() % 1_000_000) * 1e-7
            let species = ["Apple", "Pear", "Plum"][i % 3]
            index.insert(latitude: lat, longitude: lon, species: species, rowID: Int64(i))
            stored.append((lat, lon, species, Int64(i)))
        }
        for (lat, lon, species, row) in stored.prefix(500) {
            // The same place, a neighbouring cell, another case of the species: found.
            #expect(index.candidates(latitude: lat, longitude: lon, species: species).contains(row))
            #expect(index.candidates(latitude: lat + 0.9e-7, longitude: lon - 0.9e-7, species: species.uppercased()).contains(row))
            // Far away or another species: hardly ever a candidate (the store confirms any that is).
            #expect(!index.candidates(latitude: lat + 5e-7, longitude: lon, species: species).contains(row))
            #expect(!index.candidates(latitude: lat, longitude: lon, species: species + " tree").contains(row))
        }
        #expect(!index.overflowed)
    }

    /// The species hash is FNV-1a of the UTF-8 with ASCII letters folded to lower case, the same
    /// for a name held inline, on the heap, or cut from a longer string.
    @Test func theSpeciesHashIsFNV1aOfTheFoldedBytesHoweverTheNameIsHeld() {
        // FNV-1a (64-bit) of "a" and of "foobar", as its authors give them.
        #expect(PositionIndex.speciesHash("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(PositionIndex.speciesHash("A") == 0xaf63_dc4c_8601_ec8c)
        #expect(PositionIndex.speciesHash("FooBar") == 0x8594_4171_f739_67e8)
        #expect(PositionIndex.speciesHash("") == 0xcbf2_9ce4_8422_2325)
        let long = "Malus domestica 'Schöner aus Boskoop' on M9"
        let cut = String(("x" + long + "y").dropFirst().dropLast())
        let bridged = NSString(string: long.uppercased().replacingOccurrences(of: "Ö", with: "ö")) as String
        #expect(PositionIndex.speciesHash(cut) == PositionIndex.speciesHash(long))
        #expect(PositionIndex.speciesHash(bridged) == PositionIndex.speciesHash(long))
        // Only ASCII letters are folded: "Ö" and "ö" differ, as SQLite's NOCASE holds them.
        #expect(PositionIndex.speciesHash("Öl") != PositionIndex.speciesHash("öl"))
    }

    /// Told how many trees it will hold, the index adds one table for all those the first cannot
    /// take, not a series of tables each half as large as the others, and finds every tree.
    @Test func anExpectedTotalSizesTheNextTableForTheRest() {
        func filled(expecting total: Int) -> PositionIndex {
            var index = PositionIndex(capacity: 3_000)
            index.expectedTotal = total
            for i in 1...10_000 {
                index.insert(latitude: 47 + Double(i / 100) * 4e-5, longitude: 8 + Double(i % 100) * 2e-5, species: "Apple", rowID: Int64(i))
            }
            return index
        }
        let told = filled(expecting: 10_000), untold = filled(expecting: 0), wild = filled(expecting: 10_000_000)
        #expect(told.tableCount == 2)
        #expect(told.slotCount <= 12_600)       // 10,000 trees at 80% full: 12,500 slots
        #expect(untold.tableCount >= 4)
        #expect(untold.slotCount > told.slotCount)
        // An estimate far off makes a table at most four times the others, not 12.5 million slots.
        #expect(wild.tableCount == 2 && wild.slotCount < 20_000)
        for i in stride(from: 1, through: 10_000, by: 7) {
            let lat = 47 + Double(i / 100) * 4e-5, lon = 8 + Double(i % 100) * 2e-5
            #expect(told.candidates(latitude: lat, longitude: lon, species: "apple").contains(Int64(i)))
        }
    }

    /// Pairs of points up to 1e-7° apart in each axis, many of them across cell edges and near
    /// cells' middles, at coordinates of every size and sign: every stored one is a candidate.
    @Test func noPointWithinTheToleranceIsMissedAtCellEdgesOrMiddles() {
        var generator = SplitMix64(seed: 11)
        func unit() -> Double { Double(generator.next() % 1_000_001) / 1_000_000 }
        var index = PositionIndex(capacity: 100)
        var pairs: [(Double, Double, Double, Double, Int64)] = []
        for i in 1...20_000 {
            // Stored points on, just beside, or anywhere around a cell edge or a cell middle.
            let base = [-179.9, -47.3, -0.0000003, 0, 8.5, 89.9][i % 6]
            let cell = Double(Int64(generator.next() % 1000))
            let near = [0, 0.5, 0.25][i % 3] + [0, 1e-12, -1e-12, (unit() - 0.5) * 1e-6][(i / 3) % 4]
            let lat = max(-90, min(90, base / 2 + (cell + near) * 2e-7))
            let lon = base + (Double(Int64(generator.next() % 1000)) + near) * 2e-7
            index.insert(latitude: lat, longitude: lon, species: "Apple", rowID: Int64(i))
            let dLat = (unit() * 2 - 1) * 1e-7, dLon = [1e-7, -1e-7, (unit() * 2 - 1) * 1e-7][i % 3]
            pairs.append((lat + dLat, lon + dLon, lat, lon, Int64(i)))
        }
        var found: [Int64] = []
        var missed = 0
        for (qLat, qLon, lat, lon, row) in pairs where abs(qLat - lat) <= 1e-7 && abs(qLon - lon) <= 1e-7 {
            index.candidates(latitude: qLat, longitude: qLon, species: "apple", into: &found)
            if !found.contains(row) { missed += 1 }
        }
        #expect(missed == 0)
    }

    /// From standard input (no size, so no estimate of its trees) the index is built again as its
    /// tables pile up (here at about 1,800 and 6,000 trees): a survey whose last 1,000 points repeat
    /// its first 1,000 has them found, and the same survey again is found whole.
    @Test func aSurveyFromStandardInputIsFoundAcrossRebuiltIndexes() throws {
        let folder = try TemporaryFolder("duplicates-stdin")
        var rows = ""
        for i in 0..<8_000 {
            let k = i < 7_000 ? i : i - 7_000
            let lat = 47.3 + Double(k / 100) * 3.6e-5, lon = 8.5 + Double(k % 100) * 2e-5
            rows += "<wpt lat=\"\(TextCodec.decimal(lat) ?? "")\" lon=\"\(TextCodec.decimal(lon) ?? "")\"><name>\(k % 3 == 0 ? "Apple" : "Pear")</name></wpt>\n"
        }
        let survey = try folder.write("survey.gpx", "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n\(rows)</gpx>\n")
        func standardInput() throws -> InputFile {
            try InputFile(standardInput: try #require(FileHandle(forReadingAtPath: survey)))
        }
        let first = try ImportWorkflow().run(try standardInput(), opening: { try folder.store() })
        #expect(first.imported == 7_000 && first.alreadyPresent == 1_000)
        let again = try ImportWorkflow().run(try standardInput(), opening: { try folder.store() })
        #expect(again.imported == 0 && again.alreadyPresent == 8_000)
        #expect(try folder.store().trees().count == 7_000)
    }

    @Test func reimportingASurveyFindsEveryTreeAndOnlyThose() throws {
        let folder = try TemporaryFolder("duplicates")
        var rows = ""
        for i in 0..<2_000 {
            let lat = 47.3 + Double(i / 40) * 3.6e-5, lon = 8.5 + Double(i % 40) * 2e-5
            rows += "<wpt lat=\"\(TextCodec.decimal(lat) ?? "")\" lon=\"\(TextCodec.decimal(lon) ?? "")\"><name>\(i % 2 == 0 ? "Apple" : "Pear")</name></wpt>\n"
        }
        let survey = try folder.write("survey.gpx", "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n\(rows)</gpx>\n")
        let first = try ImportWorkflow().run(try InputFile(survey), opening: { try folder.store() })
        #expect(first.imported == 2_000)
        let again = try ImportWorkflow().run(try InputFile(survey), opening: { try folder.store() })
        #expect(again.imported == 0 && again.alreadyPresent == 2_000)
        // 1.5e-7° away, or another species at the same place, is a new tree; 0.5e-7° away, in
        // another case, is the same tree.
        let near = try folder.write("near.gpx", """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="47.30000015" lon="8.5"><name>Apple</name></wpt>
            <wpt lat="47.3" lon="8.5"><name>Quince</name></wpt>
            <wpt lat="47.30000005" lon="8.50000005"><name>APPLE</name></wpt>
            </gpx>
            """)
        let mixed = try ImportWorkflow().run(try InputFile(near), opening: { try folder.store() })
        #expect(mixed.imported == 2 && mixed.alreadyPresent == 1)
        #expect(try folder.store().trees().count == 2_002)
    }
}
