import Foundation
import Testing
import TreesTestSupport
@testable import TreesWorkflows

/// What the signal handler removes (it calls `removeArmedFiles`, then exits): the armed file and
/// its companions, nothing else, and nothing once disarmed.
@Suite(.serialized) struct InterruptCleanupTests {
    @Test func theArmedFileAndItsCompanionsGoAndNothingElse() throws {
        let folder = try TemporaryFolder("interrupt")
        let unseen = folder.path + "/.trees.sqlite.new-123-abc"
        let files = [unseen, unseen + "-wal", unseen + "-shm", unseen + "-journal", folder.path + "/trees.sqlite"]
        for f in files { #expect(FileManager.default.createFile(atPath: f, contents: Data("x".utf8))) }

        InterruptCleanup.arm(unseen, companions: ["-wal", "-shm"])
        InterruptCleanup.removeArmedFiles()
        InterruptCleanup.disarm()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == [".trees.sqlite.new-123-abc-journal", "trees.sqlite"])

        // Disarmed, it removes nothing.
        for f in files { #expect(FileManager.default.createFile(atPath: f, contents: Data("x".utf8))) }
        InterruptCleanup.removeArmedFiles()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 5)

        // Armed for an output file alone, its companions' names are left alone.
        InterruptCleanup.arm(unseen)
        InterruptCleanup.removeArmedFiles()
        InterruptCleanup.disarm()
        #expect(!FileManager.default.fileExists(atPath: unseen))
        #expect(FileManager.default.fileExists(atPath: unseen + "-wal"))
    }
}
