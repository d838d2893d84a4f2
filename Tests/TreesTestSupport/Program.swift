import Foundation

/// What a finished program did: how it ended and everything it wrote.
package struct ProgramOutput: CustomStringConvertible {
    /// The exit status, or the number of the signal that ended it (see `reason`).
    package var status: Int32
    package var reason: Process.TerminationReason
    /// Standard output as UTF-8; empty when it went elsewhere (`standardOutput:`).
    package var stdout: String
    package var stderr: String

    package var description: String { "status \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}

/// Runs the programs the tests need: the built `trees`, sqlite3, xmllint, the gpsfake scripts and so on.
///
/// Standard output and standard error are read at the same time, each on a thread of its own, and
/// standard input is written on a third: a program that fills one pipe while we wait on another
/// would otherwise stall for ever.
package enum Program {
    /// Runs `executable` with `arguments` and waits for it to end.
    ///
    /// - Parameters:
    ///   - stdin: given on standard input, which is then closed; without it standard input is
    ///     empty (closed at once).
    ///   - environment: the program's whole environment; this process's when nil.
    ///   - launcher: a program and its arguments that run `executable` in turn, e.g.
    ///     `["/usr/bin/setpriv", "--reuid", "65534"]`: `launcher[0]` is started with the rest of
    ///     `launcher`, then `executable`, then `arguments`.
    ///   - standardOutput: where standard output goes instead of being captured (`/dev/full`, say).
    @discardableResult
    package static func run(
        _ executable: String, _ arguments: [String] = [], stdin: Data? = nil, environment: [String: String]? = nil,
        currentDirectory: URL? = nil, launcher: [String] = [], standardOutput: FileHandle? = nil
    ) throws -> ProgramOutput {
        try start(executable, arguments, stdin: stdin, environment: environment, currentDirectory: currentDirectory,
                  launcher: launcher, standardOutput: standardOutput).wait()
    }

    /// Starts `executable` as `run` does, without waiting: for a program that must be watched,
    /// signalled or overlapped with another while it runs.
    package static func start(
        _ executable: String, _ arguments: [String] = [], stdin: Data? = nil, environment: [String: String]? = nil,
        currentDirectory: URL? = nil, launcher: [String] = [], standardOutput: FileHandle? = nil
    ) throws -> RunningProgram {
        let process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = standardOutput ?? output
        process.standardError = errors
        try process.run()
        Feeder.start(stdin ?? Data(), into: input.fileHandleForWriting)
        return RunningProgram(process: process, stdout: standardOutput == nil ? Drain(output.fileHandleForReading) : nil,
                              stderr: Drain(errors.fileHandleForReading))
    }
}

/// A program started by `Program.start`; what it writes is read as it runs.
package final class RunningProgram: @unchecked Sendable {
    package let process: Process
    private let stdout: Drain?
    private let stderr: Drain

    fileprivate init(process: Process, stdout: Drain?, stderr: Drain) {
        self.process = process
        self.stdout = stdout
        self.stderr = stderr
    }

    package var isRunning: Bool { process.isRunning }
    package var processIdentifier: Int32 { process.processIdentifier }

    /// Sends `signal` (SIGINT, SIGKILL…) to the program.
    package func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the program to end and for the last of its output.
    package func wait() -> ProgramOutput {
        let out = stdout?.wait() ?? Data()
        let err = stderr.wait()
        process.waitUntilExit()
        return ProgramOutput(status: process.terminationStatus, reason: process.terminationReason,
                             stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

/// Reads a pipe to its end on a thread of its own.
private final class Drain: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// Everything read, once the writer closed its end.
    func wait() -> Data {
        done.wait()
        done.signal()
        return data
    }
}

/// Writes a program's standard input on a thread of its own, then closes it.
private enum Feeder {
    static func start(_ data: Data, into handle: FileHandle) {
        guard !data.isEmpty else {
            try? handle.close()
            return
        }
        Thread {
            // A program that exits without reading all its input makes the write fail (EPIPE);
            // the signal that comes with it is blocked on this thread so it cannot end the tests.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            try? handle.write(contentsOf: data)
            try? handle.close()
        }.start()
    }
}

/// For programs a test starts with `posix_spawn` that may outlive the call (a database server,
/// tmux's server): they must not keep the test process's descriptors. An inherited write end of a
/// FIFO or a pipe means its reader never sees the end of its input, and an inherited socket keeps
/// a connection open after the test closed it.
package enum SpawnedDescriptors {
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// Adds to `actions` the closing of every descriptor from 3 up in the child.
    package static func closeInherited(_ actions: inout posix_spawn_file_actions_t) {
        // glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later) is not in Swift's view
        // of <spawn.h>; without it, every descriptor open now is closed one by one.
        if let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, 3) == 0 { return }
        }
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for fd in open.compactMap(Int32.init) where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }
}

/// `accept(2)` whose connection no program the test starts inherits.
package func acceptClosingOnExec(_ listener: Int32) -> Int32 {
    let fd = accept(listener, nil, nil)
    if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return fd
}

/// Files of /proc read to their end. Foundation reads a file whose size the kernel gives as 0 only
/// as far as its first read returns: 4 KiB of /proc/net/tcp, 27 sockets, so a connection further
/// down the table was never seen once the suite had many sockets open.
package enum ProcFile {
    package static func data(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 { out.append(contentsOf: buffer[0..<n]); continue }
            if n < 0 && errno == EINTR { continue }
            return n == 0 ? out : nil
        }
    }

    package static func text(_ path: String) -> String? {
        data(path).map { String(decoding: $0, as: UTF8.self) }
    }
}
