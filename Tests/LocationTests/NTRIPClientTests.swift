import Foundation
@testable import Location
import NMEA
import Synchronization
import Testing
import TreesKit
import TreesTestSupport

/// What a running `NTRIPClient` reported and forwarded.
final class ClientRecorder: Sendable {
    let statuses = Mutex<[CorrectionStreamStatus]>([])
    let bytes = Mutex<[UInt8]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)
    private let executor = ThreadExecutor(name: "ntrip client under test")

    /// Runs `client` until `stop()`, on a thread of its own rather than the shared pool.
    init(_ client: NTRIPClient) {
        let t = Task(executorPreference: executor) { [self] in
            await client.run(forward: { piece in self.bytes.withLock { $0 += piece }; return piece.count },
                             report: { status in self.statuses.withLock { $0.append(status) } })
        }
        task.withLock { $0 = t }
    }

    func stop() {
        task.withLock { $0?.cancel() }
        executor.stop()
    }

    var received: [UInt8] { bytes.withLock { $0 } }
    var reported: [CorrectionStreamStatus] { statuses.withLock { $0 } }

    /// The reasons of the `.failed` statuses so far.
    var failures: [String] {
        reported.compactMap { if case let .failed(reason) = $0.state { reason } else { nil } }
    }
}

/// Events a source gave, shared with the task that reads them.
final class EventLog: Sendable {
    let events = Mutex<[LocationEvent]>([])
}

/// Polls `condition` every 50 ms until it holds or `timeout` passes; true if it held.
///
/// The deadline is generous: while the whole suite runs, synchronous tests hold the few threads of
/// the shared pool for a minute or more at a time, and the code under test waits its turn. Past
/// the deadline it still polls 100 times before giving up: a pool held for all of `timeout` (the
/// whole suite running beside a caster test took 440 s once) kept from running both this loop and
/// the code under test (the NTRIP client's task starts on the pool), and a loop that only looked
/// once when it got its turn back failed before that code had had one. A hundred polls that ran
/// are five seconds in which the pool was free for it too.
func eventually(_ timeout: Duration = .seconds(400), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    var pollsPastDeadline = 0
    while true {
        if condition() { return true }
        if ContinuousClock.now >= deadline {
            pollsPastDeadline += 1
            if pollsPastDeadline > 100 { return false }
        }
        try? await Task.sleep(for: .milliseconds(50))
    }
}

/// Quick retries, so the tests of failures see the second attempt without waiting a second.
let quickRetries = ReconnectPolicy(initial: .milliseconds(100), maximum: .milliseconds(400))

@Suite struct NTRIPEndpointTests {
    @Test func readsUserHostPortMountAndVersion() throws {
        let plain = try NTRIPEndpoint(parsing: "ntrip://caster.example.org/ORGN")
        #expect(plain == NTRIPEndpoint(host: "caster.example.org", port: 2101, mount: "ORGN", user: nil, version: .v2))
        #expect(plain.description == "caster.example.org:2101/ORGN")
        let full = try NTRIPEndpoint(parsing: "ntrip://me%40farm.example@[::1]:2102/RTCM3_MSM?version=1")
        #expect(full == NTRIPEndpoint(host: "::1", port: 2102, mount: "RTCM3_MSM", user: "me@farm.example", version: .v1))
        #expect(full.description == "[::1]:2102/RTCM3_MSM")
        let caster = try NTRIPEndpoint(parsing: "ntrip://rtk2go.com", requiringMount: false)
        #expect(caster.mount == nil && caster.port == 2101)
    }

