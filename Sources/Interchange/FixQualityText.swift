import TreesKit

/// The fix quality of a captured tree in our files: status names (`FixStatus.name`), accuracy
/// source names, and the numbers (seconds, metres) that must be 0 or more; the reasons every
/// reader gives when a file holds something else.
package enum FixQualityText {
    /// Every status name, in the model's order, for messages.
    package static var statusNames: String { FixStatus.allCases.map(\.name).joined(separator: ", ") }

    /// Every accuracy source name, for messages.
    package static var sourceNames: String { AccuracySource.allCases.map(\.rawValue).joined(separator: ", ") }

    /// Why `text` is not a fix status.
    package static func unknownStatus(_ text: String) -> String {
        "\"\(text.prefix(40))\" is not a fix status; expected one of \(statusNames)"
    }

    /// Why `text` is not an accuracy source.
    package static func unknownSource(_ text: String) -> String {
        "\"\(text.prefix(40))\" is not an accuracy source; expected one of \(sourceNames)"
    }

    /// Nil when `value` is a correction age, vertical accuracy or antenna height a tree can
    /// have (finite, 0 or more), else why not.
    package static func measureProblem(_ value: Double) -> String? {
        guard value.isFinite else { return "\(value) is not a finite number" }
        guard value >= 0 else { return "\(shown(value)) is negative; expected 0 or more" }
        return nil
    }

    /// A number as a message shows it: whole numbers without a fraction.
    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
