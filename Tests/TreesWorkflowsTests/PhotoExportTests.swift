import Foundation
import Testing
import TreesKit
import TreesStore
import TreesTestSupport
import TreesWorkflows

/// `trees photo export`: photos copied out of a real library through `OutputFile`.
@Suite struct PhotoExportTests {
    let scratch: TemporaryFolder
    var folder: String { scratch.path }
    static let t0 = Date(timeIntervalSince1970: 1_777_777_777)
    static let jpeg = TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")

    init() throws { scratch = try TemporaryFolder("photo-export") }

    /// A store with one tree and its two photos (a JPEG taken 2025-09-14 16:05:33 UTC and a PNG).
    func store() throws -> (TreeStore, Tree, [Photo]) {
        let store = try TreeStore(path: folder + "/db/trees.sqlite", clock: .fixed(Self.t0))
        let tree = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", createdAt: Self.t0)
        try store.write { try $0.insert(tree) }
        var files: [String] = []
        for (name, bytes) in [("1.jpg", Self.jpeg), ("2.png", TestImages.png())] {
            files.append(folder + "/" + name)
            try Data(bytes).write(to: URL(fileURLWithPath: files.last!))
        }
        let added = try store.write { try store.photoLibrary.add(files: files, to: tree.id, in: $0, timeZone: TimeZone(identifier: "UTC")!) }.added
        return (store, tree, added)
    }

    func names(_ dir: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

    @Test func writesEachPhotoUnderItsNameIntoANewFolder() throws {
        let (store, tree, photos) = try store()
        let out = folder + "/out/nested"
        let written = try PhotoExport.run(photos, from: store.photoLibrary, to: out)
        #expect(written == photos.map { out + "/" + PhotoLibrary.exportName($0) })
        #expect(written[0] == out + "/\(tree.shortID)_2025-09-14_160533_\(ShortID.of(photos[0].id)).jpeg")
        #expect(FileManager.default.contents(atPath: written[0]) == Data(Self.jpeg))
        #expect(FileManager.default.contents(atPath: written[1]) == Data(TestImages.png()))
        // No temporary file is left beside them.
        #expect(try names(out) == written.map { ($0 as NSString).lastPathComponent }.sorted())
    }

    @Test func anExistingPrivateFileKeepsItsModeAndALinkIsFollowed() throws {
        let (store, _, photos) = try store()
        let out = folder + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let first = out + "/" + PhotoLibrary.exportName(photos[0])
        try Data("old".utf8).write(to: URL(fileURLWithPath: first))
        #expect(chmod(first, 0o600) == 0)
        let elsewhere = folder + "/elsewhere.png"
        try Data("old".utf8).write(to: URL(fileURLWithPath: elsewhere))
        let second = out + "/" + PhotoLibrary.exportName(photos[1])
        try FileManager.default.createSymbolicLink(atPath: second, withDestinationPath: elsewhere)

        _ = try PhotoExport.run(photos, from: store.photoLibrary, to: out)
        var st = stat()
        #expect(stat(first, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(FileManager.default.contents(atPath: first) == Data(Self.jpeg))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: second) == elsewhere)
        #expect(FileManager.default.contents(atPath: elsewhere) == Data(TestImages.png()))
    }

    @Test func aMissingLibraryFileStopsTheExportByName() throws {
        let (store, _, photos) = try store()
        try FileManager.default.removeItem(atPath: store.photoLibrary.path(of: photos[1]))
        let out = folder + "/out"
        #expect(throws: WorkflowError.photo(.missingFile(path: store.photoLibrary.path(of: photos[1])))) {
            _ = try PhotoExport.run(photos, from: store.photoLibrary, to: out)
        }
        // The first photo was written whole; nothing else is in the folder.
        #expect(try names(out) == [PhotoLibrary.exportName(photos[0])])
    }

    @Test func aFileWhereTheFolderShouldBeIsRefused() throws {
        let (store, _, photos) = try store()
        let out = folder + "/taken"
        try Data("x".utf8).write(to: URL(fileURLWithPath: out))
        #expect(throws: WorkflowError.cannotCreate(path: out, reason: "it is not a folder")) {
            _ = try PhotoExport.run(photos, from: store.photoLibrary, to: out)
        }
    }
}
