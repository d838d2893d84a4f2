import Foundation
import Synchronization

/// A gpsd fed by gpsfake from an NMEA log, for tests against the real daemon.
///
/// Started and stopped through `scripts/gpsfake-start` / `scripts/gpsfake-stop`: a free port per
/// instance, gpsd up and listening before `start` returns, and the whole process group (gpsfake
/// and its gpsd) gone after `stop`.
package final class GPSFake: @unchecked Sendable {
    package let port: Int
    package let pid: Int32
    private let folder: TemporaryFolder
    private let feederStop = FeederStop()
    private let feederProgress = FeederProgress()
    private var stopped = false

    /// A log under `Tests/LocationTests/Fixtures`.
    package static func fixture(_ name: String) -> String {
        Repository.path("Tests/LocationTests/Fixtures/\(name)")
    }

    /// Starts gpsd and gpsfake. gpsfake reads its log from a FIFO that is filled only once a client
    /// is connected to gpsd, so the client sees every epoch however slowly it gets going.
    package init(log: String, port: Int? = nil, cycle: Double = 0.02) throws {
        let folder = try TemporaryFolder("gpsfake")
        let fifo = folder.path((log as NSString).lastPathComponent)
        guard mkfifo(fifo, 0o600) == 0 else { throw GPSFakeError(message: "cannot make a FIFO at \(fifo)") }
        self.folder = folder
        var args = [Repository.path("scripts/gpsfake-start"), fifo]
        // A port from the tests' own range, unique in this process: one the kernel handed to
        // gpsfake-start could be handed to another session starting at the same time, whose
        // readiness check would then find this session's gpsd.
        args.append(String(port ?? Self.freePort()))
        args.append(String(cycle))
        let out = try Self.run(args)
        let parts = out.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard parts.count == 2 else { throw GPSFakeError(message: "gpsfake-start said: \(out)") }
        self.port = parts[0]
        self.pid = Int32(parts[1])
        let content = try Data(contentsOf: URL(fileURLWithPath: log))
        let servedPort = self.port
        let stopped = self.feederStop
        let fakePID = self.pid
        let progress = self.feederProgress
        Thread {
            // Wait for a client (at most five minutes: a loaded machine is slow), then give gpsfake its log. gpsfake reads the
            // file twice (once whole, then again to split it into packets), so it is written twice,
            // the second time once gpsfake waits in open(2) for it.
            signal(SIGPIPE, SIG_IGN)
            var deadline = Date().addingTimeInterval(300)
            let started = Date()
            func note(_ step: String) { progress.set(String(format: "%@ (after %.1f s)", step, Date().timeIntervalSince(started))) }
            note("waiting for a client")
            while !Self.hasClient(port: servedPort) && Date() < deadline && !stopped.isSet { usleep(20_000) }
            if stopped.isSet { return }
            // Past the deadline without a client the log is given all the same: a client that
            // comes later still sees the epochs gpsfake has not yet played.
            let seen = Date() < deadline ? "client seen" : "no client seen"
            for pass in 0..<2 {
                note(pass == 0 ? "\(seen); opening the FIFO for the first reading" : "first reading written; waiting for gpsfake to open the FIFO again")
                if pass == 0 { deadline = Date().addingTimeInterval(120) }
                if pass == 1 {
                    while Self.waitChannel(fakePID) != "wait_for_partner" && Date() < deadline && !stopped.isSet {
                        usleep(5_000)
                    }
                }
                var fd: Int32 = -1
                while fd < 0 && !stopped.isSet && Date() < deadline {
                    fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                    if fd < 0 { usleep(10_000) }
                }
                guard fd >= 0 else { return }
                defer { close(fd) }
                var offset = 0
                while offset < content.count && !stopped.isSet {
                    let n = content.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
                    if n > 0 { offset += n } else if errno == EAGAIN { usleep(5_000) } else { return }
                }
            }
            note("log given to gpsfake")
        }.start()
    }

    /// What a process waits on in the kernel (`wait_for_partner`: opening a FIFO nobody writes to).
    static func waitChannel(_ pid: Int32) -> String {
        ProcFile.text("/proc/\(pid)/wchan") ?? ""
    }

    /// True when a TCP connection to `port` on this machine is established (from /proc/net/tcp).
    package static func hasClient(port: Int) -> Bool {
        let hex = String(format: ":%04X", port)
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = ProcFile.text(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")
                if f.count > 3, f[1].hasSuffix(hex), f[3] == "01" { return true }
            }
        }
        return false
    }

    package func stop() {
        guard !stopped else { return }
        stopped = true
        // A session whose log never reached gpsfake says where the hand-over stopped.
        let step = feederProgress.value
        if !step.hasPrefix("log given") {
            let hex = String(format: ":%04X", port)
            let lines = ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { (ProcFile.text($0) ?? "").split(separator: "\n").filter { $0.contains(hex) } }
            FileHandle.standardError.write(Data("gpsfake on port \(port), log \(folder.path("")): stopped while \(step); gpsfake waits in \(Self.waitChannel(pid)); sockets now: \(lines)\n".utf8))
        }
        _ = try? Self.run([Repository.path("scripts/gpsfake-stop"), String(pid)])
        feederStop.set()
        folder.remove()
    }

    deinit { stop() }

    /// Runs one of the gpsfake scripts; what it printed.
    @discardableResult
    private static func run(_ args: [String]) throws -> String {
        let r = try Program.run("/bin/bash", args)
        guard r.status == 0 else { throw GPSFakeError(message: "\(args[0]) failed: \(r.stdout)\(r.stderr)") }
        return r.stdout
    }

    /// A TCP port nobody listens on, for a server a test starts itself (gpsd, a caster).
    ///
    /// Taken from 20000–29999, below the kernel's range for ports it hands out by itself (32768 and
    /// up), and each handed out once within the process: two servers starting at the same time
    /// (gpsfake's gpsd, a caster, a database) never get the same port, and a test waiting for its
    /// own server never connects to someone else's.
    package static func freePort() -> Int {
        nextPort.withLock { next in
            while true {
                let port = 20_000 + next % 10_000
                next += 1
                if isFree(port) { return port }
            }
        }
    }

    private static let nextPort = Mutex(Int(getpid()) * 37 % 10_000)

    /// True when 127.0.0.1:`port` can be bound now.
    private static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        let len = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 }
        }
    }
}

/// Where the feeding thread has got to.
private final class FeederProgress: @unchecked Sendable {
    private let lock = NSLock()
    private var step = "not started"
    func set(_ value: String) { lock.lock(); step = value; lock.unlock() }
    var value: String { lock.lock(); defer { lock.unlock() }; return step }
}

/// Tells the feeding thread to give up.
private final class FeederStop: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

package struct GPSFakeError: Error, CustomStringConvertible {
    package var message: String
    package init(message: String) { self.message = message }
    package var description: String { message }
}
