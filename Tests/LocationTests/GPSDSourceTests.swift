import Foundation
import Location
import Synchronization
import Testing
import TreesKit
import TreesTestSupport

/// Reads events from a source until `done` says so or `timeout` passes.
func collect(
    _ source: some LocationSource, timeout: Duration = .seconds(300), until done: @escaping @Sendable ([LocationEvent]) -> Bool
) async throws -> [LocationEvent] {
    // The source is read on a thread of its own: while the whole suite runs, synchronous tests
    // queued on the shared pool can hold its threads for minutes. A gpsd source's first connection
    // starts on a thread of its own when `events()` is called; only reconnecting waits for the pool.
    let executor = ThreadExecutor(name: "location source under test")
    defer { executor.stop() }
    let reader = Task(executorPreference: executor) {
        var events: [LocationEvent] = []
        for try await event in source.events() {
            events.append(event)
            if done(events) { break }
        }
        return events
    }
    let timer = Task {
        try await Task.sleep(for: timeout)
        reader.cancel()
    }
    defer { timer.cancel() }
    return try await reader.value
}

extension Sequence where Element == LocationEvent {
    var fixes: [Fix] {
        compactMap { if case let .fix(f) = $0 { f } else { nil } }
    }
}

/// A clock that records the sleeps asked of it and sleeps a twentieth as long.
final class RecordingClock: Clock, @unchecked Sendable {
    typealias Duration = Swift.Duration
    typealias Instant = ContinuousClock.Instant
    private let base = ContinuousClock()
    private let recorded = Mutex<[Duration]>([])
    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }
    var sleeps: [Duration] { recorded.withLock { $0 } }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let asked = deadline - base.now
        recorded.withLock { $0.append(asked.rounded()) }
        try await base.sleep(for: asked / 20)
    }
}

extension Duration {
    /// To the nearest tenth of a second (the recording clock sees a deadline, not the delay asked).
    func rounded() -> Duration {
        let ms = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        return .milliseconds(Int((ms / 100).rounded() * 100))
    }
}

