import Foundation
import TreesKit

/// `trees-bench nmea [--epochs N] [--trees PATH] [--runs N] [--keep]`: replays a large generated NMEA
/// log through the built `trees` (`replay --speed max --jsonl` and `--gpx`, output to /dev/null) and
/// through GPSBabel (`-i nmea -o gpx`) as the yardstick; prints MB/s, epochs/s and peak memory.
///
/// `trees-bench nmea --tracks DIR` instead writes the sample tracks (SampleTracks/) and prints what a
/// reader sees in each.
func runNMEABenchmark(arguments: [String]) async throws {
    if let folder = Harness.option("--tracks", in: arguments) {
        for facts in try TrackGenerator.writeSampleTracks(to: folder) {
            print(TrackGenerator.describe(facts))
        }
        return
    }
    let epochs = Int(Harness.option("--epochs", in: arguments) ?? "") ?? 1_000_000
    let runs = Int(Harness.option("--runs", in: arguments) ?? "") ?? 1
    let trees = Harness.treesBinary(arguments)
    guard FileManager.default.isExecutableFile(atPath: trees) else {
        throw BenchError("no trees binary at \(trees); build it (swift build -c release) or pass --trees PATH")
    }
    let folder = try Harness.scratchFolder("nmea")
    defer { if !arguments.contains("--keep") { try? FileManager.default.removeItem(atPath: folder) } }
    let log = folder + "/large.nmea"

    let genStart = DispatchTime.now().uptimeNanoseconds
    try writeLargeLog(to: log, epochs: epochs)
    let genSeconds = Double(DispatchTime.now().uptimeNanoseconds - genStart) / 1e9
    let bytes = Harness.fileSize(log)
    let mb = Double(bytes) / 1_048_576
    print(String(format: "nmea: %d epochs, %.1f MB generated in %.1f s (%@)", epochs, mb, genSeconds, log))

    let cases: [(String, String, [String])] = [
        ("trees replay --speed max --jsonl", trees, ["replay", log, "--speed", "max", "--jsonl"]),
        ("trees replay --speed max --gpx", trees, ["replay", log, "--speed", "max", "--gpx"]),
        ("gpsbabel -i nmea -f LOG -o gpx -F /dev/null", "gpsbabel", ["-i", "nmea", "-f", log, "-o", "gpx", "-F", "/dev/null"]),
    ]
    print(Harness.row(["command", "wall (s)", "MB/s", "epochs/s", "peak memory (MB)"]))
    var results: [String: Measurement] = [:]
    for (label, program, args) in cases {
        let m = try Harness.median(of: runs) { try Harness.measure(program, args) }
        guard m.status == 0 else { throw BenchError("\(label) exited with status \(m.status)") }
        results[label] = m
        print(Harness.row([label, String(format: "%.2f", m.seconds), String(format: "%.1f", mb / m.seconds),
                           String(format: "%.0f", Double(epochs) / m.seconds), String(format: "%.1f", m.peakMB)]))
    }
    if let g = results[cases[1].0], let b = results[cases[2].0] {
        print(String(format: "trees --gpx throughput is %.1f× GPSBabel's (target ≥ 5×); peak memory %.1f MB (target < 50 MB)",
                     b.seconds / g.seconds, g.peakMB))
    }
    if let j = results[cases[0].0], let b = results[cases[2].0] {
        print(String(format: "trees --jsonl throughput is %.1f× GPSBabel's gpx; peak memory %.1f MB", b.seconds / j.seconds, j.peakMB))
    }
}

/// Writes `epochs` one-second epochs (GGA, GSA, GST, RMC) of a walk around the orchard, in blocks.
func writeLargeLog(to path: String, epochs: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else { throw BenchError("cannot create \(path)") }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var style = TrackStyle()
    style.gsv = false
    var b = TrackBuilder(name: "large.nmea", style: style, start: TrackGenerator.start(6, 0), north: 0, east: 0, seed: 99)
    b.writer.bytes.reserveCapacity(1 << 21)
    var k = 0
    for i in 0..<epochs {
        let p = Orchard.tree(row: (k / 25) % 6, index: k % 25)
        let moving = !b.walk(toward: (p.north, p.east - 1), speed: 1.0)
        if !moving && i % 10 == 0 { k += 1 }
        b.emit(.threeD, sigma: 1.5 + Double(i % 97) / 97, hdop: 0.9 + Double(i % 13) / 26, used: 8, moving: moving)
        if b.writer.bytes.count >= 1 << 20 {
            try handle.write(contentsOf: b.writer.bytes)
            b.writer.bytes.removeAll(keepingCapacity: true)
        }
    }
    try handle.write(contentsOf: b.writer.bytes)
}
