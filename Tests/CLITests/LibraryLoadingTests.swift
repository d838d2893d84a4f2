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
}
