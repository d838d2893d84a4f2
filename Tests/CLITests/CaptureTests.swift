import Foundation
import Testing
import TreesTestSupport

/// `trees capture` end to end: the built binary on the sample tracks.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct CaptureTests {
    static let tracks = Repository.url("SampleTracks")

    struct Expected: Sendable, CustomStringConvertible {
        var track: String
        var fixTime: String
        var latitude: Double
        var longitude: Double
        var accuracy: Double
        var source: String
        var description: String { track }
    }

    /// The values stated in SampleTracks/README.md.
    static let expected: [Expected] = [
        Expected(track: "orchard-walk.nmea", fixTime: "2025-04-12T09:13:15Z", latitude: 51.2795388, longitude: 0.5420172, accuracy: 9.98, source: "gst"),
        Expected(track: "cold-start.nmea", fixTime: "2025-04-12T08:57:16Z", latitude: 51.2797132, longitude: 0.5420790, accuracy: 9.84, source: "gst"),
        Expected(track: "signal-loss.nmea", fixTime: "2025-04-12T10:30:00Z", latitude: 51.2795053, longitude: 0.5422522, accuracy: 3.92, source: "gst"),
        Expected(track: "multi-gnss.nmea", fixTime: "2025-04-12T11:40:16Z", latitude: 51.2794790, longitude: 0.5425827, accuracy: 9.91, source: "gst"),
        // No GST: the DOP model never reaches the 10 m gate; at the end of the source the best fix under 20 m is taken.
        Expected(track: "no-gst.nmea", fixTime: "2025-04-12T11:08:20Z", latitude: 51.2797228, longitude: 0.5423458, accuracy: 15.2, source: "dop"),
    ]

    @Test(arguments: expected)
    func autoCaptureStoresTheFirstGoodFix(_ e: Expected) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/\(e.track)", "--speed", "max", "--auto",
                           "--species", "Apple", "--variety", "Gala", "--collection", "North Block", "--json"])
        let tree = try savedTree(r)
        #expect(abs((tree["latitude"] as? Double ?? 0) - e.latitude) < 1e-7)
        #expect(abs((tree["longitude"] as? Double ?? 0) - e.longitude) < 1e-7)
        #expect(abs((tree["horizontalAccuracy"] as? Double ?? 0) - e.accuracy) < 0.005)
        #expect(tree["accuracySource"] as? String == e.source)
        #expect(tree["collection"] as? String == "North Block")
        #expect(tree["species"] as? String == "Apple")
        #expect(tree["variety"] as? String == "Gala")
        let capture = try #require(tree["capture"] as? [String: Any])
        #expect(capture["fixTime"] as? String == e.fixTime)
        #expect(capture["fixMode"] as? String == "3d")
        #expect(capture["averagedEpochs"] as? Int == 1)
        #expect(capture["locationSource"] as? String == "replay:\(Self.tracks.path)/\(e.track)")
        #expect((capture["satellites"] as? Int ?? 0) > 3)
        #expect(capture["hdop"] is Double)
        let list = try t.run(["list", "--json"])
        #expect(list.stdout.components(separatedBy: "\"species\"").count == 2)
    }

    @Test func noFixExitsWithStatusThreeAndSavesNothing() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "North Block"]).status == 0)
        let before = try t.dump()
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/no-fix.nmea", "--speed", "max", "--auto",
                           "--species", "Apple", "--collection", "North Block", "--json"])
        #expect(r.status == 3)
        #expect(r.stdout == "")
        #expect(r.stderr == "trees: no fix under 20 m from replay:\(Self.tracks.path)/no-fix.nmea; nothing saved\n")
        #expect(try t.dump() == before)
    }

    /// `--require-fix rtk-fixed` waits through 20 s without corrections and 30 s of RTK float and
    /// saves the first RTK fixed epoch (13:00:50), 2 m of pole taken off both heights; the store
    /// remembers both settings for the next capture until `any` and `0` forget them.
    @Test func requiringRTKFixedWaitsThroughFloatAndTheSettingsAreRemembered() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let rtk = "replay:\(Self.tracks.path)/rtk-walk.nmea"
        func capture(_ source: String, _ extra: [String]) throws -> (TreesProcess.Result, [String: Any]) {
            let r = try t.run(["capture", "--source", source, "--speed", "max", "--auto", "--species", "Pear", "--allow-duplicate", "--json"] + extra)
            let tree = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]) ?? [:]
            return (r, tree)
        }
        let (r, tree) = try capture(rtk, ["--require-fix", "rtk-fixed", "--antenna-height", "2"])
        #expect(r.status == 0, "\(r)")
        let info = try #require(tree["capture"] as? [String: Any])
        #expect(info["fixTime"] as? String == "2025-04-12T13:00:50Z")
        // What the tree keeps of its fix: RTK fixed, corrections 0.9 s old, the height's 95% from GST, the pole.
        #expect(info["fixStatus"] as? String == "rtk-fixed")
        #expect(info["correctionAge"] as? Double == 0.9)
        #expect(info["verticalAccuracySource"] as? String == "gst")
        #expect(abs((info["verticalAccuracy"] as? Double ?? 0) - 0.041159243675341135) < 1e-12)
        #expect(info["antennaHeight"] as? Double == 2)
        #expect(abs((tree["latitude"] as? Double ?? 0) - 51.2795359) < 1e-7)
        #expect(abs((tree["longitude"] as? Double ?? 0) - 0.5424163) < 1e-7)
        #expect((tree["horizontalAccuracy"] as? Double ?? 1) < 0.1)
        // GGA at 13:00:50: altitude 44.077 m, geoid separation 47.3 m.
        #expect(abs((tree["altitude"] as? Double ?? 0) - 42.077) < 1e-9)
        #expect(abs((tree["ellipsoidHeight"] as? Double ?? 0) - 89.377) < 1e-9)

        // Remembered: the plain receiver of the orchard walk never meets it.
        let before = try t.dump()
        let (refused, _) = try capture("replay:\(Self.tracks.path)/orchard-walk.nmea", [])
        #expect(refused.status == 3)
        #expect(refused.stderr == "trees: no RTK fixed fix under 20 m from replay:\(Self.tracks.path)/orchard-walk.nmea (no fix had corrections); nothing saved\n")
        #expect(try t.dump() == before)

        // Remembered: the pole again; RTK float is enough when asked for.
        let (float, floatTree) = try capture(rtk, ["--require-fix", "rtk-float"])
        #expect(float.status == 0, "\(float)")
        #expect((floatTree["capture"] as? [String: Any])?["fixTime"] as? String == "2025-04-12T13:00:20Z")
        #expect(abs((floatTree["altitude"] as? Double ?? 0) - (44.0 - 2)) < 0.5)

        // Forgotten: the first good fix, without corrections, at its own height.
        let (plain, plainTree) = try capture(rtk, ["--require-fix", "any", "--antenna-height", "0"])
        #expect(plain.status == 0, "\(plain)")
        #expect((plainTree["capture"] as? [String: Any])?["fixTime"] as? String == "2025-04-12T13:00:00Z")
        #expect(abs((plainTree["altitude"] as? Double ?? 0) - 44.404) < 1e-9)
        let plainInfo = try #require(plainTree["capture"] as? [String: Any])
        #expect(plainInfo["fixStatus"] as? String == "gps" && plainInfo["correctionAge"] == nil && plainInfo["antennaHeight"] == nil)
        let (again, againTree) = try capture(rtk, [])
        #expect(again.status == 0)
        #expect((againTree["capture"] as? [String: Any])?["fixTime"] as? String == "2025-04-12T13:00:00Z")
    }

    @Test(arguments: [
        (["--antenna-height=-1"], "--antenna-height must be from 0 to 10 metres (the antenna's height above the ground), not -1"),
        (["--antenna-height", "12.5"], "--antenna-height must be from 0 to 10 metres (the antenna's height above the ground), not 12.5"),
        (["--antenna-height", "nan"], "--antenna-height must be from 0 to 10 metres (the antenna's height above the ground), not nan"),
        (["--require-fix", "rtk"], "--require-fix must be dgps, rtk-float, rtk-fixed or any, not 'rtk'"),
        (["--timeout", "1e30"], "--timeout must be a positive number of seconds, at most 31536000 (a year)"),
        (["--stale", "1e30"], "--stale must be a positive number of seconds, at most 31536000 (a year)"),
    ])
    func badSurveySettingsAreRefusedBeforeAnythingHappens(arguments: [String], message: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/rtk-walk.nmea", "--speed", "max", "--auto", "--species", "Pear"] + arguments)
        #expect(r.status == 64)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("trees: \(message)\n"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: t.database), "nothing was created")
    }

    @Test func stricterGateAndAveraging() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/orchard-walk.nmea?speed=max", "--auto",
                           "--species", "Apple", "--require", "8", "--encourage", "4", "--average", "5", "--json"])
        let tree = try savedTree(r)
        let capture = try #require(tree["capture"] as? [String: Any])
        #expect(capture["averagedEpochs"] as? Int == 5)
        #expect(tree["accuracySource"] as? String == "averaged")
        let accuracy = try #require(tree["horizontalAccuracy"] as? Double)
        #expect(accuracy < 8 && accuracy >= 3)
    }

    /// `--require` under the default --encourage of 10 m brings --encourage down with it: the
    /// capture waits for a fix under the required 8 m and saves it.
    @Test func encourageFollowsARequireUnderItsDefault() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/orchard-walk.nmea?speed=max", "--auto",
                           "--species", "Apple", "--require", "8", "--json"])
        let tree = try savedTree(r)
        let accuracy = try #require(tree["horizontalAccuracy"] as? Double)
        #expect(accuracy < 8)
        let loose = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/orchard-walk.nmea?speed=max", "--auto",
                               "--species", "Apple", "--require", "8", "--encourage", "9"])
        #expect(loose.status == 64)
        #expect(loose.stderr.hasPrefix("trees: --encourage must be positive and not above --require (8 m)\n"), "\(loose.stderr)")
    }

    /// no-gst.nmea never gets under the 10 m of a good fix: with --average the epochs that passed
    /// the gate last are averaged at the end of the source.
    @Test func averagingIsKeptWhenNoFixIsEverGood() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/no-gst.nmea?speed=max", "--auto",
                           "--species", "Apple", "--average", "5", "--json"])
        let tree = try savedTree(r)
        let capture = try #require(tree["capture"] as? [String: Any])
        #expect(capture["averagedEpochs"] as? Int == 5)
        #expect(tree["accuracySource"] as? String == "averaged")
        #expect((tree["horizontalAccuracy"] as? Double ?? 99) < 20)
    }

    /// A gate no fix passes: the message gives the best accuracy seen and the --require that
    /// would have taken it; at a timeout it also says to wait longer or move.
    @Test func aGateNeverPassedSaysTheBestAccuracySeen() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let track = "\(Self.tracks.path)/no-gst.nmea"
        let ended = try t.run(["capture", "--source", "replay:\(track)?speed=max", "--auto", "--species", "Apple", "--require", "5"])
        #expect(ended.status == 3, "\(ended)")
        #expect(ended.stderr == "trees: no fix under 5 m from replay:\(track) (the best was 15.2 m); nothing saved. "
            + "To take a fix that good, capture with --require 16\n")
        let timedOut = try t.run(["capture", "--source", "replay:\(track)?speed=1", "--auto", "--species", "Apple", "--require", "5",
                                  "--timeout", "1"])
        #expect(timedOut.status == 3, "\(timedOut)")
        #expect(timedOut.stderr.hasPrefix("trees: no fix under 5 m from replay:\(track) (the best was "), "\(timedOut.stderr)")
        #expect(timedOut.stderr.contains(" m); nothing saved. Give it longer with a larger --timeout, "
            + "move the receiver away from buildings and canopy, or take a fix that good with --require "), "\(timedOut.stderr)")
    }

    @Test func duplicatesAreRefusedUnlessAllowed() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let args = ["capture", "--source", "replay:\(Self.tracks.path)/orchard-walk.nmea", "--speed", "max", "--auto", "--species", "Apple"]
        let first = try t.run(args)
        #expect(first.status == 0, "\(first)")
        let before = try t.dump()
        let second = try t.run(args)
        #expect(second.status == 1)
        #expect(second.stderr.hasPrefix("trees: possible duplicate: tree "))
        #expect(second.stderr.hasSuffix("(Apple) lies 0.0 m away, within the 9.98 m accuracy; pass --allow-duplicate to save anyway\n")
                || second.stderr.contains("within the 10.0 m accuracy"))
        #expect(try t.dump() == before)
        // Another species at the same place is no duplicate; --allow-duplicate saves anyway.
        #expect(try t.run(args.dropLast() + ["Pear"]).status == 0)
        #expect(try t.run(args + ["--allow-duplicate"]).status == 0)
        #expect(try t.run(["list", "--json"]).stdout.components(separatedBy: "\"species\"").count == 4)
    }

    @Test func updateReplacesThePositionAndKeepsTheAttributes() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let id = try t.run(["add", "--lat", "51.3", "--lon", "0.5", "--species", "Quince", "--variety", "Vranja", "--accuracy", "30"])
            .stdout.trimmingCharacters(in: .newlines)
        let r = try t.run(["capture", "--update", id, "--source", "replay:\(Self.tracks.path)/multi-gnss.nmea", "--speed", "max",
                           "--auto", "--json"], environment: ["TREES_NOW": "2026-05-03T09:00:00.000Z"])
        let tree = try savedTree(r)
        #expect(tree["species"] as? String == "Quince")
        #expect(tree["variety"] as? String == "Vranja")
        #expect(abs((tree["latitude"] as? Double ?? 0) - 51.2794790) < 1e-7)
        #expect(tree["updatedAt"] as? String == "2026-05-03T09:00:00Z")
        #expect(tree["createdAt"] as? String == "2026-05-01T10:00:00Z")
        #expect(try t.dump().contains("re-captured"))
    }

    @Test(arguments: [
        (["--auto"], 64, "--auto needs --species (or --update ID); name what grows there, e.g. --species Apple"),
        (["--species", "Apple"], 64, "capture needs a terminal for its prompts; use --auto with --species to capture without one"),
        (["--auto", "--species", "Apple", "--update", "fffff"], 1, "no tree with id fffff; 'trees list' shows the ids"),
    ] as [([String], Int32, String)])
    func refusals(extra: [String], status: Int32, message: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["collection", "create", "North"]).status == 0)
        let r = try t.run(["capture", "--source", "replay:\(Self.tracks.path)/orchard-walk.nmea", "--speed", "max"] + extra)
        #expect(r.status == status, "\(r)")
        #expect(r.stderr == "trees: \(message)\n")
    }

    @Test func missingTrackIsAClearError() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "replay:/nonexistent/walk.nmea", "--speed", "max", "--auto", "--species", "Apple"])
        #expect(r.status == 66, "\(r)")
        #expect(r.stderr.hasPrefix("trees: "))
        #expect(r.stderr.contains("/nonexistent/walk.nmea"))
    }
}

