import Foundation

/// `trees-bench WHAT [options]`: benchmarks that print throughput and peak memory.
///
/// Build in release first, as `make install` does (`swift build -c release --static-swift-stdlib --product trees`,
/// the same for `--product trees-bench`), then `.build/release/trees-bench store`.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: trees-bench store|rows|writers|nmea|extras|interchange|imports|growth|gis|sync|care|listings [--trees PATH] [options]"
do {
    if let what = arguments.first, ["store", "nmea", "extras", "interchange", "imports", "growth", "gis", "sync", "care", "listings"].contains(what) {
        print(Harness.linkage(of: Harness.treesBinary(arguments)))
        print(String(format: "peak memory of a child is reported no lower than this process's own, %.1f MB", Harness.ownPeakMB))
    }
    switch arguments.first {
    case "store": try runStoreBenchmark(arguments: Array(arguments.dropFirst()))
    case "rows": try runRowsBenchmark(arguments: Array(arguments.dropFirst()))
    case "writers": try runWritersBenchmark(arguments: Array(arguments.dropFirst()))
    case "nmea": try await runNMEABenchmark(arguments: Array(arguments.dropFirst()))
    case "extras": try runExtrasBenchmark(arguments: Array(arguments.dropFirst()))
    case "interchange": try await runInterchangeBenchmark(arguments: Array(arguments.dropFirst()))
    case "imports": try runImportSeriesBenchmark(arguments: Array(arguments.dropFirst()))
    case "growth": try runGrowthBenchmark(arguments: Array(arguments.dropFirst()))
    case "gis": try runGISBenchmark(arguments: Array(arguments.dropFirst()))
    case "sync": try runSyncBenchmark(arguments: Array(arguments.dropFirst()))
    case "care": try runCareBenchmark(arguments: Array(arguments.dropFirst()))
    case "listings": try runListingsBenchmark(arguments: Array(arguments.dropFirst()))
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("trees-bench: \(error)\n".utf8))
    exit(1)
}
