import Foundation
import Testing
import TreesTestSupport

/// An import of many trees out of time order builds the store's creation-time index at its end,
/// with SQLite's sorter, which writes what outgrows its memory to a temporary file. Where no
/// folder for temporary files can be written, the import still succeeds.
@Suite struct TemporaryFilesTests {
    /// Runs `trees` in a mount namespace of its own where /tmp and /var/tmp are read-only (as in
    /// some sandboxes) and `folder` is writable at /mnt; nothing outside the namespace sees it.
    static func withReadOnlyTemporaryFolders(_ folder: String) throws -> [String] {
        let unshare = try Tool.unshare.require()
        return [unshare, "--mount", "--map-root-user", "--propagation", "private", "/bin/sh", "-c",
                #"""
                mount --bind "$1" /mnt && mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp \
                  && mount --bind /var/tmp /var/tmp && mount -o remount,bind,ro /var/tmp || exit 90
                touch /tmp/.writable 2>/dev/null && exit 91
                cd /tmp && unset TMPDIR SQLITE_TMPDIR && shift && exec "$@"
                """#, "sh", folder]
    }

    /// 40,000 surveyed trees in no time order into a store of one tree (whose page cache, smaller
    /// than a new store's, makes the sorter spill): every tree is stored and the index is whole.
    @Test(.enabled(if: Tool.unshare.shouldRun && Tool.sqlite3.shouldRun))
    func anImportOutOfTimeOrderNeedsNoTemporaryFolder() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "51.4787", "--lon", "-0.2956", "--species", "Oak"]).status == 0)
        let count = 40_000
        try t.scratch.write("survey.gpx", ShuffledSurvey.gpx(count: count, seed: 40))
        let r = try t.run(["import", "/mnt/survey.gpx", "--db", "/mnt/trees.sqlite"], launcher: try Self.withReadOnlyTemporaryFolders(t.folder.path))
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Imported 40000 trees from /mnt/survey.gpx; 0 already present, 0 skipped.\n")
        let checked = try Program.run(try Tool.sqlite3.require(), [t.database, """
            SELECT sql FROM sqlite_master WHERE name = 'tree_createdAt_id';
            PRAGMA integrity_check;
            SELECT count(*) FROM tree INDEXED BY tree_createdAt_id WHERE createdAt < '2026-03-03';
            """]).stdout
        #expect(checked == "CREATE INDEX \"tree_createdAt_id\" ON \"tree\"(\"createdAt\", \"id\")\nok\n\(count)\n")
    }
}
