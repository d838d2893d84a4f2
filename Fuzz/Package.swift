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
        .executableTarget(name: "FuzzNMEA", dependencies: [.product(name: "NMEA", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzInspect", dependencies: [.product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzGPX", dependencies: [.product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzJSON", dependencies: [.product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(name: "FuzzCSV", dependencies: [.product(name: "Interchange", package: "trees")], swiftSettings: library),
        .executableTarget(
            name: "FuzzStore",
            dependencies: [.product(name: "TreesStore", package: "trees"), .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: library),
    ]
)
