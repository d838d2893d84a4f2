import Foundation
import Testing
import TreesTestSupport

/// PROJ and libpq bring some fifty libraries with them (TLS, Kerberos, LDAP, libcurl, libtiff),
/// libgps eight more (D-Bus, systemd, libgcrypt); `trees` opens each only when a command needs
/// it, so every other command starts without them.
@Suite struct LibraryLoadingTests {
    /// The libraries the dynamic loader reports opening (`LD_DEBUG=files`), by file name.
    static func loaded(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").compactMap { line in
            guard let r = line.range(of: "file=") else { return nil }
            let name = line[r.upperBound...].prefix { $0 != " " && $0 != "\t" }
            return String(name.split(separator: "/").last ?? name)
        }
    }

    @Test func onlyTheCommandsThatNeedThemOpenPROJLibpqAndLibgps() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let trace = ["LD_DEBUG": "files"]
        #expect(try t.run(["add", "--lat", "51.4787", "--lon", "-0.2956", "--species", "Oak"]).status == 0)

        let list = try t.run(["list"], environment: trace)
        #expect(list.status == 0)
        #expect(list.stdout.contains("Oak"))
        let plain = Self.loaded(list.stderr)
        #expect(plain.contains { $0.hasPrefix("libsqlite3") }, "the trace names what was loaded: \(plain)")
        #expect(!plain.contains { $0.hasPrefix("libproj") || $0.hasPrefix("libpq") || $0.hasPrefix("libgps") || $0.hasPrefix("libsystemd") },
                "\(plain)")

        let gpkg = t.folder.appendingPathComponent("kew.gpkg").path
        let export = try t.run(["export", "--format", "gpkg", "--crs", "EPSG:27700", "--out", gpkg], environment: trace)
        #expect(export.status == 0, "\(export)")
        #expect(Self.loaded(export.stderr).contains { $0.hasPrefix("libproj") })
        let back = try t.run(["inspect", gpkg])
        #expect(back.status == 0 && back.stdout.contains("EPSG:27700"), "\(back)")

        #expect(try t.run(["remote", "add", "office", "postgres://crew@127.0.0.1:1/orchard?connect_timeout=2"]).status == 0)
        let sync = try t.run(["sync"], environment: trace)
        #expect(sync.status == 69, "\(sync)")
        #expect(Self.loaded(sync.stderr).contains { $0.hasPrefix("libpq") })
        #expect(sync.stderr.contains("cannot connect to"))

        // A gpsd that is not there: libgps is opened to ask it, and says so in the system's words.
        let gps = try t.run(["gps", "--source", "gpsd://127.0.0.1:1", "--count", "1"], environment: trace)
        #expect(gps.status == 69, "\(gps)")
        #expect(Self.loaded(gps.stderr).contains { $0.hasPrefix("libgps") }, "\(gps.stderr.suffix(2000))")
        #expect(gps.stderr.contains("Connection refused"), "\(gps.stderr.suffix(2000))")
    }

    /// The file the dynamic loader opens for `soname`, symbolic links followed (`ldconfig -p`).
    static func libraryFile(_ soname: String) throws -> String {
        let cache = try Program.run("/sbin/ldconfig", ["-p"]).stdout
        let line = try #require(cache.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(soname + " ") },
                                "\(soname) is not in the loader's cache")
        let path = try #require(line.components(separatedBy: " => ").last)
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Runs `trees` in a mount namespace of its own where the file of `soname` reads as empty, as on a
    /// laptop where that library is missing or broken; nothing outside the namespace sees it.
    static func withoutLibrary(_ soname: String) throws -> [String] {
        let unshare = try Tool.unshare.require()
        return [unshare, "--mount", "--map-root-user", "--propagation", "private", "/bin/sh", "-c",
                #"mount --bind /dev/null "$1" || exit 90; shift; exec "$@""#, "sh", try libraryFile(soname)]
    }

    /// A library that cannot be loaded ends the command that needs it at once, with exit 69 and a
    /// message naming the library and its Debian package; gpsd's with --wait too, which would
    /// otherwise keep trying. Every other command works without it.
    @Test(.enabled(if: Tool.unshare.shouldRun)) func aMissingLibraryEndsOnlyTheCommandThatNeedsIt() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        #expect(try t.run(["add", "--lat", "51.4787", "--lon", "-0.2956", "--species", "Oak"]).status == 0)
        #expect(try t.run(["remote", "add", "office", "postgres://crew@127.0.0.1:1/orchard?connect_timeout=2"]).status == 0)
        let csv = t.folder.appendingPathComponent("kew.csv").path
        let cases: [(soname: String, arguments: [String], message: String)] = [
            ("libgps.so.28", ["gps", "--source", "gpsd://127.0.0.1:1", "--count", "1"],
             "trees: gpsd's client library (libgps) cannot be loaded: neither libgps.so.28 nor libgps.so can be opened (is libgps28 installed?)."),
            ("libgps.so.28", ["gps", "--source", "gpsd://127.0.0.1:1", "--count", "1", "--wait"],
             "trees: gpsd's client library (libgps) cannot be loaded: neither libgps.so.28 nor libgps.so can be opened (is libgps28 installed?)."),
            ("libgps.so.28", ["capture", "--auto", "--species", "Oak", "--source", "gpsd://127.0.0.1:1"],
             "trees: gpsd's client library (libgps) cannot be loaded: neither libgps.so.28 nor libgps.so can be opened (is libgps28 installed?)."),
            ("libpq.so.5", ["sync", "office"], "trees: cannot connect to postgres://crew@127.0.0.1:1/orchard?connect_timeout=2: PostgreSQL's client library (libpq) cannot be loaded"),
            ("libproj.so.25", ["export", "--format", "csv", "--crs", "EPSG:27700", "--out", csv],
             "trees: coordinate reference systems need PROJ, which cannot be loaded: none of libproj.so, libproj.so.25, .22 or .19 can be opened (is libproj25 installed?)"),
        ]
        let before = try t.dump()
        for c in cases {
            let launcher = try Self.withoutLibrary(c.soname)
            let r = try t.run(c.arguments, launcher: launcher)
            #expect(r.status == 69, "\(c.arguments): \(r)")
            #expect(r.stderr.hasPrefix(c.message), "\(c.arguments): \(r.stderr)")
            // Everything else still works in the same namespace.
            let listed = try t.run(["list"], launcher: launcher)
            #expect(listed.status == 0 && listed.stdout.contains("Oak"), "\(listed)")
        }
        #expect(!FileManager.default.fileExists(atPath: csv))
        #expect(try t.dump() == before, "a refused command changed the store")
    }
}
