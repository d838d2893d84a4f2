import Foundation

/// The RTCM3 logs of the corpus (`Tests/Corpus/rtcm`).
package enum RTCMLog {
    /// The correction stream of gpsd's log `name`: its bytes after the `#` header lines.
    package static func stream(_ name: String = "rtcm3.bndm.log") throws -> [UInt8] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Corpus.path("rtcm/" + name))))
        var start = 0
        while start < bytes.count, bytes[start] == UInt8(ascii: "#"), let end = bytes[start...].firstIndex(of: 0x0A) {
            start = end + 1
        }
        return Array(bytes[start...])
    }
}

/// RTKLIB's `str2str` as an NTRIP caster on loopback: what a base station writes to its input
/// port (`tcpsvr`) goes out on the mount point to every client the caster has accepted, and
/// what clients send (their GGA) is relayed back to the base station (`-b 1`).
package final class Str2StrCaster: @unchecked Sendable {
    /// The fields of the mount's STR record after the mount point.
    package static let defaultRecord =
        "Bend ORGN;RTCM 3.1;1004(1),1006(10),1008(10),1012(1);2;GPS+GLO;ORGN;USA;44.06;-121.31;1;0;RTKLIB;none;B;N;9600;trees tests"

    package let casterPort: Int
    package let inputPort: Int
    package let mount: String
    package let user: String
    package let password: String?
    package let record: String
    private var process: RunningProgram?

    /// A caster on free ports; `start()` runs it.
    package init(mount: String = "ORGN", user: String = "trees", password: String? = nil, record: String = defaultRecord) {
        casterPort = GPSFake.freePort()
        var input = GPSFake.freePort()
        while input == casterPort { input = GPSFake.freePort() }
        inputPort = input
        self.mount = mount; self.user = user; self.password = password; self.record = record
    }

    /// Starts `str2str` and waits until its caster port takes connections.
    package func start(timeout: Duration = .seconds(60)) throws {
        let program = try Tool.str2str.require()
        let credentials = password.map { "\(user):\($0)@" } ?? ""
        process = try Program.start(program, [
            "-in", "tcpsvr://:\(inputPort)",
            "-out", "ntripc://\(credentials):\(casterPort)/\(mount):\(record)",
            "-b", "1",
        ])
        let deadline = ContinuousClock.now + timeout
        while !Loopback.accepts(port: casterPort) {
            guard ContinuousClock.now < deadline, process?.isRunning == true else {
                let output = stop()
                throw GPSFakeError(message: "str2str did not open port \(casterPort): \(output.map(String.init(describing:)) ?? "")")
            }
            usleep(50_000)
        }
    }

    /// Ends `str2str` (SIGKILL: a caster that goes away without a goodbye) and returns its output.
    @discardableResult
    package func stop() -> ProgramOutput? {
        guard let p = process else { return nil }
        process = nil
        if p.isRunning { p.send(SIGKILL) }
        return p.wait()
    }

    deinit { stop() }
}

/// Loopback TCP for the tests' servers and clients.
package enum Loopback {
    /// True when something accepts a connection on 127.0.0.1:`port` (the connection is closed at once).
    package static func accepts(port: Int) -> Bool {
        let fd = connect(port: port)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }

    /// A connected socket to 127.0.0.1:`port`, or -1.
    package static func connect(port: Int) -> Int32 {
        socket(port: port) { fd, address, length in Foundation.connect(fd, address, length) == 0 }
    }

    /// A socket listening on 127.0.0.1:`port`, or -1.
    package static func listen(port: Int, backlog: Int32 = 128) -> Int32 {
        socket(port: port) { fd, address, length in bind(fd, address, length) == 0 && Foundation.listen(fd, backlog) == 0 }
    }

    /// A close-on-exec TCP socket that `use` has bound or connected to 127.0.0.1:`port`, or -1.
    private static func socket(port: Int, _ use: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool) -> Int32 {
        let fd = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let ok = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { use(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if !ok { close(fd); return -1 }
        return fd
    }

    /// Writes all of `bytes` to `fd`; false when the peer is gone.
    @discardableResult
    package static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { if errno == EINTR { continue }; return false }
            offset += n
        }
        return true
    }

    /// Reads what arrives within `milliseconds`; nil when the peer closed.
    package static func read(_ fd: Int32, milliseconds: Int32) -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, milliseconds) > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return n == 0 || (errno != EAGAIN && errno != EINTR) ? nil : [] }
        return Array(buffer[..<n])
    }
}

/// The base station's side of a `Str2StrCaster`: writes corrections into the caster, reads what
/// its clients send back.
package final class BaseStation {
    private let fd: Int32
    private var heard: [UInt8] = []

    /// Connects to the caster's input port, trying until `timeout`.
    package init(port: Int, timeout: Duration = .seconds(60)) throws {
        let deadline = ContinuousClock.now + timeout
        var fd = Loopback.connect(port: port)
        while fd < 0 {
            guard ContinuousClock.now < deadline else { throw GPSFakeError(message: "cannot reach the caster's input port \(port)") }
            usleep(50_000)
            fd = Loopback.connect(port: port)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    package func send(_ bytes: [UInt8]) { Loopback.write(fd, bytes) }

    /// Takes in what the clients sent so far, without waiting; true once it contains `text`. For
    /// async tests, which must not hold a thread of the shared pool while they wait.
    package func hasHeard(_ text: String) -> Bool {
        while let more = Loopback.read(fd, milliseconds: 0), !more.isEmpty { heard += more }
        return String(decoding: heard, as: UTF8.self).contains(text)
    }

    /// What the clients sent so far.
    package var heardText: String { String(decoding: heard, as: UTF8.self) }

    /// Waits until the clients have sent a line containing `text`; the text heard so far, or nil at the deadline.
    package func waitFor(_ text: String, timeout: Duration = .seconds(120)) -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let sofar = String(decoding: heard, as: UTF8.self)
            if sofar.contains(text) { return sofar }
            guard let more = Loopback.read(fd, milliseconds: 100) else { return nil }
            heard += more
        }
        return nil
    }
}

