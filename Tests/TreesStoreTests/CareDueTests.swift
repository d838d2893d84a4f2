import Foundation
import GRDB
import Testing
import TreesKit
@testable import TreesStore
import TreesTestSupport

/// The store's table of what is due (`careDue`) against the same answer worked out from the log,
/// after every kind of change, in a real temporary SQLite file.
@Suite struct CareDueTests {
    let scratch: TemporaryFolder
    let store: TreeStore
    static let t0 = Date(timeIntervalSince1970: 1_777_629_600) // 2026-05-01T10:00:00Z
    static let kinds = ["water", "prune", "spray", "inspect"]

    init() throws {
        scratch = try TemporaryFolder("care-due")
        store = try TreeStore(path: scratch.path("trees.sqlite"), clock: .fixed(Self.t0))
    }

    /// The kept table answers `due` exactly as the log does: every window, the whole orchard and
    /// each collection.
    func expectAgreement(_ step: String, zone: TimeZone = .gmt, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let today = try Day(parsing: "2026-05-01")
        try store.read { r in
            let scopes = [CareFilter.Scope.all] + (try r.collections().map { .collection($0.collection.id) })
            for scope in scopes {
                for within in [0, 30, 1_000_000] {
                    let collection: UUID? = if case .collection(let id) = scope { id } else { nil }
                    let kept = try r.keptDueCare(today: today, within: within, zone: zone, collection: collection)
                    let computed = try r.computedDueCare(today: today, within: within, zone: zone, scope: scope)
                    #expect(kept != nil, "\(step): the table is kept", sourceLocation: sourceLocation)
                    if let kept, kept != computed {
                        let at = kept.indices.first { $0 >= computed.count || kept[$0] != computed[$0] } ?? kept.count
                        let row = { (items: [DueCare]) in items.indices.contains(at) ? "\(items[at])" : "none" }
                        let message = "\(step): \(scope) within \(within): the table gives \(kept.count) cares, the log \(computed.count); "
                            + "first difference at \(at): \(row(kept)) against \(row(computed))"
                        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
                    }
                }
            }
            let stale = try Int.fetchOne(r.db, sql: "SELECT COUNT(*) FROM careDueStale")
            #expect(stale == 0, "\(step): nothing is left marked", sourceLocation: sourceLocation)
        }
    }

    func tree(_ species: String, collection: UUID?, _ rng: inout SplitMix64) -> Tree {
        Tree(coordinate: Coordinate(latitude: 47 + Double(rng.next() % 1000) / 1e4, longitude: 8), species: species,
             variety: rng.next() % 2 == 0 ? nil : "V\(rng.next() % 3)", collectionID: collection, createdAt: Self.t0)
    }

    /// A random moment between 2025-01-01 and 2026-04-30, often near midnight UTC so that zones disagree on its day.
    func moment(_ rng: inout SplitMix64) -> Date {
        let day = Double(20_089 + Int(rng.next() % 485)) * 86_400
        let second = [0, 1_800, 43_200, 84_600, 86_399][Int(rng.next() % 5)]
        return Date(timeIntervalSince1970: day + Double(second))
    }

    func schedule(_ target: CareSchedule.Target, _ rng: inout SplitMix64) throws -> CareSchedule {
        let seasons = [nil, "04-01..09-30", "10-01..12-31", "06-15..06-30"]
        return CareSchedule(target: target, kind: try CareKind(Self.kinds[Int(rng.next() % 4)]), everyDays: 1 + Int(rng.next() % 60),
                            from: Day(20_000 + Int(rng.next() % 600)),
                            season: try seasons[Int(rng.next() % 4)].map { text throws(CareInputError) in try Season(parsing: text) },
                            createdAt: Self.t0)
    }