    @Test func refusesAPasswordInTheURLWithoutRepeatingIt() {
        #expect(throws: LocationError.badNTRIPURL("ntrip://me:…@caster.example.org/ORGN", reason:
            "a password in the URL is refused (it would show in ps and in the shell's history); "
                + "give it in the environment variable NTRIP_PASSWORD or in a file named by NTRIP_PASSWORD_FILE")) {
            try NTRIPEndpoint(parsing: "ntrip://me:hunter2@caster.example.org/ORGN")
        }
        do {
            _ = try NTRIPEndpoint(parsing: "ntrip://me:hunter2@caster.example.org:99999/ORGN")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test(arguments: [
        ("ntrip://caster.example.org", "no mount point after the host; list the caster's mount points with `trees ntrip list ntrip://caster.example.org:2101`"),
        ("http://caster.example.org/ORGN", "it must start with ntrip://"),
        ("ntrip://caster.example.org:0/ORGN", "the port '0' is not a number from 1 to 65535"),
        ("ntrip://caster.example.org/ORGN?version=3", "version '3' is not 1 or 2"),
        ("ntrip://caster.example.org/ORGN?format=rtcm", "unknown option 'format=rtcm'; only version=1 or version=2 is known"),
        ("ntrip:///ORGN", "no caster host, e.g. ntrip://caster.example.org:2101/MOUNT"),
    ])
    func badURLsSayWhatIsWrong(text: String, reason: String) {
        #expect(throws: LocationError.badNTRIPURL(text, reason: reason)) { try NTRIPEndpoint(parsing: text) }
    }

    @Test func requestsForEachVersion() throws {
        let v2 = try NTRIPEndpoint(parsing: "ntrip://trees@127.0.0.1:2101/ORGN")
        #expect(String(decoding: NTRIPRequest.bytes(v2, path: "ORGN", password: "pw", userAgent: "trees/0.1.0"), as: UTF8.self)
            == "GET /ORGN HTTP/1.1\r\nHost: 127.0.0.1:2101\r\nNtrip-Version: Ntrip/2.0\r\nUser-Agent: NTRIP trees/0.1.0\r\n"
            + "Authorization: Basic dHJlZXM6cHc=\r\nConnection: close\r\n\r\n")
        let v1 = try NTRIPEndpoint(parsing: "ntrip://127.0.0.1/ORGN?version=1")
        #expect(String(decoding: NTRIPRequest.bytes(v1, path: "ORGN", password: "pw", userAgent: "trees/0.1.0"), as: UTF8.self)
            == "GET /ORGN HTTP/1.0\r\nUser-Agent: NTRIP trees/0.1.0\r\nAccept: */*\r\nConnection: close\r\n\r\n")
    }

    @Test func passwordComesFromTheEnvironmentOrAFile() throws {
        #expect(try NTRIPPassword.lookup(in: [:]) == nil)
        #expect(try NTRIPPassword.lookup(in: ["NTRIP_PASSWORD": "s3cret"]) == "s3cret")
        let folder = try TemporaryFolder("trees-ntrip")
        defer { folder.remove() }
        try "from-file\nsecond line\n".write(toFile: folder.path("pw"), atomically: true, encoding: .utf8)
        #expect(try NTRIPPassword.lookup(in: ["NTRIP_PASSWORD_FILE": folder.path("pw")]) == "from-file")
        #expect(throws: LocationError.self) { try NTRIPPassword.lookup(in: ["NTRIP_PASSWORD_FILE": folder.path("missing")]) }
    }

    @Test func backOffDoublesFromOneSecondToThirty() {
        #expect((1...7).map { NTRIPClient.backOff.delay(attempt: $0) } == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
    }
}

@Suite struct NTRIPAnswerTests {
    static let rtcm: [UInt8] = [0xD3, 0x00, 0x13, 0x3E, 0xD7, 0xD3, 0x02, 0x02, 0x98, 0x0E, 0xDE, 0xEF, 0x34, 0xB4, 0xBD, 0x62, 0xAC,
                                0x09, 0x41, 0x98, 0x6F, 0x33, 0x36, 0x0B, 0x98]

