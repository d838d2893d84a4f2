import Foundation

/// `trees-bench WHAT [options]`: benchmarks that print throughput and peak memory.
///
/// Build in release first (`swift build -c release`), then `.build/release/trees-bench store`.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: trees-bench store|nmea|extras|interchange [--trees PATH] [options]"
do {
    switch arguments.first {
    case "store": try runStoreBenchmark(arguments: Array(arguments.dropFirst()))
    case "nmea": try await runNMEABenchmark(arguments: Array(arguments.dropFirst()))
    case "extras": try runExtrasBenchmark(arguments: Array(arguments.dropFirst()))
    case "interchange": try await runInterchangeBenchmark(arguments: Array(arguments.dropFirst()))
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(64)
    }
} catch {
    FileHandle.standardError.write(Data("trees-bench: \(error)\n".utf8))
    exit(1)
}
