import Foundation
import TreesKit

/// Parsing of numbers and text typed on the command line, with messages that say what would be right.
enum Values {
    static func number(_ text: String, name: String, expected: String) throws -> Double {
        let t = text.trimmingCharacters(in: .whitespaces)
        guard let v = Double(t), v.isFinite else {
            throw CLIError("\(name) '\(TextTools.clipped(text))' is not a number; expected \(expected)", status: .usage)
        }
        return v
    }

    static func latitude(_ text: String) throws -> Double {
        let v = try number(text, name: "latitude", expected: "degrees between -90 and 90")
        if let problem = CoordinateCheck.latitudeProblem(v) { throw CLIError(problem, status: .usage) }
        return v
    }

    static func longitude(_ text: String) throws -> Double {
        let v = try number(text, name: "longitude", expected: "degrees between -180 and 180")
        if let problem = CoordinateCheck.longitudeProblem(v) { throw CLIError(problem, status: .usage) }
        return v
    }

    static func accuracy(_ text: String) throws -> Double {
        let v = try number(text, name: "accuracy", expected: "metres, 0 or more")
        if let problem = CoordinateCheck.accuracyProblem(v) { throw CLIError(problem, status: .usage) }
        return v
    }

    /// True for the empty value (or only white space) that clears an optional field in `edit`.
    static func isCleared(_ text: String) -> Bool { text.allSatisfy(\.isWhitespace) }

    static func altitude(_ text: String) throws -> Double {
        try number(text, name: "altitude", expected: "metres above mean sea level")
    }

    static func species(_ text: String) throws -> String {
        guard let s = TextTools.nonEmpty(text) else {
            throw CLIError("species is empty; expected a name such as 'Apple' or 'Quercus robur'", status: .usage)
        }
        return s
    }

    /// Optional text: empty means "clear".
    static func text(_ text: String?) -> String? { TextTools.nonEmpty(text) }
}

/// ISO 8601 time stamps in UTC with milliseconds, as every output of `trees` writes them.
enum ISOTime {
    /// `2026-05-01T10:00:00.250Z`, in the proleptic Gregorian calendar, rounded to the millisecond as stored.
    static func string(_ date: Date) -> String { TextCodec.iso8601(date, fraction: .milliseconds) }

    static func parse(_ text: String) -> Date? { TextCodec.parseISO8601(text) }
}
