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
    var speed: ReplaySpeed?

    @Flag(help: "If gpsd cannot be reached at start, keep trying instead of failing.")
    var wait = false
}
