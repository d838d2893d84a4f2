import Foundation
import TreesTestSupport

/// Drives the built `trees` binary in a real pseudo-terminal through tmux: type keys, read the screen.
final class TmuxSession {
    let name: String
    let socket: String

    /// Starts `command` (a shell command line) in a detached tmux session of the given size.
    init(command: String, environment: [String: String], width: Int = 120, height: Int = 40) throws {
        name = "trees-\(UUID().uuidString.prefix(8))"
        socket = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(name)").path
        let exports = environment.map { "export \($0.key)=\(Self.quote($0.value));" }.joined(separator: " ")
        // The pane stays after the command exits so its last screen, its exit status and the terminal's
        // line discipline afterwards (icanon, echo: restored or not) can be read.
        try Self.tmux(socket, ["new-session", "-d", "-s", name, "-x", String(width), "-y", String(height),
                               "sh", "-c", "trap true INT; \(exports) \(command); echo \"[exit $?] tty: $(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' ')\"; sleep 600"])
    }

    deinit { _ = try? Self.tmux(socket, ["kill-server"]) }

    func send(_ keys: String...) throws { try Self.tmux(socket, ["send-keys", "-t", name] + keys) }

    /// Types text literally (no key names).
    func type(_ text: String) throws { try Self.tmux(socket, ["send-keys", "-t", name, "-l", text]) }

    func screen() throws -> String { try Self.tmux(socket, ["capture-pane", "-p", "-t", name]) }

    /// Waits until the screen contains `text`; returns the screen, or throws after `timeout` seconds.
    @discardableResult
    func waitFor(_ text: String, timeout: Double = 120) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if last.contains(text) { return last }
            usleep(100_000)
        }
        throw TmuxError("timed out waiting for \"\(text)\"; screen:\n\(last)")
    }

    /// Runs tmux with posix_spawn and waitpid: Foundation's Process can wait forever when the
    /// command leaves a daemon (the tmux server) behind.
    @discardableResult
    static func tmux(_ socket: String, _ arguments: [String]) throws -> String {
        let outFile = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-out-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: outFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        SpawnedDescriptors.closeInherited(&actions)
        let argv = (["/usr/bin/tmux", "-S", socket] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The test runner blocks signals and its children inherit the mask: give tmux (its server,
        // and through it the program under test) an empty mask and default handlers.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/usr/bin/tmux", &actions, &attributes, argv, environ) == 0 else {
            throw TmuxError("cannot start tmux")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw TmuxError("tmux \(arguments.prefix(3).joined(separator: " ")) failed") }
        return (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
    }

    static func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
