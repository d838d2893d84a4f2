import Foundation

/// The iOS Tree Tracker app's files, as its decoder reads them: a document of collections and
/// trees, or (from older versions) a bare array of trees.
///
/// `horizontalAccuracy` and `species` are required (one tree without them and the whole file is
/// refused); `altitude`, `variety`, `rootstock`, `photos`, `photoDates` and `collectionId` may be
/// left out. `ID` and `Time` are `String` to see the values as written, or `UUID` and `Date` (with
/// an `.iso8601` decoder, whole seconds only, as the app parses dates) to insist on what the app
/// can read.
package enum TreeTrackerApp {
    package struct Document<ID: Decodable, Time: Decodable>: Decodable {
        package var collections: [Collection<ID, Time>]?
        package var trees: [Tree<ID, Time>]
    }

    package struct Collection<ID: Decodable, Time: Decodable>: Decodable {
        package var id: ID
        package var name: String
        package var createdAt: Time
        package var updatedAt: Time
    }

    package struct Tree<ID: Decodable, Time: Decodable>: Decodable {
        package var id: ID
        package var latitude: Double
        package var longitude: Double
        package var horizontalAccuracy: Double
        package var altitude: Double?
        package var species: String
        package var variety: String?
        package var rootstock: String?
        package var notes: String
        package var photoCount: Int
        package var photos: [String]?
        package var photoDates: [String]?
        package var collectionId: ID?
        package var createdAt: Time
        package var updatedAt: Time
    }

    /// Decodes a file as the app does: a document, or the older bare array of trees.
    package static func decode<ID, Time>(_ data: Data, with decoder: JSONDecoder = JSONDecoder()) throws -> Document<ID, Time> {
        if let trees = try? decoder.decode([Tree<ID, Time>].self, from: data) { return Document(collections: nil, trees: trees) }
        return try decoder.decode(Document<ID, Time>.self, from: data)
    }
}
