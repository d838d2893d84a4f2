import Foundation

/// External programs the tests drive. A test that needs one carries `.enabled(if: Tool.x.shouldRun)`:
/// where the program is missing it is reported as skipped, except under `CI=true`, where it runs
/// and fails on `Tool.x.require()`: a missing tool must never look like a pass.
struct Tool: Sendable {
    let name: String
    let paths: [String]
    let package: String

    var isInstalled: Bool { paths.contains { FileManager.default.isExecutableFile(atPath: $0) } }

    /// True when the test should run: the tool is here, or this is CI.
    var shouldRun: Bool { isInstalled || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The tool's path; a recorded failure naming the Debian package when it is missing.
    func require() throws -> String {
        guard let path = paths.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Missing(description: "\(name) is not installed; scripts/setup-debian installs it (Debian package \(package))")
        }
        return path
    }

    struct Missing: Error, CustomStringConvertible { var description: String }

    static let gpsfake = Tool(name: "gpsfake", paths: ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"], package: "gpsd-clients")
    static let socat = Tool(name: "socat", paths: ["/usr/bin/socat"], package: "socat")
    static let tmux = Tool(name: "tmux", paths: ["/usr/bin/tmux"], package: "tmux")
    static let chromium = Tool(name: "chromium", paths: ["/usr/bin/chromium"], package: "chromium")
    static let xmllint = Tool(name: "xmllint", paths: ["/usr/bin/xmllint"], package: "libxml2-utils")
    static let gpsbabel = Tool(name: "gpsbabel", paths: ["/usr/bin/gpsbabel"], package: "gpsbabel")
    static let ogr2ogr = Tool(name: "ogr2ogr", paths: ["/usr/bin/ogr2ogr"], package: "gdal-bin")
    static let mandoc = Tool(name: "mandoc", paths: ["/usr/bin/mandoc"], package: "mandoc")
    static let sqlite3 = Tool(name: "sqlite3", paths: ["/usr/bin/sqlite3"], package: "sqlite3")
    static let setpriv = Tool(name: "setpriv", paths: ["/usr/bin/setpriv"], package: "util-linux")
}
