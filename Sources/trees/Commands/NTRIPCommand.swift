import ArgumentParser
import Foundation
import Location
import TreesKit

/// `trees ntrip`: NTRIP casters, the sources of RTK corrections.
struct NTRIPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ntrip",
        abstract: "List the correction streams (mount points) an NTRIP caster offers.",
        discussion: """
            A caster is named ntrip://[USER@]HOST[:PORT] (port 2101 unless given; ?version=1 for casters that \
            only speak NTRIP 1.0). A password is never part of the URL: it comes from the environment \
            variable NTRIP_PASSWORD, or from the first line of the file named by NTRIP_PASSWORD_FILE. \
            To use a stream, give its URL with the mount point to --ntrip of capture or gps with a serial: \
            source, or give it to gpsd as a source of its own.
            """,
        subcommands: [List.self]
    )

    /// `trees/VERSION`, after `NTRIP ` in the User-Agent header casters log.
    static var userAgent: String { "trees/" + Trees.configuration.version }

    /// The source gpsd takes for `endpoint`: `ntrip://[USER@]HOST:PORT/MOUNT`.
    static func gpsdSource(for endpoint: NTRIPEndpoint) -> String {
        "ntrip://" + (endpoint.user.map { "\($0)@" } ?? "") + endpoint.description
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "Print a caster's source table: its mount points, their format and where they are.",
            discussion: """
                One row per stream (STR): mount point, identifier, format, carrier (L1, L1+L2), navigation \
                systems, country, latitude and longitude in degrees, whether the caster needs the \
                receiver's position (NMEA GGA), and authentication (none, Basic, Digest). Lines of the \
                table that are not well-formed records are skipped with a warning. With --json, an \
                array of streams with every field of their records.
                """,
            aliases: ["ls"]
        )

        @Argument(help: ArgumentHelp("The caster: ntrip://[user@]host[:port].", valueName: "caster"))
        var caster: String

        @Flag(help: "Print a JSON array of the caster's streams.")
        var json = false

        func run() async throws {
            let endpoint: NTRIPEndpoint
            do { endpoint = try NTRIPEndpoint(parsing: caster, requiringMount: false) } catch {
                throw CLIError(error.description, status: .usage)
            }
            let password = try NTRIPPassword.lookup()
            let table = try await NTRIPSourceTable.fetch(from: endpoint, password: password, userAgent: NTRIPCommand.userAgent)
            if !table.malformedLines.isEmpty {
                let count = table.malformedLines.count
                StandardError.write("trees: warning: skipped \(count) malformed line\(count == 1 ? "" : "s") of the source table "
                    + "(line \(table.malformedLines.prefix(5).map(String.init).joined(separator: ", "))\(count > 5 ? ", …" : ""))\n")
            }
            if !table.complete {
                StandardError.write("trees: warning: the source table ended without ENDSOURCETABLE; it may be incomplete\n")
            }
            if json {
                Output.json(.array(table.streams.map(Self.json)))
                return
            }
            guard !table.streams.isEmpty else {
                StandardError.write("trees: \(TerminalText.escaped(endpoint.caster)) lists no streams\n")
                return
            }
            var rows = TextTable(headers: ["MOUNT", "IDENTIFIER", "FORMAT", "CARRIER", "NAV SYSTEM", "COUNTRY", "LAT", "LON", "NMEA", "AUTH"])
            for s in table.streams {
                rows.rows.append([
                    s.mount, s.identifier, s.format, Self.carrier(s.carrier), s.navSystem, s.country,
                    s.latitude.map { String(format: "%.2f", $0) } ?? "", s.longitude.map { String(format: "%.2f", $0) } ?? "",
                    s.needsNMEA ? "yes" : "no", Self.authentication(s.authentication),
                ].map(TerminalText.escaped))
            }
            Output.human(rows.render(terminal: .current))
        }

        static func carrier(_ c: Int?) -> String {
            switch c {
            case 0?: "none"
            case 1?: "L1"
            case 2?: "L1+L2"
            case let c?: String(c)
            case nil: ""
            }
        }

        static func authentication(_ a: String) -> String {
            switch a.uppercased() {
            case "N": "none"
            case "B": "Basic"
            case "D": "Digest"
            default: a
            }
        }

        static func json(_ s: NTRIPSourceTable.Stream) -> JSON {
            .object([
                ("mount", .string(s.mount)), ("identifier", .string(s.identifier)), ("format", .string(s.format)),
                ("formatDetails", .string(s.formatDetails)), ("carrier", .optional(s.carrier)), ("navSystem", .string(s.navSystem)),
                ("network", .string(s.network)), ("country", .string(s.country)),
                ("latitude", .optional(s.latitude)), ("longitude", .optional(s.longitude)),
                ("nmea", .bool(s.needsNMEA)), ("solution", .optional(s.solution)), ("generator", .string(s.generator)),
                ("compression", .string(s.compression)), ("authentication", .string(s.authentication)), ("fee", .bool(s.fee)),
                ("bitrate", .optional(s.bitrate)), ("misc", .string(s.misc)),
            ])
        }
    }
}
