import Foundation
import Testing

/// External programs the tests drive. A test that needs one carries `.enabled(if: Tool.x.shouldRun)`:
/// where the program is missing it is reported as skipped, except under `CI=true`, where it runs
/// and fails on `Tool.x.require()`: a missing tool must never look like a pass.
///
/// The programs of the slow tier belong to a tag (`.gpsd`, `.terminal`, `.browser`), which their
/// tests carry too. `TREES_SKIP_TAGS=gpsd,terminal,browser` (what `scripts/test --fast` sets)
/// skips the tests of the tools whose tag it names, installed or not, CI or not.
package struct Tool: Sendable {
    package let name: String
    package let paths: [String]
    package let package: String
    /// The slow tier the tool's tests belong to, if any.
    package var tier: Tag? = nil

    /// A script run by an interpreter (`python3 PATH`): it need only be readable, not executable.
    package var isScript = false

    package var isInstalled: Bool { paths.contains(where: isPresent) }

    private func isPresent(_ path: String) -> Bool {
        isScript ? FileManager.default.isReadableFile(atPath: path) : FileManager.default.isExecutableFile(atPath: path)
    }

    /// True when the test should run: the tool is here, or this is CI; and its tier is not skipped.
    package var shouldRun: Bool {
        if let tier, Self.skippedTiers.contains(tier) { return false }
        return isInstalled || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The tags named in `TREES_SKIP_TAGS` (comma-separated, as in `gpsd,browser`).
    package static var skippedTiers: Set<Tag> {
        let names = (ProcessInfo.processInfo.environment["TREES_SKIP_TAGS"] ?? "").split(separator: ",")
        let tiers: [String: Tag] = ["gpsd": .gpsd, "terminal": .terminal, "browser": .browser, "postgres": .postgres]
        return Set(names.compactMap { tiers[$0.trimmingCharacters(in: .whitespaces)] })
    }

    /// The tool's path; a recorded failure naming the Debian package when it is missing. Called
    /// for the failure alone where the test reaches the tool by other means.
    @discardableResult
    package func require() throws -> String {
        guard let path = paths.first(where: isPresent) else {
            throw Missing(description: "\(name) is not installed; scripts/setup-debian installs it (Debian package \(package))")
        }
        return path
    }

    package struct Missing: Error, CustomStringConvertible { package var description: String }

    package static let gpsfake = Tool(name: "gpsfake", paths: ["/usr/bin/gpsfake", "/usr/local/bin/gpsfake"], package: "gpsd-clients", tier: .gpsd)
    package static let socat = Tool(name: "socat", paths: ["/usr/bin/socat"], package: "socat", tier: .gpsd)
    /// RTKLIB's stream server, run as an NTRIP caster (`-out ntripc://…`) on loopback.
    package static let gpsd = Tool(name: "gpsd", paths: ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd"], package: "gpsd", tier: .gpsd)
    package static let str2str = Tool(name: "str2str", paths: ["/usr/bin/str2str"], package: "rtklib", tier: .gpsd)
    package static let tmux = Tool(name: "tmux", paths: ["/usr/bin/tmux"], package: "tmux", tier: .terminal)
    package static let chromium = Tool(name: "chromium", paths: ["/usr/bin/chromium"], package: "chromium", tier: .browser)
    package static let xmllint = Tool(name: "xmllint", paths: ["/usr/bin/xmllint"], package: "libxml2-utils")
    package static let gpsbabel = Tool(name: "gpsbabel", paths: ["/usr/bin/gpsbabel"], package: "gpsbabel")
    package static let ogr2ogr = Tool(name: "ogr2ogr", paths: ["/usr/bin/ogr2ogr"], package: "gdal-bin")
    package static let ogrinfo = Tool(name: "ogrinfo", paths: ["/usr/bin/ogrinfo"], package: "gdal-bin")
    package static let cs2cs = Tool(name: "cs2cs", paths: ["/usr/bin/cs2cs"], package: "proj-bin")
    /// GDAL's GeoPackage validator (a Python script, run with python3).
    package static let validateGPKG = Tool(name: "validate_gpkg.py",
                                           paths: ["/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_gpkg.py"],
                                           package: "python3-gdal", isScript: true)
    package static let mandoc = Tool(name: "mandoc", paths: ["/usr/bin/mandoc"], package: "mandoc")
    package static let sqlite3 = Tool(name: "sqlite3", paths: ["/usr/bin/sqlite3"], package: "sqlite3")
    /// Python, to hold a POSIX lock from another process.
    package static let python3 = Tool(name: "python3", paths: ["/usr/bin/python3"], package: "python3")
    package static let setpriv = Tool(name: "setpriv", paths: ["/usr/bin/setpriv"], package: "util-linux")
    /// Runs a command in a mount namespace of its own, where a library can be hidden from it alone.
    package static let unshare = Tool(name: "unshare", paths: ["/usr/bin/unshare"], package: "util-linux")
    /// PostgreSQL 15's server programs (`initdb`, `pg_ctl`); PostGIS is checked when the server starts.
    package static let postgres = Tool(name: "PostgreSQL 15 (initdb)", paths: ["/usr/lib/postgresql/15/bin/initdb"],
                                       package: "postgresql postgresql-15-postgis-3", tier: .postgres)
    /// Makes the certificate authority and the server certificate of a server that needs TLS.
    package static let openssl = Tool(name: "openssl", paths: ["/usr/bin/openssl"], package: "openssl", tier: .postgres)
    package static let socatProxy = Tool(name: "socat", paths: ["/usr/bin/socat"], package: "socat", tier: .postgres)
}

/// The slow tier: tests that need a daemon, a terminal or a browser. `scripts/test --fast` skips them.
extension Tag {
    /// Needs gpsd fed by gpsfake, a serial line made by socat, or an NTRIP caster (str2str).
    @Tag package static var gpsd: Self
    /// Needs a real terminal, driven through tmux.
    @Tag package static var terminal: Self
    /// Needs headless Chromium.
    @Tag package static var browser: Self
    /// Needs a PostgreSQL server with PostGIS, which the test starts itself.
    @Tag package static var postgres: Self
}
