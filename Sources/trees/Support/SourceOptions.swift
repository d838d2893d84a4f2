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

    @Option(help: ArgumentHelp(
        "RTK corrections for a serial: receiver from an NTRIP caster, written to the receiver; the password comes from NTRIP_PASSWORD or the file named by NTRIP_PASSWORD_FILE. With gpsd, give gpsd the ntrip:// source instead.",
        valueName: "ntrip://[user@]caster[:port]/mount"))
    var ntrip: String?

    /// The NTRIP client for `--ntrip`, or nil without one. Only a `serial:` source takes
    /// corrections from `trees`; gpsd is given the caster itself.
    func correctionClient(for spec: LocationSourceSpec) throws -> NTRIPClient? {
        guard let ntrip else { return nil }
        let endpoint: NTRIPEndpoint
        do { endpoint = try NTRIPEndpoint(parsing: ntrip) } catch { throw CLIError(error.description, status: .usage) }
        guard spec.takesCorrections else {
            if case .gpsd = spec {
                throw CLIError("--ntrip is for serial: sources; with gpsd, give gpsd the caster as a source of its own "
                    + "(gpsd -n /dev/ttyACM0 \(NTRIPCommand.gpsdSource(for: endpoint))) and it forwards the corrections "
                    + "to the receiver; trees then shows the fix status and correction age", status: .usage)
            }
            throw CLIError("--ntrip is for serial: sources (a receiver trees can write corrections to), not \(spec)", status: .usage)
        }
        return NTRIPClient(endpoint: endpoint, password: try NTRIPPassword.lookup(), userAgent: NTRIPCommand.userAgent)
    }
}
