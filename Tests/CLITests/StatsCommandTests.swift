import Foundation
import Testing
import TreesTestSupport

/// End-to-end: `trees stats` with exact output.
@Suite struct StatsCommandTests {
    /// Six trees over three days: (time, species, variety, rootstock, accuracy, collection).
    static let rows: [(String, String, String?, String?, String?, String?)] = [
        ("2026-05-01T09:00:00.000Z", "Apple", "Gala", "M9", "3.2", "North"),
        ("2026-05-01T10:00:00.000Z", "Apple", "Gala", "M9", "7.5", "North"),
        ("2026-05-02T08:00:00.000Z", "Pear", "Conference", nil, "12", "South"),
        ("2026-05-02T09:00:00.000Z", "apple", "Cox", "M26", "4.9", "North"),
        ("2026-05-04T08:00:00.000Z", "Plum", nil, nil, nil, "none"),
        ("2026-05-04T23:30:00.000Z", "Apple", "Gala", nil, "25", "none"),
    ]

    func populated() throws -> TreesProcess {
        let t = try TreesProcess()
        #expect(try t.run(["collection", "create", "North"]).status == 0)
        #expect(try t.run(["collection", "create", "South"]).status == 0)
        for (now, species, variety, rootstock, accuracy, collection) in Self.rows {
            var args = ["add", "--lat", "51.5", "--lon", "-0.12", "--species", species]
            if let variety { args += ["--variety", variety] }
            if let rootstock { args += ["--rootstock", rootstock] }
            if let accuracy { args += ["--accuracy", accuracy] }
            if let collection { args += ["--collection", collection] }
            let r = try t.run(args, environment: ["TREES_NOW": now])
            #expect(r.status == 0, "\(r)")
        }
        return t
    }

    @Test func countsAccuracyAndDays() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let r = try t.run(["stats"])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            6 trees, 0 with photos

            SPECIES  TREES
            Apple    4
            Pear     1
            Plum     1

            VARIETY       TREES
            Gala          3
            Conference    1
            Cox           1
            (no variety)  1

            ROOTSTOCK       TREES
            M9              2
            M26             1
            (no rootstock)  3

            COLLECTION       TREES
            North            3
            South            1
            (no collection)  2

            ACCURACY (radius of the 95% circle)
            Survey      < 0.1 m    0
            Excellent   0.1–5 m    2  ██████████████████████████████
            Good        5–10 m     1  ███████████████
            Acceptable  10–15 m    1  ███████████████
            Marginal    15–20 m    0
            Poor        ≥ 20 m     1  ███████████████
            Unknown     no figure  1  ███████████████
            median 7.5 m, best 3.2 m, worst 25.0 m

            CAPTURED PER DAY
            2026-05-01  2  ██████████████████████████████
            2026-05-02  2  ██████████████████████████████
            2026-05-04  2  ██████████████████████████████

            """)
    }

    @Test func daysFollowTheLocalTimeZoneAndCollectionsFilter() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let tokyo = try t.run(["stats", "--collection", "none"], environment: ["TZ": "Asia/Tokyo"])
        #expect(tokyo.stdout.hasSuffix("""
            CAPTURED PER DAY
            2026-05-04  1  ██████████████████████████████
            2026-05-05  1  ██████████████████████████████

            """), "\(tokyo)")
        #expect(tokyo.stdout.hasPrefix("2 trees, 0 with photos\n"))

        let north = try t.run(["stats", "--collection", "north", "--json"])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(north.stdout.utf8)) as? [String: Any])
        #expect(o["trees"] as? Int == 3)
        let species = try #require(o["species"] as? [[String: Any]])
        #expect(species.count == 1 && species[0]["name"] as? String == "Apple" && species[0]["count"] as? Int == 3)
        let accuracy = try #require(o["accuracy"] as? [String: Any])
        let classes = try #require(accuracy["classes"] as? [[String: Any]])
        #expect(classes.map { $0["class"] as? String } == ["survey", "excellent", "good", "acceptable", "marginal", "poor", "unknown"])
        #expect(classes.map { $0["count"] as? Int } == [0, 2, 1, 0, 0, 0, 0])
        #expect(accuracy["medianMetres"] as? Double == 4.9)
        let days = try #require(o["perDay"] as? [[String: Any]])
        #expect(days.map { $0["date"] as? String } == ["2026-05-01", "2026-05-02"])
    }

    @Test func emptyStoreAndUnknownCollection() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        try t.makeEmptyStore()
        let empty = try t.run(["stats"])
        #expect(empty.status == 0)
        #expect(empty.stdout == "")
        #expect(empty.stderr == "no trees\n")
        let unknown = try t.run(["stats", "--collection", "Nowhere"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "trees: no collection named 'Nowhere'; create it with 'trees collection create Nowhere'\n")
    }

    /// On a terminal the bars take their class colours; with NO_COLOR they do not.
    @Test func coloursOnlyOnATerminal() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let command = "\(TreesProcess.executable.path) stats"
        var env = t.environment
        env.removeValue(forKey: "NO_COLOR")
        env["TERM"] = "xterm"
        let tty = try t.run([], scriptCommand: command, environment: env)
        #expect(tty.contains("\u{1B}[32m██████████████████████████████\u{1B}[0m"), "\(tty)")
        #expect(tty.contains("\u{1B}[31m███████████████\u{1B}[0m"))
        env["NO_COLOR"] = ""
        let plain = try t.run([], scriptCommand: command, environment: env)
        #expect(!plain.contains("\u{1B}["))
        #expect(plain.contains("Excellent"))
    }
}

extension TreesProcess {
    /// Runs a shell command under `script(1)`, so its standard output is a pseudo-terminal; returns what it wrote.
    func run(_ unused: [String], scriptCommand: String, environment: [String: String]) throws -> String {
        try Program.run("/usr/bin/script", ["-qec", scriptCommand, "/dev/null"], environment: environment).stdout
    }
}
