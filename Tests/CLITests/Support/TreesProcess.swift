import Foundation
import Testing
import TreesTestSupport

/// Runs the built `trees` binary the way a user would, capturing exit status, stdout and stderr.
struct TreesProcess {
    typealias Result = ProgramOutput

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
    let scratch: TemporaryFolder
    var folder: URL { scratch.url }
    var database: String { scratch.path("trees.sqlite") }
    /// Environment given to every run: UTC, no colour, a fixed clock unless overridden.
    var environment: [String: String]

    init(now: String? = "2026-05-01T10:00:00.000Z") throws {
        scratch = try TemporaryFolder("trees-test")
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        env["NO_COLOR"] = "1"
        env["TREES_DB"] = scratch.path("trees.sqlite")
        env["HOME"] = scratch.path
        env.removeValue(forKey: "XDG_DATA_HOME")
        if let now { env["TREES_NOW"] = now } else { env.removeValue(forKey: "TREES_NOW") }
        environment = env
    }

    func cleanUp() { scratch.remove() }

    /// Makes an empty store at `path` (the test's store by default), as importing a file of no
    /// trees does: commands that only read refuse a named path where no store is.
    func makeEmptyStore(at path: String? = nil) throws {
        let empty = scratch.path("empty-\(UUID().uuidString).gpx")
        try #"<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"></gpx>"#
            .write(toFile: empty, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let r = try run(["import", empty, "--db", path ?? database])
        #expect(r.status == 0, "\(r)")
    }

    /// Runs `trees` with `arguments` to the end. `launcher` runs it through another program, e.g.
    /// `setpriv` to run it as another user; `standardOutput` sends its output elsewhere.
    @discardableResult
    func run(_ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:],
             currentDirectory: URL? = nil, launcher: [String] = [], standardOutput: FileHandle? = nil) throws -> Result {
        try Program.run(Self.executable.path, arguments, stdin: stdin, environment: environment.merging(extra) { $1 },
                        currentDirectory: currentDirectory, launcher: launcher, standardOutput: standardOutput)
    }

    /// Starts `trees` with `arguments` and leaves it running, for a test that watches or signals it.
    func start(_ arguments: [String]) throws -> RunningProgram {
        try Program.start(Self.executable.path, arguments, environment: environment)
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
    func dump() throws -> String { try Program.run("/usr/bin/sqlite3", [database, ".dump"]).stdout }
}
