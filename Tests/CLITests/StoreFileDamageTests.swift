import Foundation
import Testing
import TreesTestSupport

/// A store file damaged below the level of its values (pages cut off, pages overwritten) is named
/// as damaged, with the way to save what can be read, exit 65, for every command; it is not
/// called another program's database, and nothing is written to it.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct StoreFileDamageTests {
    /// A store of 400 trees with notes (many pages), cut to half its length.
    @Test func aTruncatedStoreIsCalledDamaged() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        var csv = "latitude,longitude,species,notes\n"
        for i in 0..<400 { csv += "51.\(1000 + i),-0.\(2000 + i),Apple,\(String(repeating: "pruned hard ", count: 20))\(i)\n" }
        let source = t.folder.appendingPathComponent("trees.csv")
        try csv.write(to: source, atomically: true, encoding: .utf8)
        try #require(try t.run(["import", source.path]).status == 0)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: t.database)[.size] as? Int)
        try #require(truncate(t.database, off_t(size / 2)) == 0)
        let before = t.snapshot()
        for arguments in [["list"], ["doctor"], ["stats"], ["add", "--lat", "1", "--lon", "1", "--species", "Fig"]] {
            let r = try t.run(arguments)
            #expect(r.status == 65, "\(arguments): \(r)")
            #expect(r.stderr.hasPrefix("trees: the store file is damaged ("), "\(arguments): \(r)")
            #expect(r.stderr.hasSuffix("); restore it from a backup, or save what can still be read with: sqlite3 DAMAGED.sqlite .recover | sqlite3 RECOVERED.sqlite\n"),
                    "\(arguments): \(r)")
            #expect(!r.stderr.contains("not a trees database"))
            #expect(t.snapshot() == before, "\(arguments) wrote nothing")
        }
    }
}
