import Foundation
import Testing
import TreesTestSupport

@Suite(.serialized) struct GPSCommandTests {
    static let fixture = GPSFake.fixture("orchard-gst.nmea")

    func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    func object(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func unreachableGPSDSaysWhatToDoAndExits69() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let port = GPSFake.freePort()
        let r = try trees.run(["gps", "--source", "gpsd://127.0.0.1:\(port)"])
        #expect(r.status == 69)
        #expect(r.stdout == "")
        #expect(r.stderr == "trees: cannot connect to gpsd at 127.0.0.1:\(port): Connection refused. Is gpsd running? "
            + "Check with `systemctl status gpsd`, wait for it with --wait, or pick another source with --source "
            + "(serial:/dev/ttyACM0, replay:FILE, - for NMEA on stdin).\n")
    }

    @Test func badSourcesAndOptionsAreUsageErrors() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let r = try trees.run(["gps", "--source", "/dev/ttyACM0"])
        #expect(r.status == 64)
        #expect(r.stderr == "trees: invalid source '/dev/ttyACM0': a device needs the serial: prefix (serial:/dev/ttyACM0) or gpsd. "
            + "Expected gpsd://HOST[:PORT][/DEVICE], serial:/dev/PATH[?baud=N], replay:FILE[?speed=N|max] or - for NMEA on standard input.\n")
        let c = try trees.run(["gps", "--count", "0"])
        #expect(c.status == 64)
        #expect(c.stderr.contains("--count must be a positive number of fixes"))
        let d = try trees.run(["gps", "--source", "replay:\(Repository.path("SampleTracks/orchard-walk.nmea"))", "--duration", "1e30"])
        #expect(d.status == 64, "\(d)")
        #expect(d.stderr.hasPrefix("trees: --duration must be a positive number of seconds, at most 31536000 (a year)\n"))
        let s = try trees.run(["gps", "--source", "serial:/nonexistent/ttyACM0"])
        #expect(s.status == 69)
        #expect(s.stderr.hasPrefix("trees: cannot use serial device /nonexistent/ttyACM0: No such file or directory."))
    }

    @Test func waitingForGPSDReportsEachAttemptUntilTheDurationEnds() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let port = GPSFake.freePort()
        let r = try trees.run(["gps", "--source", "gpsd://127.0.0.1:\(port)", "--wait", "--duration", "1.5", "--jsonl"])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(lines(r.stdout) == [
            #"{"class":"STATUS","event":"reconnecting","attempt":1,"delay":1}"#,
            #"{"class":"STATUS","event":"reconnecting","attempt":2,"delay":2}"#,
        ])
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func fiveFixesFromGPSDAsJSONLines() throws {
        _ = try Tool.gpsfake.require()
        let fake = try GPSFake(log: Self.fixture)
        defer { fake.stop() }
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let r = try trees.run(["gps", "--source", "gpsd://127.0.0.1:\(fake.port)", "--count", "5", "--jsonl"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr == "")
        let objects = try lines(r.stdout).map(object)
        let tpv = objects.filter { $0["class"] as? String == "TPV" }
        #expect(tpv.count == 5)
        for fix in tpv {
            #expect(fix["lat"] is Double && fix["lon"] is Double && fix["time"] is String)
            #expect((fix["horizontalAccuracy"] as? Double ?? 0) > 0)
            #expect(fix["accuracySource"] as? String == "gst")
        }
        let status = objects.filter { $0["class"] as? String == "STATUS" }
        #expect(status.first?["event"] as? String == "connected")
        #expect(status.first?["version"] as? String == "3.22")
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func statusPrintsVersionAndDevices() throws {
        _ = try Tool.gpsfake.require()
        let fake = try GPSFake(log: Self.fixture)
        defer { fake.stop() }
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        // gpsfake feeds its log once a client connects, and gpsd lists the device once it has read
        // a sentence and named its driver: ask again until it has (a busy machine can take a while).
        let deadline = Date().addingTimeInterval(120)
        var r = try trees.run(["gps", "--source", "gpsd://127.0.0.1:\(fake.port)", "--status"])
        while r.status == 0, !r.stdout.contains("  NMEA0183"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.2)
            r = try trees.run(["gps", "--source", "gpsd://127.0.0.1:\(fake.port)", "--status"])
        }
        #expect(r.status == 0, "\(r)")
        let out = lines(r.stdout)
        #expect(out.first == "gpsd 3.22 at gpsd://127.0.0.1:\(fake.port)")
        #expect(out.count == 2 && out.last?.hasPrefix("  /dev/pts/") == true && out.last?.hasSuffix("  NMEA0183") == true, "\(r)")
    }

    /// A log that starts over (its times step back) gives every fix of both rounds, as replay does.
    @Test func stdinWhoseTimesStepBackGoesOn() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let track = try Data(contentsOf: URL(fileURLWithPath: Repository.path("SampleTracks/orchard-walk.nmea")))
        let r = try trees.run(["gps", "--source", "-"], stdin: track + track)
        #expect(r.status == 0, "\(r)")
        #expect(lines(r.stdout).count == 2 * 335)
    }

    /// gpsd running without a receiver: gps says so and waits until its --duration, capture says
    /// so and ends at its --timeout with status 3.
    @Test(.enabled(if: Tool.gpsd.shouldRun), .tags(.gpsd)) func gpsdWithoutAReceiverSaysSoAndWaits() throws {
        let gpsd = try Tool.gpsd.require()
        let folder = try TemporaryFolder("gpsd-empty")
        let port = GPSFake.freePort()
        let daemon = try Program.start(gpsd, ["-N", "-S", String(port), "-F", folder.path("control")])
        defer { if daemon.isRunning { daemon.send(SIGKILL) }; _ = daemon.wait() }
        let deadline = Date().addingTimeInterval(120)
        while !Loopback.accepts(port: port) && daemon.isRunning && Date() < deadline { usleep(20_000) }
        try #require(Loopback.accepts(port: port), "gpsd did not open port \(port)")
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let warning = "gpsd at 127.0.0.1:\(port) has no receiver: plug one in, or check the device gpsd is started with "
            + "(DEVICES in /etc/default/gpsd); waiting for one"
        let r = try trees.run(["gps", "--source", "gpsd://127.0.0.1:\(port)", "--duration", "2"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "")
        #expect(r.stderr == "trees: connected to gpsd 3.22\ntrees: \(warning)\n")
        let c = try trees.run(["capture", "--source", "gpsd://127.0.0.1:\(port)", "--auto", "--species", "Apple", "--timeout", "2"])
        #expect(c.status == 3, "\(c)")
        #expect(c.stderr == "trees: \(warning)\ntrees: no fix from gpsd://127.0.0.1:\(port): gpsd has no receiver; nothing saved. "
            + "Plug the receiver in, or check the device gpsd is started with\n")
    }

    @Test func stdinGivesWhatReplayGives() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let track = Repository.path("SampleTracks/signal-loss.nmea")
        let data = try Data(contentsOf: URL(fileURLWithPath: track))
        let replayed = try trees.run(["replay", track, "--jsonl"])
        let live = try trees.run(["gps", "--source", "-", "--jsonl"], stdin: data)
        #expect(live.status == 0)
        let liveLines = lines(live.stdout)
        #expect(liveLines.filter { $0.hasPrefix(#"{"class":"TPV""#) } == lines(replayed.stdout))
        #expect(liveLines.first == #"{"class":"STATUS","event":"connected","devices":[{"path":"-","driver":"NMEA0183","subtype":"standard input"}]}"#)
        #expect(liveLines.contains(#"{"class":"STATUS","event":"fixLost"}"#))

        let text = try trees.run(["gps", "--source", "-"], stdin: data)
        #expect(text.stdout == (try trees.run(["replay", track])).stdout, "one line per fix, as replay prints them")
        #expect(text.stderr.hasPrefix("trees: connected; - NMEA0183 standard input\n"))
    }

    @Test func interruptExitsCleanlyWithStatusZero() throws {
        let process = Process()
        process.executableURL = TreesProcess.executable
        process.arguments = ["gps", "--source", "-", "--jsonl"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let head = try String(contentsOfFile: Self.fixture, encoding: .utf8).split(separator: "\n").prefix(24).joined(separator: "\n") + "\n"
        input.fileHandleForWriting.write(Data(head.utf8))
        // Wait for the first fix, then interrupt while stdin is still open.
        var seen = Data()
        let deadline = Date().addingTimeInterval(120)
        while !String(decoding: seen, as: UTF8.self).contains(#""class":"TPV""#) && Date() < deadline {
            seen.append(output.fileHandleForReading.availableData)
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        try? input.fileHandleForWriting.close()
    }
}