@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct CapturePhotoTests {
    @Test func photosAreAttachedInTheSameTransactionAndABadOneSavesNothing() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let jpeg = t.folder.appendingPathComponent("tree.jpg")
        try Data(TestImages.jpeg(dateTimeOriginal: "2025:04:12 09:13:20")).write(to: jpeg)
        let text = t.folder.appendingPathComponent("notes.txt")
        try Data("not an image".utf8).write(to: text)
        let track = "replay:\(CaptureTests.tracks.path)/orchard-walk.nmea"
        #expect(try t.run(["collection", "create", "Row 1"]).status == 0)
        let before = try t.dump()
        let bad = try t.run(["capture", "--source", track, "--speed", "max", "--auto", "--species", "Apple",
                             "--photo", jpeg.path, "--photo", text.path])
        #expect(bad.status == 65, "\(bad)")
        #expect(try t.dump() == before)
        let good = try t.run(["capture", "--source", track, "--speed", "max", "--auto", "--species", "Apple",
                              "--photo", jpeg.path, "--json"])
        #expect(good.status == 0, "\(good)")
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(good.stdout.utf8)) as? [String: Any])
        #expect(tree["photoCount"] as? Int == 1)
        #expect(tree["photoDates"] as? [String] == ["2025-04-12T09:13:20Z"])
    }
}

