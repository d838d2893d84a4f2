import Foundation
import Testing
import TreesTestSupport

@Suite(.serialized) struct NTRIPCommandTests {
    static let password = "orchard-secret-7"

    @Test(.enabled(if: Tool.str2str.shouldRun), .tags(.gpsd)) func listShowsTheMountsOfStr2StrsSourceTable() throws {
        _ = try Tool.str2str.require()
        let caster = Str2StrCaster(password: Self.password)
        try caster.start()
        defer { caster.stop() }
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let r = try trees.run(["ntrip", "list", "ntrip://127.0.0.1:\(caster.casterPort)"])
        #expect(r.status == 0)
        #expect(r.stderr == "")
        #expect(r.stdout == """
            MOUNT  IDENTIFIER  FORMAT    CARRIER  NAV SYSTEM  COUNTRY  LAT    LON      NMEA  AUTH
            ORGN   Bend ORGN   RTCM 3.1  L1+L2    GPS+GLO     USA      44.06  -121.31  yes   Basic

            """)
        let j = try trees.run(["ntrip", "list", "ntrip://trees@127.0.0.1:\(caster.casterPort)?version=1", "--json"],
                              environment: ["NTRIP_PASSWORD": Self.password])
        #expect(j.status == 0)
        let streams = try #require(JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [[String: Any]])
        #expect(streams.count == 1)
        let s = try #require(streams.first)
        #expect(s["mount"] as? String == "ORGN")
        #expect(s["formatDetails"] as? String == "1004(1),1006(10),1008(10),1012(1)")
        #expect(s["carrier"] as? Int == 2)
        #expect(s["latitude"] as? Double == 44.06 && s["longitude"] as? Double == -121.31)
        #expect(s["nmea"] as? Bool == true && s["authentication"] as? String == "B" && s["bitrate"] as? Int == 9600)
        #expect(!j.stdout.contains(Self.password) && !j.stderr.contains(Self.password))
    }

    @Test func malformedLinesOfASourceTableAreSkippedWithAWarning() throws {
        let caster = try CannedCaster(answering: """
            SOURCETABLE 200 OK\r
            Content-Type: text/plain\r
            \r
            STR;NZ01;Christchurch;RTCM 3.2;1004(1);2;GPS;NET;NZL;-43.50;172.60;0;0;sNTRIP;none;N;N;2400;\r
            STR;broken\r
            what is this\r
            ENDSOURCETABLE\r

            """)
        defer { caster.stop() }
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let r = try trees.run(["ntrip", "list", "ntrip://127.0.0.1:\(caster.port)"])
        #expect(r.status == 0)
        #expect(r.stderr == "trees: warning: skipped 2 malformed lines of the source table (line 2, 3)\n")
        #expect(r.stdout.contains("NZ01   Christchurch  RTCM 3.2  L1+L2    GPS         NZL      -43.50  172.60  no    none"))
        #expect(caster.requests.first?.hasPrefix("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(caster.port)\r\nNtrip-Version: Ntrip/2.0\r\nUser-Agent: NTRIP trees/") == true)
    }

    @Test func listFailuresAreOneClearLine() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        let unauthorized = try CannedCaster(answering: "HTTP/1.1 401 Unauthorized\r\n\r\n")
        defer { unauthorized.stop() }
        let a = try trees.run(["ntrip", "list", "ntrip://trees@127.0.0.1:\(unauthorized.port)"], environment: ["NTRIP_PASSWORD": "wrong"])
        #expect(a.status == 1)
        #expect(a.stderr == "trees: the NTRIP caster 127.0.0.1:\(unauthorized.port) refused access (HTTP 401 Unauthorized): "
            + "check the user name 'trees' and the password in NTRIP_PASSWORD or NTRIP_PASSWORD_FILE.\n")
        let garbage = try CannedCaster(answering: "220 mail.example.org ESMTP ready\r\n")
        defer { garbage.stop() }
        let g = try trees.run(["ntrip", "list", "ntrip://127.0.0.1:\(garbage.port)"])
        #expect(g.status == 1)
        #expect(g.stderr == "trees: 127.0.0.1:\(garbage.port) did not answer as an NTRIP caster (it sent '220 mail.example.org ESMTP ready'); check the host and port.\n")
        let port = GPSFake.freePort()
        let refused = try trees.run(["ntrip", "list", "ntrip://127.0.0.1:\(port)"])
        #expect(refused.status == 69)
        #expect(refused.stderr == "trees: cannot connect to the NTRIP caster 127.0.0.1:\(port): Connection refused. "
            + "Check the host and port (2101 unless given) and the network.\n")
        let missingFile = try trees.run(["ntrip", "list", "ntrip://trees@127.0.0.1:\(port)"],
                                        environment: ["NTRIP_PASSWORD_FILE": trees.scratch.path("no-such-file")])
        #expect(missingFile.status == 66)
        #expect(missingFile.stderr == "trees: cannot read the NTRIP password from \(trees.scratch.path("no-such-file")) (NTRIP_PASSWORD_FILE): No such file or directory.\n")
    }

    @Test func aPasswordInTheURLIsRefusedWithoutBeingShown() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        for arguments in [["ntrip", "list", "ntrip://me:\(Self.password)@127.0.0.1:2101"],
                          ["gps", "--source", "serial:/dev/ttyACM0", "--ntrip", "ntrip://me:\(Self.password)@127.0.0.1/ORGN"]] {
            let r = try trees.run(arguments)
            #expect(r.status == 64)
            #expect(r.stderr.hasPrefix("trees: invalid NTRIP caster 'ntrip://me:…@127.0.0.1"))
            #expect(r.stderr.contains("a password in the URL is refused"))
            #expect(!r.stderr.contains(Self.password) && !r.stdout.contains(Self.password))
        }
    }

    @Test func ntripIsRefusedWithGPSDWhichIsToldTheCasterItself() throws {
        let trees = try TreesProcess()
        defer { trees.cleanUp() }
        for command in [["gps"], ["capture", "--auto", "--species", "Malus domestica"]] {
            let r = try trees.run(command + ["--source", "gpsd://127.0.0.1:2947", "--ntrip", "ntrip://trees@caster.example.org/ORGN"])
            #expect(r.status == 64)
            #expect(r.stderr == "trees: --ntrip is for serial: sources; with gpsd, give gpsd the caster as a source of its own "
                + "(gpsd -n /dev/ttyACM0 ntrip://trees@caster.example.org:2101/ORGN) and it forwards the corrections to the receiver; "
                + "trees then shows the fix status and correction age\n")
        }
        let replay = try trees.run(["gps", "--source", "replay:x.nmea", "--ntrip", "ntrip://caster.example.org/ORGN"])
        #expect(replay.status == 64)
        #expect(replay.stderr == "trees: --ntrip is for serial: sources (a receiver trees can write corrections to), not replay:x.nmea\n")
    }

    /// `trees gps` with a serial receiver and a real caster: the corrections reach the receiver,
    /// the status shows them streaming, and the password is in neither `ps` nor the output.
    @Test(.enabled(if: Tool.str2str.shouldRun && Tool.socat.shouldRun), .tags(.gpsd))
    func gpsFeedsASerialReceiverWithoutShowingThePassword() throws {
        _ = try Tool.str2str.require()
        let rtcm = try RTCMLog.stream()
        let caster = Str2StrCaster(password: Self.password)
        try caster.start()
        defer { caster.stop() }
        let receiver = try SerialReceiver()
        defer { receiver.stop() }
        var trees = try TreesProcess()
        defer { trees.cleanUp() }
        trees.environment["NTRIP_PASSWORD"] = Self.password
        // Standard output goes to a file, read while trees runs.
        let outputPath = trees.scratch.path("gps.jsonl")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let running = try Program.start(TreesProcess.executable.path, [
            "gps", "--source", "serial:\(receiver.device)?baud=9600",
            "--ntrip", "ntrip://trees@127.0.0.1:\(caster.casterPort)/ORGN", "--jsonl", "--duration", "300",
        ], environment: trees.environment, standardOutput: output)
        func printed() -> String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
        let base = try BaseStation(port: caster.inputPort)
        let heard = base.waitFor("GGA")
        let commandLine = ProcFile.data("/proc/\(running.processIdentifier)/cmdline") ?? Data()
        if heard != nil { base.send(rtcm) }
        // The last status counts every byte: the one after the last piece, or the next once a second.
        let streamed = #""state":"streaming","bytes":\#(rtcm.count)}"#
        let deadline = ContinuousClock.now + .seconds(120)
        while !(receiver.received.count >= rtcm.count && printed().contains(streamed)) && ContinuousClock.now < deadline {
            usleep(50_000)
        }
        running.send(SIGINT)
        let r = running.wait()
        try output.close()
        let stdout = printed()
        #expect(heard != nil, "the receiver's GGA reached the caster")
        #expect(receiver.received == rtcm)
        #expect(!commandLine.isEmpty)
        #expect(!String(decoding: commandLine, as: UTF8.self).contains(Self.password))
        #expect(String(decoding: commandLine, as: UTF8.self).contains("ntrip://trees@127.0.0.1"))
        #expect(r.status == 0)
        #expect(stdout.contains(#"{"class":"STATUS","event":"corrections","caster":"127.0.0.1:\#(caster.casterPort)/ORGN","state":"connecting","bytes":0}"#))
        #expect(stdout.contains(streamed))
        #expect(!stdout.contains(Self.password) && !r.stderr.contains(Self.password))
    }
}