/// A caster that gives canned answers, for the answers a real caster is not made to give
/// (garbage, 404, a source table for a mount it has…). It records each request and what the
/// client sends after it.
package final class CannedCaster: @unchecked Sendable {
    package enum Step: Sendable {
        case send([UInt8])
        case pause(milliseconds: Int)
        /// Keeps the connection open (reading what the client sends) until the client or `stop()` ends it.
        case holdOpen
    }

    package let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var recordedRequests: [String] = []
    private var recordedAfter: [UInt8] = []
    private let script: @Sendable (_ connection: Int, _ request: String) -> [Step]

    /// Listens on a free loopback port; `script` says what to answer connection number N (from 0).
    package init(script: @escaping @Sendable (_ connection: Int, _ request: String) -> [Step]) throws {
        self.script = script
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 16) == 0 else { close(fd); throw GPSFakeError(message: "cannot listen on loopback") }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// Answers `text` (then closes) to every request.
    package convenience init(answering text: String) throws {
        try self.init { _, _ in [.send(Array(text.utf8))] }
    }

    deinit { stop() }

    package func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// The requests received so far, each up to its empty line.
    package var requests: [String] { lock.withLock { recordedRequests } }

    /// What clients sent after their requests (their GGA sentences).
    package var afterRequests: String { lock.withLock { String(decoding: recordedAfter, as: UTF8.self) } }

    private func acceptLoop() {
        var count = 0
        while !isStopped {
            var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let client = acceptClosingOnExec(listener)
            guard client >= 0 else { continue }
            let number = count
            count += 1
            Thread { [self] in serve(client, number: number) }.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32, number: Int) {
        defer { close(fd) }
        var request: [UInt8] = []
        let end = Array("\r\n\r\n".utf8)
        let deadline = ContinuousClock.now + .seconds(60)
        while !request.contains(end) {
            guard ContinuousClock.now < deadline, !isStopped, let more = Loopback.read(fd, milliseconds: 100) else { return }
            request += more
        }
        let split = request.firstRange(of: end)!.upperBound
        lock.withLock {
            recordedRequests.append(String(decoding: request[..<split], as: UTF8.self))
            recordedAfter += request[split...]
        }
        func listen(for milliseconds: Int) -> Bool {
            let until = ContinuousClock.now + .milliseconds(milliseconds)
            repeat {
                guard let more = Loopback.read(fd, milliseconds: 50) else { return false }
                lock.withLock { recordedAfter += more }
            } while ContinuousClock.now < until && !isStopped
            return true
        }
        for step in script(number, String(decoding: request[..<split], as: UTF8.self)) {
            switch step {
            case let .send(bytes):
                guard Loopback.write(fd, bytes) else { return }
            case let .pause(milliseconds):
                guard listen(for: milliseconds) else { return }
            case .holdOpen:
                while !isStopped { guard listen(for: 100) else { return } }
            }
        }
    }
}

/// A receiver at the end of a serial line made by socat (`device` is what `trees` opens): it sends
/// a GGA sentence with a fix every 200 ms and keeps every byte written to it (the corrections).
package final class SerialReceiver: @unchecked Sendable {
    /// A fix near Bend, Oregon (where the ORGN corrections come from), with a good checksum.
    package static let gga = sentence("GPGGA,181908.00,4403.6000,N,12118.6000,W,1,08,1.0,1100.0,M,-20.0,M,,", lineEnd: "")

    package let folder: TemporaryFolder
    package let device: String
    private let process: RunningProgram
    private let lock = NSLock()
    private var bytes: [UInt8] = []
    private var stopped = false

    package init() throws {
        folder = try TemporaryFolder("trees-receiver")
        device = folder.path("gps")
        let feed = folder.path("feed")
        process = try Program.start(try Tool.socat.require(), ["pty,raw,echo=0,link=\(device)", "pty,raw,echo=0,link=\(feed)"])
        let deadline = ContinuousClock.now + .seconds(30)
        while !(FileManager.default.fileExists(atPath: device) && FileManager.default.fileExists(atPath: feed)) {
            guard ContinuousClock.now < deadline else { throw GPSFakeError(message: "socat made no pseudo-terminals") }
            usleep(20_000)
        }
        let fd = open(feed, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw GPSFakeError(message: "cannot open \(feed)") }
        Thread { [self] in talk(fd) }.start()
    }

    /// Everything written to the receiver so far.
    package var received: [UInt8] { lock.withLock { bytes } }

    package func stop() {
        lock.withLock { stopped = true }
        if process.isRunning { process.send(SIGKILL) }
        _ = process.wait()
    }

    deinit { stop() }

    private func talk(_ fd: Int32) {
        defer { close(fd) }
        var lastSent = ContinuousClock.now - .seconds(1)
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !lock.withLock({ stopped }) {
            if ContinuousClock.now - lastSent >= .milliseconds(200) {
                let line = Array((Self.gga + "\r\n").utf8)
                _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                lastSent = ContinuousClock.now
            }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 50) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                lock.withLock { bytes += buffer[..<n] }
            } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                return
            }
        }
    }
}
