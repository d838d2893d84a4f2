import Foundation
import Testing
import TreesTestSupport

/// Runs the built `trees` binary the way a user would, capturing exit status, stdout and stderr.
struct TreesProcess {
    struct Result: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String
        var description: String { "status \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
    }

    /// The `trees` executable: `$TREES_BIN`, else beside the test bundle in the build folder.
    static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["TREES_BIN"] { return URL(fileURLWithPath: path) }
        return productsDirectory.appendingPathComponent("trees")
    }

    static var productsDirectory: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return Bundle.main.bundleURL
    }

    /// A scratch folder with a database path; removed by `cleanUp()`.
    let folder: URL
    var database: String { folder.appendingPathComponent("trees.sqlite").path }
    /// Environment given to every run: UTC, no colour, a fixed clock unless overridden.
    var environment: [String: String]

    init(now: String? = "2026-05-01T10:00:00.000Z") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("trees-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        env["NO_COLOR"] = "1"
        env["TREES_DB"] = folder.appendingPathComponent("trees.sqlite").path
        env["HOME"] = folder.path
        env.removeValue(forKey: "XDG_DATA_HOME")
        if let now { env["TREES_NOW"] = now } else { env.removeValue(forKey: "TREES_NOW") }
        environment = env
    }

    func cleanUp() { try? FileManager.default.removeItem(at: folder) }

    @discardableResult
    /// `launcher` runs `trees` through another program, e.g. `setpriv` to run it as another user.
    func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:],
             currentDirectory: URL? = nil, launcher: [String] = []) throws -> Result {
        let process = Process()
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [Self.executable.path] + arguments
        } else {
            process.executableURL = Self.executable
            process.arguments = arguments
        }
        process.environment = environment.merging(extra) { $1 }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes concurrently so a full pipe never blocks the child.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A byte-for-byte snapshot of the database files, to prove a refused command changed nothing.
    func snapshot() -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] {
            let path = database + suffix
            if let data = FileManager.default.contents(atPath: path) { files[suffix] = data }
        }
        return files
    }

    /// Rows of every table, as text, for comparing logical content.
    func dump() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [database, ".dump"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
