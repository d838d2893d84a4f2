import ArgumentParser

@main
struct Trees: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trees",
        abstract: "Capture the GPS positions of trees and move them between formats.",
        version: "0.1.0",
        subcommands: []
    )
}
