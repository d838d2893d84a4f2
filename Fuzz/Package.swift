// swift-tools-version:6.1
// Coverage-guided fuzz targets (libFuzzer) for trees' readers and the store's row decoding.
// Built by scripts/fuzz with -sanitize=fuzzer,address; not part of the main package or its tests.
import PackageDescription

let library: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "trees-fuzz",
    dependencies: [
        .package(name: "trees", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        .target(name: "FuzzRows", dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
        .executableTarget(name: "FuzzNMEA", dependencies: ["FuzzSupport", .product(name: "NMEA", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzInspect", dependencies: ["FuzzSupport", .product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzGPX", dependencies: ["FuzzSupport", .product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport", .product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzGeoJSON", dependencies: ["FuzzSupport", .product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzCSV", dependencies: ["FuzzSupport", .product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzNTRIP", dependencies: ["FuzzSupport", .product(name: "Location", package: "trees")], swiftSettings: library),
        .executableTarget(
            name: "FuzzStore",
            dependencies: ["FuzzSupport", "FuzzRows", .product(name: "TreesStore", package: "trees"), .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: library),
        .executableTarget(
            name: "FuzzDoctor",
            dependencies: ["FuzzSupport", "FuzzRows", .product(name: "TreesStore", package: "trees"), .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: library),
    ]
)
