import Foundation
import Testing
import TreesTestSupport

/// The interactive capture, driven in a real pseudo-terminal through tmux.
@Suite(.enabled(if: Tool.sqlite3.shouldRun && Tool.tmux.shouldRun), .serialized, .tags(.terminal)) struct InteractiveCaptureTests {
    static let track = Repository.path("SampleTracks/cold-start.nmea")

    func start(_ t: TreesProcess, extra: String = "") throws -> TmuxSession {
        var env = t.environment
        env.removeValue(forKey: "NO_COLOR")
        env["TERM"] = "xterm-256color"
        let command = "\(TmuxSession.quote(TreesProcess.executable.path)) capture --source 'replay:\(Self.track)?speed=20' \(extra)"
        return try TmuxSession(command: command, environment: env)
    }

    @Test func enterBeforeTheGateOpensDoesNothingThenACaptureIsSaved() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tmux = try start(t)
        try tmux.waitFor("Searching — no fix yet")
        try tmux.send("Enter")
        try tmux.waitFor("Not yet: no fix yet.")
        #expect(!(try tmux.screen().contains("Species")))
        try tmux.waitFor("Good — press Enter to capture", timeout: 120)
        try tmux.send("Enter")
        try tmux.waitFor("Species (number or name)")
        try tmux.type("Apple"); try tmux.send("Enter")
        try tmux.waitFor("Variety:")
        try tmux.type("Gala"); try tmux.send("Enter")
        try tmux.waitFor("Rootstock:")
        try tmux.type("M9"); try tmux.send("Enter")
        try tmux.waitFor("Notes:")
        try tmux.send("Enter")
        try tmux.waitFor("Collection")
        try tmux.type("Row 3"); try tmux.send("Enter")
        try tmux.waitFor("Photos")
        try tmux.send("Enter")
        let summary = try tmux.waitFor("[S]ave, [R]e-capture or [D]iscard?")
        #expect(summary.contains("species     Apple"))
        #expect(summary.contains("collection  Row 3"))
        try tmux.send("Enter")
        try tmux.waitFor("Log care?")
        try tmux.send("Enter")
        try tmux.waitFor("Next tree in 'Row 3'?")
        try tmux.type("q"); try tmux.send("Enter")
        let end = try tmux.waitFor("[exit ")
        #expect(end.contains("1 tree saved."))
        #expect(end.contains("[exit 0]"))
        let list = try t.run(["list", "--json"])
        let trees = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        #expect(trees.count == 1)
        #expect(trees.first?["species"] as? String == "Apple")
        #expect(trees.first?["rootstock"] as? String == "M9")
        #expect(trees.first?["collection"] as? String == "Row 3")
        #expect((trees.first?["horizontalAccuracy"] as? Double ?? 99) < 10)
    }

    /// After a save the prompt offers to log care: a kind and notes become an event of that tree, done now.
    @Test func aCareEventIsLoggedAfterTheSave() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tmux = try start(t, extra: "--species Plum --collection none")
        try tmux.waitFor("Good — press Enter to capture", timeout: 120)
        try tmux.send("Enter")
        try tmux.waitFor("Variety:")
        try tmux.send("Enter")
        try tmux.waitFor("Rootstock:")
        try tmux.send("Enter")
        try tmux.waitFor("Notes:")
        try tmux.send("Enter")
        try tmux.waitFor("Photos")
        try tmux.send("Enter")
        try tmux.waitFor("[S]ave, [R]e-capture or [D]iscard?")
        try tmux.send("Enter")
        try tmux.waitFor("Log care?")
        try tmux.type("Plant"); try tmux.send("Enter")
        try tmux.waitFor("Care notes:")
        try tmux.type("bare root, staked"); try tmux.send("Enter")
        let logged = try tmux.waitFor("Next tree?")
        #expect(logged.contains("Logged plant ("))
        try tmux.type("q"); try tmux.send("Enter")
        #expect(try tmux.waitFor("[exit ").contains("[exit 0]"))
        let list = try t.run(["care", "list", "--json"])
        let events = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(try t.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(events.count == 1)
        #expect(events.first?["kind"] as? String == "plant")
        #expect(events.first?["notes"] as? String == "bare root, staked")
        #expect(events.first?["date"] as? String == "2026-05-01T10:00:00.000Z")
        #expect((events.first?["treeId"] as? String)?.uppercased() == (tree.first?["id"] as? String)?.uppercased())
    }

    @Test func ctrlCMidPromptLeavesTheStoreUnchangedAndTheTerminalRestored() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "Row 3"]).status == 0)
        let before = try t.dump()
        let tmux = try start(t, extra: "--require 50 --encourage 50")
        try tmux.waitFor("Good — press Enter to capture", timeout: 120)
        try tmux.send("Enter")
        try tmux.waitFor("Species (number or name)")
        try tmux.type("Pear"); try tmux.send("Enter")
        try tmux.waitFor("Variety:")
        try tmux.send("C-c")
        let end = try tmux.waitFor("[exit ")
        #expect(end.contains("[exit 130] tty: icanon echo"))
        #expect(try t.dump() == before)
    }

    @Test func quitWithQBeforeFreezing() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tmux = try start(t)
        try tmux.waitFor("Searching")
        try tmux.type("q")
        let end = try tmux.waitFor("[exit ")
        #expect(end.contains("0 trees saved."))
        #expect(end.contains("[exit 0] tty: icanon echo"))
    }
}
