import Foundation

/// The test corpus kept in the repository (`Tests/Corpus`): real NMEA logs with gpsd's answers,
/// GPSBabel's GPX reference files with expected counts, the GPX schemas, and their licences.
/// `TREES_NMEA_CORPUS` and `TREES_GPX_CORPUS` point the corpus tests at another set laid out the
/// same way (`NAME.log` / `PATH.gpx` beside `….expected.json`).
enum Corpus {
    static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Corpus")
    }

    /// A path under `Tests/Corpus`, e.g. `gpx/gdb-sample.gpx` or `schema/gpx11.xsd`.
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
