import Foundation
import Testing
import TreesTestSupport
@testable import TreesWorkflows

/// The file an output file is renamed over: held across the rename only when the rename would free
/// it (a regular file of 1 MiB or more with no other name), and let go of afterwards.
@Suite struct ReplacedFileTests {
    static func write(_ path: String, bytes: Int, byte: UInt8) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: byte, count: bytes)))
    }

    /// The folder's path as the kernel names it (symbolic links resolved), as `/proc/self/fd` shows it.
    static func canonical(_ folder: TemporaryFolder) -> String {
        guard let resolved = realpath(folder.path, nil) else { return folder.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The descriptors of this process that name `path` after it lost its name (`… (deleted)`).
    static func descriptorsOfDeleted(_ path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) == path + " (deleted)"
        }.count
    }

    @Test func aLargeFileIsHeldAcrossTheRenameAndLetGoAfterwards() throws {
        let folder = try TemporaryFolder("replaced")
        let base = Self.canonical(folder)
        let target = base + "/trees.kml", next = base + "/.trees.kml.tmp"
        Self.write(target, bytes: ReplacedFile.threshold, byte: 0x61)
        Self.write(next, bytes: 10, byte: 0x62)
        let held = try #require(ReplacedFile(target))
        #expect(rename(next, target) == 0)
        // The old file has no name now, and this process still holds it.
        #expect(Self.descriptorsOfDeleted(target) == 1)
        held.releaseElsewhere()
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.descriptorsOfDeleted(target) > 0 && ContinuousClock.now < deadline { usleep(1000) }
        #expect(Self.descriptorsOfDeleted(target) == 0, "the thread closed it")
        #expect(FileManager.default.contents(atPath: target) == Data(repeating: 0x62, count: 10))
    }

    @Test func aFailedRenameReleasesTheFileWhereItIs() throws {
        let folder = try TemporaryFolder("replaced")
        let target = Self.canonical(folder) + "/trees.kml"
        Self.write(target, bytes: ReplacedFile.threshold + 1, byte: 0x61)
        let held = try #require(ReplacedFile(target))
        #expect(rename(folder.path + "/missing", target) != 0)
        held.release()
        #expect(FileManager.default.contents(atPath: target)?.count == ReplacedFile.threshold + 1)
        #expect(Self.descriptorsOfDeleted(target) == 0)
    }

    /// Nothing to hold: a small file, one with another name (the rename frees nothing), a symbolic
    /// link (renaming over the link frees only the link), a pipe (opened without blocking), a
    /// folder, nothing at all.
    @Test func filesTheRenameDoesNotFreeAreNotHeld() throws {
        let folder = try TemporaryFolder("replaced")
        let small = folder.path + "/small.kml"
        Self.write(small, bytes: ReplacedFile.threshold - 1, byte: 0x61)
        #expect(ReplacedFile(small) == nil)

        let linked = folder.path + "/linked.kml"
        Self.write(linked, bytes: ReplacedFile.threshold, byte: 0x61)
        #expect(link(linked, folder.path + "/other-name.kml") == 0)
        #expect(ReplacedFile(linked) == nil)

        let large = folder.path + "/large.kml"
        Self.write(large, bytes: ReplacedFile.threshold, byte: 0x61)
        #expect(symlink(large, folder.path + "/link.kml") == 0)
        #expect(ReplacedFile(folder.path + "/link.kml") == nil)

        #expect(mkfifo(folder.path + "/pipe", 0o644) == 0)
        #expect(ReplacedFile(folder.path + "/pipe") == nil)
        #expect(ReplacedFile(folder.path) == nil)
        #expect(ReplacedFile(folder.path + "/none.kml") == nil)
    }
}
