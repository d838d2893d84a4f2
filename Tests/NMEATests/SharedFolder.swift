import Foundation

/// The project's shared test material (`corpus/`, `schema/`): `$TREES_SHARED`, else `../shared`
/// beside the repository.
enum SharedFolder {
    static var url: URL {
        if let path = ProcessInfo.processInfo.environment["TREES_SHARED"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared")
    }

    static func path(_ relative: String) -> String { url.appendingPathComponent(relative).path }
}
