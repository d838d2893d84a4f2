// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "trees",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "trees", targets: ["trees"]),
        .library(name: "TreesKit", targets: ["TreesKit"]),
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "Interchange", targets: ["Interchange"]),
        .library(name: "TreesStore", targets: ["TreesStore"]),
        .library(name: "Location", targets: ["Location"]),
        .library(name: "TreesWorkflows", targets: ["TreesWorkflows"]),
        .library(name: "TreesSync", targets: ["TreesSync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Pure: coordinates, fixes, accuracy classes, geodesy, the capture session, model values.
        .target(name: "TreesKit"),
        // Pure: NMEA 0183 byte stream → sentences → receiver epochs → fixes.
        .target(name: "NMEA", dependencies: ["TreesKit"]),
        // Pure: GPX, collection JSON, CSV, GeoJSON and KML readers and writers.
        .target(name: "Interchange", dependencies: ["TreesKit"]),
        // C: the settings of an SQLite connection that only a variadic C function changes.
        .target(name: "CSQLiteConfig", linkerSettings: [.linkedLibrary("sqlite3")]),
        // I/O: the SQLite store and the photo files beside it.
        .target(name: "TreesStore", dependencies: ["TreesKit", "CSQLiteConfig", .product(name: "GRDB", package: "GRDB.swift")]),
        // C system library: gpsd's client library, opened when a gpsd connection is made.
        .systemLibrary(name: "CGPS", providers: [.apt(["libgps-dev"])]),
        // C system library: PROJ, for coordinate reference systems.
        .systemLibrary(name: "CPROJ", providers: [.apt(["libproj-dev"])]),
        // I/O: GeoPackage files (SQLite) and coordinate reference systems (PROJ).
        .target(name: "GIS", dependencies: ["TreesKit", "Interchange", "CPROJ", .product(name: "GRDB", package: "GRDB.swift")]),
        // I/O: location services (gpsd, NMEA replay, serial device, stdin).
        .target(name: "Location", dependencies: ["TreesKit", "NMEA", "CGPS"]),
        // C: a prefetch hint for lookups in tables larger than the processor's caches.
        .target(name: "CPrefetch"),
        // I/O: what a user does (import, export, capture, replay), each returning a typed report;
        // no argument parsing and no terminal.
        .target(name: "TreesWorkflows", dependencies: ["TreesKit", "NMEA", "Interchange", "TreesStore", "Location", "GIS", "CPrefetch"]),
        // C system library: PostgreSQL's client library.
        .systemLibrary(name: "CPQ", providers: [.apt(["libpq-dev"])]),
        // I/O: network. Sync with a PostgreSQL/PostGIS server: its schema, pushing and pulling pages, conflicts.
        .target(name: "TreesSync", dependencies: ["TreesKit", "TreesStore", "CPQ"]),
        .executableTarget(
            name: "trees",
            dependencies: [
                "TreesKit", "NMEA", "Interchange", "TreesStore", "Location", "TreesWorkflows", "GIS", "TreesSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks: generates large inputs, runs the built `trees` and reports throughput and peak memory.
        .executableTarget(name: "trees-bench", dependencies: ["TreesKit", "TreesStore", "Interchange"], exclude: ["README.md"]),

        // Test helpers every test target shares: programs, temporary folders, the chunking verifier, external tools and their tags.
        .target(name: "TreesTestSupport", path: "Tests/TreesTestSupport"),

        .testTarget(name: "TreesKitTests", dependencies: ["TreesKit", "TreesTestSupport"]),
        .testTarget(name: "NMEATests", dependencies: ["NMEA", "TreesKit", "TreesTestSupport"]),
        .testTarget(name: "InterchangeTests", dependencies: ["Interchange", "TreesKit", "TreesTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "TreesStoreTests", dependencies: ["TreesStore", "TreesKit", "TreesTestSupport"]),
        .testTarget(name: "LocationTests", dependencies: ["Location", "NMEA", "TreesKit", "TreesTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "GISTests", dependencies: ["GIS", "TreesKit", "TreesTestSupport"]),
        .testTarget(name: "TreesWorkflowsTests", dependencies: ["TreesWorkflows", "TreesStore", "Interchange", "TreesKit", "TreesTestSupport"]),
        .testTarget(name: "TreesSyncTests", dependencies: ["TreesSync", "TreesStore", "TreesKit", "TreesTestSupport"]),
        // End-to-end: runs the built `trees` binary and checks stdout, stderr and exit status.
        .testTarget(name: "CLITests", dependencies: ["TreesKit", "trees", "TreesTestSupport"]),
    ]
)
