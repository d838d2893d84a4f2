import Foundation

/// Runs a program as a child process and measures it: wall time and peak resident memory.
struct Measurement {
    var seconds: Double
    /// Peak resident set size of the child, in bytes (from wait4's rusage).
    var peakBytes: Int
    var status: Int32
    /// Processor time of the child, user and system, in seconds (from wait4's rusage): unlike the
    /// wall time, it does not grow when other work on the machine takes the processors.
    var cpuSeconds: Double = 0

    var peakMB: Double { Double(peakBytes) / 1_048_576 }
}

enum Harness {
    /// Runs `executable` with `arguments`; stdout goes to `stdoutPath` (default /dev/null), stderr is kept.
    static func measure(_ executable: String, _ arguments: [String], stdoutPath: String = "/dev/null",
                        environment: [String: String] = [:]) throws -> Measurement {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let env = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { env.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let rc = posix_spawnp(&pid, executable, &actions, nil, argv, env)
        guard rc == 0 else { throw BenchError("cannot start \(executable): \(String(cString: strerror(rc)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Measurement(seconds: seconds, peakBytes: Int(usage.ru_maxrss) * 1024, status: exit, cpuSeconds: cpu)
    }

    /// Runs the measurement `runs` times and keeps the median run (the lower middle one of an
    /// even number); peak memory is the largest seen.
    static func median(of runs: Int, _ body: () throws -> Measurement) throws -> Measurement {
        var all: [Measurement] = []
        for _ in 0..<max(1, runs) { all.append(try body()) }
        all.sort { $0.seconds < $1.seconds }
        var result = all[(all.count - 1) / 2]
        result.peakBytes = all.map(\.peakBytes).max() ?? 0
        return result
    }

    /// A new folder for one benchmark's files, `trees-bench-NAME-PID` in the temporary folder; the
    /// caller removes it.
    static func scratchFolder(_ name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-bench-\(name)-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The median of `values`: the middle one, or the mean of the two middle ones of an even number.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The `trees` binary: `--trees PATH`, else beside this benchmark binary.
    static func treesBinary(_ arguments: [String]) -> String {
        if let i = arguments.firstIndex(of: "--trees"), i + 1 < arguments.count { return arguments[i + 1] }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("trees").path
    }

    /// Says how the measured binary gets the Swift runtime: numbers for a binary that loads it
    /// dynamically include about 7 ms of dynamic linking per run that an installed `trees` does not pay.
    static func linkage(of binary: String) -> String {
        // Read in small pieces: a child's peak memory (wait4) starts from this process's own peak.
        guard let handle = FileHandle(forReadingAtPath: binary) else { return "trees: \(binary) (not readable)" }
        defer { try? handle.close() }
        let needle = Data("libswiftCore.so".utf8)
        var carry = Data()
        var dynamic = false
        while !dynamic, let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            let window = carry + chunk
            dynamic = window.range(of: needle) != nil
            carry = window.suffix(needle.count - 1)
        }
        return dynamic
            ? "trees: \(binary), Swift runtime loaded dynamically (make install links it in: build with --static-swift-stdlib)"
            : "trees: \(binary), Swift runtime linked in (as make install builds it)"
    }

    /// This process's own peak resident memory: children's peaks are reported no lower than it.
    static var ownPeakMB: Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    static func option(_ name: String, in arguments: [String]) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    static func row(_ cells: [String]) -> String { cells.joined(separator: "\t") }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
