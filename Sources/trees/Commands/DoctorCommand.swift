import ArgumentParser
import Foundation
import TreesKit
import TreesStore

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the store for damaged values and mend what can be mended.",
        discussion: """
            Lists every value the store cannot read back as what its column holds (a date outside \
            years 0000 to 9999, text where a number belongs, a malformed id), every reference to a \
            row that is gone, summaries of the care log (last care, health, monthly counts, harvest \
            totals) that disagree with it, what is kept as due (trees due) that disagrees with the \
            schedules and the log, collections whose names are the same ignoring case (Äpfel and \
            äpfel, which older stores allowed), and SQLite's own integrity findings. Reading needs no \
            write access. With --repair, in one transaction: a damaged date takes the row's other \
            date (or the current time), a damaged optional value is cleared, a blank species becomes \
            Unknown, a dangling reference is cleared, the care log's summaries and what is due are \
            built again, the younger of two collections of one name gets its short id after its \
            name; each mended tree gets a history line saying what was there. A row whose id or \
            position is damaged cannot be mended; --remove-unrepairable removes it. Exit status 0 \
            when the store is sound (after repairing), 65 when damage remains.
            """
    )

    @OptionGroup var store: StoreOptions
    @Flag(help: "Mend what can be mended, in one transaction.") var repair = false
    @Flag(help: "With --repair, remove rows that cannot be mended (a damaged id or position).")
    var removeUnrepairable = false
    @Flag(help: "Print the findings as JSON.") var json = false

    func validate() throws {
        if removeUnrepairable && !repair { throw ValidationError("--remove-unrepairable needs --repair") }
    }

    func run() async throws {
        let db = try store.open(forWriting: repair)
        let findings: [StoreFinding]
        var report: StoreRepairReport?
        do {
            if repair {
                let r = try db.repair(removingUnrepairable: removeUnrepairable)
                report = r
                findings = r.findings
            } else {
                findings = try db.examine()
            }
        } catch {
            throw CLIError.from(error)
        }
        let remaining = report.map { $0.left } ?? findings.count
        if json {
            var pairs: [(String, JSON)] = [("findings", .array(findings.map(Self.json)))]
            if let report {
                pairs += [("mended", .int(report.mended)), ("removed", .int(report.removed)), ("left", .int(report.left))]
            }
            pairs.append(("sound", .bool(remaining == 0)))
            Output.json(.object(pairs))
        } else {
            for f in findings { Output.line(Self.line(f, repairing: repair, removing: removeUnrepairable)) }
            Output.line(Self.summary(findings: findings, report: report))
        }
        if remaining > 0 { throw ExitCode(ExitStatus.dataError.rawValue) }
    }

    static func line(_ f: StoreFinding, repairing: Bool, removing: Bool) -> String {
        var where_ = f.table
        if let row = f.row { where_ += " row \(row)" }
        if let id = f.id { where_ += " (\(TerminalText.escaped(String(id.prefix(40)))))" }
        if let column = f.column { where_ += " \(column)" }
        let remedy: String
        if let r = f.remedy {
            remedy = repairing ? "mended: \(r)" : "repairable: \(r)"
        } else if f.table == "database" {
            remedy = "not repairable here: copy the trees out with 'trees export' or recover the file with sqlite3's .recover"
        } else if repairing && removing {
            remedy = "row removed"
        } else {
            remedy = "not repairable: 'trees doctor --repair --remove-unrepairable' removes the row"
        }
        let then = f.command.map { repairing ? "; set it again with '\($0)'" : "; then set it again with '\($0)'" } ?? ""
        return "\(where_): \(TerminalText.escaped(f.reason)); \(remedy)\(TerminalText.escaped(then))"
    }

    static func summary(findings: [StoreFinding], report: StoreRepairReport?) -> String {
        if findings.isEmpty { return "The store is sound." }
        let n = findings.count
        let noun = n == 1 ? "problem" : "problems"
        if let report {
            var parts = ["\(report.mended) mended"]
            if report.removed > 0 { parts.append("\(report.removed) \(report.removed == 1 ? "row" : "rows") removed") }
            if report.left > 0 { parts.append("\(report.left) left") }
            return "\(n) \(noun) found: " + parts.joined(separator: ", ") + "."
        }
        let repairable = findings.filter { $0.remedy != nil }.count
        return "\(n) \(noun) found, \(repairable) repairable: run 'trees doctor --repair'."
    }

    static func json(_ f: StoreFinding) -> JSON {
        .object([
            ("table", .string(f.table)), ("row", f.row.map { .int(Int($0)) } ?? .null), ("id", .optional(f.id)),
            ("column", .optional(f.column)), ("reason", .string(f.reason)), ("remedy", .optional(f.remedy)),
            ("command", .optional(f.command)),
        ])
    }
}
