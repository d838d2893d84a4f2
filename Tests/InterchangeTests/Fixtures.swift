import Foundation
import Testing
import TreesKit
@testable import Interchange
import TreesTestSupport

enum Fixtures {
    static let orchard = TreeCollection(
        id: UUID(uuidString: "0B6E61D4-3B8F-4C4B-9E0A-6A57C1D2E3F4")!, name: "Victoria's Orchard",
        createdAt: TextCodec.parseISO8601("2024-03-01T08:00:00Z")!, updatedAt: TextCodec.parseISO8601("2024-03-02T09:30:00.125Z")!)

    /// A tree with every field set, and awkward text.
    static let full = Tree(
        id: UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!,
        coordinate: Coordinate(latitude: 47.3769123, longitude: -8.5417456), horizontalAccuracy: 3.25,
        accuracySource: .gst, altitude: 408.5, ellipsoidHeight: 455.75, species: "Malus domestica",
        variety: "Boskoop & <Rote>", rootstock: "M9", notes: "=SUM(A1) \"quoted\", 'single'\nsecond line — Grüße 🌳",
        collectionID: orchard.id, createdAt: TextCodec.parseISO8601("2024-05-01T10:00:00.250Z")!,
        updatedAt: TextCodec.parseISO8601("2024-05-02T11:00:00Z")!,
        capture: CaptureInfo(fixTime: TextCodec.parseISO8601("2024-05-01T09:59:58Z")!, fixMode: .threeD, satellites: 9, hdop: 0.8,
                             averagedEpochs: 10, locationSource: "gpsd://localhost:2947", fixStatus: .rtkFixed, correctionAge: 1.2,
                             verticalAccuracy: 0.035, verticalAccuracySource: .gst, antennaHeight: 1.8))

    /// A tree with only what is required.
    static let bare = Tree(
        id: UUID(uuidString: "1E2D3C4B-5A69-4788-9796-A5B4C3D2E1F0")!,
        coordinate: Coordinate(latitude: -33.8688, longitude: 151.2093), species: "Eucalyptus",
        createdAt: TextCodec.parseISO8601("1969-07-20T20:17:40Z")!)

    /// Extremes: longitude −180, a tiny latitude, a date after 2038.
    static let edge = Tree(
        id: UUID(uuidString: "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE")!,
        coordinate: Coordinate(latitude: 0.00001, longitude: -180), horizontalAccuracy: 25, accuracySource: .dop,
        altitude: -12.5, species: "Quercus robur", variety: "", notes: nil,
        createdAt: TextCodec.parseISO8601("2040-01-01T00:00:00Z")!, capture: CaptureInfo(fixMode: .twoD, satellites: 4))

    static let trees = [full, bare, edge]

    static let context = ExportContext(
        collections: [orchard], exportedAt: TextCodec.parseISO8601("2024-06-01T12:00:00Z")!, name: "Victoria's Orchard",
        bounds: GeoBounds.of(trees.map(\.coordinate)))
}

/// Reads CSV trees from `pieces` one after the other with a fresh reader, for `ChunkingVerifier`.
func readCSV(_ pieces: [ArraySlice<UInt8>]) throws -> [ImportedTree] {
    var reader = CSVTreeReader()
    var trees: [ImportedTree] = []
    for piece in pieces { try reader.read(piece) { trees.append($0) } }
    try reader.finish { trees.append($0) }
    return trees
}
