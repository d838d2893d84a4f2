import Foundation
import GRDB
import Interchange
import Testing
import TreesKit
@testable import TreesStore
import TreesTestSupport
@testable import TreesWorkflows

/// What the reading thread hands the transaction beside the trees: that positions are carried
/// through PROJ (before the first tree, so the import can make room for it), and about how many
/// trees the file holds (once, from the first chunks read).
@Suite struct ImportReadJobTests {
    let folder: TemporaryFolder
    init() throws { folder = try TemporaryFolder("read-job") }

    /// Everything a read job over `path` hands over, in order.
    static func items(of path: String, format: FileFormat, crs: String? = nil) throws -> [ImportItem] {
        let job = ImportReadJob(input: try InputFile(path), format: format, speciesSource: .name, parts: [], progress: { _ in })
        job.crs = crs
        let pipeline = ImportPipeline()
        let reading = Thread { job.run(into: pipeline) }
        reading.start()
        var all: [ImportItem] = []
        while let batch = try pipeline.next() { all += batch }
        return all
    }

    /// A surveyor's CSV of `count` trees in the Swiss grid (EPSG:2056), about 40 bytes a tree.
    func swissCSV(_ count: Int) throws -> String {
        var rows = "species,E,N\n"
        for i in 0..<count {
            rows += "\(i % 2 == 0 ? "Malus domestica" : "Pyrus communis"),\(2_680_000 + i % 400 * 2).250,\(1_240_000 + i / 400 * 4).500\n"
        }
        return try folder.write("survey-\(count).csv", rows)
    }

    @Test func aCSVInAGridSaysSoBeforeItsFirstTreeAndEstimatesItsTreesOnce() throws {
        let count = 20_000  // 800 KB: the estimate comes after the second chunk of 256 KiB
        let items = try Self.items(of: try swissCSV(count), format: .csv, crs: "EPSG:2056")
        guard case .projecting(let crs) = items.first else {
            Issue.record("the first item is \(String(describing: items.first)), not .projecting")
            return
        }
        #expect(crs == "EPSG:2056")
        let trees = items.indices.filter { if case .tree = items[$0] { true } else { false } }
        #expect(trees.count == count)
        let estimates = items.indices.compactMap { i -> (at: Int, trees: Int)? in
            if case .expected(let n) = items[i] { (i, n) } else { nil }
        }
        try #require(estimates.count == 1)
        let estimate = estimates[0]
        // Within a fifth of the truth, after at least 1,000 trees and well before the last.
        #expect(estimate.trees >= count * 4 / 5 && estimate.trees <= count * 6 / 5)
        #expect(trees.filter { $0 < estimate.at }.count >= 1_000)
        #expect(trees.filter { $0 > estimate.at }.count >= count / 4)
    }

    /// A file read in one chunk gives no estimate (there is nothing to go on but its size), and
    /// positions in WGS 84 need no PROJ.
    @Test func aSmallFileInWGS84GivesNeitherEstimateNorProjection() throws {
        let gpx = try folder.write("small.gpx", """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="47.3" lon="8.5"><name>Apple</name></wpt>
            <wpt lat="47.4" lon="8.6"><name>Pear</name></wpt>
            </gpx>
            """)
        let items = try Self.items(of: gpx, format: .gpx)
        #expect(items.count == 2)
        #expect(items.allSatisfy { if case .tree = $0 { true } else { false } })
    }

    /// The whole import of such a CSV into a new store: every tree stored once, at the position the
    /// grid gives, with its version row, the store whole.
    @Test func aGridCSVImportedIntoANewStoreKeepsEveryTree() throws {
        let count = 20_000
        let path = folder.path("grid.sqlite")
        var workflow = ImportWorkflow()
        workflow.crs = "EPSG:2056"
        let report = try workflow.run(try InputFile(try swissCSV(count)), opening: { try TreeStore(path: path, unseenWhenNew: true) })
        #expect(report.imported == count)
        let store = try TreeStore(path: path)
        let (trees, versions, integrity) = try store.queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT count(*) FROM tree"), try Int.fetchOne(db, sql: "SELECT count(*) FROM treeVersion"),
             try String.fetchOne(db, sql: "PRAGMA integrity_check"))
        }
        #expect(trees == count && versions == count && integrity == "ok")
    }
}
