import ArgumentParser
import Foundation
import Interchange
import Location
import TreesKit
import TreesWorkflows

// Options with a fixed set of values are parsed once, by the argument parser, which also lists
// the values in its error and in the completions.

extension FileFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension ImportWorkflow.ConflictPolicy: ExpressibleByArgument {}

extension SpeciesSource: ExpressibleByArgument {}

/// `--include routes,tracks`: GPX points besides waypoints that become trees.
struct GPXParts: ExpressibleByArgument {
    var parts: Set<ImportWorkflow.GPXPart> = []

    init() {}

    init?(argument: String) {
        for piece in argument.split(separator: ",") {
            let name = piece.trimmingCharacters(in: .whitespaces).lowercased()
            if name.isEmpty { continue }
            guard let part = ImportWorkflow.GPXPart(rawValue: name) else { return nil }
            parts.insert(part)
        }
    }

    var defaultValueDescription: String { "none" }
    static var allValueStrings: [String] { ["routes", "tracks", "routes,tracks"] }
}

/// `--speed N|max`: a positive factor of real time, or as fast as possible.
extension ReplaySpeed: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }

    public var defaultValueDescription: String {
        switch self {
        case .max: "max"
        case .factor(let v): TextCodec.decimal(v) ?? "1"
        }
    }
}

extension ExportFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
