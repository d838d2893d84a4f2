import Foundation
import Interchange
import TreesKit

/// `trees-bench writers [--count N] [--runs R] [--format F]`: the export writers alone, without the store or
/// the file. N realistic trees (default 100,000, every field filled) are written in each stream
/// format to a sink that counts the bytes, R times (default 5) in turn (or one format, `--format`); prints each format's median
/// trees/s and MB/s. An export's writing thread does this work beside the thread reading the
/// store, so it is what bounds an export's speed once the store is read faster.
func runWritersBenchmark(arguments: [String]) throws {
    let count = Int(Harness.option("--count", in: arguments) ?? "") ?? 100_000
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 5
    let base = Date(timeIntervalSince1970: 1_700_000_000.25)
    let collection = TreeCollection(id: UUID(), name: "Block 1", createdAt: base)
    let trees = realisticTrees(count: count, collection: collection, base: base)
    let context = ExportContext(collections: [collection], exportedAt: base + 86_400, creator: "trees-bench")
    let only = Harness.option("--format", in: arguments).flatMap(ExportFormat.init(rawValue:))
    let formats = ExportFormat.allCases.filter { $0.isStream && (only == nil || $0 == only) }
    var seconds: [ExportFormat: [Double]] = [:]
    var bytes: [ExportFormat: Int] = [:]
    for _ in 0..<runs {
        for format in formats {
            var written = 0
            var writer = makeTreeWriter(format, context: context) { written += $0.count }
            let start = DispatchTime.now().uptimeNanoseconds
            try writer.begin()
            for tree in trees { try writer.write(tree) }
            try writer.finish()
            seconds[format, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            bytes[format] = written
        }
    }
    func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
    print(Harness.row(["writer (\(count) trees, \(runs) runs)", "median s", "trees/s", "MB/s", "bytes a tree"]))
    for format in formats {
        let s = median(seconds[format]!)
        let size = bytes[format]!
        print(Harness.row([format.rawValue, String(format: "%.4f", s), String(Int(Double(count) / s)),
                           String(format: "%.0f", Double(size) / s / 1e6), String(size / max(count, 1))]))
    }
}
