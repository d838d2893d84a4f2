import Foundation
import Testing
import TreesKit
@testable import TreesStore
import TreesTestSupport

/// Photo files beside a real temporary database.
@Suite struct PhotoLibraryTests {
    let scratch: TemporaryFolder
    var folder: String { scratch.path }
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777)
    static let utc = TimeZone(identifier: "UTC") ?? .current

    init() throws {
        scratch = try TemporaryFolder("photos")
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
    }

    func open() throws -> TreeStore { try TreeStore(path: folder + "/db/trees.sqlite", clock: .fixed(Self.t0)) }

    func file(_ name: String, _ bytes: [UInt8], modified: Date? = nil) throws -> String {
        let path = folder + "/in/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        if let modified { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: path) }
        return path
    }

    func addTree(_ store: TreeStore, _ species: String = "Apple") throws -> Tree {
        let tree = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: species, createdAt: Self.t0)
        try store.write { try $0.insert(tree) }
        return tree
    }

    func storedFiles(_ store: TreeStore) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store.photoFolder)) ?? []).sorted()
    }

    @Test func addsFilesByContentHashWithCaptureDates() throws {
        let store = try open()
        let tree = try addTree(store)
        let jpegBytes = TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")
        let pngBytes = TestImages.png()
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        let jpeg = try file("tree.JPG", jpegBytes)
        let png = try file("leaf.dat", pngBytes, modified: modified)
        let heic = try file("bark.heic", TestImages.heic(dateTimeOriginal: "2024:06:01 07:08:09"))
        let library = store.photoLibrary
        let result = try store.write { try library.add(files: [jpeg, png, heic], to: tree.id, in: $0, timeZone: Self.utc) }
        #expect(result.alreadyAttached == [])
        #expect(result.added.map(\.format) == ["jpeg", "png", "heic"])
        #expect(result.added[0].sha256 == SHA256.hex(jpegBytes))
        #expect(result.added[0].byteCount == jpegBytes.count)
        #expect(result.added[0].capturedAt == ISO8601DateFormatter().date(from: "2025-09-14T16:05:33Z"))
        #expect(result.added[1].capturedAt == modified)
        #expect(result.added[2].capturedAt == ISO8601DateFormatter().date(from: "2024-06-01T07:08:09Z"))
        #expect(result.added.allSatisfy { $0.createdAt == Self.t0 && $0.treeID == tree.id })

        #expect(storedFiles(store) == result.added.map { "\($0.sha256).\($0.format)" }.sorted())
        #expect(FileManager.default.contents(atPath: library.path(of: result.added[0])) == Data(jpegBytes))
        // Listed oldest first.
        #expect(try store.read { try $0.photos(of: tree.id) }.map(\.format) == ["png", "heic", "jpeg"])
    }

    @Test func theSameBytesAreStoredOnce() throws {
        let store = try open()
        let apple = try addTree(store), pear = try addTree(store, "Pear")
        let a = try file("a.jpg", TestImages.plainJPEG), b = try file("copy-of-a.jpg", TestImages.plainJPEG)
        let library = store.photoLibrary
        let first = try store.write { try library.add(files: [a, b], to: apple.id, in: $0) }
        #expect(first.added.count == 1)
        #expect(first.alreadyAttached == [b])
        let again = try store.write { try library.add(files: [a], to: apple.id, in: $0) }
        #expect(again.added == [] && again.alreadyAttached == [a])
        let other = try store.write { try library.add(files: [b], to: pear.id, in: $0) }
        #expect(other.added.count == 1)
        #expect(storedFiles(store).count == 1)
        #expect(try store.read { try $0.photoReferences(sha256: SHA256.hex(TestImages.plainJPEG)) } == 2)

        // Removing the apple's photo keeps the file the pear still uses; removing the pear goes with it.
        let removed = try store.write { w in try library.remove(try library.photo(matching: ShortID.of(first.added[0].id), of: apple.id, in: w.reader), in: w) }
        #expect(removed.orphaned == false)
        let deleted = try store.write { try $0.deleteTrees([pear.id]) }
        #expect(deleted == [SHA256.hex(TestImages.plainJPEG)])
        library.removeFiles(of: deleted)
        #expect(storedFiles(store) == [])
    }

    @Test func oneBadFileRefusesTheWholeCallAndLeavesNoFiles() throws {
        let store = try open()
        let tree = try addTree(store)
        let good = try file("good.png", TestImages.png())
        let bad = try file("notes.txt", Array("hello".utf8))
        let library = store.photoLibrary
        #expect(throws: StoreError.photo(.notAnImage(path: bad))) {
            try store.write { try library.add(files: [good, bad], to: tree.id, in: $0) }
        }
        #expect(throws: StoreError.photo(.unreadable(path: folder + "/in/missing.jpg", reason: "no such file"))) {
            try store.write { try library.add(files: [good, folder + "/in/missing.jpg"], to: tree.id, in: $0) }
        }
        #expect(throws: StoreError.photo(.unreadable(path: folder + "/in", reason: "it is a directory"))) {
            try store.write { try library.add(files: [folder + "/in"], to: tree.id, in: $0) }
        }
        let empty = try file("empty.jpg", [])
        #expect(throws: StoreError.photo(.notAnImage(path: empty))) {
            try store.write { try library.add(files: [empty], to: tree.id, in: $0) }
        }
        #expect(try store.read { try $0.photos(of: tree.id) } == [])
        #expect(storedFiles(store) == [])
        #expect(throws: StoreError.unknownTree("00000000")) {
            try store.write { try library.add(files: [good], to: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), in: $0) }
        }
    }

    @Test func checksAFileWithoutCopyingIt() throws {
        #expect(try PhotoLibrary.check(file: try file("a.heic", TestImages.heic(dateTimeOriginal: nil))) == .heic)
        let text = try file("a.txt", Array("text".utf8))
        #expect(throws: StoreError.photo(.notAnImage(path: text))) { try PhotoLibrary.check(file: text) }
        #expect(throws: StoreError.photo(.unreadable(path: folder + "/nope.jpg", reason: "no such file"))) {
            try PhotoLibrary.check(file: folder + "/nope.jpg")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/db"))
    }

    @Test func findsPhotosByPrefixAndNamesThemForExport() throws {
        let store = try open()
        let tree = try addTree(store)
        let library = store.photoLibrary
        let files = [try file("1.jpg", TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")), try file("2.png", TestImages.png())]
        let added = try store.write { try library.add(files: files, to: tree.id, in: $0, timeZone: Self.utc) }.added
        let id = ShortID.of(added[0].id)
        #expect(try store.read { try library.photo(matching: id.uppercased(), of: tree.id, in: $0) } == added[0])
        #expect(throws: StoreError.photo(.unknownPhoto("ffff", tree: tree.shortID, known: added.map { ShortID.of($0.id) }))) {
            _ = try store.read { try library.photo(matching: "ffff", of: tree.id, in: $0) }
        }

        #expect(PhotoLibrary.exportName(added[0]) == "\(tree.shortID)_2025-09-14_160533_\(id).jpeg")
    }

    @Test func previewsAreSmallFilesOrEmbeddedThumbnails() throws {
        let store = try open()
        let tree = try addTree(store)
        let library = store.photoLibrary
        let big = TestImages.jpeg(dateTimeOriginal: nil, thumbnail: TestImages.plainJPEG) + [UInt8](repeating: 0, count: 5000)
        let files = [try file("big.jpg", big), try file("small.png", TestImages.png()), try file("x.heic", TestImages.heic(dateTimeOriginal: nil))]
        let added = try store.write { try library.add(files: files, to: tree.id, in: $0) }.added
        #expect(library.preview(of: added[0], maxBytes: 1000)?.bytes == TestImages.plainJPEG)
        #expect(library.preview(of: added[0], maxBytes: 100_000)?.bytes == big)
        #expect(library.preview(of: added[1], maxBytes: 1000).map { $0.mimeType } == "image/png")
        #expect(library.preview(of: added[2], maxBytes: 100_000) == nil)
    }
}
