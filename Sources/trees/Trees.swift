import ArgumentParser
import Foundation
import TreesKit

@main
struct Trees: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trees",
        abstract: "Capture the GPS positions of trees and move them between formats.",
        discussion: """
            Horizontal accuracy is always the radius, in metres, of the 95% confidence circle. \
            The store is one SQLite file: --db PATH, else $TREES_DB, else \
            $XDG_DATA_HOME/trees/trees.sqlite (~/.local/share/trees/trees.sqlite).
            """,
        version: "0.1.0",
        subcommands: [
            AddCommand.self, ListCommand.self, ShowCommand.self, EditCommand.self, RemoveCommand.self,
            CollectionCommand.self, CaptureCommand.self, ReplayCommand.self,
            ImportCommand.self, ExportCommand.self, InspectCommand.self,
            PhotoCommand.self, StatsCommand.self, DoctorCommand.self,
            MapCommand.self,
            GPSCommand.self, NTRIPCommand.self,
            RemoteCommand.self, ServerCommand.self, SyncCommand.self,
            CareCommand.self, ScheduleCommand.self, DueCommand.self,
        ]
    )

    /// Runs the command; library errors become one line on standard error and a documented exit status.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            StandardError.write("trees: \(TerminalText.escaped(error.message))\n")
            Foundation.exit(error.status.rawValue)
        } catch {
            if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
            if Self.isArgumentParserError(error) { Self.exitForUsage(error) }
            let cli = CLIError.from(error)
            StandardError.write("trees: \(TerminalText.escaped(cli.message))\n")
            Foundation.exit(cli.status.rawValue)
        }
    }

    /// A usage error says so as every other error does, `trees: …` (then the usage line); help and
    /// version requests print as the argument parser prints them.
    private static func exitForUsage(_ error: any Error) -> Never {
        let status = exitCode(for: error)
        guard status != .success else { Self.exit(withError: error) }
        var text = fullMessage(for: error)
        if text.hasPrefix("Error: ") { text = "trees: " + text.dropFirst("Error: ".count) }
        StandardError.write(text.hasSuffix("\n") ? text : text + "\n")
        Foundation.exit(status.rawValue)
    }

    private static func isArgumentParserError(_ error: any Error) -> Bool {
        error is ValidationError || error is CleanExit
            || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
    }
}
