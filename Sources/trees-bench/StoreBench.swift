import Foundation
import TreesKit
import TreesStore

/// `trees-bench store [--count N]`: fills a store with N trees (default 100,000) and times listings.
func runStoreBenchmark(arguments: [String]) throws {
    let count = Int(Harness.option("--count", in: arguments) ?? "") ?? 100_000
    let trees = Harness.treesBinary(arguments)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-store-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/trees.sqlite"
    let store = try TreeStore(path: path)
    let species = ["Apple", "Pear", "Plum", "Cherry", "Walnut", "Quince", "Apricot", "Peach", "Fig", "Medlar"]
    let varieties = ["Gala", "Cox", "Braeburn", "Conference", "Victoria", "Stella", "Morello", "Franquette"]
    var generator = TrackRandom(seed: 42)
    let base = Date(timeIntervalSince1970: 1_700_000_000)
    let fillStart = DispatchTime.now().uptimeNanoseconds
    try store.write { w in
        let collections = try (0..<20).map { try w.createCollection(named: "Block \($0)") }
        for i in 0..<count {
            let t = Tree(
                coordinate: Coordinate(latitude: 50 + generator.unit() * 0.1, longitude: 8 + generator.unit() * 0.1),
                horizontalAccuracy: 1 + generator.unit() * 25, accuracySource: .gst, species: species[i % species.count],
                variety: varieties[Int(generator.next() % UInt64(varieties.count))], rootstock: "M\(i % 27)",
                notes: i % 1000 == 0 ? "marker tree \(i) near the pond" : "row \(i / 40) position \(i % 40)",
                collectionID: collections[i % collections.count].id, createdAt: base + Double(i))
            try w.insert(t)
        }
    }
    let fillSeconds = Double(DispatchTime.now().uptimeNanoseconds - fillStart) / 1e9
    print("store: \(count) trees inserted in \(String(format: "%.2f", fillSeconds)) s (\(Int(Double(count) / fillSeconds)) trees/s), database \(Harness.fileSize(path) / 1_048_576) MB")
    let cases: [(String, [String])] = [
        ("list --limit 50", ["list", "--limit", "50"]),
        ("list --search pond --limit 50", ["list", "--search", "pond", "--limit", "50"]),
        ("list --search Victoria --limit 50", ["list", "--search", "Victoria", "--limit", "50"]),
        ("list --species Fig --limit 50 --json", ["list", "--species", "Fig", "--limit", "50", "--json"]),
        ("list --search Äpfel --limit 50 (Unicode folding)", ["list", "--search", "Äpfel", "--limit", "50"]),
        ("show PREFIX", ["show", String(try store.trees(limit: 1)[0].shortID.prefix(6))]),
    ]
    print(Harness.row(["command", "median of 5 (s)", "peak memory (MB)"]))
    for (name, args) in cases {
        let m = try Harness.median(of: 5) { try Harness.measure(trees, args + ["--db", path]) }
        print(Harness.row([name, String(format: "%.3f", m.seconds), String(format: "%.1f", m.peakMB)]))
    }
}
