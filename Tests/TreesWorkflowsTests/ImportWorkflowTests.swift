import Foundation
import Interchange
import Testing
import TreesKit
import TreesStore
import TreesTestSupport
import TreesWorkflows

/// The import workflow on real files and a real SQLite store, without the command line.
@Suite struct ImportWorkflowTests {
    /// A folder of the test's own, with the files to import and the store they go to.
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder("trees-workflow") }

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="survey" xmlns="http://www.topografix.com/GPX/1/1" xmlns:trees="https://trees.invalid/xmlns/trees/1">
          <wpt lat="47.3769123" lon="8.5417456"><name>Apple</name></wpt>
          <wpt lat="47.3770000" lon="8.5418000"><name>Pear</name></wpt>
          <wpt lat="47.3771000" lon="8.5419000"><name>Plum</name>
            <extensions><trees:species>Plum</trees:species><trees:id>tree-17</trees:id></extensions></wpt>
        </gpx>
        """

    @Test func importsWaypointsAndWarnsOfAnIdThatIsNotAUUID() throws {
        let file = try folder.write("survey.gpx", Self.gpx)
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(report.format == .gpx)
        #expect(report.imported == 3)
        #expect(report.skipped.isEmpty)
        #expect(report.warnings == [.init(line: 6, reason: "<trees:id> \"tree-17\" is not a UUID; ignored")])
        #expect(try folder.store().trees().map(\.species).sorted() == ["Apple", "Pear", "Plum"])
        let again = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(again.imported == 0 && again.alreadyPresent == 3)
    }

    /// A point or value that cannot be read refuses the whole file with its line: nothing is left
    /// out or stored as another value, and the trees read before it are not stored either.
    @Test(arguments: [
        ("<wpt lon=\"8.5\"><name>No latitude</name></wpt>", "<wpt> has no lat attribute"),
        ("<wpt lat=\"91\" lon=\"8.5\"><name>Too far</name></wpt>", "<wpt> latitude 91 is out of range; expected degrees between -90 and 90"),
        ("<wpt lat=\"1\" lon=\"8.5\"><ele>n/a</ele><name>Plum</name></wpt>", "<ele> \"n/a\" is not a number"),
        ("<wpt lat=\"1\" lon=\"8.5\"><time>yesterday</time><name>Plum</name></wpt>", "<time> \"yesterday\" is not an ISO 8601 time"),
    ])
    func aFileWithAnUnreadablePointIsRefused(point: String, reason: String) throws {
        let file = try folder.write("survey.gpx", Self.gpx.replacingOccurrences(of: "</gpx>", with: "  " + point + "\n</gpx>"))
        #expect(throws: WorkflowError.malformed(file: file, line: 7, reason: reason)) {
            try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        }
        #expect(try folder.store().trees().isEmpty)
    }

    /// A store that does not exist yet is filled unseen and published once the import ends, however
    /// it ends: a refused file leaves an empty store, as before, and no other file.
    @Test func anImportIntoANewStoreLeavesTheStoreAndNothingElse() throws {
        let file = try folder.write("survey.gpx", Self.gpx)
        let bad = try folder.write("bad.gpx", "<gpx xmlns=\"http://www.topografix.com/GPX/1/1\"><wpt lat=\"47\" lon=\"8\"><name>Apple</wpt></gpx>")
        #expect(throws: WorkflowError.self) {
            try ImportWorkflow().run(try InputFile(bad), opening: { try TreeStore(path: folder.path("refused.sqlite"), unseenWhenNew: true) })
        }
        #expect(try TreeStore(path: folder.path("refused.sqlite")).trees().isEmpty)
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try TreeStore(path: folder.path("new.sqlite"), unseenWhenNew: true) })
        #expect(report.imported == 3)
        #expect(try TreeStore(path: folder.path("new.sqlite")).trees().map(\.species).sorted() == ["Apple", "Pear", "Plum"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == ["bad.gpx", "new.sqlite", "refused.sqlite", "survey.gpx"])
    }

    /// When another process makes the store while an import fills a new one, the file is read
    /// again into that store, beside what it holds.
    @Test func anImportIntoAStoreMadeMeanwhileLandsInThatStore() throws {
        let file = try folder.write("survey.gpx", Self.gpx)
        let path = folder.path("meanwhile.sqlite")
        var opened = 0
        let report = try ImportWorkflow().run(try InputFile(file), opening: {
            opened += 1
            let store = try TreeStore(path: path, unseenWhenNew: true)
            if opened == 1 {
                #expect(store.unseenPath != nil)
                let other = try TreeStore(path: path)
                try other.write { w in try w.insert(Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Walnut", createdAt: Date(timeIntervalSince1970: 1_777_777_777))) }
            } else {
                #expect(store.unseenPath == nil)
            }
            return store
        })
        #expect(opened == 2)
        #expect(report.imported == 3)
        #expect(try TreeStore(path: path).trees().map(\.species).sorted() == ["Apple", "Pear", "Plum", "Walnut"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == ["meanwhile.sqlite", "survey.gpx"])
    }

    /// Standard input cannot be read again: an import from it into a new store that another process
    /// made meanwhile is refused, nothing imported, and that store is left as the other process
    /// made it.
    @Test func anImportFromStandardInputIntoAStoreMadeMeanwhileIsRefused() throws {
        let pipe = Pipe()
        pipe.fileHandleForWriting.write(Data(Self.gpx.utf8))
        try pipe.fileHandleForWriting.close()
        let input = try InputFile(standardInput: pipe.fileHandleForReading)
        let path = folder.path("raced.sqlite")
        var opened = 0
        do {
            _ = try ImportWorkflow().run(input, opening: {
                opened += 1
                let store = try TreeStore(path: path, unseenWhenNew: true)
                #expect(store.unseenPath != nil)
                let other = try TreeStore(path: path)
                try other.write { w in try w.insert(Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Walnut", createdAt: Date(timeIntervalSince1970: 1_777_777_777))) }
                return store
            })
            Issue.record("the import was not refused")
        } catch let error as WorkflowError {
            #expect(error == .storeMadeMeanwhile(store: path, file: "<stdin>"))
            #expect(error.description == "another process made the store \(path) while <stdin> was being imported into a new one; nothing was imported: import it again")
            #expect(error.kind == .refused)
        }
        #expect(opened == 1)
        #expect(try TreeStore(path: path).trees().map(\.species) == ["Walnut"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == ["raced.sqlite"])
    }

    /// An input that cannot be read is refused when it is opened, naming it and the system's reason;
    /// the first bytes of one that can are read whole however the pipe delivers them.
    @Test func standardInputIsReadWholeOrRefusedWithTheReason() throws {
        let unreadable = Pipe()
        #expect(throws: WorkflowError.cannotRead(file: "<stdin>", reason: String(cString: strerror(EBADF)))) {
            // The writing end of a pipe cannot be read.
            _ = try InputFile(standardInput: unreadable.fileHandleForWriting)
        }

        let pipe = Pipe()
        let bytes = Array(repeating: UInt8(ascii: "a"), count: 300_000)
        let writer = Thread {
            // Small writes, so that reads return early and the first 256 KiB take many of them.
            for start in stride(from: 0, to: bytes.count, by: 1000) {
                pipe.fileHandleForWriting.write(Data(bytes[start..<min(start + 1000, bytes.count)]))
            }
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        let input = try InputFile(standardInput: pipe.fileHandleForReading)
        var read: [Data] = []
        try input.forEachChunk { read.append($0) }
        #expect(read.first?.count == 1 << 18)
        #expect(read.reduce(0) { $0 + $1.count } == bytes.count)
    }

    @Test func aDryRunStoresNothing() throws {
        let file = try folder.write("survey.gpx", Self.gpx)
        let report = try ImportWorkflow(dryRun: true, gpxParts: [.routes]).run(try InputFile(file), opening: { try folder.store() })
        #expect(report.dryRun && report.imported == 3)
        #expect(try folder.store().trees().isEmpty)
    }

    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xFF, 0xD9]

    static func json(secondTree: String) -> String {
        let photo = Data(jpeg).base64EncodedString()
        return """
            {"collections": [], "trees": [
            {"id": "4F1C2E1A-1111-4222-8333-944455556666", "latitude": 47.1, "longitude": 8.1, "species": "Apple", "photos": ["\(photo)"]},
            \(secondTree)
            ]}
            """
    }

    @Test func photosAreStoredWithTheirTreesAndARefusedFileLeavesNeitherRowsNorFiles() throws {
        let bad = try folder.write("bad.json", Self.json(secondTree: #"{"id": "5F1C2E1A-1111-4222-8333-944455556666", "latitude": 91, "longitude": 8.2, "species": "Pear"}"#))
        #expect(throws: WorkflowError.self) {
            try ImportWorkflow().run(try InputFile(bad), opening: { try folder.store() })
        }
        do {
            _ = try ImportWorkflow().run(try InputFile(bad), opening: { try folder.store() })
        } catch let e as WorkflowError {
            guard case .malformed(let file, let line, _) = e else { Issue.record("\(e)"); return }
            #expect(file == bad && line == 3)
            #expect(e.kind == .data)
        }
        #expect(try folder.store().trees().isEmpty)
        #expect(try folder.photoFiles().isEmpty)

        let good = try folder.write("good.json", Self.json(secondTree: #"{"id": "5F1C2E1A-1111-4222-8333-944455556666", "latitude": 47.2, "longitude": 8.2, "species": "Pear"}"#))
        let report = try ImportWorkflow().run(try InputFile(good), opening: { try folder.store() })
        #expect(report.imported == 2 && report.photos == 1)
        #expect(try folder.photoFiles() == [SHA256.hex(Self.jpeg) + ".jpeg"])
        let photos = try folder.store().read { try $0.photos(of: UUID(uuidString: "4F1C2E1A-1111-4222-8333-944455556666")!) }
        #expect(photos.map(\.byteCount) == [Self.jpeg.count])
    }

    /// Trees with ids are stored many to a statement: each is still counted as imported or as
    /// already present, across whole statements of new trees, of stored ones and of both, an id
    /// that comes twice in one file, and a dry run.
    @Test func treesWithIdsAreCountedOneByOneWhateverTheStatementsStoreTogether() throws {
        func id(_ i: Int) -> String { String(format: "4F1C2E1A-1111-4222-8333-%012d", i) }
        func file(_ name: String, _ numbers: [Int]) throws -> String {
            let trees = numbers.map { i in #"{"id": "\#(id(i))", "latitude": 47.\#(1000 + i), "longitude": 8.1, "species": "Apple"}"# }
            return try folder.write(name, #"{"collections": [], "trees": ["# + trees.joined(separator: ",\n") + "]}")
        }
        let first = try file("first.json", Array(0..<70))
        let report = try ImportWorkflow().run(try InputFile(first), opening: { try folder.store() })
        #expect(report.imported == 70 && report.alreadyPresent == 0)
        // 50 new trees after 20 stored ones, and tree 60 a second time.
        let second = try file("second.json", Array(50..<120) + [60])
        let dry = try ImportWorkflow(dryRun: true).run(try InputFile(second), opening: { try folder.store() })
        #expect(dry.imported == 50 && dry.alreadyPresent == 21)
        #expect(try folder.store().trees().count == 70)
        let again = try ImportWorkflow().run(try InputFile(second), opening: { try folder.store() })
        #expect(again.imported == 50 && again.alreadyPresent == 21)
        #expect(Set(try folder.store().trees().map(\.id.uuidString)) == Set((0..<120).map(id)))
    }

    /// A file that gives one id to two trees keeps the first, counts the later ones as repeated in
    /// the file (not as already present) and says so once, at the first: whether the first waits
    /// in the same statement, was stored by an earlier one, or the store was empty before.
    @Test func anIdRepeatedInTheFileIsToldApartFromOneAlreadyStored() throws {
        func id(_ i: Int) -> String { String(format: "4F1C2E1A-1111-4222-8333-%012d", i) }
        func file(_ name: String, _ numbers: [Int]) throws -> String {
            let trees = numbers.map { i in #"{"id": "\#(id(i))", "latitude": 47.\#(1000 + i), "longitude": 8.1, "species": "Apple"}"# }
            return try folder.write(name, #"{"collections": [], "trees": ["# + trees.joined(separator: ",\n") + "]}")
        }
        let first = try ImportWorkflow().run(try InputFile(try file("first.json", Array(0..<40) + [5, 39, 100, 100])), opening: { try folder.store() })
        #expect(first.imported == 41 && first.alreadyPresent == 0 && first.repeatedInFile == 3)
        let warning = "the id \(id(5).lowercased()) was given to an earlier tree of this file; the first tree with each id is kept, later ones are left out"
        #expect(first.warnings == [.init(line: 41, reason: warning)])
        // Into a store that holds some: tree 0 is already present, 200's second coming a repeat.
        let second = try ImportWorkflow().run(try InputFile(try file("second.json", [0, 200, 200])), opening: { try folder.store() })
        #expect(second.imported == 1 && second.alreadyPresent == 1 && second.repeatedInFile == 1)
        #expect(second.warnings.map(\.line) == [3])
        #expect(try folder.store().trees().count == 42)
        // Replacing what the store held, a file still keeps the first of its own trees with an id.
        let third = try folder.write("third.json", #"[{"id": "\#(id(300))", "latitude": 1, "longitude": 2, "species": "Fig"},"# + "\n"
            + #"{"id": "\#(id(300))", "latitude": 3, "longitude": 4, "species": "Plum"}, {"id": "\#(id(0))", "latitude": 5, "longitude": 6, "species": "Pear"}]"#)
        let replaced = try ImportWorkflow(conflict: .replace).run(try InputFile(third), opening: { try folder.store() })
        #expect(replaced.imported == 1 && replaced.replaced == 1 && replaced.repeatedInFile == 1, "\(replaced)")
        let species = try folder.store().trees().filter { [id(300), id(0)].contains($0.id.uuidString) }.map(\.species).sorted()
        #expect(species == ["Fig", "Pear"])
    }

    /// Surveyed trees are stored many a statement; a duplicate (same species ignoring case, within
    /// 1e-7°) is found wherever its original waits: in the same statement not yet run, in a statement
    /// run before, among trees the file gives ids, or in the store before the import.
    @Test func surveyedTreesStoredManyAStatementFindTheirDuplicatesWhereverTheyWait() throws {
        let chunk = BulkTreeWriter.chunkSize
        func wpt(_ i: Int, north: Double = 0, species: String? = nil, id: Int? = nil) -> String {
            let lat = 47 + Double(i) * 1e-4 + north, name = species ?? (i % 2 == 0 ? "Malus domestica" : "Pyrus communis")
            let ext = id.map { String(format: "<extensions><trees:id>4F1C2E1A-1111-4222-8333-%012d</trees:id></extensions>", $0) } ?? ""
            return String(format: #"<wpt lat="%.8f" lon="8.5"><name>"#, lat) + name + "</name>" + ext + "</wpt>"
        }
        var points: [String] = []
        var duplicates = 0
        for i in 0..<(3 * chunk) {
            // Every seventh tree has an id: both kinds wait in one statement.
            points.append(wpt(i, id: i % 7 == 0 ? i : nil))
            if i == 10 {
                // The original still waits in the statement this one joins; case and 5e-8° differ.
                points.append(wpt(10, north: 5e-8, species: "MALUS DOMESTICA"))
                duplicates += 1
            }
            if i == 14 {
                // The original (with an id) waits in the same statement.
                points.append(wpt(14))
                duplicates += 1
            }
        }
        // Originals stored by statements run earlier.
        points += [wpt(3), wpt(chunk + 1), wpt(2 * chunk)]
        duplicates += 3
        // Not duplicates: 2e-7° away, and another species at the same place.
        points += [wpt(5, north: 2e-7), wpt(4, species: "Prunus avium")]
        let distinct = 3 * chunk + 2
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="survey" xmlns="http://www.topografix.com/GPX/1/1" xmlns:trees="https://trees.invalid/xmlns/trees/1">
            \(points.joined(separator: "\n"))
            </gpx>
            """
        let file = try folder.write("survey.gpx", gpx)
        let first = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(first.imported == distinct && first.alreadyPresent == duplicates)
        let stored = try folder.store().trees()
        #expect(stored.count == distinct && Set(stored.map(\.id)).count == distinct)
        // Again: every tree is a duplicate of a stored one, found through the index read from the store.
        let again = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(again.imported == 0 && again.alreadyPresent == points.count)
        #expect(try folder.store().trees().count == distinct)
    }

    /// A new store's first import writes the version rows sync keeps as its statements run, the
    /// rest at the end: every tree has exactly one, stamped with the import's one tick, whether it
    /// came in a full statement or among the last few.
    @Test(.enabled(if: Tool.sqlite3.shouldRun), arguments: [BulkTreeWriter.chunkSize * 3 + 5, 7])
    func aNewStoresFirstImportGivesEveryTreeOneVersionRow(count: Int) throws {
        let trees = (0..<count).map { i in
            // Ids in no order, as an app that makes them at random writes them.
            String(format: #"{"id": "%08X-1111-4222-8333-%012d", "latitude": 47.2, "longitude": 8.\#(1000 + i), "species": "Pear"}"#, (i * 7919) % 1000, i)
        }
        let file = try folder.write("trees.json", #"{"collections": [], "trees": ["# + trees.joined(separator: ",\n") + "]}")
        #expect(!FileManager.default.fileExists(atPath: folder.path("trees.sqlite")))
        #expect(try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() }).imported == count)
        let sqlite3 = try Tool.sqlite3.require()
        let versions = try Program.run(sqlite3, [folder.path("trees.sqlite"), """
            SELECT count(*) FROM tree t LEFT JOIN treeVersion v ON v.treeId = t.id WHERE v.treeId IS NULL;
            SELECT count(*), count(DISTINCT seq), count(DISTINCT version) FROM treeVersion;
            SELECT count(*) FROM treeVersion v JOIN syncState s ON v.seq = s.seq AND v.version = s.hlc;
            """]).stdout
        #expect(versions == "0\n\(count)|1|1\n\(count)\n")
    }

    /// A survey of many trees whose times come in no order: the store's creation-time index is
    /// built after them (see `BulkTreeWriter`), into a new store and into one of a few trees. The
    /// store holds every tree, its index is the one the migrations made and lists the trees by
    /// time, and SQLite's check passes; the same file refused at its last point leaves the store
    /// exactly as it was.
    @Test(.enabled(if: Tool.sqlite3.shouldRun), arguments: [false, true])
    func aLargeSurveyOutOfTimeOrderLeavesAWholeStore(intoAStoreOfAFewTrees: Bool) throws {
        let count = BulkTreeWriter.deferIndexFrom + 500
        let points = ShuffledSurvey.waypoints(count: count, seed: 17)
        let file = try folder.write("survey.gpx", ShuffledSurvey.head + points + "</gpx>\n")
        let refused = try folder.write("refused.gpx", ShuffledSurvey.head + points + "  <wpt lat=\"91\" lon=\"8.5\"><name>Apple</name></wpt>\n</gpx>\n")
        let sqlite3 = try Tool.sqlite3.require()
        let store = folder.path("trees.sqlite")
        if intoAStoreOfAFewTrees {
            #expect(try ImportWorkflow().run(try InputFile(try folder.write("few.gpx", Self.gpx)), opening: { try folder.store() }).imported == 3)
            let before = try Program.run(sqlite3, [store, ".dump"]).stdout
            #expect(throws: WorkflowError.self) {
                try ImportWorkflow().run(try InputFile(refused), opening: { try folder.store() })
            }
            #expect(try Program.run(sqlite3, [store, ".dump"]).stdout == before)
        }
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try TreeStore(path: store, unseenWhenNew: true) })
        #expect(report.imported == count)
        let few = intoAStoreOfAFewTrees ? 3 : 0
        let checked = try Program.run(sqlite3, [store, """
            SELECT sql FROM sqlite_master WHERE name = 'tree_createdAt_id';
            PRAGMA integrity_check;
            SELECT count(*) FROM tree INDEXED BY tree_createdAt_id WHERE createdAt < '2026-03-03';
            SELECT group_concat(notes, ',') FROM (SELECT notes FROM tree INDEXED BY tree_createdAt_id WHERE createdAt < '2026-03-03' ORDER BY createdAt LIMIT 3);
            SELECT count(*) FROM treeVersion;
            """]).stdout
        #expect(checked == """
            CREATE INDEX "tree_createdAt_id" ON "tree"("createdAt", "id")
            ok
            \(count)
            tree 0,tree 1,tree 2
            \(count + few)

            """)
    }

    /// A file whose trees are all stored already leaves the store exactly as it was, the sync
    /// clock included, whether its trees fill statements of many or not.
    @Test(.enabled(if: Tool.sqlite3.shouldRun), arguments: [5, 70])
    func importingStoredTreesAgainChangesNothing(count: Int) throws {
        let trees = (0..<count).map { i in
            String(format: #"{"id": "4F1C2E1A-1111-4222-8333-%012d", "latitude": 47.2, "longitude": 8.\#(1000 + i), "species": "Pear"}"#, i)
        }
        let file = try folder.write("trees.json", #"{"collections": [], "trees": ["# + trees.joined(separator: ",\n") + "]}")
        #expect(try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() }).imported == count)
        let sqlite3 = try Tool.sqlite3.require()
        let before = try Program.run(sqlite3, [folder.path("trees.sqlite"), ".dump"]).stdout
        let again = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(again.imported == 0 && again.alreadyPresent == count)
        #expect(try Program.run(sqlite3, [folder.path("trees.sqlite"), ".dump"]).stdout == before)
    }

    /// Rows naming a collection id that neither the file nor the store has: every stored tree is
    /// counted as imported, the collection is not counted as created, and one warning per missing
    /// collection says which trees were imported without it. Importing again counts them present.
    @Test func treesOfACollectionNowhereAreCountedAndSaidOnce() throws {
        let missing = "8E4B8C5C-1111-4D2E-9A3B-000000000001"
        let file = try folder.write("rows.csv", """
            latitude,longitude,species,collection,collectionId
            47.1,8.1,Apple,,\(missing)
            47.2,8.2,Pear,,\(missing)
            47.3,8.3,Plum,Orchard,

            """)
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(report.imported == 3)
        #expect(report.alreadyPresent == 0)
        #expect(report.collectionsCreated == ["Orchard"])
        #expect(report.warnings == [.init(line: 2, reason: "collection \(missing) is neither in the file nor in the store; its 2 trees (lines 2, 3) are imported without a collection; give its name in the file to create it")])
        let stored = try folder.store().trees()
        #expect(stored.count == 3)
        #expect(stored.filter { $0.collectionID == nil }.map(\.species).sorted() == ["Apple", "Pear"])
        let again = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(again.imported == 0 && again.alreadyPresent == 3)
        #expect(again.warnings.isEmpty && again.collectionsCreated.isEmpty)
    }

    static let negativeCounts: [(name: String, text: String, line: Int, reason: String)] = [
        ("sats.csv", "latitude,longitude,species,satellites\n1,2,Apple,7\n3,4,Pear,-3\n", 3,
         "column 4 (satellites): \"-3\" is not a whole number, 0 or more"),
        ("hdop.csv", "latitude,longitude,species,hdop\n1,2,Apple,-1.5\n", 2, "column 4 (hdop): \"-1.5\" is not a number, 0 or more"),
        ("epochs.csv", "latitude,longitude,species,averagedEpochs\n1,2,Apple,-2\n", 2,
         "column 4 (averagedEpochs): \"-2\" is not a whole number, 0 or more"),
        ("sats.json", #"{"trees": [{"id": "x1", "latitude": 1, "longitude": 2, "species": "Apple",\#n"capture": {"satellites": -4}}]}"#, 2,
         #""satellites" must be 0 or more, found -4"#),
        ("hdop.json", #"{"trees": [{"id": "x1", "latitude": 1, "longitude": 2, "species": "Apple", "capture": {"hdop": -1}}]}"#, 1,
         #""hdop" must be 0 or more, found -1"#),
        ("epochs.json", #"{"trees": [{"id": "x1", "latitude": 1, "longitude": 2, "species": "Apple", "capture": {"averagedEpochs": -9}}]}"#, 1,
         #""averagedEpochs" must be 0 or more, found -9"#),
    ]

    /// Negative satellites, HDOP or epochs refuse the file with the line and the reason, and
    /// nothing is stored.
    @Test(arguments: negativeCounts.indices)
    func negativeCountsAreRefusedWithTheirLine(index: Int) throws {
        let c = Self.negativeCounts[index]
        let file = try folder.write(c.name, c.text)
        #expect(throws: WorkflowError.malformed(file: file, line: c.line, reason: c.reason)) {
            try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        }
        #expect(try folder.store().trees().isEmpty)
    }

    /// A negative accuracy is stored as none, and said once for the file, at its first tree.
    @Test(arguments: [
        ("acc.csv", "latitude,longitude,species,horizontalAccuracy\n1,2,Apple,-1\n3,4,Pear,2\n5,6,Plum,-3\n7,8,Fig,-0.5\n"),
        ("acc.json", #"{"format": "trees-collection", "trees": [\#n{"id": "4F1C2E1A-1111-4222-8333-000000000001", "latitude": 1, "longitude": 2, "species": "Apple", "horizontalAccuracy": -1},\#n"#
            + #"{"id": "4F1C2E1A-1111-4222-8333-000000000002", "latitude": 3, "longitude": 4, "species": "Pear", "horizontalAccuracy": 2},\#n"#
            + #"{"id": "4F1C2E1A-1111-4222-8333-000000000003", "latitude": 5, "longitude": 6, "species": "Plum", "horizontalAccuracy": -3},\#n"#
            + #"{"id": "4F1C2E1A-1111-4222-8333-000000000004", "latitude": 7, "longitude": 8, "species": "Fig", "horizontalAccuracy": -0.5}]}"#),
    ])
    func negativeAccuraciesAreStoredAsNoneWithOneWarning(name: String, text: String) throws {
        let file = try folder.write(name, text)
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(report.imported == 4)
        #expect(report.warnings == [.init(line: 2, reason: "negative horizontal accuracy: this tree and 2 more after it are stored without an accuracy (an accuracy is a radius, 0 or more)")])
        let accuracies = Dictionary(uniqueKeysWithValues: try folder.store().trees().map { ($0.species, $0.horizontalAccuracy) })
        #expect(accuracies == ["Apple": nil, "Pear": 2, "Plum": nil, "Fig": nil])
    }

    /// A header with a field's own name and an alias of it reads the own name, wherever it
    /// stands, and says once which column was ignored.
    @Test func aFieldsOwnNameWinsOverItsAliasWithAWarning() throws {
        let file = try folder.write("both.csv", "lat,lon,latitude,longitude,species,Lat\n1,2,47.5,8.25,Apple,3\n")
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(report.imported == 1)
        #expect(report.warnings == [
            .init(line: 1, reason: "column 1 (lat) is ignored: column 3 (latitude) gives the same field; to read the other, give --columns latitude=lat"),
            .init(line: 1, reason: "column 2 (lon) is ignored: column 4 (longitude) gives the same field; to read the other, give --columns longitude=lon"),
            .init(line: 1, reason: "column 6 (Lat) is ignored: column 3 (latitude) gives the same field; to read the other, give --columns latitude=Lat"),
        ])
        #expect(try folder.store().trees().map(\.coordinate) == [Coordinate(latitude: 47.5, longitude: 8.25)])
    }

    /// A collection named with spaces around it is the stored collection of that name, from a CSV
    /// column or a JSON collection: the trees go in it and no second collection is made.
    @Test func aCollectionNameWithSpacesAroundItIsTheStoredOne() throws {
        let first = try folder.write("first.csv", "latitude,longitude,species,collection\n1,2,Apple,Orchard\n")
        #expect(try ImportWorkflow().run(try InputFile(first), opening: { try folder.store() }).collectionsCreated == ["Orchard"])
        let csv = try folder.write("spaces.csv", "latitude,longitude,species,collection\n3,4,Pear,\" Orchard\"\n5,6,Plum,orchard \n")
        let fromCSV = try ImportWorkflow().run(try InputFile(csv), opening: { try folder.store() })
        #expect(fromCSV.imported == 2 && fromCSV.collectionsCreated.isEmpty)
        let json = try folder.write("spaces.json", """
            {"collections": [{"id": "0E5C0C1E-0000-4000-8000-000000000009", "name": " Orchard "}],
             "trees": [{"id": "4F1C2E1A-1111-4222-8333-000000000009", "latitude": 7, "longitude": 8, "species": "Fig",
                        "collectionId": "0E5C0C1E-0000-4000-8000-000000000009"}]}
            """)
        let fromJSON = try ImportWorkflow().run(try InputFile(json), opening: { try folder.store() })
        #expect(fromJSON.imported == 1 && fromJSON.collectionsCreated.isEmpty)
        let store = try folder.store()
        #expect(try store.collections().map(\.collection.name) == ["Orchard"])
        let orchard = try store.collection(named: "Orchard").id
        #expect(try store.trees().allSatisfy { $0.collectionID == orchard })
    }

    /// A tree without a species is skipped with a reason in the terms of its file: a CSV's cell
    /// and `--columns`, a JSON tree's "species"; not the GPX option `--species-from`.
    @Test(arguments: [
        ("rows.csv", "latitude,longitude,species\n1,2,Apple\n3,4\n5,6, \n",
         [3, 4], "no species: the row's species cell is empty (name the species column with --columns species=COLUMN)"),
        ("trees.json", #"{"trees": [{"id": "a", "latitude": 1, "longitude": 2, "species": "Apple"},\#n{"id": "b", "latitude": 3, "longitude": 4, "species": ""}]}"#,
         [2], #"no species: the tree's "species" is empty"#),
    ])
    func aTreeWithoutSpeciesIsSkippedInTheTermsOfItsFormat(name: String, text: String, lines: [Int], reason: String) throws {
        let file = try folder.write(name, text)
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(report.imported == 1)
        #expect(report.skipped == lines.map { .init(line: $0, reason: reason) })
    }

    /// A collection name the store cannot hold refuses the file at its line, saying what is wrong
    /// with it, and nothing is stored.
    @Test(arguments: [
        ("break.csv", "latitude,longitude,species,collection\n1,2,Apple,Orchard\n3,4,Pear,\"North\nOrchard\"\n", 3,
         "collection name \"North Orchard\" has a line break; a name is one line"),
        ("break.json", #"{"trees": [{"id": "a", "latitude": 1, "longitude": 2, "species": "Apple", "collection": "North\nOrchard"}]}"#, 1,
         "collection name \"North Orchard\" has a line break; a name is one line"),
        ("none.csv", "latitude,longitude,species,collection\n1,2,Apple,None\n", 2,
         "collection name \"None\" is reserved: 'none' means no collection; rename it"),
    ])
    func anUnstorableCollectionNameIsRefusedWithWhatIsWrong(name: String, text: String, line: Int, reason: String) throws {
        let file = try folder.write(name, text)
        #expect(throws: WorkflowError.malformed(file: file, line: line, reason: reason)) {
            try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        }
        #expect(try folder.store().trees().isEmpty)
    }

    /// A blank collection name, in a CSV cell or a JSON tree's "collection", is no collection.
    @Test(arguments: [
        ("blank.csv", "latitude,longitude,species,collection\n1,2,Apple,\" \"\n3,4,Pear,\n"),
        ("blank.json", #"{"trees": [{"id": "4F1C2E1A-1111-4222-8333-000000000031", "latitude": 1, "longitude": 2, "species": "Apple", "collection": ""},\#n"#
            + #"{"id": "4F1C2E1A-1111-4222-8333-000000000032", "latitude": 3, "longitude": 4, "species": "Pear", "collection": "  "}]}"#),
    ])
    func aBlankCollectionNameIsNoCollection(name: String, text: String) throws {
        let file = try folder.write(name, text)
        let report = try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        #expect(report.imported == 2 && report.collectionsCreated.isEmpty && report.warnings.isEmpty)
        #expect(try folder.store().trees().allSatisfy { $0.collectionID == nil })
    }

    @Test func anNMEALogIsRefusedAsPositionsNotTrees() throws {
        let file = try folder.write("walk.nmea", "$GPGGA,092750.000,5321.6802,N,00630.3372,W,1,8,1.03,61.7,M,55.2,M,,*76\r\n")
        #expect(throws: WorkflowError.positionsNotTrees(file: file, path: file)) {
            try ImportWorkflow().run(try InputFile(file), opening: { try folder.store() })
        }
    }
}

extension TemporaryFolder {
    func store() throws -> TreeStore { try TreeStore(path: path("trees.sqlite")) }

    /// Names of the photo files in the store's folder (none when it has no folder yet).
    func photoFiles() throws -> [String] {
        let folder = try store().photoFolder
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}
