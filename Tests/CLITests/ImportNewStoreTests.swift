import Foundation
import Testing
import TreesTestSupport

/// `trees import` into a store that does not exist yet: the store is built beside its path under a
/// name of its own and put in place when the import ends, so an interrupted import leaves nothing.
@Suite struct ImportNewStoreTests {
    /// The names in `folder`, sorted.
    static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// True when process `pid` has a handler of its own for `signal` (the kernel's mask of caught signals).
    static func catches(_ signal: Int32, pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
              let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    /// The start of a GPX file of 2,000 waypoints (about 300 kB: more than the first read takes), its
    /// end not yet written.
    static let openGPX: Data = {
        var gpx = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        let desc = String(repeating: "row 4, pruned in March; ", count: 5)
        for i in 0..<2000 {
            gpx += "<wpt lat=\"47.\(String(format: "%05d", i))\" lon=\"8.\(String(format: "%05d", i * 3))\"><name>Apple</name><desc>\(desc)\(i)</desc></wpt>\n"
        }
        return Data(gpx.utf8)
    }()

    /// SIGINT while an import from standard input fills a new store: exit 130, and neither the store
    /// nor the file it was being built in is left, nor the folders made for it (`inNewFolders`:
    /// the store's path is two folders that did not exist; the folder above them stays). The same
    /// import completed puts the store in place.
    ///
    /// A signal in the instant between the file's making and the arming of its removal kills the
    /// process with the file left; the next store made in the folder removes it
    /// (`StoreCreationTests.filesOfAbandonedUnseenStoresAreRemoved`).
    @Test(arguments: [false, true])
    func anInterruptedImportIntoANewStoreLeavesNoFile(inNewFolders: Bool) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let top = t.folder.appendingPathComponent("store").path
        try FileManager.default.createDirectory(atPath: top, withIntermediateDirectories: true)
        let folder = inNewFolders ? top + "/field/2026" : top
        let db = folder + "/trees.sqlite"

        var interrupted = false
        // The signal may, rarely, come between the unseen file appearing and the process arming its
        // removal: the process then dies of it, and its file is removed when a store is next made here.
        for _ in 0..<5 where !interrupted {
            let process = Process()
            process.executableURL = TreesProcess.executable
            process.arguments = ["import", "-", "--format", "gpx", "--db", db]
            process.environment = t.environment
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Self.openGPX)
            // This process's file (one a process killed before it armed the removal left stays
            // until a store is next made here, and must not be taken for it), once the process
            // catches SIGINT: it arms the removal just after the store is made.
            let pid = process.processIdentifier
            let unseen = ".trees.sqlite.new-\(pid)-"
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline
                && !(Self.names(in: folder).contains { $0.hasPrefix(unseen) } && Self.catches(SIGINT, pid: pid)) {
                usleep(1000)
            }
            #expect(!FileManager.default.fileExists(atPath: db), "nothing is at the store's path while it is filled")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            try? input.fileHandleForWriting.close()
            interrupted = process.terminationReason == .exit && process.terminationStatus == 130
            if interrupted {
                #expect(!Self.names(in: folder).contains { $0.hasPrefix(unseen) })
                if inNewFolders { #expect(Self.names(in: top).isEmpty, "\(Self.names(in: top))") }
            }
        }
        #expect(interrupted, "SIGINT never arrived while the store was filled")

        var complete = Self.openGPX
        complete.append(Data("</gpx>\n".utf8))
        let imported = try t.run(["import", "-", "--format", "gpx", "--db", db], stdin: complete)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stdout.hasPrefix("Imported 2000 trees"), "\(imported.stdout)")
        #expect(Self.names(in: folder).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == ["trees.sqlite"])
    }
}
