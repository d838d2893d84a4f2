import Foundation
import Testing
import TreesTestSupport

/// End-to-end: `trees replay` on real files, exact output and exit status.
@Suite struct ReplayCommandTests {
    static func line(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + "*" + String(format: "%02X", sum) + "\r\n"
    }

    /// Two fixes, a line with a bad checksum, a proprietary sentence and an epoch without a fix.
    static let track = line("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
        + line("GPGST,101500.00,1.2,2.0,1.0,45.0,1.5,1.1,2.4")
        + line("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,2.0,84.4,150325,,,A")
        + "$GPGGA,101501.00,4807.0390,N,01131.3250,E,1,08,0.9,545.6,M,46.9,M,,*00\r\n"
        + line("PGRME,15.0,M,45.0,M,25.0,M")
        + line("GPGGA,101501.00,4807.0390,N,01131.3250,E,1,08,0.9,545.6,M,46.9,M,,")
        + line("GPRMC,101501.00,A,4807.0390,N,01131.3250,E,2.1,84.0,150325,,,A")
        + line("GPGGA,101502.00,,,,,0,00,99.9,,M,,M,,")

    func write(_ t: TreesProcess, _ text: String, name: String = "track.nmea") throws -> String {
        let path = t.folder.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func printsOneLinePerFixAndASummary() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let path = try write(t, Self.track)
        let r = try t.run(["replay", path, "--verbose"])
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == """
            2025-03-15 10:15:00Z  3D   48.1173000   11.5220667  Excellent 3.2 m (gst)  8 sats
            2025-03-15 10:15:01Z  3D   48.1173167   11.5220833  Marginal 17.1 m (dop)  8 sats
            2025-03-15 10:15:02Z  No fix  0 sats

            """)
        #expect(r.stderr == """
            3 epochs, 2 fixes (2 3D, 0 2D), 1 without a fix, 2025-03-15 10:15:00Z to 2025-03-15 10:15:02Z (2 s)
            8 lines, 7 sentences with a good checksum, 1 skipped: 1 bad checksum
              line 4: bad checksum: expected 67, found 00: $GPGGA,101501.00,4807.0390,N,01131.3250,…

            """)
    }

    @Test func jsonLinesCarryGpsdKeys() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["replay", try write(t, Self.track), "--jsonl"])
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == #"{"class":"TPV","time":"2025-03-15T10:15:00.000Z","mode":3,"status":1,"lat":48.1173,"lon":11.522066666666667,"altMSL":545.4,"altHAE":592.3,"geoidSep":46.9,"eph":17.1,"speed":1.028888888888889,"track":84.4,"hdop":0.9,"satellites":8,"horizontalAccuracy":3.2195082957645567,"accuracySource":"gst","verticalAccuracy":4.70391356289613,"verticalAccuracySource":"gst"}"#)
        #expect(lines[2] == #"{"class":"TPV","time":"2025-03-15T10:15:02.000Z","mode":1,"satellites":0}"#)
    }

    @Test func anHDOPWorkedOutFromTheSkyIsSaidInTheLinesAndNamedInJSON() throws {
        // RMC starts each cycle without DOPs and the GSV set comes before any: gpsd works the DOPs
        // out from the five used satellites' directions (HDOP 1.764, so eph 33.5 m), and reports
        // them with the second cycle (gpsd 3.27: eph 33.520 at 10:15:01).
        var log = Self.line("GPGSA,A,3,05,12,18,24,29,,,,,,,,2.0,1.1,1.7")
        for second in 0..<2 {
            log += Self.line("GPRMC,10150\(second).00,A,4807.0380,N,01131.3240,E,0.0,0.0,150325,,,A")
                + Self.line("GPGSV,2,1,06,05,40,045,40,12,60,150,42,18,25,220,38,24,10,300,35")
                + Self.line("GPGSV,2,2,06,29,75,010,44,31,30,090,")
        }
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let path = try write(t, log, name: "sky.nmea")
        let lines = try t.run(["replay", path])
        #expect(lines.status == 0, "\(lines)")
        #expect(lines.stdout.contains("2025-03-15 10:15:01Z  3D   48.1173000   11.5220667  Poor 33.5 m (dop, from satellite geometry)  5 sats\n"), "\(lines.stdout)")
        let json = try t.run(["replay", path, "--jsonl"]).stdout.split(separator: "\n")
        let second = try #require(json.last { $0.contains(#""time":"2025-03-15T10:15:01.000Z""#) })
        #expect(second.contains(#""eph":33.52032"#), "\(second)")
        #expect(second.contains(#""derived":["dop"]"#), "\(second)")
    }

    @Test func jsonLinesTimeAnOldUndatedLogAsGpsdButLinesKeepTheReceiversDate() throws {
        // A receiver time before 2017 with no `# Date:` line: gpsd takes it for a GPS week
        // rollover and adds 1024 weeks; the human lines keep the date the receiver sent.
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let old = Self.line("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,2.0,84.4,150315,,,A")
        let path = try write(t, old)
        let json = try t.run(["replay", path, "--jsonl"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.hasPrefix(#"{"class":"TPV","time":"2034-10-29T10:15:00.000Z","mode":2,"#), "\(json.stdout)")
        let lines = try t.run(["replay", path])
        #expect(lines.stdout.hasPrefix("2015-03-15 10:15:00Z  2D"), "\(lines.stdout)")
        let dated = try t.run(["replay", try write(t, "# Date: 2015-03-15\n" + old, name: "dated.nmea"), "--jsonl"])
        #expect(dated.stdout.hasPrefix(#"{"class":"TPV","time":"2015-03-15T10:15:00.000Z""#), "\(dated.stdout)")
    }

    @Test(.enabled(if: Tool.xmllint.shouldRun)) func gpxIsValidGPX11() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let sample = Repository.path("SampleTracks/signal-loss.nmea")
        let r = try t.run(["replay", sample, "--gpx"])
        #expect(r.status == 0)
        let gpx = t.folder.appendingPathComponent("out.gpx")
        try r.stdout.write(to: gpx, atomically: true, encoding: .utf8)
        #expect(r.stdout.components(separatedBy: "<trkseg>").count == 3, "a new segment after the loss of fix")
        #expect(r.stdout.components(separatedBy: "<trkpt ").count - 1 == 255)
        let lint = try Program.run("/usr/bin/xmllint", ["--noout", "--schema", Corpus.path("schema/gpx11.xsd"), gpx.path])
        #expect(lint.status == 0)
    }

    @Test func errorsAreOneLineWithAStatus() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let missing = try t.run(["replay", "/nonexistent/track.nmea"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "trees: cannot open /nonexistent/track.nmea: No such file or directory\n")
        #expect(missing.stdout == "")
        let text = try write(t, "hello\nworld\n", name: "notes.txt")
        let none = try t.run(["replay", text])
        #expect(none.status == 65)
        #expect(none.stderr == "trees: no NMEA sentences found in \(text)\n")
        let both = try t.run(["replay", text, "--jsonl", "--gpx"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--jsonl and --gpx cannot be used together"))
        let speed = try t.run(["replay", text, "--speed", "fast"])
        #expect(speed.status == 64)
        let folder = try t.run(["replay", t.folder.path])
        #expect(folder.status == 66)
        #expect(folder.stderr == "trees: cannot open \(t.folder.path): it is a folder; give an NMEA track file\n")
        let capture = try t.run(["capture", "--source", "replay:\(t.folder.path)", "--auto", "--species", "Apple"])
        #expect(capture.status == 66)
        #expect(capture.stderr == folder.stderr)
    }

    /// `-` reads the track from standard input; an empty one is malformed input (65), for replay
    /// and gps alike.
    @Test func standardInputIsATrackAndAnEmptyOneIsRefused() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let track = Repository.path("SampleTracks/signal-loss.nmea")
        let piped = try t.run(["replay", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: track)))
        #expect(piped.status == 0)
        #expect(piped.stdout == (try t.run(["replay", track])).stdout)
        let message = "trees: no NMEA sentences found on standard input; pipe a receiver's output or a recorded track into it\n"
        let replay = try t.run(["replay", "-"], stdin: Data())
        #expect(replay.status == 65, "\(replay)")
        #expect(replay.stderr == message)
        let gps = try t.run(["gps", "--source", "-"], stdin: Data())
        #expect(gps.status == 65, "\(gps)")
        #expect(gps.stderr.hasSuffix(message), "\(gps.stderr)")
    }
}
