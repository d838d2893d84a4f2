import Foundation

/// A fresh folder of the test's own under the system's temporary directory, removed with its
/// contents by `remove()` or once nothing refers to it any more.
package final class TemporaryFolder: Sendable {
    package let url: URL

    /// Makes `PREFIX-UUID` in the temporary directory.
    package init(_ prefix: String = "trees-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    package var path: String { url.path }

    /// A path inside the folder (`name` may hold slashes).
    package func url(_ name: String) -> URL { url.appendingPathComponent(name) }

    package func path(_ name: String) -> String { url(name).path }

    /// Writes `text` as UTF-8 to `name` in the folder; returns its path.
    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: url(name))
        return path(name)
    }

    package func remove() { try? FileManager.default.removeItem(at: url) }
}
