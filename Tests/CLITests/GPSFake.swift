import Foundation
import Testing

/// A gpsd fed by gpsfake from an NMEA log, for tests against the real daemon.
///
/// Started and stopped through `scripts/gpsfake-start` / `scripts/gpsfake-stop`: a free port per
/// instance, gpsd up and listening before `start` returns, and the whole process group (gpsfake
/// and its gpsd) gone after `stop`.
final class CLIGPSFake: @unchecked Sendable {
    let port: Int
    let pid: Int32
    private var stopped = false

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func fixture(_ name: String) -> String {
        packageRoot.appendingPathComponent("Tests/LocationTests/Fixtures/\(name)").path
    }

    /// True when gpsfake can run here. In CI (`CI=true`) a missing gpsfake is a failure, not a skip.
    static var isAvailable: Bool {
        let found = ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"].contains { FileManager.default.isExecutableFile(atPath: $0) }
        if !found && ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("gpsfake is not installed; CI must install gpsd and gpsd-clients")
        }
        return found
    }

    init(log: String, port: Int? = nil, cycle: Double = 0.02) throws {
        var args = [Self.packageRoot.appendingPathComponent("scripts/gpsfake-start").path, log]
        args.append(port.map(String.init) ?? "")
        args.append(String(cycle))
        let out = try Self.run(args)
        let parts = out.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard parts.count == 2 else { throw CLIGPSFakeError(message: "gpsfake-start said: \(out)") }
        self.port = parts[0]
        self.pid = Int32(parts[1])
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? Self.run([Self.packageRoot.appendingPathComponent("scripts/gpsfake-stop").path, String(pid)])
    }

    deinit { stop() }

    @discardableResult
    static func run(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.standardError
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard p.terminationStatus == 0 else { throw CLIGPSFakeError(message: "\(args[0]) failed: \(text)") }
        return text
    }

    /// A TCP port nobody listens on.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        _ = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}

struct CLIGPSFakeError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
