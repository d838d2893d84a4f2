import FuzzRows
import FuzzSupport
import Foundation
import GRDB
import TreesKit
import TreesStore

/// In memory-backed /dev/shm when there is one: every input is several real transactions, and a
/// disk's syncs would make them the bulk of the time.
let folder = (FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
    : FileManager.default.temporaryDirectory).appendingPathComponent("trees-fuzz-doctor-\(getpid())").path
let path = folder + "/trees.sqlite"
nonisolated(unsafe) var store: TreeStore?
nonisolated(unsafe) var raw: DatabaseQueue?

/// Reading rows back never traps, whatever they hold; `trees doctor --repair --remove-unrepairable`
/// always leaves a store that reads cleanly and that `examine()` finds sound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if store == nil {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // libFuzzer ends a run with `exit`: the folder goes with it (a crash leaves it behind).
        atexit { try? FileManager.default.removeItem(atPath: folder) }
        store = try! TreeStore(path: path, clock: .fixed(Date(timeIntervalSince1970: 1_750_000_000)))
        var config = Configuration()
        config.foreignKeysEnabled = false
        raw = try! DatabaseQueue(path: path, configuration: config)
    }
    guard let store, let raw else { return 0 }
    var v = Values(bytes: inputBytes(data, size)[...])
    let treeID = "6f1c2e1a-1111-4222-8333-944455556666", collectionID = "0e5c0c1e-0000-4000-8000-000000000001"
    let date = "2025-05-01 10:00:00.000".databaseValue
    let d = date
    var plausibleTree: [DatabaseValue] = [treeID.databaseValue, 47.5.databaseValue, 8.5.databaseValue, 3.0.databaseValue]
    plausibleTree += ["gst".databaseValue, 400.0.databaseValue, 448.0.databaseValue, "Apple".databaseValue]
    plausibleTree += ["Gala".databaseValue, "M9".databaseValue, "note".databaseValue, collectionID.databaseValue]
    plausibleTree += [d, d, d, 3.databaseValue, 9.databaseValue, 0.9.databaseValue, 1.databaseValue, "replay:x".databaseValue]
    let tree = plausibleTree.map { v.value(plausible: $0) }
    let plausibleCollection: [DatabaseValue] = [collectionID.databaseValue, "North".databaseValue, d, d]
    let collection = plausibleCollection.map { v.value(plausible: $0) }
    var plausiblePhoto: [DatabaseValue] = ["7f1c2e1a-1111-4222-8333-944455556666".databaseValue, treeID.databaseValue]
    plausiblePhoto += [String(repeating: "ab", count: 32).databaseValue, "jpeg".databaseValue, 1234.databaseValue, d, d, .null]
    let photo = plausiblePhoto.map { v.value(plausible: $0) }
    try? raw.write { db in
        try db.execute(sql: "DELETE FROM photo; DELETE FROM treeHistory; DELETE FROM tree; DELETE FROM collection; DELETE FROM preference")
        try? db.execute(sql: "INSERT INTO collection VALUES (?, ?, ?, ?)", arguments: StatementArguments(collection))
        try? db.execute(sql: "INSERT INTO tree VALUES (\(Array(repeating: "?", count: 20).joined(separator: ", ")))",
                        arguments: StatementArguments(tree))
        try? db.execute(sql: "INSERT INTO photo VALUES (?, ?, ?, ?, ?, ?, ?, ?)", arguments: StatementArguments(photo))
        try? db.execute(sql: "INSERT INTO preference VALUES ('mapLabels', ?)", arguments: [v.value(plausible: "variety".databaseValue)])
    }
    // Every read either works or throws; none may trap.
    _ = try? store.trees()
    _ = try? store.collections()
    _ = try? store.read { r in try r.photos(of: UUID(uuidString: treeID)!) }
    _ = try? store.tree(matching: "6f1c")
    _ = try? store.preference(.mapLabels)
    let findings = (try? store.examine()) ?? []
    // After mending and removing what cannot be mended, the store reads cleanly.
    let report = try! store.repair(removingUnrepairable: true)
    precondition(report.findings == findings, "examine and repair disagree")
    let after = try! store.examine()
    precondition(after.allSatisfy { $0.table == "database" }, "repair left damage: \(after)")
    _ = try! store.trees()
    _ = try! store.collections()
    _ = try! store.read { r in try r.photos(of: UUID(uuidString: treeID)!) }
    return 0
}