    /// Several hundred random changes of every kind that can move a due day, each followed by a
    /// comparison of the table with the log.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theTableFollowsEveryChange(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var collections = try store.write { w in try ["A", "B", "C"].map { try w.createCollection(named: "Block \($0)") } }
        try store.write { w in
            for i in 0..<30 { try w.insert(tree(["Apple", "Pear", "Plum"][i % 3], collection: i % 4 == 3 ? nil : collections[i % 3].id, &rng)) }
            try w.setSchedule(try schedule(.collection(collections[0].id), &rng))
        }
        #expect(try store.read { try $0.keptDueCare(today: Day(0), within: 0, zone: .gmt, collection: nil) } == nil)
        #expect(try store.keepDueCare(zone: .gmt))
        try expectAgreement("built")
        var most = 0
        for step in 0..<250 {
            let trees = try store.read { try $0.trees(TreeFilter()) }
            let events = try store.read { try $0.careEntries(CareFilter()) }.map(\.event)
            let schedules = try store.read { try $0.careSchedules() }
            func anyTree(_ rng: inout SplitMix64) -> Tree? { trees.isEmpty ? nil : trees[Int(rng.next() % UInt64(trees.count))] }
            func anyCollection(_ rng: inout SplitMix64) -> UUID? {
                let i = Int(rng.next() % UInt64(collections.count + 1))
                return i == collections.count ? nil : collections[i].id
            }
            let action = Int(rng.next() % 14)
            var label = "step \(step)"
            do {
            switch action {
            case 0:
                label += ": a tree added"
                let t = tree("Cherry", collection: anyCollection(&rng), &rng)
                try store.write { try $0.insert(t) }
            case 1, 2:
                label += ": an event logged"
                guard let t = anyTree(&rng) else { continue }
                let e = CareEvent(treeID: t.id, kind: try CareKind(Self.kinds[Int(rng.next() % 4)]), date: moment(&rng), createdAt: Self.t0)
                try store.write { try $0.insert(e) }
            case 3:
                label += ": events logged in one batch"
                var batch: [CareEvent] = []
                for _ in 0..<(2 + Int(rng.next() % 8)) {
                    guard let t = anyTree(&rng) else { break }
                    batch.append(CareEvent(treeID: t.id, kind: try CareKind(Self.kinds[Int(rng.next() % 4)]), date: moment(&rng), createdAt: Self.t0))
                }
                try store.write { _ = try $0.insert(careEvents: batch) }
            case 4:
                label += ": an event edited"
                guard !events.isEmpty, let t = anyTree(&rng) else { continue }
                var e = events[Int(rng.next() % UInt64(events.count))]
                switch rng.next() % 3 {
                case 0: e.date = moment(&rng)
                case 1: e.kind = try CareKind(Self.kinds[Int(rng.next() % 4)])
                default: e.treeID = t.id
                }
                try store.write { _ = try $0.update(e) }
            case 5:
                label += ": an event removed"
                guard !events.isEmpty else { continue }
                let e = events[Int(rng.next() % UInt64(events.count))]
                try store.write { _ = try $0.deleteCareEvent(e.id) }
            case 6:
                label += ": a schedule set"
                let target: CareSchedule.Target
                if rng.next() % 2 == 0, let t = anyTree(&rng) { target = .tree(t.id) } else { target = .collection(collections[Int(rng.next() % UInt64(collections.count))].id) }
                let s = try schedule(target, &rng)
                try store.write { try $0.setSchedule(s) }
            case 7:
                label += ": a schedule removed"
                guard !schedules.isEmpty else { continue }
                let s = schedules[Int(rng.next() % UInt64(schedules.count))]
                #expect(try store.write { try $0.removeSchedule(s.target, kind: s.kind) })
            case 8:
                label += ": trees moved to another collection"
                let moved = (0..<3).compactMap { _ in anyTree(&rng)?.id }
                let to = anyCollection(&rng)
                try store.write { _ = try $0.assign(moved, to: to) }
            case 9:
                label += ": a species and variety changed"
                guard var t = anyTree(&rng) else { continue }
                t.species = ["Apple", "Quince", "Medlar"][Int(rng.next() % 3)]
                t.variety = rng.next() % 2 == 0 ? nil : "Renamed"
                let changed = t
                try store.write { _ = try $0.update(changed) }
            case 10:
                label += ": a tree removed"
                guard let t = anyTree(&rng) else { continue }
                try store.write { _ = try $0.deleteTrees([t.id]) }
            case 11:
                label += ": a tree replaced"
                guard var t = anyTree(&rng) else { continue }
                t.collectionID = anyCollection(&rng)
                t.species = "Walnut"
                let replaced = t
                try store.write { try $0.upsert(replaced) }
            case 12:
                label += ": trees imported in bulk"
                let into = anyCollection(&rng)
                let batch = (0..<(5 + Int(rng.next() % 60))).map { _ in tree("Apricot", collection: into, &rng) }
                try store.write { w in
                    let bulk = w.bulkTrees()
                    for t in batch { _ = try bulk.queueIfNew(t) }
                    _ = try bulk.storeQueue()
                }
            default:
                label += ": a collection removed and another made"
                guard rng.next() % 3 == 0 else { continue }
                let gone = collections.remove(at: Int(rng.next() % UInt64(collections.count)))
                let name = "Block \(step)"
                collections.append(try store.write { w in
                    _ = try w.deleteCollection(named: gone.name)
                    return try w.createCollection(named: name)
                })
            }
            } catch {
                Issue.record("\(label): \(error)")
                throw error
            }
            try expectAgreement(label)
            most = max(most, try store.read { try Int.fetchOne($0.db, sql: "SELECT COUNT(*) FROM careDue") ?? 0 })
        }
        #expect(most > 20, "the changes made scheduled cares to compare")
    }

    /// The table is kept for one zone: `due` in another works its answer out from the log until
    /// the table is built for that zone; either way the days are those of the zone asked for.
    @Test func theTableIsKeptForOneZone() throws {
        let auckland = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let (block, t) = try store.write { w -> (TreeCollection, Tree) in
            let block = try w.createCollection(named: "Block A")
            let t = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", collectionID: block.id, createdAt: Self.t0)
            try w.insert(t)
            // 2026-04-20 at 20:00 UTC is already the 21st in Auckland.
            try w.insert(CareEvent(treeID: t.id, kind: try CareKind("water"), date: Date(timeIntervalSince1970: 1_776_715_200), createdAt: Self.t0))
            try w.setSchedule(CareSchedule(target: .collection(block.id), kind: try CareKind("water"), everyDays: 10,
                                           from: try Day(parsing: "2026-01-01"), createdAt: Self.t0))
            return (block, t)
        }
        _ = block
        #expect(try store.keepDueCare(zone: auckland))
        try expectAgreement("kept for Auckland", zone: auckland)
        let today = try Day(parsing: "2026-05-01")
        let inAuckland = try store.read { try $0.dueCare(today: today, within: 0, zone: auckland) }
        #expect(inAuckland.map(\.due.description) == ["2026-05-01"])
        // Asked in UTC, the answer is UTC's, worked out from the log (the table is Auckland's).
        let inUTC = try store.read { try $0.dueCare(today: today, within: 0, zone: .gmt) }
        #expect(inUTC.map(\.due.description) == ["2026-04-30"])
        #expect(try store.read { try $0.dueCareZone() } == "Pacific/Auckland")
        #expect(try store.keepDueCare(zone: .gmt))
        #expect(try store.read { try $0.dueCareZone() } == "GMT")
        try expectAgreement("kept for UTC")
        #expect(try store.read { try $0.dueCare(today: today, within: 0, zone: .gmt) } == inUTC)
        _ = t
    }

    /// Dates at the ends of the years a store keeps are days like any other in the table: an
    /// event on 0000-01-01 UTC is 31 December of year -1 in New York, and a schedule from
    /// 9999-12-31 comes due a hundred years later; the table reads them back and agrees with the log.
    @Test func daysAtTheEndsOfTheStoredYearsAreKept() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        try store.write { w in
            let t = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", createdAt: Self.t0)
            try w.insert(t)
            try w.insert(CareEvent(treeID: t.id, kind: try CareKind("water"), date: Date(timeIntervalSince1970: -62_167_219_200),
                                   createdAt: Self.t0))
            try w.setSchedule(CareSchedule(target: .tree(t.id), kind: try CareKind("water"), everyDays: 14,
                                           from: try Day(parsing: "0000-01-01"), createdAt: Self.t0))
            try w.setSchedule(CareSchedule(target: .tree(t.id), kind: try CareKind("prune"), everyDays: CareSchedule.longestInterval,
                                           from: try Day(parsing: "9999-12-31"), season: try Season(parsing: "01-01..01-01"),
                                           createdAt: Self.t0))
            try w.insert(CareEvent(treeID: t.id, kind: try CareKind("prune"), date: Date(timeIntervalSince1970: 253_402_300_799),
                                   createdAt: Self.t0))
        }
        #expect(try store.keepDueCare(zone: newYork))
        try expectAgreement("extreme days", zone: newYork)
        let all = try store.read { try $0.computedDueCare(today: try Day(parsing: "2026-05-01"), within: nil, zone: newYork) }
        #expect(all.map { "\($0.kind) \($0.lastDone?.description ?? "never") \($0.due)" }
            == ["water -0001-12-31 0000-01-14", "prune 9999-12-31 10100-01-01"])
        #expect(try store.examine().isEmpty)
    }

    /// A schedule's interval is 1 to 36,500 days, as typed ones are: a longer one is refused, and
    /// one stored in the file is a damaged value that the doctor names, never a trap.
    @Test func intervalsBeyondAHundredYearsAreRefused() throws {
        let t = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", createdAt: Self.t0)
        try store.write { w in
            try w.insert(t)
            try w.setSchedule(CareSchedule(target: .tree(t.id), kind: try CareKind("water"), everyDays: 7,
                                           from: try Day(parsing: "2026-01-01"), createdAt: Self.t0))
            try w.insert(CareEvent(treeID: t.id, kind: try CareKind("water"), date: Self.t0, createdAt: Self.t0))
        }
        for days in [0, CareSchedule.longestInterval + 1, Int.max] {
            #expect(throws: StoreError.self) {
                try store.write { w in
                    try w.setSchedule(CareSchedule(target: .tree(t.id), kind: try CareKind("prune"), everyDays: days,
                                                   from: try Day(parsing: "2026-01-01"), createdAt: Self.t0))
                }
            }
        }
        try store.write { w in try w.db.execute(sql: "UPDATE careSchedule SET everyDays = 9223372036854775807") }
        #expect(throws: StoreError.self) { try store.read { try $0.computedDueCare(today: Day(0), within: nil, zone: .gmt) } }
        let findings = try store.examine()
        #expect(findings.map { "\($0.table) \($0.column ?? "") \($0.reason)" }
            == ["careSchedule everyDays 9223372036854775807 is not a number of days from 1 to 36500"])
    }

    /// Building the table is no change to sync: the clock and change number stay as they were.
    @Test func buildingTheTableIsNoChange() throws {
        try store.write { w in
            let t = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", createdAt: Self.t0)
            try w.insert(t)
            try w.setSchedule(CareSchedule(target: .tree(t.id), kind: try CareKind("prune"), everyDays: 365,
                                           from: try Day(parsing: "2026-01-01"), createdAt: Self.t0))
        }
        let before = try store.read { try Row.fetchOne($0.db, sql: "SELECT hlc, seq FROM syncState") }
        #expect(try store.keepDueCare(zone: .gmt))
        #expect(try store.read { try Int.fetchOne($0.db, sql: "SELECT COUNT(*) FROM careDue") } == 1)
        #expect(try store.read { try Row.fetchOne($0.db, sql: "SELECT hlc, seq FROM syncState") } == before)
    }

    /// Mending the log (`rebuildCareSummaries`) drops the table; the next `due` builds it again.
    @Test func rebuildingTheSummariesDropsTheTable() throws {
        var rng = SplitMix64(seed: 9)
        let block = try store.write { try $0.createCollection(named: "Block A") }
        try store.write { w in
            for _ in 0..<10 {
                let t = tree("Apple", collection: block.id, &rng)
                try w.insert(t)
                try w.insert(CareEvent(treeID: t.id, kind: try CareKind("water"), date: moment(&rng), createdAt: Self.t0))
            }
            try w.setSchedule(CareSchedule(target: .collection(block.id), kind: try CareKind("water"), everyDays: 7,
                                           from: try Day(parsing: "2025-01-01"), createdAt: Self.t0))
        }
        #expect(try store.keepDueCare(zone: .gmt))
        try expectAgreement("built")
        try store.write { try $0.rebuildCareSummaries() }
        #expect(try store.read { try $0.dueCareZone() } == nil)
        #expect(try store.read { try Int.fetchOne($0.db, sql: "SELECT COUNT(*) FROM careDue") } == 0)
        #expect(try store.keepDueCare(zone: .gmt))
        try expectAgreement("built again")
    }

    /// Building the table does not wait for another process's write (the answer can be worked
    /// out from the log meanwhile); the store's own writes still wait as long as they always did.
    @Test func buildingDoesNotWaitForAnotherWriter() throws {
        let patient = try TreeStore(path: scratch.path("trees.sqlite"), clock: .fixed(Self.t0), busyTimeout: 600)
        let t = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", createdAt: Self.t0)
        try patient.write { w in
            try w.insert(t)
            try w.setSchedule(CareSchedule(target: .tree(t.id), kind: try CareKind("prune"), everyDays: 365,
                                           from: try Day(parsing: "2026-01-01"), createdAt: Self.t0))
        }
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: scratch.path("trees.sqlite"), configuration: holding)
        try other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        // Were it to wait, it would wait 600 s.
        #expect(throws: StoreError.busy("database is locked")) { try patient.keepDueCare(zone: .gmt) }
        let today = try Day(parsing: "2026-05-01")
        #expect(try patient.read { try $0.dueCare(today: today, within: 365, zone: .gmt) }.map(\.due.description) == ["2026-01-01"])
        try other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        #expect(try patient.keepDueCare(zone: .gmt))
        #expect(try patient.read { try $0.dueCareZone() } == "GMT")
        #expect(try patient.read { try Int.fetchOne($0.db, sql: "PRAGMA busy_timeout") } == 600_000)
    }

    /// Imports leave the new tree trigger to the bulk writer, which only does so while the
    /// trigger is exactly the one it stands in for.
    @Test func theBulkWriterKnowsTheNewTreeTrigger() throws {
        let sql = try store.read { try String.fetchOne($0.db, sql: "SELECT sql FROM sqlite_master WHERE name = 'careDue_tree_insert'") }
        #expect(sql == CareDueSchema.treeInsertTrigger)
    }

    /// A table of what is due that a faulty program changed (a day moved, a row gone, a row too
    /// many, a mark left) is a finding of the doctor, which builds it again; `due` then answers
    /// as the log does. One kept for a zone this system does not know is emptied.
    @Test func theDoctorFindsAndRebuildsATableThatDisagrees() throws {
        var rng = SplitMix64(seed: 5)
        let zurich = try #require(TimeZone(identifier: "Europe/Zurich"))
        try store.write { w in
            let block = try w.createCollection(named: "Block 1")
            for i in 0..<40 {
                let t = tree("Apple", collection: i % 2 == 0 ? block.id : nil, &rng)
                try w.insert(t)
                try w.insert(CareEvent(treeID: t.id, kind: try CareKind("water"), date: moment(&rng), createdAt: Self.t0))
                if i % 4 == 1 { try w.setSchedule(try schedule(.tree(t.id), &rng)) }
            }
            try w.setSchedule(CareSchedule(target: .collection(block.id), kind: try CareKind("water"), everyDays: 10,
                                           from: try Day(parsing: "2025-01-01"), createdAt: Self.t0))
        }
        #expect(try store.keepDueCare(zone: zurich))
        try expectAgreement("kept", zone: zurich)
        #expect(try store.examine().isEmpty)
        let rows = try store.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM careDue") } ?? 0
        #expect(rows >= 20)

        try store.write { w in
            try w.db.execute(sql: """
                UPDATE careDue SET dueDay = dueDay + 3 WHERE (treeId, kind) IN (SELECT treeId, kind FROM careDue ORDER BY treeId LIMIT 1 OFFSET 2);
                DELETE FROM careDue WHERE treeId = (SELECT treeId FROM careDue ORDER BY treeId DESC LIMIT 1);
                INSERT INTO careDue (dueDay, treeId, kind, lastDay, species, variety, collectionId)
                    SELECT 20000, id, 'graft', NULL, species, variety, collectionId FROM tree ORDER BY id LIMIT 1;
                UPDATE careDue SET species = 'Pear' WHERE treeId = (SELECT treeId FROM careDue ORDER BY treeId LIMIT 1 OFFSET 5);
                """)
        }
        let findings = try store.examine()
        #expect(findings.count == 1)
        #expect(findings.first?.table == "careDue")
        #expect(findings.first?.reason.hasSuffix(" of what is due disagree with the schedules and the care log") == true, "\(findings)")
        let counted = Int(findings.first?.reason.prefix { $0.isNumber } ?? "") ?? 0
        #expect(counted >= 4, "\(findings)")
        #expect(findings.first?.remedy == "built again from them")
        let report = try store.repair(removingUnrepairable: false)
        #expect(report.mended == 1 && report.left == 0)
        try expectAgreement("rebuilt", zone: zurich)
        #expect(try store.examine().isEmpty)

        // A zone this system does not know: the table is emptied, and `due` works its answer out.
        try store.write { w in try w.db.execute(sql: "UPDATE careDueState SET zone = 'Mars/Olympus_Mons'") }
        #expect(try store.examine().map(\.reason) == ["what is due is kept for the time zone 'Mars/Olympus_Mons', which this system does not know"])
        _ = try store.repair(removingUnrepairable: false)
        #expect(try store.read { try $0.dueCareZone() } == nil)
        #expect(try store.read { try Int.fetchOne($0.db, sql: "SELECT count(*) FROM careDue") } == 0)
        #expect(try store.examine().isEmpty)
    }
}