@Suite(.enabled(if: Tool.sqlite3.shouldRun), .serialized) struct CaptureFromGPSDTests {
    /// A scripted capture from a real gpsd fed by gpsfake: the saved tree is the first fix under
    /// 10 m, with the position and accuracy `trees replay` gives for the same epoch.
    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func autoCaptureThroughGPSD() throws {
        _ = try Tool.gpsfake.require()
        let log = "\(CaptureTests.tracks.path)/orchard-walk.nmea"
        let fake = try GPSFake(log: log)
        defer { fake.stop() }
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let source = "gpsd://127.0.0.1:\(fake.port)"
        let r = try t.run(["capture", "--source", source, "--auto", "--timeout", "300", "--species", "Apple",
                           "--collection", "North Block", "--json"])
        let tree = try savedTree(r)
        let capture = try #require(tree["capture"] as? [String: Any])
        #expect(capture["locationSource"] as? String == source)
        #expect(tree["accuracySource"] as? String == "gst")
        let accuracy = try #require(tree["horizontalAccuracy"] as? Double)
        #expect(accuracy < 10)
        let fixTime = try #require(capture["fixTime"] as? String)
        #expect(fixTime >= "2025-04-12T09:13:15Z")

        // The same epoch read by the NMEA reader: same position, same accuracy.
        let replay = try t.run(["replay", log, "--speed", "max", "--jsonl"])
        let epoch = try #require(replay.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.first { ($0["time"] as? String)?.replacingOccurrences(of: ".000Z", with: "Z") == fixTime })
        // gpsd sends degrees with 9 decimals: equal to that precision.
        #expect(abs((tree["latitude"] as? Double ?? 0) - (epoch["lat"] as? Double ?? 1)) <= 5e-10)
        #expect(abs((tree["longitude"] as? Double ?? 0) - (epoch["lon"] as? Double ?? 1)) <= 5e-10)
        #expect(abs(accuracy - (epoch["horizontalAccuracy"] as? Double ?? 0)) < 1e-9)
    }

    /// gpsd with an RTK receiver: `--require-fix rtk-fixed` lets no float fix through and saves an
    /// RTK fixed epoch, its position and heights those of the NMEA reader less the pole.
    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func rtkFixedCaptureThroughGPSD() throws {
        _ = try Tool.gpsfake.require()
        let log = "\(CaptureTests.tracks.path)/rtk-walk.nmea"
        let fake = try GPSFake(log: log)
        defer { fake.stop() }
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let r = try t.run(["capture", "--source", "gpsd://127.0.0.1:\(fake.port)", "--auto", "--timeout", "300", "--species", "Pear",
                           "--require-fix", "rtk-fixed", "--antenna-height", "1.5", "--json"])
        let tree = try savedTree(r)
        let fixTime = try #require((tree["capture"] as? [String: Any])?["fixTime"] as? String)
        let replay = try t.run(["replay", log, "--speed", "max", "--jsonl"])
        let epochs = replay.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let epoch = try #require(epochs.first { ($0["time"] as? String)?.replacingOccurrences(of: ".000Z", with: "Z") == fixTime })
        #expect(epoch["status"] as? Int == FixStatusNumber.rtkFixed, "saved at \(fixTime)")
        #expect(abs((tree["latitude"] as? Double ?? 0) - (epoch["lat"] as? Double ?? 1)) <= 5e-10)
        #expect(abs((tree["longitude"] as? Double ?? 0) - (epoch["lon"] as? Double ?? 1)) <= 5e-10)
        #expect(abs((tree["altitude"] as? Double ?? 0) - ((epoch["altMSL"] as? Double ?? 0) - 1.5)) < 1e-6)
        #expect(abs((tree["ellipsoidHeight"] as? Double ?? 0) - ((epoch["altHAE"] as? Double ?? 0) - 1.5)) < 1e-6)
        #expect((tree["horizontalAccuracy"] as? Double ?? 1) < 0.1)
        let info = try #require(tree["capture"] as? [String: Any])
        #expect(info["fixStatus"] as? String == "rtk-fixed")
        #expect(info["correctionAge"] as? Double == epoch["dgpsAge"] as? Double)
        #expect(info["verticalAccuracySource"] as? String == "gst")
        #expect(abs((info["verticalAccuracy"] as? Double ?? 0) - (epoch["verticalAccuracy"] as? Double ?? 1)) < 1e-9)
        #expect(info["antennaHeight"] as? Double == 1.5)
    }
}

/// gpsd's TPV status numbers.
enum FixStatusNumber {
    static let rtkFixed = 3
}

/// The tree a `capture --json` run saved, after expecting that it succeeded.
private func savedTree(_ r: TreesProcess.Result, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    #expect(r.status == 0, "\(r)", sourceLocation: sourceLocation)
    return try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], sourceLocation: sourceLocation)
}
