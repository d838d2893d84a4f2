import Foundation
import Testing
import TreesTestSupport

/// End-to-end: `trees photo` with real image files, exact output, store and photo folder unchanged after refusals.
@Suite(.enabled(if: Tool.sqlite3.shouldRun)) struct PhotoCommandTests {
    func write(_ t: TreesProcess, _ name: String, _ bytes: [UInt8]) throws -> String {
        let path = t.folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func photoFiles(_ t: TreesProcess) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: t.folder.appendingPathComponent("photos").path)) ?? []).sorted()
    }

    func addTree(_ t: TreesProcess, _ species: String = "Apple") throws -> String {
        try t.run(["add", "--lat", "51.5", "--lon", "-0.12", "--species", species]).stdout.trimmingCharacters(in: .newlines)
    }

    @Test func addListShowExportRemove() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tree = try addTree(t)
        let jpegBytes = TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")
        let jpeg = try write(t, "blossom.jpg", jpegBytes)
        let heic = try write(t, "bark.HEIC", TestImages.heic(dateTimeOriginal: "2024:06:01 07:08:09"))
        let added = try t.run(["photo", "add", tree, jpeg, heic, "--json"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr == "")
        let photos = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [[String: Any]])
        #expect(photos.count == 2)
        #expect(photos[0]["format"] as? String == "jpeg")
        #expect(photos[0]["capturedAt"] as? String == "2025-09-14T16:05:33.000Z")
        #expect(photos[0]["byteCount"] as? Int == jpegBytes.count)
        #expect(photos[0]["createdAt"] as? String == "2026-05-01T10:00:00.000Z")
        #expect(photos[1]["format"] as? String == "heic")
        let ids = photos.compactMap { ($0["id"] as? String)?.lowercased().prefix(8) }.map(String.init)
        let hashes = photos.compactMap { $0["sha256"] as? String }
        let folder = t.folder.appendingPathComponent("photos").path
        #expect(photoFiles(t) == ["\(hashes[0]).jpeg", "\(hashes[1]).heic"].sorted())
        #expect(photos[0]["path"] as? String == "\(folder)/\(hashes[0]).jpeg")

        let list = try t.run(["photo", "list", tree])
        #expect(list.stdout == """
            ID        FORMAT  SIZE   TAKEN             FILE
            \(ids[1])  heic    \(TestImages.heic(dateTimeOriginal: "2024:06:01 07:08:09").count) B  2024-06-01 07:08  \(folder)/\(hashes[1]).heic
            \(ids[0])  jpeg    \(jpegBytes.count) B  2025-09-14 16:05  \(folder)/\(hashes[0]).jpeg

            """)
        let show = try t.run(["show", tree])
        #expect(show.stdout.contains("""
            photos      2
                        \(ids[1])  heic  taken 2024-06-01 07:08  \(folder)/\(hashes[1]).heic
                        \(ids[0])  jpeg  taken 2025-09-14 16:05  \(folder)/\(hashes[0]).jpeg

            """), "\(show)")
        let json = try t.run(["show", tree, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["photoCount"] as? Int == 2)
        #expect(object["photoDates"] as? [String] == ["2024-06-01T07:08:09Z", "2025-09-14T16:05:33Z"])

        // The same bytes again: stored once, nothing added.
        let again = try t.run(["photo", "add", tree, jpeg])
        #expect(again.status == 0)
        #expect(again.stdout == "")
        #expect(again.stderr == "\(jpeg): tree \(tree) already has this photo; skipped\n")

        let out = t.folder.appendingPathComponent("export/here").path
        let exported = try t.run(["photo", "export", String(tree.prefix(4)), out])
        #expect(exported.status == 0, "\(exported)")
        #expect(exported.stdout == """
            \(out)/\(tree)_2024-06-01_070809_\(ids[1]).heic
            \(out)/\(tree)_2025-09-14_160533_\(ids[0]).jpeg

            """)
        #expect(FileManager.default.contents(atPath: "\(out)/\(tree)_2025-09-14_160533_\(ids[0]).jpeg") == Data(jpegBytes))

        let refused = try t.run(["photo", "rm", tree, ids[0]])
        #expect(refused.status == 64)
        #expect(refused.stderr == "trees: refusing to remove photo \(ids[0]) without confirmation; add --yes\n")
        let removed = try t.run(["photo", "rm", tree, String(ids[0].prefix(6)).uppercased(), "--yes"])
        #expect(removed.status == 0, "\(removed)")
        #expect(removed.stdout == "removed photo \(ids[0]) from tree \(tree)\n")
        #expect(photoFiles(t) == ["\(hashes[1]).heic"])
    }

    @Test func sharedFilesStayUntilTheLastTreeGoes() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let apple = try addTree(t), pear = try addTree(t, "Pear")
        let png = try write(t, "leaf.png", TestImages.png())
        #expect(try t.run(["photo", "add", apple, png]).status == 0)
        let second = try t.run(["photo", "add", pear, png])
        #expect(second.stdout.hasPrefix("added photo "))
        #expect(second.stdout.hasSuffix(" to tree \(pear) (png, taken \(Self.modificationTime(png)))\n"), "\(second)")
        #expect(photoFiles(t).count == 1)
        #expect(try t.run(["rm", apple, "--yes"]).status == 0)
        #expect(photoFiles(t).count == 1)
        #expect(try t.run(["rm", pear, "--yes"]).status == 0)
        #expect(photoFiles(t) == [])
    }

    /// Two stores in one folder share its `photos/` folder: neither removes a file the other still
    /// refers to (by `photo rm` or `rm`); the file goes when the last row in either store goes.
    /// A GeoPackage and another program's database beside them are no obstacle; a store that
    /// cannot be read keeps the file.
    @Test func aStoreNeverRemovesAPhotoAnotherStoreInItsFolderHas() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let other = t.folder.appendingPathComponent("other.sqlite").path
        let png = try write(t, "leaf.png", TestImages.png())
        let mine = try addTree(t)
        let theirs = try t.run(["add", "--lat", "51.5", "--lon", "-0.12", "--species", "Pear", "--db", other])
            .stdout.trimmingCharacters(in: .newlines)
        let added = try t.run(["photo", "add", mine, png, "--json"])
        let photos = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [[String: Any]])
        let photoID = try #require(photos.first?["id"] as? String)
        #expect(try t.run(["photo", "add", theirs, png, "--db", other]).status == 0)
        // Beside them: a GeoPackage (a database without a photo table) and a text file.
        #expect(try t.run(["export", "--format", "gpkg", "--out", t.folder.appendingPathComponent("layer.gpkg").path]).status == 0)
        _ = try write(t, "notes.txt", Array("not a database".utf8))
        let removed = try t.run(["photo", "rm", mine, photoID, "--yes"])
        #expect(removed.status == 0, "\(removed)")
        #expect(photoFiles(t).count == 1, "the other store's photo file stays")
        let exported = try t.run(["photo", "export", theirs, t.folder.appendingPathComponent("out").path, "--db", other])
        #expect(exported.status == 0, "\(exported)")
        // The other store removes its tree: now no store refers to the file, and it goes.
        #expect(try t.run(["rm", theirs, "--yes", "--db", other]).status == 0)
        #expect(photoFiles(t) == [])

        // A database in the folder that cannot be read (damaged past its header) keeps the file.
        let again = try addTree(t, "Quince")
        #expect(try t.run(["photo", "add", again, png]).status == 0)
        var damaged = Array("SQLite format 3\0".utf8)
        damaged += (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        _ = try write(t, "damaged.sqlite", damaged)
        #expect(try t.run(["rm", again, "--yes"]).status == 0)
        #expect(photoFiles(t).count == 1, "kept while another database in the folder cannot be asked")
    }

    static func modificationTime(_ path: String) -> String {
        let date = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: date)
    }

    /// Each bad input: non-zero exit, one line naming the problem, store and photo folder unchanged.
    @Test func refusalsChangeNothing() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let tree = try addTree(t)
        let good = try write(t, "good.jpg", TestImages.plainJPEG)
        #expect(try t.run(["photo", "add", tree, good]).status == 0)
        let photoID = try #require(try t.run(["photo", "list", tree]).stdout.split(separator: "\n").dropFirst().first?.prefix(8))
        let text = try write(t, "notes.jpg", Array("just text".utf8))
        let png = try write(t, "new.png", TestImages.png())
        let missing = t.folder.appendingPathComponent("missing.jpg").path
        let before = try t.dump()
        let filesBefore = photoFiles(t)
        let cases: [([String], Int32, String)] = [
            (["photo", "add", tree, png, text], 65, "\(text) is not a JPEG, PNG or HEIC image"),
            (["photo", "add", tree, png, missing], 66, "cannot read \(missing): no such file"),
            (["photo", "add", tree, t.folder.path], 66, "cannot read \(t.folder.path): it is a directory"),
            (["photo", "add", "ffffffff", png], 1, "no tree with id ffffffff; 'trees list' shows the ids"),
            (["photo", "list", "zz"], 64, "'zz' is not a tree id; expected hex digits of an id as shown by 'trees list'"),
            (["photo", "rm", tree, "0000", "--yes"], 1, "tree \(tree) has no photo 0000; its photos: \(photoID)"),
            (["photo", "rm", tree, "xyz", "--yes"], 64, "'xyz' is not a photo id; expected hex digits of an id as shown by 'trees photo list'"),
        ]
        for (args, status, message) in cases {
            let r = try t.run(args)
            #expect(r.status == status, "\(args): \(r)")
            #expect(r.stderr == "trees: \(message)\n", "\(args)")
            #expect(r.stdout == "")
            #expect(try t.dump() == before)
            #expect(photoFiles(t) == filesBefore)
        }
        let usage = try t.run(["photo", "add", tree])
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("Missing expected argument '<file> ...'"))
    }

    /// A photo file gone from the library stops an export that embeds photos: the trees are read
    /// and written on two threads, and the reading side's refusal ends both, leaving no file.
    @Test func aMissingPhotoStopsAnEmbeddingExportAndLeavesNoFile() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        // Enough trees before and after the one with the photo that the writing thread has
        // written some of them when the reading side stops.
        func survey(_ name: String, latitude: Double, species: String) throws {
            let rows = (0..<600).map { "\(latitude),\(Double($0) / 1000),\(species)" }
            let csv = try write(t, name, Array(("latitude,longitude,species\n" + rows.joined(separator: "\n") + "\n").utf8))
            #expect(try t.run(["import", csv]).status == 0)
        }
        try survey("oaks.csv", latitude: 51.5, species: "Oak")
        let tree = try addTree(t, "Walnut")
        try survey("ashes.csv", latitude: 51.6, species: "Ash")
        let jpeg = try write(t, "nut.jpg", TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33"))
        #expect(try t.run(["photo", "add", tree, jpeg]).status == 0)
        let files = photoFiles(t)
        try #require(files.count == 1)
        let stored = t.folder.appendingPathComponent("photos/\(files[0])").path
        try FileManager.default.removeItem(atPath: stored)
        let out = t.folder.appendingPathComponent("orchard.json").path
        let r = try t.run(["export", "--format", "json", "--photos", "--out", out])
        #expect(r.status == 66)
        #expect(r.stderr == "trees: photo \(stored) of tree \(tree) is missing\n")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path).filter { $0.hasPrefix(".orchard") || $0.hasPrefix("orchard") } == [])
        // Without the photos the same export writes every tree.
        let plain = try t.run(["export", "--format", "json", "--out", out])
        #expect(plain.status == 0)
        #expect(plain.stdout == "Exported 1201 trees to \(out)\n")
    }
}
