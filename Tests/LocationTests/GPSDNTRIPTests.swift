import Foundation
import Location
import Synchronization
import Testing
import TreesKit
import TreesTestSupport

/// gpsd given an `ntrip://` source beside its receiver, as the README tells users to run it: gpsd
/// fetches the caster's corrections and writes them to the receiver, and the fixes `trees` reads
/// through gpsd carry the receiver's RTK status and the age of its corrections.
@Suite(.serialized) struct GPSDNTRIPTests {
    /// RTCM3 frames (0xD3, 10-bit length, payload, CRC-24Q) in `bytes`, in order. Only frames whose
    /// CRC holds count, so the probe strings gpsd writes to a receiver are passed over.
    static func frames(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while i + 6 <= bytes.count {
            let end = i + 6 + (Int(bytes[i + 1] & 3) << 8 | Int(bytes[i + 2]))
            guard bytes[i] == 0xD3, end <= bytes.count,
                  crc24q(bytes[i..<(end - 3)]) == UInt32(bytes[end - 3]) << 16 | UInt32(bytes[end - 2]) << 8 | UInt32(bytes[end - 1]) else {
                i += 1
                continue
            }
            out.append(Array(bytes[i..<end]))
            i = end
        }
        return out
    }

    /// The CRC-24Q of RTCM 3 (polynomial 0x1864CFB, initial value 0).
    static func crc24q(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 16
            for _ in 0..<8 {
                crc <<= 1
                if crc & 0x100_0000 != 0 { crc ^= 0x186_4CFB }
            }
        }
        return crc & 0xFF_FFFF
    }

    @Test(.enabled(if: Tool.gpsd.shouldRun && Tool.str2str.shouldRun && Tool.socat.shouldRun), .tags(.gpsd))
    func gpsdForwardsTheCastersCorrectionsAndTheFixesShowTheirEffect() async throws {
        let gpsd = try Tool.gpsd.require()
        _ = try Tool.str2str.require()
        let caster = Str2StrCaster()
        try caster.start()
        defer { caster.stop() }
        let receiver = try SocatPair()
        defer { receiver.kill() }
        let port = GPSFake.freePort()
        // -N: in the foreground; -n: open the receiver at once; the ntrip:// source is gpsd's own client.
        let daemon = try Program.start(gpsd, ["-N", "-n", "-S", String(port), "-F", receiver.folder.path("control"),
                                              receiver.device, "ntrip://127.0.0.1:\(caster.casterPort)/\(caster.mount)"])
        defer { if daemon.isRunning { daemon.send(SIGKILL) }; _ = daemon.wait() }
        #expect(await eventually { Loopback.accepts(port: port) || !daemon.isRunning }, "gpsd did not open port \(port)")
        #expect(await eventually { GPSFake.hasClient(port: caster.casterPort) }, "gpsd never connected to the caster")

        // The receiver: RTK fixed epochs of the RTK walk, paced; what gpsd writes to it is kept.
        let feed = open(receiver.feed, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        try #require(feed >= 0)
        defer { close(feed) }
        let track = try String(contentsOfFile: Repository.path("SampleTracks/rtk-walk.nmea"), encoding: .utf8)
            .components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let first = try #require(track.firstIndex { $0.hasPrefix("$GPGGA,130100") })
        let written = Mutex<[UInt8]>([])
        let stop = Mutex(false)
        let talker = Thread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            // Round and round 90 s of RTK fixed epochs, one sentence every 15 ms.
            var line = first
            while !stop.withLock({ $0 }) {
                let bytes = Array((track[line] + "\r\n").utf8)
                _ = bytes.withUnsafeBytes { write(feed, $0.baseAddress, $0.count) }
                line = line + 1 < first + 630 ? line + 1 : first
                usleep(15_000)
                let n = buffer.withUnsafeMutableBytes { read(feed, $0.baseAddress, $0.count) }
                if n > 0 { written.withLock { $0 += buffer[..<n] } }
            }
        }
        talker.start()
        defer { stop.withLock { $0 = true } }

        // The base station sends the caster a real RTCM3 stream, again every few seconds: the caster
        // passes on only what arrives after it has taken gpsd's request. gpsd passes every frame on.
        let rtcm = try RTCMLog.stream()
        let sent = Self.frames(rtcm)
        #expect(sent.count == 100)
        let base = try BaseStation(port: caster.inputPort)
        func wholeCopy() -> Bool {
            let received = Self.frames(written.withLock { $0 })
            guard received.count >= sent.count else { return false }
            return (0...(received.count - sent.count)).contains { Array(received[$0..<($0 + sent.count)]) == sent }
        }
        var lastSent = ContinuousClock.now - .seconds(10)
        let arrived = await eventually {
            if ContinuousClock.now - lastSent >= .seconds(3) {
                base.send(rtcm)
                lastSent = ContinuousClock.now
            }
            return wholeCopy()
        }
        #expect(arrived, "the receiver got \(Self.frames(written.withLock { $0 }).count) frames, never the \(sent.count) of the stream in order")

        // What trees reads through gpsd: RTK fixed, with the age of the corrections and the station.
        let events = try await collect(GPSDSource(host: "127.0.0.1", port: port), timeout: .seconds(400)) {
            $0.fixes.filter { $0.status == .rtkFixed }.count >= 4
        }
        let fixed = events.fixes.filter { $0.status == .rtkFixed }
        #expect(fixed.count >= 4)
        for fix in fixed {
            #expect(fix.correctionStation == 24)
            #expect((0.8...1.2).contains(fix.correctionAge ?? -1), "\(String(describing: fix.correctionAge))")
        }
        // The first fix may come from an epoch joined half way, before its GST; the rest have their GST.
        for fix in fixed.dropFirst() {
            #expect(fix.accuracyClass == .survey && fix.verticalAccuracySource == .gst, "\(fix)")
        }
    }
}
