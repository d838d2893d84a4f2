import ArgumentParser
import Foundation
import Location
import TreesKit

/// `--source URI [--speed N|max] [--wait]`, shared by the commands that read fixes.
struct SourceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Where fixes come from: gpsd://HOST:PORT[/DEVICE], serial:/dev/ttyACM0[?baud=9600], replay:PATH[?speed=N|max], or - for NMEA on standard input.",
        valueName: "uri"))
    var source: String = "gpsd://localhost:2947"

    @Option(help: ArgumentHelp("Replay speed for replay: sources: a factor of real time, or max.", valueName: "n|max"))
    var speed: String?

    @Flag(help: "If gpsd cannot be reached at start, keep trying instead of failing.")
    var wait = false

    func validate() throws {
        if let speed, ReplaySpeed(speed) == nil { throw ValidationError("--speed must be a positive number or max, not '\(speed)'") }
    }

    /// Opens the source named by `--source`.
    func makeSource() throws -> any LocationSource {
        if source.hasPrefix("replay:") {
            var rest = String(source.dropFirst("replay:".count))
            var replaySpeed = ReplaySpeed.factor(1)
            if let q = rest.firstIndex(of: "?") {
                let query = rest[rest.index(after: q)...]
                rest = String(rest[..<q])
                for pair in query.split(separator: "&") where pair.hasPrefix("speed=") {
                    guard let s = ReplaySpeed(String(pair.dropFirst(6))) else {
                        throw CLIError("bad speed in '\(source)'; expected a positive number or max", status: .usage)
                    }
                    replaySpeed = s
                }
            }
            if let speed, let s = ReplaySpeed(speed) { replaySpeed = s }
            return ReplaySource(path: rest, speed: replaySpeed)
        }
        throw CLIError("location source '\(source)' is not supported", status: .usage)
    }
}
