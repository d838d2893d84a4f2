import Foundation

/// Files kept in the repository that tests read: sample tracks, the corpus, fixtures, documentation.
package enum Repository {
    /// The repository's root folder.
    package static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// A path under the root, e.g. `SampleTracks/orchard-walk.nmea`.
    package static func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// A path under the root, as text.
    package static func path(_ relative: String) -> String { url(relative).path }
}

/// The test corpus kept in the repository (`Tests/Corpus`): real NMEA logs with gpsd's answers,
/// GPSBabel's GPX reference files with expected counts, the GPX schemas, and their licences.
/// `TREES_NMEA_CORPUS` and `TREES_GPX_CORPUS` point the corpus tests at another set laid out the
/// same way (`NAME.log` / `PATH.gpx` beside `….expected.json`).
package enum Corpus {
    package static var root: URL { Repository.url("Tests/Corpus") }

    /// A path under `Tests/Corpus`, e.g. `gpx/gdb-sample.gpx` or `schema/gpx11.xsd`.
    package static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
