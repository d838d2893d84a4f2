import Foundation

/// Drives the built `trees` binary in a real pseudo-terminal through tmux: type keys, read the screen.
final class TmuxSession {
    let name: String
    let socket: String

    /// Starts `command` (a shell command line) in a detached tmux session of the given size.
    init(command: String, environment: [String: String], width: Int = 120, height: Int = 40) throws {
        name = "trees-\(UUID().uuidString.prefix(8))"
        socket = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(name)").path
        let exports = environment.map { "export \($0.key)=\(Self.quote($0.value));" }.joined(separator: " ")
        // The pane stays after the command exits so its last screen and status can be read.
        try Self.tmux(socket, ["new-session", "-d", "-s", name, "-x", String(width), "-y", String(height),
                               "sh", "-c", "\(exports) \(command); echo \"[exit $?]\"; sleep 600"])
    }

    deinit { try? Self.tmux(socket, ["kill-server"]) }

    func send(_ keys: String...) throws { try Self.tmux(socket, ["send-keys", "-t", name] + keys) }

    /// Types text literally (no key names).
    func type(_ text: String) throws { try Self.tmux(socket, ["send-keys", "-t", name, "-l", text]) }

    func screen() throws -> String { try Self.tmux(socket, ["capture-pane", "-p", "-t", name]) }

    /// Waits until the screen contains `text`; returns the screen, or throws after `timeout` seconds.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 30) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return last }
            usleep(100_000)
        }
        throw TmuxError("timed out waiting for \"\(text)\"; screen:\n\(last)")
    }

    @discardableResult
    static func tmux(_ socket: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        p.arguments = ["-S", socket] + arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TmuxError("tmux \(arguments.joined(separator: " ")) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