@Suite(.serialized) struct GPSDSourceTests {
    /// Compares fixes from gpsd with the log they were fed from: positions exactly (to the nine
    /// decimals gpsd's JSON carries), accuracy by the rule.
    func expectMatches(_ fixes: [Fix], log: String, alsoFrom other: String? = nil, minimum: Int, reader: Bool = true) throws {
        let epochs = try FixtureEpoch.read(log) + (other.map(FixtureEpoch.read) ?? [])
        var readerByTime: [Date: Fix] = [:]
        for f in try readerFixes(log) + (other.map(readerFixes) ?? []) { if let t = f.time { readerByTime[t] = f } }
        let withPosition = fixes.filter(\.hasPosition)
        #expect(withPosition.count >= minimum)
        let times = fixes.compactMap(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "fix times go strictly forward")
        for fix in withPosition {
            let epoch = try #require(epochs.first { $0.time == fix.time }, "fix at \(String(describing: fix.time)) is in the log")
            #expect(fix.coordinate == epoch.coordinate)
            #expect(fix.altitudeMSL == epoch.altitudeMSL)
            #expect(fix.hdop == epoch.hdop)
            #expect(fix.satellitesUsed == epoch.satellitesUsed)
            let expected = try #require(epoch.expectedAccuracy)
            #expect(fix.accuracySource == expected.1)
            #expect(abs((fix.horizontalAccuracy ?? -1) - expected.0) < 1e-9, "accuracy at \(epoch.time)")
            // The NMEA reader, given the same log, agrees: the position to the nine decimals gpsd's
            // JSON carries, the accuracy and its source exactly.
            guard reader else { continue }
            let fromReader = try #require(readerByTime[fix.time!], "the reader has an epoch at \(epoch.time)")
            let (a, b) = (try #require(fix.coordinate), try #require(fromReader.coordinate))
            #expect(abs(a.latitude - b.latitude) < 5e-10 && abs(a.longitude - b.longitude) < 5e-10)
            #expect(fix.accuracySource == fromReader.accuracySource)
            #expect(abs((fix.horizontalAccuracy ?? -1) - (fromReader.horizontalAccuracy ?? -2)) < 1e-9)
            #expect(fix.mode == fromReader.mode && fix.satellitesUsed == fromReader.satellitesUsed && fix.hdop == fromReader.hdop)
        }
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func fixesFromGSTLogMatchTheLog() async throws {
        _ = try Tool.gpsfake.require()
        let log = GPSFake.fixture("orchard-gst.nmea")
        let fake = try GPSFake(log: log)
        defer { fake.stop() }
        let source = GPSDSource(host: "127.0.0.1", port: fake.port)
        let last = try FixtureEpoch.read(log).last!.time
        let events = try await collect(source) { $0.fixes.last?.time == last }
        guard case let .connected(version, _)? = events.first else {
            Issue.record("first event is .connected, got \(String(describing: events.first))")
            return
        }
        #expect(version == "3.22" || version?.hasPrefix("3.") == true)
        #expect(events.contains { if case .deviceAdded(let d) = $0 { d.driver == "NMEA0183" } else { false } }, "\(events.prefix(8)) port \(fake.port)")
        try expectMatches(events.fixes, log: log, minimum: 25)
        #expect(events.fixes.last?.time == last)
    }

    /// A sample track of the package, as a receiver would send it, through gpsd: every fix is the
    /// NMEA reader's fix of the same time (the track's epochs end with RMC, GST before it).
    /// A sample track played through gpsd (fed by gpsfake) until its last fix: the events, the
    /// reader's fixes of the same file, and each fix with a position but the first (gpsd may join
    /// the log mid-epoch) beside the reader's fix of the same time.
    private func throughGPSD(_ name: String) async throws -> (events: [LocationEvent], expected: [Fix], pairs: [(gpsd: Fix, reader: Fix)]) {
        let track = Repository.path("SampleTracks/\(name)")
        let fake = try GPSFake(log: track, cycle: 0.004)
        defer { fake.stop() }
        let expected = try readerFixes(track)
        let last = try #require(expected.last?.time)
        let events = try await collect(GPSDSource(host: "127.0.0.1", port: fake.port), timeout: .seconds(300)) {
            $0.fixes.last?.time == last
        }
        var byTime: [Date: Fix] = [:]
        for f in expected { if let t = f.time { byTime[t] = f } }
        var pairs: [(gpsd: Fix, reader: Fix)] = []
        for fix in events.fixes.filter(\.hasPosition).dropFirst() {
            let time = try #require(fix.time)
            pairs.append((fix, try #require(byTime[time])))
        }
        return (events, expected, pairs)
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func sampleTrackThroughGPSDMatchesTheReader() async throws {
        _ = try Tool.gpsfake.require()
        let (events, expected, pairs) = try await throughGPSD("signal-loss.nmea")
        #expect(pairs.count + 1 >= expected.filter(\.hasPosition).count - 2)
        for (fix, r) in pairs {
            let (a, b) = (try #require(fix.coordinate), try #require(r.coordinate))
            #expect(abs(a.latitude - b.latitude) < 5e-10 && abs(a.longitude - b.longitude) < 5e-10, "position at \(r.time!)")
            #expect(fix.accuracySource == r.accuracySource, "accuracy source at \(r.time!)")
            #expect(abs((fix.horizontalAccuracy ?? -1) - (r.horizontalAccuracy ?? -2)) < 1e-9, "accuracy at \(r.time!)")
        }
        #expect(events.contains(.fixLost))
    }

    /// An RTK receiver through gpsd: every fix has the status, correction age and station, and the
    /// horizontal and vertical accuracy the NMEA reader gives for the same epoch.
    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func rtkTrackThroughGPSDKeepsItsQuality() async throws {
        _ = try Tool.gpsfake.require()
        let (_, expected, pairs) = try await throughGPSD("rtk-walk.nmea")
        #expect(pairs.count + 1 >= expected.count - 2)
        for (fix, r) in pairs {
            #expect(fix.status == r.status, "status at \(r.time!)")
            #expect(fix.correctionAge == r.correctionAge && fix.correctionStation == r.correctionStation, "corrections at \(r.time!)")
            #expect(fix.accuracySource == r.accuracySource && abs((fix.horizontalAccuracy ?? -1) - (r.horizontalAccuracy ?? -2)) < 1e-9,
                    "accuracy at \(r.time!)")
            #expect(fix.verticalAccuracySource == .gst && abs((fix.verticalAccuracy ?? -1) - (r.verticalAccuracy ?? -2)) < 1e-9,
                    "vertical accuracy at \(r.time!)")
        }
        #expect(Set(pairs.map(\.gpsd.status)) == [.gps, .rtkFloat, .rtkFixed])
    }

    /// GST after the epoch's last timed sentence: gpsd reports it after the TPV, matched by time.
    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func gstReportedAfterItsTPVIsMatchedByTime() async throws {
        _ = try Tool.gpsfake.require()
        let log = GPSFake.fixture("orchard-gst-last.nmea")
        let fake = try GPSFake(log: log)
        defer { fake.stop() }
        let last = try FixtureEpoch.read(log).last!.time
        let events = try await collect(GPSDSource(host: "127.0.0.1", port: fake.port)) { $0.fixes.last?.time == last }
        try expectMatches(events.fixes, log: log, minimum: 25, reader: false)
        #expect(events.fixes.filter(\.hasPosition).allSatisfy { $0.accuracySource == .gst })
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func withoutGSTTheDOPModelAndLossOfFixAreReported() async throws {
        _ = try Tool.gpsfake.require()
        let log = GPSFake.fixture("orchard-dop.nmea")
        let fake = try GPSFake(log: log)
        defer { fake.stop() }
        let source = GPSDSource(host: "127.0.0.1", port: fake.port)
        let last = try FixtureEpoch.read(log).last!.time
        let events = try await collect(source) { $0.fixes.last?.time == last }
        try expectMatches(events.fixes, log: log, minimum: 20)
        let lost = try #require(events.firstIndex(of: .fixLost))
        // The fix after the loss has no position; the fixes come back later.
        #expect(events[(lost + 1)...].fixes.first?.mode == .noFix)
        #expect(events[(lost + 1)...].fixes.last?.hasPosition == true)
        #expect(events.filter { $0 == .fixLost }.count == 1)
    }

    @Test func unreachableGPSDThrowsAnErrorThatSaysWhatToDo() async throws {
        let port = GPSFake.freePort()
        let source = GPSDSource(host: "127.0.0.1", port: port)
        await #expect(throws: LocationError.gpsdUnreachable(address: "127.0.0.1:\(port)", reason: "Connection refused")) {
            _ = try await collect(source, timeout: .seconds(10)) { _ in false }
        }
        let text = LocationError.gpsdUnreachable(address: "127.0.0.1:\(port)", reason: "Connection refused").description
        #expect(text.contains("systemctl status gpsd") && text.contains("--source"))
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func waitingKeepsTryingUntilGPSDComesUp() async throws {
        _ = try Tool.gpsfake.require()
        let port = GPSFake.freePort()
        let clock = RecordingClock()
        let source = GPSDSource(host: "127.0.0.1", port: port, wait: true, clock: clock)
        let log = GPSFake.fixture("orchard-first.nmea")
        let starter = Task {
            try await Task.sleep(for: .milliseconds(400))
            return try GPSFake(log: log, port: port)
        }
        let events = try await collect(source) { $0.fixes.count >= 3 }
        let fake = try await starter.value
        fake.stop()
        #expect(events.first == .reconnecting(attempt: 1, delay: .seconds(1)))
        #expect(events.contains { if case .connected = $0 { true } else { false } })
        #expect(events.fixes.count >= 3)
    }

    @Test(.enabled(if: Tool.gpsfake.shouldRun), .tags(.gpsd)) func losingGPSDIsAnEventAndFixesResumeWithoutRepeats() async throws {
        _ = try Tool.gpsfake.require()
        let first = GPSFake.fixture("orchard-first.nmea")
        let resume = GPSFake.fixture("orchard-resume.nmea")
        let fake = try GPSFake(log: first)
        let port = fake.port
        let clock = RecordingClock()
        let source = GPSDSource(host: "127.0.0.1", port: port, clock: clock)
        let restarted = Mutex<GPSFake?>(nil)
        let last = try FixtureEpoch.read(resume).last!.time
        let events = try await collect(source, timeout: .seconds(300)) { events in
            // Kill gpsd (and gpsfake) after a few fixes, and bring it back once the loss is reported.
            if events.fixes.count == 6, case .fix = events.last { fake.stop() }
            if case .reconnecting(2, _)? = events.last {
                restarted.withLock { if $0 == nil { $0 = try? GPSFake(log: resume, port: port) } }
            }
            return events.fixes.last?.time == last
        }
        restarted.withLock { $0?.stop() }
        let lostAt = try #require(events.firstIndex { if case .sourceLost = $0 { true } else { false } })
        #expect(events[lostAt...].contains(.reconnecting(attempt: 1, delay: .seconds(1))))
        #expect(events[lostAt...].contains { if case .connected = $0 { true } else { false } })
        #expect(clock.sleeps.prefix(2) == [.seconds(1), .seconds(2)])
        // Fixes flow again after the reconnection; the overlap of the two logs is not repeated.
        #expect(events[lostAt...].fixes.count >= 15)
        try expectMatches(events.fixes, log: resume, alsoFrom: first, minimum: 20)
        #expect(events.fixes.last?.time == last)
    }
}
