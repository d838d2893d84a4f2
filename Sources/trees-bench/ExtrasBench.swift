import Foundation
import TreesKit
import TreesStore

/// `trees-bench extras [--photo-mb N] [--count N]`: hashing and copying a large photo with
/// `trees photo add`, and writing maps and statistics of a large store.
///
/// Photo memory must stay flat as the file grows (it is read in 1 MB chunks).
func runExtrasBenchmark(arguments: [String]) throws {
    let megabytes = Int(Harness.option("--photo-mb", in: arguments) ?? "") ?? 200
    let count = Int(Harness.option("--count", in: arguments) ?? "") ?? 10_000
    let trees = Harness.treesBinary(arguments)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-extras-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/trees.sqlite"
    let store = try TreeStore(path: path)
    let species = ["Apple", "Pear", "Plum", "Cherry", "Walnut", "Quince"]
    var generator = TrackRandom(seed: 7)
    let base = Date(timeIntervalSince1970: 1_700_000_000)
    let first = try store.write { w -> Tree in
        var firstTree: Tree?
        for i in 0..<count {
            let t = Tree(coordinate: Coordinate(latitude: 51.5 + generator.unit() * 0.01, longitude: -0.12 + generator.unit() * 0.015),
                         horizontalAccuracy: 1 + generator.unit() * 25, accuracySource: .gst, species: species[i % species.count],
                         variety: "V\(i % 17)", createdAt: base + Double(i * 60))
            try w.insert(t)
            if firstTree == nil { firstTree = t }
        }
        guard let firstTree else { throw BenchError("--count must be at least 1") }
        return firstTree
    }
    let environment = ["TREES_DB": path, "NO_COLOR": "1"]

    // A JPEG header followed by filler: recognised as a photo, `megabytes` long.
    let photo = folder + "/big.jpg"
    FileManager.default.createFile(atPath: photo, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: photo))
    var chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
    chunk[0] = 0xFF; chunk[1] = 0xD8; chunk[2] = 0xFF; chunk[3] = 0xD9
    for i in 0..<megabytes {
        if i == 1 { chunk[0] = 0x5A; chunk[1] = 0x5A; chunk[2] = 0x5A; chunk[3] = 0x5A }
        try handle.write(contentsOf: Data(chunk))
    }
    try handle.close()

    print(Harness.row(["command", "median of 3 (s)", "peak memory (MB)", "throughput"]))
    let add = try Harness.median(of: 3) {
        try? FileManager.default.removeItem(atPath: folder + "/photos")
        _ = try? store.write { w in for p in try w.reader.photos(of: first.id) { _ = try w.deletePhoto(p.id) } }
        return try Harness.measure(trees, ["photo", "add", first.shortID, photo], environment: environment)
    }
    guard add.status == 0 else { throw BenchError("photo add failed with status \(add.status)") }
    print(Harness.row(["photo add (\(megabytes) MB)", String(format: "%.2f", add.seconds), String(format: "%.1f", add.peakMB),
                       String(format: "%.0f MB/s", Double(megabytes) / add.seconds)]))

    let page = folder + "/map.html"
    let map = try Harness.median(of: 3) { try Harness.measure(trees, ["map", "--out", page], environment: environment) }
    guard map.status == 0 else { throw BenchError("map failed with status \(map.status)") }
    print(Harness.row(["map (\(count) trees)", String(format: "%.2f", map.seconds), String(format: "%.1f", map.peakMB),
                       "\(Harness.fileSize(page) / 1024) kB page"]))

    let stats = try Harness.median(of: 3) { try Harness.measure(trees, ["stats"], environment: environment) }
    guard stats.status == 0 else { throw BenchError("stats failed with status \(stats.status)") }
    print(Harness.row(["stats (\(count) trees)", String(format: "%.2f", stats.seconds), String(format: "%.1f", stats.peakMB),
                       String(format: "%.0f trees/s", Double(count) / stats.seconds)]))
}
