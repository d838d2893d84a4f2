import Foundation
import Testing
import TreesTestSupport

/// The exit statuses documented in README.md and trees(1) are the same table, and each one is what
/// `trees` really returns in a situation the table describes.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct ExitStatusTableTests {
    /// `status → meaning` from the README's table under "Output and exit status".
    static func readmeTable() throws -> [Int: String] {
        let text = try String(contentsOf: Repository.url("README.md"), encoding: .utf8)
        guard let start = text.range(of: "| status | meaning |") else { return [:] }
        var table: [Int: String] = [:]
        for line in text[start.upperBound...].split(separator: "\n").dropFirst() {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let status = Int(cells[0]) else { continue }
            table[status] = cells[1]
        }
        return table
    }

    /// `status → meaning` from trees(1)'s EXIT STATUS list, with mdoc macros reduced to their text.
    static func manTable() throws -> [Int: String] {
        let text = try String(contentsOf: Repository.url("man/trees.1"), encoding: .utf8)
        guard let start = text.range(of: ".Sh \"EXIT STATUS\"") else { return [:] }
        var table: [Int: String] = [:]
        var current: Int?
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix(".Sh") || line.hasPrefix(".El") { break }
            if line.hasPrefix(".It ") {
                current = Int(line.dropFirst(4))
                if let current { table[current] = "" }
                continue
            }
            guard let status = current, !line.hasPrefix(".Bl") else { continue }
            var words = String(line)
            for macro in [".Ql ", ".Fl -", ".Fl ", ".Xr ", ".Cm ", ".Ar ", ".Ev "] where words.hasPrefix(macro) {
                words = (macro == ".Fl -" ? "--" : macro == ".Fl " ? "-" : "") + words.dropFirst(macro.count)
            }
            table[status, default: ""] += (table[status]!.isEmpty ? "" : " ") + words
        }
        return table
    }

    /// Reduces a meaning to comparable words (markup, punctuation and spacing differ between the two).
    static func words(_ text: String) -> [String] {
        text.lowercased().replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "\\(em", with: " ")
            .components(separatedBy: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-")).inverted)
            .filter { !$0.isEmpty && $0 != "-" }
    }

    @Test func readmeAndManualListTheSameStatusesWithTheSameMeanings() throws {
        let readme = try Self.readmeTable()
        let man = try Self.manTable()
        #expect(!readme.isEmpty)
        #expect(readme.keys.sorted() == man.keys.sorted())
        for (status, meaning) in readme {
            #expect(Self.words(meaning) == Self.words(man[status] ?? ""), "status \(status)")
        }
    }

    /// Every documented status, produced by a situation the table names. (130 for an interrupted
    /// interactive capture needs a terminal: InteractiveCaptureTests presses Ctrl-C in tmux; 129,
    /// 130 and 143 for an interrupted export or map are OutputFileTrustTests' signals.)
    @Test func everyDocumentedStatusIsWhatTreesReturns() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let track = Repository.path("SampleTracks/no-fix.nmea")
        let bad = t.folder.appendingPathComponent("bad.gpx")
        try "<gpx version=\"1.1\"><wpt lat=\"1\"".write(to: bad, atomically: true, encoding: .utf8)
        #expect(try t.run(["add", "--lat", "1", "--lon", "2", "--species", "Fig"]).status == 0)
        let fig = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]])
        let figID = try #require(fig.first?["id"] as? String)
        let damaged = try TreesProcess()
        defer { damaged.cleanUp() }
        #expect(try damaged.run(["add", "--lat", "1", "--lon", "2", "--species", "Fig"]).status == 0)
        try Program.run("/usr/bin/sqlite3", [damaged.database, "UPDATE tree SET createdAt = 'soon'"])
        // A store another program keeps locked past the 10 s a write waits: 75, try again.
        let locked = try TreesProcess()
        defer { locked.cleanUp() }
        #expect(try locked.run(["add", "--lat", "1", "--lon", "2", "--species", "Fig"]).status == 0)
        let held = locked.folder.appendingPathComponent("held").path
        // The shell's sleep writes nowhere: killing sqlite3 then ends its output at once, where a
        // sleep holding the pipes kept this test (and a thread of the pool) waiting two minutes.
        let holder = try Program.start("/usr/bin/sqlite3", [locked.database, "BEGIN EXCLUSIVE;", ".shell touch '\(held)' && exec sleep 120 </dev/null >/dev/null 2>&1"])
        defer { holder.send(SIGKILL); _ = holder.wait() }
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: held) && holder.isRunning && Date() < deadline { usleep(10_000) }
        try #require(FileManager.default.fileExists(atPath: held), "sqlite3 took the lock")

        let cases: [(status: Int32, process: TreesProcess, arguments: [String])] = [
            (0, t, ["list"]),
            (0, t, ["doctor"]),
            (1, t, ["show", "abcdef12"]),
            (3, t, ["capture", "--auto", "--species", "Apple", "--source", "replay:\(track)", "--speed", "max"]),
            (64, t, ["add", "--lat", "91", "--lon", "0", "--species", "Apple"]),
            (64, t, ["rm", String(figID.prefix(8))]),
            (65, t, ["import", bad.path]),
            (65, damaged, ["list"]),
            (65, damaged, ["doctor"]),
            (66, t, ["import", t.folder.appendingPathComponent("missing.gpx").path]),
            (66, t, ["list", "--db", t.folder.appendingPathComponent("no-store-here.sqlite").path]),
            (69, t, ["gps", "--status", "--source", "gpsd://127.0.0.1:1"]),
            (73, t, ["collection", "create", "North", "--db", "/proc/no-such-folder/trees.sqlite"]),
            (74, t, ["export", "--format", "csv", "--out", "/dev/full"]),
            (75, locked, ["add", "--lat", "1", "--lon", "3", "--species", "Fig"]),
        ]
        var seen: Set<Int> = [129, 130, 143]
        for c in cases {
            let r = try c.process.run(c.arguments)
            #expect(r.status == c.status, "\(c.arguments): \(r)")
            seen.insert(Int(c.status))
        }
        #expect(seen == Set(try Self.readmeTable().keys))
    }
}