    /// The answer and the body, read from `bytes` in the pieces given.
    static func read(_ pieces: [ArraySlice<UInt8>]) throws -> [String] {
        var reader = NTRIPAnswerReader()
        var body: NTRIPBody?
        var out: [UInt8] = []
        var answer = "none"
        for piece in pieces {
            var data = Array(piece)
            if body == nil {
                guard let (a, rest) = reader.feed(data) else { continue }
                answer = "\(a)"
                switch a {
                case let .stream(f), let .sourceTable(f): body = NTRIPBody(f)
                default: return [answer]
                }
                data = rest
            }
            try body?.decode(data, into: &out)
        }
        if body == nil { answer = "\(reader.finish())" }
        return [answer, out.map { String(format: "%02X", $0) }.joined()]
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    @Test func icyAnswerThenTheStream() throws {
        let input = Array("ICY 200 OK\r\n".utf8) + Self.rtcm
        let out = try ChunkingVerifier.standard.verify(input) { try Self.read($0) }
        #expect(out == ["stream(Location.NTRIPBody.Framing.icy)", Self.hex(Self.rtcm)])
    }

    @Test func icyHeaderLinesSomeCastersSendAreNotPassedOn() throws {
        let input = Array("ICY 200 OK\r\nServer: NTRIP Caster 2.0\r\nDate: Tue, 01 Jan 2026 00:00:00 GMT\r\n\r\n".utf8) + Self.rtcm
        let out = try ChunkingVerifier.standard.verify(input) { try Self.read($0) }
        #expect(out[1] == Self.hex(Self.rtcm))
    }

    @Test func http11ChunkedStreamIsDecoded() throws {
        var input = Array("HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nContent-Type: gnss/data\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        input += Array("7\r\n".utf8) + Self.rtcm[..<7] + Array("\r\n".utf8)
        input += Array("12;ext=1\r\n".utf8) + Self.rtcm[7...] + Array("\r\n".utf8)
        input += Array("0\r\n\r\n".utf8)
        let out = try ChunkingVerifier.standard.verify(input) { try Self.read($0) }
        #expect(out == ["stream(Location.NTRIPBody.Framing.chunked)", Self.hex(Self.rtcm)])
    }

    @Test func aLongHeaderIsReadFromWhereTheLastPieceStopped() throws {
        // 400 header lines (about 12 KiB) before the stream: read in every piecing, byte by byte
        // too, the reader resumes at the line it had reached and gives the same answer and data.
        var header = "HTTP/1.1 200 OK\r\nContent-Type: gnss/data\r\n"
        for i in 0..<400 { header += "X-Caster-Note-\(i): \(String(repeating: "n", count: 12))\r\n" }
        let input = Array((header + "\r\n").utf8) + Self.rtcm
        let out = try ChunkingVerifier.standard.verify(input) { try Self.read($0) }
        #expect(out == ["stream(Location.NTRIPBody.Framing.untilClose)", Self.hex(Self.rtcm)])
        // Past 16 KiB without the empty line that ends a header, it is not an NTRIP answer.
        let endless = Array(("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Pad: 0123456789abcdef\r\n", count: 800)).utf8)
        let refused = try ChunkingVerifier.standard.verify(endless) { try Self.read($0) }
        #expect(refused[0].hasPrefix("garbage(\"HTTP/1.1 200 OK"))
    }

    @Test func theProbeReadsAnAnswerTheSameInAnyPieces() {
        let line = "STR;MOUNT;Place;RTCM 3.2;1004(1),1005(10);2;GPS+GLO;NET;DEU;52.40;13.06;1;0;gen;none;B;N;9600;\r\nENDSOURCETABLE\r\n"
        let answer = Array(("HTTP/1.1 200 OK\r\nContent-Type: gnss/sourcetable\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(line.utf8.count, radix: 16) + "\r\n" + line + "\r\n0\r\n\r\n").utf8)
        let whole = NTRIPProbe.read(answer, step: answer.count)
        #expect(whole.answer == "source table chunked")
        #expect(whole.finished)
        #expect(whole.table?.streams.map(\.mount) == ["MOUNT"])
        #expect(whole.table?.complete == true)
        for step in [1, 2, 7, 29] { #expect(NTRIPProbe.read(answer, step: step) == whole) }
    }

    @Test func brokenChunkSizeIsAnError() {
        var body = NTRIPBody(.chunked)
        var out: [UInt8] = []
        #expect(throws: NTRIPBody.Failure.self) { try body.decode(Array("zz\r\n".utf8), into: &out) }
    }

    @Test(arguments: [
        ("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"/ORGN\"\r\n\r\n", "status(code: 401, reason: \"Unauthorized\")"),
        ("HTTP/1.1 404 Not Found\r\n\r\n", "status(code: 404, reason: \"Not Found\")"),
        ("SOURCETABLE 200 OK\r\nContent-Length: 20\r\n\r\nENDSOURCETABLE\r\n", "sourceTable(Location.NTRIPBody.Framing.untilClose)"),
        ("HTTP/1.1 200 OK\r\nContent-Type: gnss/sourcetable\r\n\r\nENDSOURCETABLE\r\n", "sourceTable(Location.NTRIPBody.Framing.untilClose)"),
        ("ERROR - Bad Password\r\n", "error(\"ERROR - Bad Password\")"),
        ("SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", "garbage(\"SSH-2.0-OpenSSH_9.2p1 Debian-2\")"),
        ("<html><body>It works!</body></html>", "garbage(\"<html><body>It works!</body></html>\")"),
    ])
    func otherAnswers(text: String, expected: String) throws {
        let out = try ChunkingVerifier.standard.verify(text) { try Self.read($0) }
        #expect(out[0] == expected)
    }

    @Test func garbageIsToldWithoutWaitingForALineEnd() {
        var reader = NTRIPAnswerReader()
        let answer = reader.feed([0x16, 0x03, 0x01, 0x02, 0x00])
        #expect(answer?.answer == .garbage("\\x16"))
    }
}

@Suite struct NTRIPSourceTableTests {
    @Test func readsARealSourceTable() throws {
        // The caster's whole answer as gpsd logged it (after the log's # lines), in pieces of every size.
        let answer = try RTCMLog.stream("ntrip_sourcetable.log")
        let table = ChunkingVerifier.standard.verify(answer) { pieces -> NTRIPSourceTable? in
            var reader = NTRIPAnswerReader()
            var body: NTRIPBody?
            var text: [UInt8] = []
            for piece in pieces {
                var data = Array(piece)
                if body == nil {
                    guard let (decided, rest) = reader.feed(data) else { continue }
                    guard decided == .sourceTable(.untilClose) else { return nil }
                    body = NTRIPBody(.untilClose)
                    data = rest
                }
                try? body?.decode(data, into: &text)
            }
            return NTRIPSourceTable(parsing: String(decoding: text, as: UTF8.self))
        } ?? NTRIPSourceTable()
        #expect(table.complete)
        #expect(table.malformedLines == [])
        #expect(table.streams.map(\.mount) == ["VRS_3_2G", "MAC_3_2G", "FKP_3_2G", "EPS"])
        #expect(table.casters.count == 15)
        #expect(table.networks.map(\.identifier) == ["SAPOS-AdV"])
        let vrs = table.streams[0]
        #expect(vrs.identifier == "SAPOS_VRS_3" && vrs.format == "RTCM3.1" && vrs.carrier == 2 && vrs.navSystem == "GPS+GLO")
        #expect(vrs.country == "DEU" && vrs.latitude == 52.48 && vrs.longitude == 13.30 && vrs.needsNMEA)
        #expect(vrs.solution == 1 && vrs.authentication == "B" && vrs.fee && vrs.bitrate == 2000)
        #expect(table.casters[2].host == "www.sapos-ni-ntrip.de" && table.casters[2].port == 2101)
    }

    @Test func malformedLinesAreSkippedAndCounted() {
        let text = """
            STR;GOOD;Here;RTCM 3.2;1004(1);2;GPS;NET;NZL;-43.50;172.60;0;0;sNTRIP;none;N;N;2400;
            STR;;no mount;RTCM 3.2;;2;GPS;NET;NZL;-43.5;172.6;0;0;;none;N;N;0;
            STR;SHORT;only;three
            STR;BADLAT;Here;RTCM 3.2;;2;GPS;NET;NZL;north;172.6;0;0;;none;N;N;0;
            CAS;caster.example.org;notaport;x;y;0;NZL;0;0;;;
            Server: not a record
            NET;NZ;Operator;B;N;http://a;http://b;http://c;more;fields;here
            ENDSOURCETABLE
            STR;AFTER;the;end
            """
        let table = NTRIPSourceTable(parsing: text)
        #expect(table.streams.map(\.mount) == ["GOOD"])
        #expect(table.streams[0].longitude == 172.6 && table.streams[0].latitude == -43.5 && !table.streams[0].needsNMEA)
        #expect(table.networks.map(\.misc) == ["more;fields;here"])
        #expect(table.malformedLines == [2, 3, 4, 5, 6])
        #expect(table.complete)
    }

    @Test func ggaLinesWithAFixArePickedFromTheReceiversBytes() {
        let fix = sentence("GPGGA,181908.00,4403.6000,N,12118.6000,W,4,12,0.6,1100.0,M,-20.0,M,1.0,0001", lineEnd: "")
        let noFix = sentence("GPGGA,181909.00,,,,,0,00,99.9,,,,,,", lineEnd: "")
        var broken = Array(fix.utf8)
        broken[10] = UInt8(ascii: "7")
        let stream = sentence("GPRMC,181908.00,A,4403.6000,N,12118.6000,W,0.0,0.0,010126,,,A") + fix + "\r\n" + noFix + "\r\n"
            + String(decoding: broken, as: UTF8.self) + "\r\n" + "$GNGGA,trunc"
        var lines = GGALines()
        var found: [String] = []
        for piece in ChunkingVerifier.Chunking.pieces(size: 5).split(Array(stream.utf8)) {
            Array(piece).withUnsafeBytes { lines.feed($0) { found.append($0) } }
        }
        #expect(found == [fix])
    }
}

/// The client against casters that answer in every wrong way: each a one-line reason, no crash,
/// and another attempt after it.
@Suite(.serialized) struct NTRIPClientFailureTests {
    func firstFailure(_ caster: CannedCaster, mount: String = "ORGN", user: String? = nil, password: String? = nil) async -> (String?, ClientRecorder) {
        let endpoint = NTRIPEndpoint(host: "127.0.0.1", port: caster.port, mount: mount, user: user)
        let recorder = ClientRecorder(NTRIPClient(endpoint: endpoint, password: password, reconnect: quickRetries))
        // A failure, then the next attempt.
        #expect(await eventually { recorder.failures.count >= 1 && recorder.reported.filter { $0.state == .connecting }.count >= 2 })
        recorder.stop()
        caster.stop()
        return (recorder.failures.first, recorder)
    }

    @Test func wrongCredentials() async throws {
        let caster = try CannedCaster(answering: "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"/ORGN\"\r\n\r\n")
        let (reason, _) = await firstFailure(caster, user: "trees", password: "wrong")
        #expect(reason == "the NTRIP caster 127.0.0.1:\(caster.port) refused access to ORGN (HTTP 401 Unauthorized): "
            + "check the user name 'trees' and the password in NTRIP_PASSWORD or NTRIP_PASSWORD_FILE.")
        let (missing, _) = await firstFailure(try CannedCaster(answering: "HTTP/1.0 401 Unauthorized\r\n\r\n"))
        #expect(missing?.contains("it needs a user name in the URL (ntrip://USER@127.0.0.1:") == true)
    }

    @Test func aSourceTableForAMountMeansThereIsNoSuchMount() async throws {
        let caster = try CannedCaster(answering: "SOURCETABLE 200 OK\r\nContent-Type: text/plain\r\n\r\nSTR;OTHER;x;RTCM 3.2;;2;GPS;N;USA;44;-121;0;0;;none;N;N;0;\r\nENDSOURCETABLE\r\n")
        let (reason, _) = await firstFailure(caster, mount: "NOPE")
        #expect(reason == "the NTRIP caster 127.0.0.1:\(caster.port) has no mount point 'NOPE' (it answered with its source table); "
            + "list its mount points with `trees ntrip list ntrip://127.0.0.1:\(caster.port)`.")
    }

    @Test func notFound() async throws {
        let caster = try CannedCaster(answering: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        let (reason, _) = await firstFailure(caster, mount: "NOPE")
        #expect(reason == "the NTRIP caster 127.0.0.1:\(caster.port) has no mount point 'NOPE' (HTTP 404 Not Found); "
            + "list its mount points with `trees ntrip list ntrip://127.0.0.1:\(caster.port)`.")
    }

    @Test func garbageInsteadOfAnAnswer() async throws {
        let caster = try CannedCaster { _, _ in [.send(Array("SSH-2.0-OpenSSH_9.2p1\r\n".utf8) + [0, 0xFF]), .holdOpen] }
        let (reason, _) = await firstFailure(caster)
        #expect(reason == "127.0.0.1:\(caster.port) did not answer as an NTRIP caster (it sent 'SSH-2.0-OpenSSH_9.2p1'); check the host and port.")
    }

    @Test func connectionRefused() async {
        let port = GPSFake.freePort()
        let endpoint = NTRIPEndpoint(host: "127.0.0.1", port: port, mount: "ORGN")
        let recorder = ClientRecorder(NTRIPClient(endpoint: endpoint, password: nil, reconnect: quickRetries))
        #expect(await eventually { recorder.failures.count >= 2 })
        recorder.stop()
        #expect(recorder.failures[0] == "cannot connect to the NTRIP caster 127.0.0.1:\(port): Connection refused. "
            + "Check the host and port (2101 unless given) and the network.")
        #expect(recorder.reported.first == CorrectionStreamStatus(caster: "127.0.0.1:\(port)/ORGN", state: .connecting))
    }

    @Test func aSilentCasterIsDroppedAndConnectedToAgain() async throws {
        let rtcm = NTRIPAnswerTests.rtcm
        let caster = try CannedCaster { n, _ in
            // Two connections send the stream and fall silent; any later one (a slow check) stays silent.
            n < 2 ? [.send(Array("ICY 200 OK\r\n".utf8) + rtcm), .holdOpen] : [.send(Array("ICY 200 OK\r\n".utf8)), .holdOpen]
        }
        defer { caster.stop() }
        let endpoint = NTRIPEndpoint(host: "127.0.0.1", port: caster.port, mount: "ORGN", version: .v1)
        let recorder = ClientRecorder(NTRIPClient(endpoint: endpoint, password: nil, reconnect: quickRetries, silence: .seconds(1)))
        #expect(await eventually { recorder.received.count >= 2 * rtcm.count })
        recorder.stop()
        #expect(recorder.failures.first == "the NTRIP caster 127.0.0.1:\(caster.port)/ORGN sent nothing for 1 s.")
        #expect(recorder.received == rtcm + rtcm, "the stream of the first connection, then of the second")
        #expect(caster.requests.count >= 2)
        #expect(caster.requests[0].hasPrefix("GET /ORGN HTTP/1.0\r\n"))
    }
}

@Suite(.serialized) struct NTRIPClientStreamTests {
    @Test func chunkedStreamPositionUploadsAndStatusAtMostOncePerSecond() async throws {
        let rtcm = try RTCMLog.stream()
        // The stream in 60 chunks over about 3 s.
        let caster = try CannedCaster { _, _ in
            var steps: [CannedCaster.Step] = [.send(Array("HTTP/1.1 200 OK\r\nNtrip-Version: Ntrip/2.0\r\nContent-Type: gnss/data\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))]
            var i = 0
            while i < rtcm.count {
                let piece = rtcm[i..<min(i + 190, rtcm.count)]
                steps.append(.send(Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]))
                steps.append(.pause(milliseconds: 50))
                i += 190
            }
            return steps + [.holdOpen]
        }
        defer { caster.stop() }
        let endpoint = NTRIPEndpoint(host: "127.0.0.1", port: caster.port, mount: "ORGN", user: "trees")
        // Silence is not what this test is about: however long a busy machine makes it wait, one connection.
        let client = NTRIPClient(endpoint: endpoint, password: "pw", userAgent: "trees/0.1.0", silence: .seconds(3600),
                                 positionInterval: .seconds(1))
        client.receiverPosition(SerialReceiver.gga)
        let recorder = ClientRecorder(client)
        #expect(await eventually { recorder.received.count >= rtcm.count })
        #expect(await eventually { caster.afterRequests.components(separatedBy: "GGA").count >= 3 }, "the position on connect and again")
        recorder.stop()
        #expect(recorder.received == rtcm)
        let request = try #require(caster.requests.first)
        #expect(request == "GET /ORGN HTTP/1.1\r\nHost: 127.0.0.1:\(caster.port)\r\nNtrip-Version: Ntrip/2.0\r\n"
            + "User-Agent: NTRIP trees/0.1.0\r\nAuthorization: Basic dHJlZXM6cHc=\r\nConnection: close\r\n\r\n")
        #expect(caster.afterRequests.hasPrefix(SerialReceiver.gga + "\r\n"))
        let streaming = recorder.reported.filter { $0.state == .streaming }
        #expect(streaming.count >= 2)
        #expect(streaming.count <= 8, "about once a second over about 3 s, not once per chunk (\(streaming.count))")
        #expect(streaming.map(\.bytes) == streaming.map(\.bytes).sorted())
        #expect(streaming.allSatisfy { $0.lastData != nil && $0.caster == "127.0.0.1:\(caster.port)/ORGN" })
    }

    @Test func positionFromAFixIsTheGGAAReceiverWouldSend() throws {
        let gga = sentence("GPGGA,181908.00,4403.60000,N,12118.60000,W,4,12,0.6,1100.0,M,-20.0,M,1.0,0001", lineEnd: "")
        var reader = NMEAFixReader()
        var fixes: [Fix] = []
        reader.feed(Array((gga + "\r\n" + sentence("GPGGA,181909.00,4403.60000,N,12118.60000,W,4,12,0.6,1100.0,M,-20.0,M,1.0,0001")).utf8)) {
            fixes.append($0)
        }
        var fix = try #require(fixes.first)
        #expect(fix.status == .rtkFixed)
        // GGA carries no date, so the reader gives no time; a receiver's RMC would.
        fix.time = Date(timeIntervalSince1970: 1_767_291_548)
        #expect(GGALines.sentence(for: fix) == gga)
        let client = NTRIPClient(endpoint: NTRIPEndpoint(host: "127.0.0.1", mount: "ORGN"), password: nil)
        client.receiverPosition(fix)
        #expect(client.latestPosition == gga)
        #expect(GGALines.sentence(for: Fix(mode: .noFix)) == nil)
    }

    @Test func positionWithoutAFixIsNotSent() {
        let client = NTRIPClient(endpoint: NTRIPEndpoint(host: "127.0.0.1", mount: "ORGN"), password: nil)
        client.receiverPosition(sentence("GPGGA,181909.00,,,,,0,00,99.9,,,,,,"))
        #expect(client.latestPosition == nil)
        client.receiverPosition(SerialReceiver.gga + "\r\n")
        #expect(client.latestPosition == SerialReceiver.gga)
    }
}

/// The client against RTKLIB's str2str, a real caster, with the receiver at the end of a
/// pseudo-terminal: the whole correction stream reaches it byte for byte, its position reaches
/// the caster, and a caster restart is survived.
@Suite(.serialized) struct NTRIPCasterTests {
    @Test(.enabled(if: Tool.str2str.shouldRun && Tool.socat.shouldRun), .tags(.gpsd))
    func serialReceiverGetsTheCastersStreamAndSurvivesARestart() async throws {
        _ = try Tool.str2str.require()
        _ = try Tool.socat.require()
        let rtcm = try RTCMLog.stream()
        #expect(rtcm.count == 11_400 && rtcm.first == 0xD3)
        let caster = Str2StrCaster(password: "orchard-secret")
        try caster.start()
        defer { caster.stop() }
        let receiver = try SerialReceiver()
        defer { receiver.stop() }
        let endpoint = NTRIPEndpoint(host: "127.0.0.1", port: caster.casterPort, mount: caster.mount, user: caster.user)
        // The caster is quiet between the steps below, which on a busy machine can take longer than
        // the usual 30 s of silence; this test is about the caster closing the connection.
        let client = NTRIPClient(endpoint: endpoint, password: "orchard-secret", silence: .seconds(600))
        let source = SerialSource(path: receiver.device, baud: 9600, corrections: client)
        let log = EventLog()
        let executor = ThreadExecutor(name: "serial source under test")
        defer { executor.stop() }
        let reader = Task(executorPreference: executor) {
            for try await event in source.events() { log.events.withLock { $0.append(event) } }
        }
        defer { reader.cancel() }
        func corrections() -> [CorrectionStreamStatus] {
            log.events.withLock { $0.compactMap { if case let .corrections(s) = $0 { s } else { nil } } }
        }

        var base = try BaseStation(port: caster.inputPort)
        // The receiver's GGA, picked from its NMEA, reaches the caster (which relays it to the base).
        // What the client had and saw, should it not: a position it never got, or a stream that failed.
        #expect(await eventually { base.hasHeard("GGA") },
                "no GGA reached the caster; the client's position: \(client.latestPosition ?? "none"); events: \(log.events.withLock { Array($0.suffix(12)) })")
        #expect(base.heardText.contains(SerialReceiver.gga + "\r\n"))
        base.send(rtcm)
        #expect(await eventually { receiver.received.count >= rtcm.count })
        #expect(receiver.received == rtcm, "the receiver gets the caster's stream byte for byte")
        #expect(await eventually { corrections().last.map { $0.state == .streaming && $0.bytes == rtcm.count } ?? false })

        // The caster goes away and comes back on the same port.
        caster.stop()
        #expect(await eventually { corrections().contains { if case .failed = $0.state { true } else { false } } })
        try caster.start()
        base = try BaseStation(port: caster.inputPort)
        #expect(await eventually { base.hasHeard("GGA") }, "the client came back and sent its position again")
        base.send(rtcm)
        #expect(await eventually { receiver.received.count >= 2 * rtcm.count })
        #expect(receiver.received.count == 2 * rtcm.count)
        #expect(Array(receiver.received.dropFirst(rtcm.count)) == rtcm)
        let failure = corrections().compactMap { if case let .failed(r) = $0.state { r } else { nil } }.first
        #expect(failure == "the connection to the NTRIP caster 127.0.0.1:\(caster.casterPort) ended: the caster closed the connection.")
        // The client's first status may come before or after the device's: they run side by side.
        let firstOfDevice = log.events.withLock { $0.first { if case .corrections = $0 { false } else { true } } }
        #expect(firstOfDevice == .connected(version: nil, devices: [DeviceInfo(path: receiver.device, driver: "NMEA0183", subtype: "9600 baud")]))
    }
}
