import Foundation
import GRDB
import Testing
import TreesKit
@testable import TreesStore
import TreesTestSupport

/// The care log against a real temporary SQLite file.
@Suite struct CareStoreTests {
    let scratch: TemporaryFolder
    let store: TreeStore
    static let t0 = Date(timeIntervalSince1970: 1_777_629_600) // 2026-05-01T10:00:00Z

    init() throws {
        scratch = try TemporaryFolder("care-store")
        store = try TreeStore(path: scratch.path("trees.sqlite"), clock: .fixed(Self.t0))
    }

    static func day(_ text: String) throws -> Day { try Day(parsing: text) }
    static func at(_ text: String) throws -> Date { try day(text).start(in: .gmt) }

    func addTree(_ species: String, collection: UUID? = nil) throws -> Tree {
        let tree = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: species, collectionID: collection, createdAt: Self.t0)
        try store.write { try $0.insert(tree) }
        return tree
    }

    func log(_ tree: Tree, _ kind: String, _ date: String, health: HealthStatus? = nil, quantity: CareQuantity? = nil) throws -> CareEvent {
        let e = CareEvent(treeID: tree.id, kind: try CareKind(kind), date: try Self.at(date), quantity: quantity, health: health,
                          createdAt: Self.t0)
        try store.write { try $0.insert(e) }
        return e
    }

    @Test func eventsListNewestFirstAndRoundTrip() throws {
        let apple = try addTree("Apple"), pear = try addTree("Pear")
        let water = CareEvent(treeID: apple.id, kind: try CareKind("water"), date: try Self.at("2026-04-10"), notes: "dry spell",
                              quantity: CareQuantity(value: 40, unit: "l"), who: "Ana", createdAt: Self.t0)
        try store.write { try $0.insert(water) }
        let prune = try log(apple, "prune", "2026-04-20")
        let other = try log(pear, "prune", "2026-04-25")
        let all = try store.read { try $0.careEntries(CareFilter()) }
        #expect(all.map(\.event.id) == [other.id, prune.id, water.id])
        #expect(all.map(\.species) == ["Pear", "Apple", "Apple"])
        let mine = try store.read { try $0.careEntries(CareFilter(scope: .tree(apple.id))) }
        #expect(mine.map(\.event) == [prune, water])
        let watered = try store.read { try $0.careEntries(CareFilter(kind: try CareKind("Water"))) }
        #expect(watered.map(\.event) == [water])
        let recent = try store.read { try $0.careEntries(CareFilter(since: try Self.at("2026-04-20"))) }
        #expect(recent.map(\.event.id) == [other.id, prune.id])
        #expect(try store.read { try $0.careEvent(matching: String(water.id.uuidString.prefix(8))) } == water)
    }

    /// Listing the log reads each value's own bytes: a text written around `trees` with a NUL
    /// character in it (which would cut it short), a blob with one and a date that is not one are
    /// each a damaged value named by table, row and column, as a read of that one event says,
    /// never a shortened note.
    @Test(arguments: [
        ("notes", "CAST(X'61006263' AS TEXT)", "it contains a NUL character (U+0000)"),
        ("who", "X'4100'", "it contains a NUL character (U+0000)"),
        ("date", "'soon'", "\"soon\" is not a date"),
    ])
    func listingTheLogNamesADamagedValue(column: String, sql: String, reason: String) throws {
        let apple = try addTree("Apple")
        let fine = try log(apple, "water", "2026-04-10")
        let damaged = try log(apple, "prune", "2026-04-20")
        try store.write { w in try w.db.execute(sql: "UPDATE careEvent SET \(column) = \(sql) WHERE id = ?", arguments: [damaged.id.storageKey]) }
        let expected = StoreError.damagedRow(table: "careEvent", row: 2, id: damaged.id.storageKey, column: column, reason: reason)
        #expect(throws: expected) { try store.read { try $0.careEntries(CareFilter()) } }
        #expect(throws: expected) { try store.read { try $0.careEvent(matching: damaged.id.storageKey) } }
        #expect(try store.read { try $0.careEntries(CareFilter(kind: try CareKind("water"))) }.map(\.event) == [fine])
    }

    /// Listing reads the usual row straight from SQLite's buffers and any other row the checked
    /// way: both give each event exactly as reading that one event does, whatever form its values
    /// were written in around `trees` (a kind in capitals, a date in ISO 8601, a quantity as text
    /// or a whole number, a blob of UTF-8, a health in the log's own word).
    @Test func listingGivesEveryEventAsReadingItAloneDoes() throws {
        let apple = try addTree("Apple"), pear = try addTree("Pear")
        var logged: [CareEvent] = []
        logged.append(try log(apple, "water", "2026-04-01", quantity: CareQuantity(value: 40, unit: "l")))
        logged.append(try log(apple, "inspect", "2026-04-02", health: .pest))
        logged.append(try log(pear, "soil test", "2026-04-03", quantity: CareQuantity(value: 6.5, unit: nil)))
        logged.append(try log(pear, "harvest", "2026-04-04", quantity: CareQuantity(value: 12.25, unit: "kg")))
        logged.append(try log(pear, "prune", "2026-04-05"))
        logged.append(try log(apple, "spray", "2026-04-06"))
        logged.append(try log(apple, "graft", "2026-04-07"))
        var noted = CareEvent(treeID: pear.id, kind: try CareKind("thin_out-2"), date: try Self.at("2026-04-08"), notes: "Äste über 3 m — ✂︎",
                              who: "Zoë", createdAt: Self.t0)
        try store.write { try $0.insert(noted) }
        logged.append(noted)
        let edits = [
            "UPDATE careEvent SET kind = 'Water ' WHERE id = ?",
            "UPDATE careEvent SET date = '2026-04-02T08:30:00Z' WHERE id = ?",
            "UPDATE careEvent SET quantity = '6.5' WHERE id = ?",
            "UPDATE careEvent SET quantity = 12 WHERE id = ?",
            "UPDATE careEvent SET notes = CAST('late' AS BLOB) WHERE id = ?",
            "UPDATE careEvent SET createdAt = 1777629600 WHERE id = ?",
        ]
        try store.write { w in
            for (edit, event) in zip(edits, logged) { try w.db.execute(sql: edit, arguments: [event.id.storageKey]) }
        }
        let listed = try store.read { try $0.careEntries(CareFilter()) }.map(\.event)
        #expect(listed.count == logged.count)
        for event in listed {
            let alone = try store.read { try $0.careEvent(matching: event.id.storageKey) }
            #expect(event == alone, "\(event.kind.name)")
        }
        let byID = Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0) })
        #expect(byID[logged[0].id]?.kind.name == "water")
        #expect(byID[logged[1].id]?.date == Date(timeIntervalSince1970: 1_775_118_600))
        #expect(byID[logged[2].id]?.quantity == CareQuantity(value: 6.5, unit: nil))
        #expect(byID[logged[3].id]?.quantity == CareQuantity(value: 12, unit: "kg"))
        #expect(byID[logged[4].id]?.notes == "late")
        #expect(byID[logged[5].id]?.createdAt == Self.t0)
        #expect(byID[logged[1].id]?.health == .pest)
        noted.updatedAt = byID[noted.id]?.updatedAt ?? noted.updatedAt
        #expect(byID[noted.id] == noted)
    }

    @Test func unknownTreeIsRefusedAndNothingIsStored() throws {
        let ghost = CareEvent(treeID: UUID(), kind: try CareKind("water"), date: Self.t0, createdAt: Self.t0)
        #expect(throws: StoreError.unknownTree(ghost.treeID.storageKey)) { try store.write { try $0.insert(ghost) } }
        #expect(try store.read { try $0.careEntries(CareFilter()) }.isEmpty)
        #expect(throws: StoreError.unknownCareEvent("abcdef12")) { try store.read { try $0.careEvent(matching: "abcdef12") } }
    }

    /// The last event of each kind and the health follow every insert, edit and delete.
    @Test func lastCareAndHealthFollowEditsAndDeletes() throws {
        let apple = try addTree("Apple")
        let early = try log(apple, "water", "2026-04-01")
        let late = try log(apple, "water", "2026-04-15")
        let sick = try log(apple, "inspect", "2026-04-10", health: .diseased)
        #expect(try store.read { try $0.lastCare(of: apple.id) }.map(\.id) == [sick.id, late.id])
        #expect(try store.read { try $0.health(of: apple.id) } == HealthRecord(status: .diseased, date: try Self.at("2026-04-10")))

        try store.write { _ = try $0.deleteCareEvent(late.id) }
        #expect(try store.read { try $0.lastCare(of: apple.id) }.map(\.id) == [sick.id, early.id])

        var moved = early
        moved.kind = try CareKind("fertilise")
        try store.write { _ = try $0.update(moved) }
        #expect(try store.read { try $0.lastCare(of: apple.id) }.map(\.kind.name) == ["fertilise", "inspect"])

        let well = try log(apple, "inspect", "2026-04-28", health: .healthy)
        #expect(try store.read { try $0.health(of: apple.id) }?.status == .healthy)
        #expect(try store.read { try $0.healthHistory(of: apple.id) }.map(\.health) == [.diseased, .healthy])
        #expect(try store.read { try $0.healthByTree() } == [apple.id: .healthy])
        try store.write { _ = try $0.deleteCareEvent(well.id) }
        #expect(try store.read { try $0.health(of: apple.id) }?.status == .diseased)

        // Deleting the tree deletes its log.
        _ = try store.write { try $0.deleteTrees([apple.id]) }
        let left = try store.queue.read { db in
            try ["careEvent", "careLatest", "treeHealth"].map { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \($0)") ?? -1 }
        }
        #expect(left == [0, 0, 0])
    }

    /// A collection's schedule covers its trees; a tree's own schedule of the same kind stands in for it.
    @Test func dueFromCollectionAndTreeSchedules() throws {
        let block = try store.write { try $0.createCollection(named: "Block A") }
        let a = try addTree("Apple", collection: block.id), b = try addTree("Pear", collection: block.id), loose = try addTree("Plum")
        _ = try log(a, "water", "2026-04-10")
        _ = try log(b, "water", "2026-04-28")
        let water = try CareKind("water")
        try store.write { w in
            try w.setSchedule(CareSchedule(target: .collection(block.id), kind: water, everyDays: 14, from: try Self.day("2026-04-01"),
                                           season: try Season(parsing: "04-01..09-30"), createdAt: Self.t0))
            try w.setSchedule(CareSchedule(target: .tree(b.id), kind: water, everyDays: 2, from: try Self.day("2026-04-01"), createdAt: Self.t0))
            try w.setSchedule(CareSchedule(target: .tree(loose.id), kind: try CareKind("prune"), everyDays: 365,
                                           from: try Self.day("2026-05-03"), createdAt: Self.t0))
        }
        let today = try Self.day("2026-05-01")
        let due = try store.read { try $0.dueCare(today: today, within: 0, zone: .gmt) }
        #expect(due.map { "\($0.species) \($0.kind) \($0.due) \($0.daysOverdue)" } == ["Apple water 2026-04-24 7", "Pear water 2026-04-30 1"])
        let week = try store.read { try $0.dueCare(today: today, within: 7, zone: .gmt) }
        #expect(week.map(\.species) == ["Apple", "Pear", "Plum"])
        let inBlock = try store.read { try $0.dueCare(today: today, within: 7, zone: .gmt, scope: .collection(block.id)) }
        #expect(inBlock.map(\.species) == ["Apple", "Pear"])

        // Setting a schedule of the same kind replaces it; removing it leaves the collection's.
        try store.write { w in
            try w.setSchedule(CareSchedule(target: .tree(b.id), kind: water, everyDays: 30, from: try Self.day("2026-04-01"), createdAt: Self.t0))
        }
        #expect(try store.read { try $0.careSchedules() }.count == 3)
        #expect(try store.read { try $0.careSchedules(of: b) }.map(\.everyDays) == [30])
        #expect(try store.write { try $0.removeSchedule(.tree(b.id), kind: water) })
        #expect(try store.read { try $0.careSchedules(of: b) }.map(\.everyDays) == [14])
        #expect(try !store.write { try $0.removeSchedule(.tree(b.id), kind: water) })
    }

    @Test func statisticsPerMonthAndHarvestTotals() throws {
        let block = try store.write { try $0.createCollection(named: "North") }
        let gala = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", variety: "Gala", collectionID: block.id, createdAt: Self.t0)
        try store.write { try $0.insert(gala) }
        let plain = try addTree("Apple")
        let treeOf = try store.read { try $0.tree(id: gala.id) }
        let galaTree = try #require(treeOf)
        _ = try log(galaTree, "harvest", "2026-04-10", quantity: CareQuantity(value: 12, unit: "kg"))
        _ = try log(galaTree, "harvest", "2026-04-11", quantity: CareQuantity(value: 3.5, unit: "kg"))
        _ = try log(plain, "harvest", "2026-05-01", quantity: CareQuantity(value: 4, unit: "kg"))
        _ = try log(plain, "water", "2026-05-01")
        let months = try store.read { try $0.careCountsByMonth() }
        #expect(months.map { "\($0.month) \($0.kind) \($0.count)" } == ["2026-04 harvest 2", "2026-05 harvest 1", "2026-05 water 1"])
        let byVariety = try store.read { try $0.harvestTotals(byCollection: false) }
        #expect(byVariety.map { "\($0.group ?? "-") \($0.total) \($0.unit ?? "") \($0.events)" } == ["Gala 15.5 kg 2", "- 4.0 kg 1"])
        let byCollection = try store.read { try $0.harvestTotals(byCollection: true, collection: block.id) }
        #expect(byCollection.map { "\($0.group ?? "-") \($0.total)" } == ["North 15.5"])

        // The monthly counts and harvests follow edits and deletes, also of a whole tree.
        let later = try log(plain, "harvest", "2026-05-02", quantity: CareQuantity(value: 1, unit: "kg"))
        var moved = later
        moved.date = try Self.at("2026-06-01")
        try store.write { _ = try $0.update(moved) }
        #expect(try store.read { try $0.careCountsByMonth() }.map { "\($0.month) \($0.kind) \($0.count)" }
            == ["2026-04 harvest 2", "2026-05 harvest 1", "2026-05 water 1", "2026-06 harvest 1"])
        #expect(try store.read { try $0.harvestTotals(byCollection: false) }.map { "\($0.group ?? "-") \($0.total)" } == ["Gala 15.5", "- 5.0"])
        _ = try store.write { try $0.deleteTrees([plain.id]) }
        #expect(try store.read { try $0.careCountsByMonth() }.map { "\($0.month) \($0.kind) \($0.count)" } == ["2026-04 harvest 2"])
        #expect(try store.read { try $0.harvestTotals(byCollection: false) }.map { "\($0.group ?? "-") \($0.total)" } == ["Gala 15.5"])
        // A rebuild from the log gives the same.
        try store.write { try $0.rebuildCareSummaries() }
        #expect(try store.read { try $0.careCountsByMonth() }.map { "\($0.month) \($0.kind) \($0.count)" } == ["2026-04 harvest 2"])
    }

    /// Months are those of the zone asked for: 23:30 on 31 March in New York (summer time) is
    /// 1 April in UTC but March there; for a collection as for the whole log, and agreeing with a
    /// count of every event's own local month.
    @Test func monthsAreCountedInTheZoneAskedFor() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        let block = try store.write { try $0.createCollection(named: "North") }
        let tree = Tree(coordinate: Coordinate(latitude: 50, longitude: 8), species: "Apple", collectionID: block.id, createdAt: Self.t0)
        try store.write { try $0.insert(tree) }
        let moments = [
            "2026-04-01T03:30:00Z", // 2026-03-31 23:30 in New York
            "2026-03-31T20:00:00Z", // 2026-04-01 01:30 in Kolkata
            "2026-01-01T00:00:00Z", "2025-12-31T23:59:59Z", "2026-03-08T07:30:00Z", "2026-11-01T05:30:00Z",
            "2026-02-28T22:00:00Z", "2026-05-15T12:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
        ]
        try store.write { w in
            for (i, text) in moments.enumerated() {
                let date = try #require(TextCodec.parseISO8601(text))
                try w.insert(CareEvent(treeID: tree.id, kind: try CareKind(i % 2 == 0 ? "water" : "prune"), date: date, createdAt: Self.t0))
            }
        }
        let ny = try store.read { try $0.careCountsByMonth(zone: newYork) }
        #expect(ny.contains { $0.month == "2026-03" && $0.kind == "water" && $0.count == 2 })
        #expect(!ny.contains { $0.month == "2026-04" && $0.kind == "water" })
        for zone in [newYork, kolkata, .gmt] {
            var expected: [String: Int] = [:]
            for (i, text) in moments.enumerated() {
                let f = Day(try #require(TextCodec.parseISO8601(text)), in: zone).fields
                let year = f.year < 0 ? "-000\(-f.year)" : String(repeating: "0", count: max(0, 4 - String(f.year).count)) + String(f.year)
                expected["\(year)-\(f.month < 10 ? "0" : "")\(f.month) \(i % 2 == 0 ? "water" : "prune")", default: 0] += 1
            }
            let keys = expected.keys.sorted { a, b in
                let (ma, mb) = (a.split(separator: " ")[0], b.split(separator: " ")[0])
                if ma.hasPrefix("-") != mb.hasPrefix("-") { return ma.hasPrefix("-") }
                if ma.count != mb.count { return ma.count < mb.count }
                return ma != mb ? ma < mb : a.split(separator: " ")[1] < b.split(separator: " ")[1]
            }
            let lines = keys.map { "\($0) \(expected[$0] ?? 0)" }
            for scope in [nil, block.id] as [UUID?] {
                let counted = try store.read { try $0.careCountsByMonth(zone: zone, collection: scope) }
                #expect(counted.map { "\($0.month) \($0.kind) \($0.count)" } == lines, "\(zone.identifier) \(scope == nil ? "all" : "collection")")
            }
        }
    }

    /// A batch insert and a rebuild from the whole log give the same summaries as events logged one by one.
    @Test func batchInsertAndRebuildAgreeWithSingleInserts() throws {
        let trees = try (0..<4).map { try addTree("Tree \($0)") }
        var generator = SystemRandomNumberGenerator()
        let kinds = try ["water", "inspect", "prune"].map { try CareKind($0) }
        let statuses = HealthStatus.allCases
        var events: [CareEvent] = []
        for i in 0..<60 {
            let kind = kinds[i % kinds.count]
            events.append(CareEvent(treeID: trees[i % trees.count].id, kind: kind,
                                    date: Self.t0 - Double(generator.next() % 1000) * 86_400 - Double(i % 3) * 3600,
                                    health: kind == .inspect ? statuses[i % statuses.count] : nil, createdAt: Self.t0))
        }
        func summaries() throws -> [String] {
            try store.queue.read { db in
                try String.fetchAll(db, sql: "SELECT treeId || ' ' || kind || ' ' || date FROM careLatest ORDER BY 1")
                    + String.fetchAll(db, sql: "SELECT treeId || ' ' || status || ' ' || date FROM treeHealth ORDER BY 1")
            }
        }
        for e in events { try store.write { try $0.insert(e) } }
        let single = try summaries()
        #expect(single.count == 4 * 3 + 4)
        try store.write { try $0.rebuildCareSummaries() }
        #expect(try summaries() == single)

        let other = try TreeStore(path: scratch.path("other.sqlite"), clock: .fixed(Self.t0))
        try other.write { w in for t in trees { try w.insert(t) } }
        try other.write { try $0.insert(careEvents: events) }
        let batched = try other.queue.read { db in
            try String.fetchAll(db, sql: "SELECT treeId || ' ' || kind || ' ' || date FROM careLatest ORDER BY 1")
                + String.fetchAll(db, sql: "SELECT treeId || ' ' || status || ' ' || date FROM treeHealth ORDER BY 1")
        }
        #expect(batched == single)
        let ghost = CareEvent(treeID: UUID(), kind: kinds[0], date: Self.t0, createdAt: Self.t0)
        var again = events[0]
        again.id = UUID()
        #expect(throws: StoreError.unknownTree(ghost.treeID.storageKey)) { try other.write { try $0.insert(careEvents: [again, ghost]) } }
        #expect(try other.read { try $0.careEntries(CareFilter()) }.count == 60)
    }
}
