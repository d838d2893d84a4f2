import Foundation
import Testing
import TreesTestSupport

/// A path named by `--db` or `$TREES_DB` where no store is: a command that only reads or changes
/// trees refuses it (exit 66) and leaves nothing there, so a mistyped path never turns into an
/// empty store that answers "no trees"; the commands that bring trees in make the store.
@Suite struct MissingStoreTests {
    static let refusing: [[String]] = [
        ["list"], ["list", "--json"], ["show", "0123abcd"], ["stats"], ["doctor"], ["doctor", "--repair"],
        ["export", "--format", "gpx", "--out", "OUT"], ["export", "--format", "json", "--out", "-"], ["map", "--out", "OUT"],
        ["edit", "0123abcd", "--species", "Pear"], ["rm", "0123abcd", "--yes"], ["collection", "list"],
        ["collection", "rm", "North", "--yes"], ["care", "list"], ["due"], ["schedule", "list"], ["photo", "list", "0123abcd"],
        ["remote", "list"], ["sync", "--dry-run", "team"], ["sync", "team"], ["sync"],
    ]

    @Test(arguments: refusing)
    func aCommandThatReadsRefusesAMistypedDbAndMakesNothing(arguments: [String]) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let typo = t.scratch.path("orchrad/trees.sqlite")
        let out = t.scratch.path("out.file")
        let r = try t.run(arguments.map { $0 == "OUT" ? out : $0 } + ["--db", typo])
        #expect(r.status == 66, "\(arguments): \(r)")
        #expect(r.stderr == "trees: no store at \(typo) (named by --db); trees import, add or capture makes one\n")
        #expect(r.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: t.scratch.path("orchrad")), "\(arguments) made the folder")
        #expect(!FileManager.default.fileExists(atPath: out), "\(arguments) wrote its output")
        #expect(!FileManager.default.fileExists(atPath: t.database), "\(arguments) made the store of $TREES_DB")
    }

    @Test func aMissingStoreNamedByTheEnvironmentIsRefusedToo() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["list"])
        #expect(r.status == 66)
        #expect(r.stderr == "trees: no store at \(t.database) (named by $TREES_DB); trees import, add or capture makes one\n")
        #expect(!FileManager.default.fileExists(atPath: t.database))
    }

    @Test func commandsThatBringTreesInMakeTheStore() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = try t.scratch.write("one.csv", "latitude,longitude,species\n47.1,8.5,Fig\n")
        for (name, arguments) in [
            ("a", ["collection", "create", "North"]),
            ("b", ["add", "--lat", "47.3", "--lon", "8.5", "--species", "Apple"]),
            ("c", ["remote", "add", "team", "postgres://trees@127.0.0.1:1/trees"]),
            ("d", ["import", file]),
        ] {
            let path = t.scratch.path("\(name)/trees.sqlite")
            let r = try t.run(arguments + ["--db", path])
            #expect(r.status == 0, "\(arguments): \(r)")
            #expect(FileManager.default.fileExists(atPath: path), "\(arguments)")
            #expect(try t.run(["list", "--json", "--db", path]).status == 0)
        }
        // Made by `add`, the store then answers every reader.
        let made = t.scratch.path("b/trees.sqlite")
        let listed = try t.run(["list", "--db", made])
        #expect(listed.status == 0 && listed.stdout.contains("Apple"), "\(listed)")
    }

    /// A command that would bring something in but is refused before it does (a name that cannot
    /// be a collection's, a track that cannot be read, a source that cannot be, a position off the
    /// Earth) makes no store, and no folder for one.
    @Test(arguments: [
        (["collection", "create", "none"], 64, "trees: 'none' is not a usable collection name; expected non-empty text other than 'none'\n"),
        (["capture", "--auto", "--species", "Fig", "--source", "replay:MISSING"], 66, "trees: cannot open MISSING: No such file or directory\n"),
        (["capture", "--auto", "--species", "Fig", "--source", "replay:FOLDER"], 66, "trees: cannot open FOLDER: it is a folder; give an NMEA track file\n"),
        (["capture", "--auto", "--species", "Fig", "--source", "gpsd://localhost:99999"], 64, nil),
        (["add", "--lat", "91", "--lon", "8", "--species", "Fig"], 64, "trees: latitude 91 is out of range; expected degrees between -90 and 90\n"),
    ] as [([String], Int32, String?)])
    func aCreatingCommandRefusedBeforeItBringsAnythingMakesNoStore(arguments: [String], status: Int32, message: String?) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let missing = t.scratch.path("missing.nmea"), folder = t.scratch.path("tracks")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let given = arguments.map { $0.replacingOccurrences(of: "MISSING", with: missing).replacingOccurrences(of: "FOLDER", with: folder) }
        let path = t.scratch.path("new/trees.sqlite")
        let r = try t.run(given + ["--db", path])
        #expect(r.status == status, "\(arguments): \(r)")
        if let message {
            #expect(r.stderr == message.replacingOccurrences(of: "MISSING", with: missing).replacingOccurrences(of: "FOLDER", with: folder), "\(arguments)")
        } else {
            #expect(r.stderr.hasPrefix("trees: invalid source 'gpsd://localhost:99999': the port '99999' is not a number from 1 to 65535."), "\(arguments): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: t.scratch.path("new")), "\(arguments) made the store's folder")
    }

    /// A capture that ends without saving a tree (no fix passed the gate, the track held no
    /// sentence, gpsd could not be reached) makes no store and no folder for one; the same capture
    /// that saves makes the store, with the survey settings it was told to remember.
    @Test(arguments: [
        ("no-fix", 3), ("garbage", 65), ("gpsd", 69),
    ] as [(String, Int32)])
    func aCaptureThatSavesNothingMakesNoStore(source: String, status: Int32) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let garbage = try t.scratch.write("garbage.nmea", "not a sentence\n$GPGGA,broken*00\n")
        let given = switch source {
        case "no-fix": "replay:" + Repository.path("SampleTracks/no-fix.nmea")
        case "garbage": "replay:" + garbage
        default: "gpsd://127.0.0.1:\(GPSFake.freePort())"
        }
        let path = t.scratch.path("new/block/trees.sqlite")
        let r = try t.run(["capture", "--source", given, "--speed", "max", "--auto", "--species", "Fig",
                           "--require-fix", "any", "--antenna-height", "1.5", "--collection", "North", "--db", path])
        #expect(r.status == status, "\(source): \(r)")
        #expect(r.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: t.scratch.path("new")), "\(source) made the store's folder")
        #expect(!FileManager.default.fileExists(atPath: t.database), "\(source) made the store of $TREES_DB")

        let saved = try t.run(["capture", "--source", "replay:" + Repository.path("SampleTracks/orchard-walk.nmea"), "--speed", "max",
                               "--auto", "--species", "Fig", "--antenna-height", "1.5", "--collection", "North", "--json", "--db", path])
        #expect(saved.status == 0, "\(saved)")
        let tree = try #require(JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [String: Any])
        #expect(tree["species"] as? String == "Fig" && tree["collection"] as? String == "North", "\(tree)")
        #expect((tree["capture"] as? [String: Any])?["antennaHeight"] as? Double == 1.5, "\(tree)")
        // Remembered by the store made at that save: the next capture takes the pole off again.
        let next = try t.run(["capture", "--source", "replay:" + Repository.path("SampleTracks/orchard-walk.nmea"), "--speed", "max",
                              "--auto", "--species", "Fig", "--allow-duplicate", "--json", "--db", path])
        #expect(next.status == 0, "\(next)")
        let nextTree = try #require(JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [String: Any])
        #expect((nextTree["capture"] as? [String: Any])?["antennaHeight"] as? Double == 1.5, "\(nextTree)")
        #expect(nextTree["collection"] as? String == "North", "\(nextTree)")
    }

    /// A path that cannot hold a store is refused before capture waits for a fix, as it was when
    /// the store was made at the start; nothing is made.
    @Test func aCaptureIntoAPathThatCannotHoldAStoreIsRefusedAtOnce() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = try t.scratch.write("plain.txt", "not a folder\n")
        let track = "replay:" + Repository.path("SampleTracks/orchard-walk.nmea")
        let r = try t.run(["capture", "--source", track, "--speed", "max", "--auto", "--species", "Fig", "--db", file + "/x/trees.sqlite"])
        #expect(r.status == 73, "\(r)")
        #expect(r.stderr == "trees: cannot create the database at \(file)/x/trees.sqlite: \(file) is a file, not a folder; "
                + "choose another path with --db or TREES_DB\n")
        let folder = t.scratch.path("taken")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let directory = try t.run(["capture", "--source", track, "--speed", "max", "--auto", "--species", "Fig", "--db", folder])
        #expect(directory.status == 73, "\(directory)")
        #expect(directory.stderr == "trees: cannot create the database at \(folder): it is a directory; choose another path with --db or TREES_DB\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
    }

    /// A dry run stores nothing, not even the store it read the file against.
    @Test func aDryRunImportIntoANewStoreLeavesNoFile() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let file = try t.scratch.write("one.csv", "latitude,longitude,species\n47.1,8.5,Fig\n")
        let folder = t.scratch.path("new")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let r = try t.run(["import", file, "--dry-run", "--db", folder + "/trees.sqlite"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "Dry run: would import 1 tree from \(file); 0 already present, 0 skipped. Nothing was stored.\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
        let imported = try t.run(["import", file, "--db", folder + "/trees.sqlite"])
        #expect(imported.status == 0 && imported.stdout.hasPrefix("Imported 1 tree"), "\(imported)")
    }

    @Test func theDefaultStoreIsMadeOnFirstUse() throws {
        var t = try TreesProcess()
        defer { t.cleanUp() }
        t.environment.removeValue(forKey: "TREES_DB")
        let r = try t.run(["list"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "no trees\n")
        #expect(FileManager.default.fileExists(atPath: t.scratch.path(".local/share/trees/trees.sqlite")))
    }
}
