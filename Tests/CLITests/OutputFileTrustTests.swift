import Foundation
import Testing
import TreesTestSupport

/// Every file `trees` writes (`export`, `map`) takes one path: devices and pipes are written
/// straight through, a symbolic link keeps pointing at the file it names, a replaced file keeps
/// its permissions and owner, an interrupted write leaves no temporary file, and failures are one
/// line with exit status 73 (cannot create) or 74 (cannot write).
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct OutputFileTrustTests {
    /// The two commands that write files, as (name, arguments before `--out`).
    static let writers: [(String, [String])] = [
        ("map", ["map"]),
        ("export", ["export", "--format", "gpx"]),
    ]

    static var isRoot: Bool { geteuid() == 0 }

    /// A store with three trees in a collection.
    func populated() throws -> TreesProcess {
        let t = try TreesProcess()
        #expect(try t.run(["collection", "create", "North"]).status == 0)
        for (species, lat) in [("Apple", "51.5"), ("Pear", "51.50005"), ("Plum", "51.5001")] {
            let r = try t.run(["add", "--lat", lat, "--lon", "-0.12", "--species", species, "--collection", "North"])
            #expect(r.status == 0, "\(r)")
        }
        return t
    }

    /// Runs `trees` through `/bin/sh` with a umask; (as root) without the capabilities that let
    /// root write where the permissions say no, so a read-only folder refuses it as it would anyone;
    /// and with files limited to `fileLimitKiB` (the limit's signal ignored, so a write past it
    /// fails as on a full disk).
    func run(_ t: TreesProcess, _ arguments: [String], umask: String = "022",
             obeyingPermissions: Bool = false, fileLimitKiB: Int? = nil) throws -> TreesProcess.Result {
        // POSIX counts ulimit -f in blocks of 512 bytes.
        let limit = fileLimitKiB.map { "trap '' XFSZ && ulimit -f \($0 * 2) && " } ?? ""
        var launcher = ["/bin/sh", "-c", "\(limit)umask \(umask) && exec \"$@\"", "sh"]
        if obeyingPermissions && Self.isRoot {
            launcher += ["/usr/bin/setpriv", "--bounding-set=-dac_override,-dac_read_search"]
        }
        return try t.run(arguments, currentDirectory: t.folder, launcher: launcher)
    }

    static func status(_ path: String) -> stat? {
        var st = stat()
        return lstat(path, &st) == 0 ? st : nil
    }

    /// A device number as Linux encodes it (`makedev`), for the small numbers used here.
    static func device(_ major: UInt64, _ minor: UInt64) -> dev_t { dev_t(major << 8 | minor) }

    static func isCharacterDevice(_ path: String, major: UInt64, minor: UInt64) -> Bool {
        guard let st = status(path) else { return false }
        return st.st_mode & S_IFMT == S_IFCHR && st.st_rdev == device(major, minor)
    }

    /// Names in `folder` that start with a dot: the temporary files an output file writes.
    static func hidden(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".") }
    }

    // MARK: Devices, pipes, links

    /// As root, renaming a page over a device node would replace the node; it must be written
    /// through instead. A private node (the null device, made with mknod) is tried first, so a
    /// regression harms only the test's own folder; /dev/null itself only once that passed.
    @Test(arguments: writers.map(\.0))
    func aDeviceIsWrittenThroughNotReplaced(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        var privateNodePassed = !Self.isRoot
        if Self.isRoot {
            let node = t.folder.appendingPathComponent("null").path
            try #require(mknod(node, S_IFCHR | 0o666, Self.device(1, 3)) == 0, "mknod: \(String(cString: strerror(errno)))")
            let r = try t.run(arguments + ["--out", node])
            #expect(r.status == 0, "\(r)")
            #expect(Self.isCharacterDevice(node, major: 1, minor: 3), "\(node) is still the null device")
            #expect(Self.hidden(in: t.folder.path) == [])
            privateNodePassed = r.status == 0 && Self.isCharacterDevice(node, major: 1, minor: 3)
        }
        try #require(privateNodePassed, "not trying /dev/null: a device node was replaced")
        let r = try t.run(arguments + ["--out", "/dev/null"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == (writer == "map" ? "/dev/null\n" : "Exported 3 trees to /dev/null\n"))
        #expect(Self.isCharacterDevice("/dev/null", major: 1, minor: 3), "/dev/null is still the null device")
        #expect(Self.status("/dev/null")?.st_size == 0, "the output was discarded")
        #expect(Self.hidden(in: "/dev").filter { $0.hasPrefix(".null.") } == [])
    }

    /// A FIFO with a reader gets the whole output and stays a FIFO.
    @Test(arguments: writers.map(\.0))
    func aPipeIsWrittenThrough(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        let fifo = t.folder.appendingPathComponent("pipe").path
        try #require(mkfifo(fifo, 0o644) == 0)
        nonisolated(unsafe) var received = Data()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if let reader = FileHandle(forReadingAtPath: fifo) {
                received = reader.readDataToEndOfFile()
                try? reader.close()
            }
            done.signal()
        }
        let r = try t.run(arguments + ["--out", fifo])
        if done.wait(timeout: .now() + 10) == .timedOut {
            // trees never opened the pipe: let the reader see an end of file instead of waiting forever.
            let unblock = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if unblock >= 0 { close(unblock) }
            done.wait()
        }
        #expect(r.status == 0, "\(r)")
        let text = String(decoding: received, as: UTF8.self)
        if writer == "map" {
            #expect(text.hasPrefix("<!DOCTYPE html>\n") && text.hasSuffix("</html>\n"), "\(text.count) characters")
        } else {
            #expect(text.hasPrefix("<?xml") && text.hasSuffix("</gpx>\n"), "\(text.count) characters")
            #expect(text.contains("<bounds minlat=\"51.5\""), "bounds computed in a first pass, the pipe cannot be patched")
        }
        #expect(Self.status(fifo).map { $0.st_mode & S_IFMT == S_IFIFO } == true)
        #expect(Self.hidden(in: t.folder.path) == [])
    }

    /// Writing to a symbolic link replaces the file it points at; the link stays. A link to a
    /// file that does not exist yet creates that file.
    @Test(arguments: writers.map(\.0))
    func aSymbolicLinkKeepsPointingAtItsNewContent(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        let fm = FileManager.default
        let targets = t.folder.appendingPathComponent("targets")
        try fm.createDirectory(at: targets, withIntermediateDirectories: true)
        let target = targets.appendingPathComponent("page.out").path
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o640)
        let link = t.folder.appendingPathComponent("link.out").path
        try fm.createSymbolicLink(atPath: link, withDestinationPath: "targets/page.out")

        let r = try t.run(arguments + ["--out", link])
        #expect(r.status == 0, "\(r)")
        #expect(try fm.destinationOfSymbolicLink(atPath: link) == "targets/page.out")
        let content = try String(contentsOfFile: target, encoding: .utf8)
        #expect(content.hasSuffix(writer == "map" ? "</html>\n" : "</gpx>\n"))
        #expect(Self.status(target).map { $0.st_mode & 0o7777 } == 0o640)

        let dangling = t.folder.appendingPathComponent("dangling.out").path
        try fm.createSymbolicLink(atPath: dangling, withDestinationPath: "targets/new.out")
        let d = try t.run(arguments + ["--out", dangling])
        #expect(d.status == 0, "\(d)")
        #expect(try fm.destinationOfSymbolicLink(atPath: dangling) == "targets/new.out")
        #expect(try String(contentsOfFile: targets.appendingPathComponent("new.out").path, encoding: .utf8) == content)
        #expect(Self.hidden(in: t.folder.path) == [] && Self.hidden(in: targets.path) == [])
    }

    /// A large file is replaced as a small one is (it is let go of on a thread of its own, see
    /// `ReplacedFile`): the new content under its name, its mode kept; another hard link to it
    /// keeps the old content.
    @Test(arguments: writers.map(\.0))
    func aLargeFileIsReplacedAndItsOtherNameKeepsTheOldContent(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        let old = Data(repeating: 0x78, count: 3 << 20)
        let single = t.folder.appendingPathComponent("single.out").path
        let linked = t.folder.appendingPathComponent("linked.out").path
        let other = t.folder.appendingPathComponent("other-name.out").path
        for path in [single, linked] { try old.write(to: URL(fileURLWithPath: path)) }
        chmod(single, 0o640)
        #expect(link(linked, other) == 0)

        for path in [single, linked] {
            let r = try t.run(arguments + ["--out", path])
            #expect(r.status == 0, "\(r)")
            let content = try String(contentsOfFile: path, encoding: .utf8)
            #expect(content.hasSuffix(writer == "map" ? "</html>\n" : "</gpx>\n") && content.count < 100_000)
        }
        #expect(Self.status(single).map { $0.st_mode & 0o7777 } == 0o640)
        #expect(FileManager.default.contents(atPath: other) == old)
        #expect(Self.status(other)?.st_nlink == 1)
        #expect(Self.hidden(in: t.folder.path) == [])
    }

    // MARK: Permissions

    /// A replaced file keeps its mode (0600 stays private) and, where this user may set it, its
    /// owner; a new file gets 0666 less the umask.
    @Test(arguments: writers.map(\.0))
    func aReplacedFileKeepsItsModeAndANewOneFollowsTheUmask(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        let existing = t.folder.appendingPathComponent("private.out").path
        for mode: mode_t in [0o600, 0o640, 0o604] {
            try Data("secret\n".utf8).write(to: URL(fileURLWithPath: existing))
            chmod(existing, mode)
            let r = try run(t, arguments + ["--out", existing])
            #expect(r.status == 0, "\(r)")
            #expect(Self.status(existing).map { $0.st_mode & 0o7777 } == mode, "mode \(String(mode, radix: 8)) is kept")
            #expect(try String(contentsOfFile: existing, encoding: .utf8) != "secret\n")
        }
        if Self.isRoot {
            chown(existing, 65534, 65534)
            chmod(existing, 0o640)
            let r = try run(t, arguments + ["--out", existing])
            #expect(r.status == 0, "\(r)")
            let st = try #require(Self.status(existing))
            #expect(st.st_uid == 65534 && st.st_gid == 65534, "the owner is kept")
            #expect(st.st_mode & 0o7777 == 0o640)
        }
        for (umask, mode) in [("022", 0o644), ("027", 0o640), ("077", 0o600), ("002", 0o664)] as [(String, mode_t)] {
            let fresh = t.folder.appendingPathComponent("new-\(umask).out").path
            let r = try run(t, arguments + ["--out", fresh], umask: umask)
            #expect(r.status == 0, "\(r)")
            #expect(Self.status(fresh).map { $0.st_mode & 0o7777 } == mode, "umask \(umask)")
        }
        #expect(Self.hidden(in: t.folder.path) == [])
    }

    // MARK: Failures

    /// A folder that is missing, not a folder, or not writable: exit 73 and one line naming the path.
    @Test(arguments: writers.map(\.0))
    func aFileThatCannotBeCreatedIsExit73(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        let folder = t.folder.path
        let plain = t.folder.appendingPathComponent("plain.txt").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: plain))
        let locked = t.folder.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        chmod(locked.path, 0o555)
        defer { chmod(locked.path, 0o755) }
        let cases: [(out: String, message: String)] = [
            ("\(folder)/missing/map.out", "trees: cannot write \(folder)/missing/map.out: the folder \(folder)/missing does not exist\n"),
            ("missing/map.out", "trees: cannot write missing/map.out: the folder missing does not exist\n"),
            ("\(folder)/missing/", "trees: cannot write \(folder)/missing/: the folder does not exist\n"),
            ("\(plain)/map.out", "trees: cannot write \(plain)/map.out: Not a directory\n"),
            ("\(locked.path)/map.out", "trees: cannot write \(locked.path)/map.out: Permission denied\n"),
        ]
        let before = try t.dump()
        for c in cases {
            let r = try run(t, arguments + ["--out", c.out], obeyingPermissions: true)
            #expect(r.status == 73, "\(c.out): \(r)")
            #expect(r.stderr == c.message)
            #expect(r.stdout == "")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path) == [])
        #expect(Self.hidden(in: folder) == [])
        #expect(try t.dump() == before)
    }

    /// A full disk (the full device) is exit 74, and the device is still a device. A private node
    /// is tried first, as for /dev/null.
    @Test(arguments: writers.map(\.0))
    func aFullDiskIsExit74(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        var privateNodePassed = !Self.isRoot
        if Self.isRoot {
            let node = t.folder.appendingPathComponent("full").path
            try #require(mknod(node, S_IFCHR | 0o666, Self.device(1, 7)) == 0, "mknod: \(String(cString: strerror(errno)))")
            let r = try t.run(arguments + ["--out", node])
            #expect(r.status == 74, "\(r)")
            #expect(r.stderr == "trees: cannot write \(node): No space left on device\n")
            privateNodePassed = Self.isCharacterDevice(node, major: 1, minor: 7)
            #expect(privateNodePassed, "\(node) is still the full device")
        }
        try #require(privateNodePassed, "not trying /dev/full: a device node was replaced")
        let r = try t.run(arguments + ["--out", "/dev/full"])
        #expect(r.status == 74, "\(r)")
        #expect(r.stderr == "trees: cannot write /dev/full: No space left on device\n")
        #expect(r.stdout == "")
        #expect(Self.isCharacterDevice("/dev/full", major: 1, minor: 7))
    }

    /// A write that fails part way into a regular file (here at the file-size limit, as on a full
    /// disk) is exit 74; the previous file is untouched and the temporary file removed.
    @Test(arguments: writers.map(\.0))
    func aWriteFailingMidwayLeavesThePreviousFile(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let t = try populated()
        defer { t.cleanUp() }
        let notes = String(repeating: "long notes ", count: 9000)
        #expect(try t.run(["add", "--lat", "51.5002", "--lon", "-0.12", "--species", "Walnut", "--notes", notes]).status == 0)
        let existing = t.folder.appendingPathComponent("previous.out")
        try Data("previous\n".utf8).write(to: existing)
        chmod(existing.path, 0o600)
        let r = try run(t, arguments + ["--out", existing.path], fileLimitKiB: 64)
        #expect(r.status == 74, "\(r)")
        #expect(r.stderr == "trees: cannot write \(existing.path): File too large\n")
        #expect(r.stdout == "")
        #expect(try String(contentsOf: existing, encoding: .utf8) == "previous\n")
        #expect(Self.status(existing.path).map { $0.st_mode & 0o7777 } == 0o600)
        #expect(Self.hidden(in: t.folder.path) == [])
    }

    /// A folder as `--out` gets the generated name inside it, for the map as for exports.
    @Test func aFolderGetsTheGeneratedName() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let out = t.folder.appendingPathComponent("maps")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let r = try t.run(["map", "--collection", "North", "--out", out.path])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == out.path + "/north_2026-05-01_100000.html\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["north_2026-05-01_100000.html"])
        let slash = try t.run(["map", "--out", out.path + "/"])
        #expect(slash.stdout == out.path + "/trees_2026-05-01_100000.html\n")
        let empty = try t.run(["map", "--out", ""])
        #expect(empty.status == 64)
        #expect(empty.stderr == "trees: --out needs a file, a folder or - for standard output\n")
    }

    /// A made name never replaces a file: two exports into one folder in the same second (the
    /// clock is fixed) get `_2` and `_3`, and the first export is still there, byte for byte.
    @Test(arguments: writers.map(\.0))
    func aMadeNameNeverReplacesAFile(writer: String) throws {
        let arguments = try #require(Self.writers.first { $0.0 == writer }).1
        let ext = writer == "map" ? "html" : "gpx"
        let t = try populated()
        defer { t.cleanUp() }
        let out = t.folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let first = try t.run(arguments + ["--out", out.path])
        try #require(first.status == 0, "\(first)")
        let firstName = out.appendingPathComponent("trees_2026-05-01_100000.\(ext)")
        let firstBytes = try Data(contentsOf: firstName)
        #expect(try t.run(["add", "--lat", "51.6", "--lon", "-0.1", "--species", "Quince", "--collection", "none"]).status == 0)
        let second = try t.run(arguments + ["--out", out.path])
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains(out.path + "/trees_2026-05-01_100000_2.\(ext)"), "\(second)")
        // Without --out, in the current folder: the same rule.
        try FileManager.default.copyItem(at: firstName, to: t.folder.appendingPathComponent("trees_2026-05-01_100000.\(ext)"))
        let here = try run(t, arguments)
        #expect(here.status == 0, "\(here)")
        #expect(here.stdout.contains("trees_2026-05-01_100000_2.\(ext)"), "\(here)")
        let third = try t.run(arguments + ["--out", out.path])
        #expect(third.stdout.contains("_3.\(ext)"), "\(third)")
        #expect(try Data(contentsOf: firstName) == firstBytes, "the first file is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == [
            "trees_2026-05-01_100000.\(ext)", "trees_2026-05-01_100000_2.\(ext)", "trees_2026-05-01_100000_3.\(ext)",
        ])
        #expect(Self.hidden(in: out.path) == [])
        // A name the user gives is replaced, as before.
        let named = try t.run(arguments + ["--out", firstName.path])
        #expect(named.status == 0, "\(named)")
        #expect(try Data(contentsOf: firstName) != firstBytes)
    }

    /// No output replaces the store it is made from, under any of its names (a symbolic link, a
    /// hard link) or the files SQLite keeps beside it: exit 73, the store unchanged.
    @Test(arguments: ["gpx", "csv", "json", "gpkg", "care", "map"])
    func anOutputNeverReplacesItsStore(kind: String) throws {
        let t = try populated()
        defer { t.cleanUp() }
        let arguments: [String] = switch kind {
        case "map": ["map"]
        case "care": ["export", "--format", "csv", "--care"]
        default: ["export", "--format", kind]
        }
        let link = t.folder.appendingPathComponent("link.sqlite").path
        let hard = t.folder.appendingPathComponent("hard.sqlite").path
        try #require(symlink(t.database, link) == 0)
        try #require(Glibc.link(t.database, hard) == 0)
        let before = t.snapshot()
        for target in [t.database, link, hard, t.database + "-wal"] where FileManager.default.fileExists(atPath: target) {
            let r = try t.run(arguments + ["--out", target])
            #expect(r.status == 73, "\(kind) --out \(target): \(r)")
            #expect(r.stderr == "trees: cannot write \(target): it is the store the output is made from; choose another path\n", "\(r)")
            #expect(t.snapshot() == before, "\(kind) --out \(target): the store is unchanged")
            #expect(Self.hidden(in: t.folder.path) == [])
        }
        let list = try t.run(["list", "--json"])
        #expect(list.status == 0 && list.stdout.contains("Plum"), "\(list)")
    }

    // MARK: Signals

    /// SIGINT, SIGTERM or SIGHUP in the middle of an export remove its temporary file; the
    /// destination is left as it was (absent, or the previous complete export) and the exit
    /// status is 128 + the signal.
    @Test func anInterruptedExportLeavesNoTemporaryFile() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        // Enough trees that the export takes a while: 5,000 with 2 kB of notes each.
        var gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        let notes = String(repeating: "pruned hard; ", count: 160)
        for i in 0..<5000 {
            gpx += "<wpt lat=\"47.\(String(format: "%05d", i))\" lon=\"8.\(String(format: "%05d", i * 3))\">"
            gpx += "<name>Tree \(i)</name><desc>\(notes)\(i)</desc></wpt>\n"
        }
        gpx += "</gpx>\n"
        let source = t.folder.appendingPathComponent("survey.gpx")
        try gpx.write(to: source, atomically: true, encoding: .utf8)
        let imported = try t.run(["import", source.path])
        try #require(imported.status == 0, "\(imported)")

        let out = t.folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let reference = out.appendingPathComponent("reference.gpx")
        #expect(try t.run(["export", "--format", "gpx", "--out", reference.path]).status == 0)
        let complete = try Data(contentsOf: reference)
        try FileManager.default.removeItem(at: reference)
        let target = out.appendingPathComponent("all.gpx")

        for (signal, status, previous) in [(SIGINT, Int32(130), false), (SIGTERM, 143, true), (SIGHUP, 129, true)] {
            if previous {
                try complete.write(to: target)
                chmod(target.path, 0o600)
            } else {
                try? FileManager.default.removeItem(at: target)
            }
            var interrupted = false
            // The export may, rarely, finish between the temporary file appearing and the signal: then try again.
            for _ in 0..<5 where !interrupted {
                let process = try t.start(["export", "--format", "gpx", "--out", target.path])
                let deadline = Date().addingTimeInterval(60)
                while process.isRunning && Self.hidden(in: out.path).isEmpty && Date() < deadline { usleep(500) }
                process.send(signal)
                let ended = process.wait()
                #expect(ended.reason == .exit, "signal \(signal): exits, not killed")
                interrupted = ended.status == status
                if !interrupted {
                    #expect(ended.status == 0, "signal \(signal): status \(ended.status)")
                }
                #expect(Self.hidden(in: out.path) == [], "signal \(signal): no temporary file is left")
            }
            #expect(interrupted, "signal \(signal) never arrived while the export was being written")
            // Absent or complete: a complete export made now is byte for byte the reference (the clock is fixed).
            if let now = FileManager.default.contents(atPath: target.path) {
                #expect(now == complete, "signal \(signal): the destination is a complete export")
            } else {
                #expect(!previous, "signal \(signal): the previous export is still there")
            }
            if previous {
                #expect(Self.status(target.path).map { $0.st_mode & 0o7777 } == 0o600)
            }
        }
    }
}
