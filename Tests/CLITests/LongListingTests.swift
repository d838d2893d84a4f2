import Foundation
import Testing
import TreesTestSupport

/// Listings longer than what is written at once (64 KiB): `list`, `collection show` and `care
/// list` write their rows as they read them, and a long listing is laid out exactly as a short
/// one: every row's columns line up with the header's, JSON is one array with an element per
/// line group, and nothing is lost or repeated at the seams.
@Suite struct LongListingTests {
    static let count = 1_500

    /// A store of `count` trees in one collection, each with a care event; the trees' varieties
    /// and notes grow longer down the file, so the widest cell comes late.
    static func populated() throws -> TreesProcess {
        let t = try TreesProcess()
        var csv = "latitude,longitude,species,variety,notes,collection\n"
        for i in 0..<count {
            csv += "47.\(String(format: "%05d", i)),8.5,Malus domestica,\(String(repeating: "v", count: 1 + i / 100)),note \(i),Block A\n"
        }
        let file = try t.scratch.write("trees.csv", csv)
        let imported = try t.run(["import", file])
        #expect(imported.status == 0, "\(imported)")
        let logged = try t.run(["care", "add", "--collection", "Block A", "water", "--date", "2026-05-01", "--notes", "long row of notes"])
        #expect(logged.status == 0, "\(logged)")
        return t
    }

    /// The columns of every line start where the header's do (all cells are ASCII here).
    static func expectAligned(_ text: String, rows: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.last == "", sourceLocation: sourceLocation)
        lines.removeLast()
        guard let header = lines.first else { Issue.record("no header", sourceLocation: sourceLocation); return }
        func starts(_ line: String) -> [Int] {
            // A column starts after two or more spaces.
            let b = Array(line.utf8)
            return b.indices.filter { $0 >= 2 && b[$0] != 0x20 && b[$0 - 1] == 0x20 && b[$0 - 2] == 0x20 }
        }
        let columns = starts(header)
        #expect(lines.count == rows + 1, sourceLocation: sourceLocation)
        for (n, line) in lines.enumerated().dropFirst() where !starts(line).allSatisfy(columns.contains) || line.count < columns.last ?? 0 {
            Issue.record("line \(n) is out of line with the header:\n\(header)\n\(line)", sourceLocation: sourceLocation)
            return
        }
    }

    /// One JSON array laid out with an element per group of lines at two spaces.
    static func expectArray(_ text: String, count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        #expect(text.hasPrefix("[\n  {\n    \""), sourceLocation: sourceLocation)
        #expect(text.hasSuffix("\n  }\n]\n"), sourceLocation: sourceLocation)
        #expect(text.components(separatedBy: "\n  },\n  {\n").count == count, sourceLocation: sourceLocation)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(array.count == count, sourceLocation: sourceLocation)
        return array
    }

    @Test func listWritesEveryTreeOnceLinedUp() throws {
        let t = try Self.populated()
        defer { t.cleanUp() }
        let human = try t.run(["list"])
        #expect(human.status == 0)
        #expect(human.stdout.utf8.count > 1 << 16)
        Self.expectAligned(human.stdout, rows: Self.count)
        #expect(human.stdout.contains("  " + String(repeating: "v", count: 15) + "  "))
        // Newest first: the last line of the file is the first row after the header.
        let json = try t.run(["list", "--json"])
        let trees = try Self.expectArray(json.stdout, count: Self.count)
        #expect(Set(trees.compactMap { $0["notes"] as? String }) == Set((0..<Self.count).map { "note \($0)" }))
        #expect(Set(trees.compactMap { $0["id"] as? String }).count == Self.count)
        // A limit cuts both the same way.
        #expect(try Self.expectArray(try t.run(["list", "--json", "--limit", "700"]).stdout, count: 700).count == 700)
        Self.expectAligned(try t.run(["list", "--limit", "700"]).stdout, rows: 700)
        #expect(try t.run(["list", "--json", "--species", "Pyrus"]).stdout == "[]\n")
    }

    @Test func collectionShowWritesEveryTreeOnceLinedUp() throws {
        let t = try Self.populated()
        defer { t.cleanUp() }
        let human = try t.run(["collection", "show", "block a"])
        #expect(human.status == 0)
        var lines = human.stdout.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first?.hasPrefix("Block A: \(Self.count) trees, created ") == true, "\(lines.first ?? "")")
        #expect(lines.count == 3 && lines[1] == "Malus domestica \(Self.count)")
        Self.expectAligned(lines.removeLast(), rows: Self.count)

        let json = try t.run(["collection", "show", "block a", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["collection"] as? [String: Any])?["treeCount"] as? Int == Self.count)
        #expect((object["trees"] as? [Any])?.count == Self.count)
        #expect(json.stdout.hasPrefix("{\n  \"collection\": {\n    \""))
        #expect(json.stdout.hasSuffix("\n    }\n  ]\n}\n"))
        #expect(json.stdout.components(separatedBy: "\n    },\n    {\n      \"").count == Self.count)
        // An empty collection: an empty array where the trees would be.
        #expect(try t.run(["collection", "create", "Empty"]).status == 0)
        let empty = try t.run(["collection", "show", "Empty", "--json"])
        #expect(empty.stdout.hasSuffix(",\n  \"trees\": []\n}\n"), "\(empty.stdout)")
        #expect(try t.run(["collection", "show", "Empty"]).stdout.hasPrefix("Empty: 0 trees, created "))
    }

    @Test func careListWritesEveryEventOnceLinedUp() throws {
        let t = try Self.populated()
        defer { t.cleanUp() }
        let human = try t.run(["care", "list"])
        #expect(human.status == 0)
        Self.expectAligned(human.stdout, rows: Self.count)
        #expect(!human.stdout.contains("PHOTOS"))
        let events = try Self.expectArray(try t.run(["care", "list", "--json"]).stdout, count: Self.count)
        #expect(Set(events.compactMap { $0["id"] as? String }).count == Self.count)
        #expect(try t.run(["care", "list", "--kind", "prune", "--json"]).stdout == "[]\n")
        let none = try t.run(["care", "list", "--kind", "prune"])
        #expect(none.stdout.isEmpty && none.stderr == "no care events\n")
    }
}
