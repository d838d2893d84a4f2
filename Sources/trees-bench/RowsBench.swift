import Foundation
import TreesKit
import TreesStore

/// `trees-bench rows [--count N]`: stores N realistic trees (default 100,000, every column
/// filled) in one transaction, once through the single insert (GRDB's cached statement with the
/// row mapping's arguments) and once through the prepared statements of imports, into fresh
/// stores on disk, alternating the two five times; prints the median trees/s of each and the
/// whole reading back of the bulk store. The bulk path is kept only while this shows it pays.
func runRowsBenchmark(arguments: [String]) throws {
    let count = Int(Harness.option("--count", in: arguments) ?? "") ?? 100_000
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-rows-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let base = Date(timeIntervalSince1970: 1_700_000_000.25)
    let collection = TreeCollection(id: UUID(), name: "Block 1", createdAt: base)
    let trees = realisticTrees(count: count, collection: collection, base: base)
    func fill(_ way: String, _ run: Int) throws -> Double {
        let store = try TreeStore(path: "\(folder)/\(way)-\(run)/trees.sqlite")
        let start = DispatchTime.now().uptimeNanoseconds
        try store.write { w in
            try w.insert(collection)
            if way == "bulk" {
                let bulk = w.bulkTrees()
                for t in trees { try bulk.insert(t) }
            } else {
                for t in trees { try w.insert(t) }
            }
        }
        return Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    var rates: [String: [Double]] = ["single": [], "bulk": []]
    for run in 0..<5 {
        for way in ["single", "bulk"] { rates[way, default: []].append(try fill(way, run)) }
    }
    let store = try TreeStore(path: "\(folder)/bulk-0/trees.sqlite")
    var reads: [Double] = []
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        var n = 0
        try store.read { r in try r.forEachTree(TreeFilter()) { _ in n += 1 } }
        reads.append(Double(n) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
    }
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    print(Harness.row(["rows (\(count) trees, one transaction)", "median trees/s", "runs"]))
    for way in ["single", "bulk"] {
        let label = way == "single" ? "insert through GRDB's cached statement" : "insert through the import's prepared statements"
        print(Harness.row([label, String(Int(median(rates[way]!))), rates[way]!.map { String(Int($0)) }.joined(separator: " ")]))
    }
    print(Harness.row(["read back every tree (decoder)", String(Int(median(reads))), reads.map { String(Int($0)) }.joined(separator: " ")]))
    print(String(format: "bulk / single: %.2fx", median(rates["bulk"]!) / median(rates["single"]!)))
}

/// `count` trees with every column filled as a field survey fills it: a 3D fix averaged over ten
/// epochs, its accuracy from GST, species and variety from short lists, a rootstock, a note, and
/// times half a second apart from `base` (with a fraction of a second, as captures have).
func realisticTrees(count: Int, collection: TreeCollection, base: Date) -> [Tree] {
    let species = ["Apple", "Pear", "Plum", "Cherry", "Walnut", "Quince", "Apricot", "Peach", "Fig", "Medlar"]
    let varieties = ["Gala", "Cox", "Braeburn", "Conference", "Victoria", "Stella", "Morello", "Franquette"]
    var generator = TrackRandom(seed: 7)
    var trees: [Tree] = []
    trees.reserveCapacity(count)
    for i in 0..<count {
        let at: Date = base + Double(i) * 0.5
        let capture = CaptureInfo(fixTime: at - 1, fixMode: .threeD, satellites: 9 + i % 5, hdop: 0.7 + generator.unit(),
                                  averagedEpochs: 10, locationSource: "gpsd://localhost:2947")
        let coordinate = Coordinate(latitude: 50 + generator.unit() * 0.1, longitude: 8 + generator.unit() * 0.1)
        let accuracy: Double = 1 + generator.unit() * 25
        let altitude: Double = 120 + generator.unit() * 10
        trees.append(Tree(coordinate: coordinate, horizontalAccuracy: accuracy, accuracySource: .gst, altitude: altitude,
                          ellipsoidHeight: altitude + 48, species: species[i % species.count],
                          variety: varieties[i % varieties.count], rootstock: "M\(i % 27)", notes: "row \(i / 40) position \(i % 40)",
                          collectionID: collection.id, createdAt: at, updatedAt: at + 3, capture: capture))
    }
    return trees
}
