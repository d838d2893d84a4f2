import Foundation
import TreesWorkflows

extension ImportWorkflow.Report {
    /// `trees import --json`; `file` as it was given on the command line.
    func json(file: String) -> JSON {
        .object([
            ("file", .string(file)), ("format", .string(format.rawValue)), ("dryRun", .bool(dryRun)),
            ("imported", .int(imported)), ("alreadyPresent", .int(alreadyPresent)),
            ("repeatedInFile", .int(repeatedInFile)), ("replaced", .int(replaced)),
            ("photos", .int(photos)), ("careEvents", .int(careEvents)),
            ("skipped", .array(skipped.map { .object([("line", .int($0.line)), ("reason", .string($0.reason))]) })),
            ("warnings", .array(warnings.map { .object([("line", .int($0.line)), ("reason", .string($0.reason))]) })),
            ("collectionsCreated", .array(collectionsCreated.map(JSON.string))),
        ])
    }

    /// The summary `trees import` prints.
    var text: String {
        func trees(_ n: Int) -> String { "\(n) tree\(n == 1 ? "" : "s")" }
        var parts = ["\(alreadyPresent) already present"]
        if repeatedInFile > 0 { parts.append("\(repeatedInFile) repeated in the file") }
        if replaced > 0 { parts.append("\(replaced) replaced") }
        parts.append("\(skipped.count) skipped")
        var out = dryRun
            ? "Dry run: would import \(trees(imported)) from \(file); \(parts.joined(separator: ", ")). Nothing was stored.\n"
            : "Imported \(trees(imported)) from \(file); \(parts.joined(separator: ", ")).\n"
        if photos > 0 { out += "  \(photos) photo\(photos == 1 ? "" : "s")\n" }
        if careEvents > 0 { out += "  \(careEvents) care event\(careEvents == 1 ? "" : "s")\n" }
        if !collectionsCreated.isEmpty {
            out += "  new collection\(collectionsCreated.count == 1 ? "" : "s"): \(collectionsCreated.joined(separator: ", "))\n"
        }
        // A GeoPackage's rows have ids (fid), not lines.
        func place(_ line: Int) -> String { format == .gpkg ? "\(file), row \(line)" : "\(file):\(line)" }
        for s in skipped { out += "  skipped \(place(s.line)): \(s.reason)\n" }
        for w in warnings { out += "  warning \(place(w.line)): \(w.reason)\n" }
        return out
    }
}

/// A percentage on standard error while a large file is read, on a terminal only.
final class ProgressLine: @unchecked Sendable {
    let name: String
    let enabled: Bool
    private var lastPercent = -1

    init(name: String, enabled: Bool) { self.name = name; self.enabled = enabled }

    func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int(fraction * 100)
        guard percent != lastPercent else { return }
        lastPercent = percent
        StandardError.write("\rimporting \(name): \(percent)%")
    }

    func clear() {
        guard enabled, lastPercent >= 0 else { return }
        StandardError.write("\r\u{1B}[K")
        lastPercent = -1
    }
}
