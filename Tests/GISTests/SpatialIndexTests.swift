import Foundation
import GIS
import Testing
import TreesKit
import TreesTestSupport

/// The GeoPackage's R-tree is packed from points sorted by x in bounded memory: runs spilled to a
/// scratch file and merged give what one sort in memory gives, and the tree SQLite reads back is
/// whole whatever the run length.
@Suite struct SpatialIndexTests {
    /// Points on a skewed grid with repeated x values, in an order unrelated to x.
    static func entries(_ count: Int) -> [RTreeBuilder.Entry] {
        (0..<count).map { i in
            let k = (i &* 7919) % count
            return RTreeBuilder.entry(id: Int64(i + 1), x: 8.5 + Double(k % 97) * 1e-4, y: 47.3 + Double(k / 97) * 1e-4 + Double(k % 5) * 1e-6)
        }
    }

    static func key(_ e: RTreeBuilder.Entry) -> Float { e.minX + e.maxX }

    @Test(arguments: [3, 64, 1000, 5000])
    func runsMergedGiveEveryEntryOnceInOrderOfX(runLength: Int) throws {
        let folder = try TemporaryFolder("rtree-runs")
        let scratch = folder.path("index-scratch")
        let sorter = RTreeEntrySorter(scratchPath: scratch, name: "trees.gpkg", runLength: runLength)
        let input = Self.entries(2500)
        for e in input { try sorter.add(e) }
        #expect(sorter.count == 2500)
        // The scratch file is unlinked as soon as it is made: nothing is left whether runs spilled or not.
        #expect(!FileManager.default.fileExists(atPath: scratch))
        let next = try sorter.sorted()
        var output: [RTreeBuilder.Entry] = []
        while let e = try next() { output.append(e) }
        #expect(output.count == input.count)
        #expect(zip(output, output.dropFirst()).allSatisfy { Self.key($0) <= Self.key($1) })
        #expect(output.map(\.id).sorted() == input.map(\.id).sorted())
        #expect(Set(output.map(\.id)).count == input.count)
        #expect(try next() == nil)
    }

    @Test func aScratchFileThatCannotBeMadeIsAnError() throws {
        let folder = try TemporaryFolder("rtree-no-scratch")
        let sorter = RTreeEntrySorter(scratchPath: folder.path("missing/index-scratch"), name: "trees.gpkg", runLength: 2)
        try sorter.add(Self.entries(1)[0])
        try sorter.add(Self.entries(2)[1])
        #expect {
            try sorter.add(Self.entries(3)[2])
        } throws: { error in
            guard case GISError.scratch(let file, let reason) = error else { return false }
            return file == "trees.gpkg" && reason.hasPrefix("cannot make the spatial index's scratch file") && reason.contains("No such file")
        }
    }

    /// A layer of 3,000 trees written with runs of 50 points: SQLite's own check passes, every
    /// row has one entry, and a window through the index finds what a scan of the entries finds.
    @Test(.enabled(if: Tool.sqlite3.shouldRun), arguments: [50, 1 << 16])
    func aTreePackedFromSpilledRunsIsWhole(runLength: Int) throws {
        let folder = try TemporaryFolder("rtree-gpkg")
        let path = folder.path("trees.gpkg")
        let writer = try GeoPackageWriter(path: path, name: "trees.gpkg", projection: nil, collections: [], indexRunLength: runLength)
        for i in 0..<3000 {
            let k = (i &* 7919) % 3000
            try writer.write(Tree(coordinate: Coordinate(latitude: 47.3 + Double(k / 60) * 1e-4, longitude: 8.5 + Double(k % 60) * 1e-4),
                                  species: "Apple", createdAt: Date(timeIntervalSince1970: 1_777_777_777)))
        }
        try writer.finish()
        #expect(!FileManager.default.fileExists(atPath: path + "-index-scratch"))
        let sqlite = try Tool.sqlite3.require()
        let window = "maxx >= 8.50095 AND minx <= 8.50305 AND maxy >= 47.30095 AND miny <= 47.30205"
        let result = try Program.run(sqlite, [path, """
            SELECT rtreecheck('rtree_trees_geom');
            SELECT hex(substr(data, 1, 2)) FROM rtree_trees_geom_node WHERE nodeno = 1;
            CREATE TEMP TABLE entries AS SELECT * FROM rtree_trees_geom;
            SELECT (SELECT count(*) FROM entries WHERE \(window)), (SELECT count(*) FROM rtree_trees_geom WHERE \(window)),
                   (SELECT count(DISTINCT t.fid) FROM trees t JOIN rtree_trees_geom r ON r.id = t.fid), (SELECT count(*) FROM entries);
            """])
        // 21 × 11 grid points lie in the window: longitudes 8.5010…8.5030, latitudes 47.3010…47.3020.
        #expect(result.stdout == "ok\n0002\n231|231|3000|3000\n", "\(result)")
    }
}
