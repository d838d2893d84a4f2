import Foundation
import GRDB
import GRDBSQLite
import TreesKit

/// Read access inside one transaction.
public struct StoreReader {
    let db: Database

    // MARK: Trees

    /// The tree a typed id means: its whole id, a prefix of it, or its short id (see `ShortID`).
    public func tree(matching typed: String) throws -> Tree {
        let ids = try IDPrefix.ids(in: "tree", matching: typed, db)
        let trees = ids.isEmpty ? [] : try fetchTrees("WHERE id IN (\(IDPrefix.placeholders(ids.count))) ORDER BY id", StatementArguments(ids))
        switch trees.count {
        case 0: throw StoreError.unknownTree(typed)
        case 1: return trees[0]
        default:
            let shown = Array(trees.prefix(10))
            var candidates = zip(ShortID.distinct(shown.map(\.id)), shown).map { "\($0) (\($1.species))" }
            if trees.count > 10 { candidates.append("and more") }
            throw StoreError.ambiguousTree(prefix: typed, candidates: candidates)
        }
    }

    /// The tree with exactly this id, if any.
    public func tree(id: UUID) throws -> Tree? {
        try fetchTrees("WHERE id = ?", [id.storageKey]).first
    }

    /// Trees matching `filter`, newest first.
    public func trees(_ filter: TreeFilter, limit: Int? = nil) throws -> [Tree] {
        var result: [Tree] = []
        try forEachTree(filter, limit: limit) { result.append($0) }
        return result
    }

    /// Visits trees matching `filter`, newest first, without holding them all in memory. With
    /// `newestFirst` false they come in the order the table keeps them, which reads the file
    /// front to back (for tallies, where order does not matter).
    public func forEachTree(_ filter: TreeFilter, limit: Int? = nil, newestFirst: Bool = true, _ body: (consuming Tree) throws -> Void) throws {
        let (whereSQL, arguments) = Self.whereClause(filter)
        var order = newestFirst ? "createdAt DESC, id DESC" : "rowid"
        // Every tree, newest first: in the table's own order when that is the same (see
        // `rowIDsFollowCreation`). Not for a few trees: finding out reads every tree's index entry.
        if newestFirst, limit == nil, filter == TreeFilter(), let rising = try rowIDsFollowCreation() {
            order = rising ? "rowid DESC" : "rowid"
        }
        var clauses = "\(whereSQL) ORDER BY " + order
        if let limit { clauses += " LIMIT \(max(0, limit))" }
        try forEachTree(clauses, arguments, body)
    }

    /// True when the trees' rowids increase with their creation order (`createdAt`, then `id`: the
    /// order of the index `tree_createdAt_id`), false when they decrease with it, nil otherwise.
    ///
    /// A store filled from surveys and the app's exports mostly keeps its trees in the order they
    /// were made (or the reverse, from a file newest first). Read in that order, newest first, every
    /// tree is read where the table keeps it; read through the creation index, each one was looked
    /// up in the table by its rowid from its index entry, about a tenth of the instructions of
    /// exporting 100,000 trees. Finding out reads the index alone, in its order, and stops at the
    /// first tree out of step; the answer holds for the read transaction it is asked in.
    func rowIDsFollowCreation() throws -> Bool? {
        let statement = try db.cachedStatement(sql: "SELECT rowid FROM tree ORDER BY createdAt, id")
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        defer { sqlite3_reset(s) }
        var rising = true, falling = true
        var last: Int64?
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw StoreError.sqlite(connection: db.sqliteConnection) }
            let rowID = sqlite3_column_int64(s, 0)
            if let last {
                if rowID > last { falling = false } else { rising = false }
                if !rising && !falling { return nil }
            }
            last = rowID
        }
        return rising ? true : falling ? false : nil
    }

    /// The trees selected by `clauses` (what follows `FROM tree`).
    func fetchTrees(_ clauses: String, _ arguments: StatementArguments) throws -> [Tree] {
        var trees: [Tree] = []
        try forEachTree(clauses, arguments) { trees.append($0) }
        return trees
    }

    /// Steps `statement` to its end, handing SQLite's statement to `body` at each row, for values
    /// read straight from SQLite's buffers.
    func eachRow(of statement: Statement, _ body: (OpaquePointer) throws -> Void) throws {
        let s = statement.sqliteStatement
        defer { sqlite3_reset(s) }
        while true {
            let rc = sqlite3_step(s)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else {
                throw StoreError.sqlite(connection: db.sqliteConnection)
            }
            try body(s)
        }
    }

    /// Visits the trees selected by `clauses` (what follows `FROM tree`), decoding each row by column
    /// position straight from SQLite's buffers (`Tree(statement:)`).
    func forEachTree(_ clauses: String, _ arguments: StatementArguments, _ body: (consuming Tree) throws -> Void) throws {
        let statement = try db.makeStatement(sql: "SELECT \(Tree.storageColumnList), rowid FROM tree \(clauses)")
        try statement.setArguments(arguments)
        var texts = RepeatedTreeTexts()
        try eachRow(of: statement) { try body(Tree(statement: $0, texts: &texts)) }
    }

    /// Number of trees matching `filter`.
    public func count(_ filter: TreeFilter = .init()) throws -> Int {
        let (whereSQL, arguments) = Self.whereClause(filter)
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tree\(whereSQL)", arguments: arguments) ?? 0
    }

    /// Distinct species in the store, most used first.
    public func species() throws -> [String] {
        try DatabaseValue.fetchAll(db, sql: "SELECT species FROM tree GROUP BY species COLLATE NOCASE ORDER BY COUNT(*) DESC, species")
            .compactMap(StoredValue.text)
    }

    /// Trees of `species` (ignoring case) whose position is within `radius` metres of `coordinate`.
    public func trees(species: String, near coordinate: Coordinate, within radius: Double) throws -> [Tree] {
        let m = Geodesy.metresPerDegree(atLatitude: coordinate.latitude)
        let dLat = radius / m.north
        let dLon = m.east > 1e-6 ? radius / m.east : 180
        let near = try fetchTrees(
            "WHERE species = ? COLLATE NOCASE AND latitude BETWEEN ? AND ? AND longitude BETWEEN ? AND ?",
            [species, coordinate.latitude - dLat, coordinate.latitude + dLat, coordinate.longitude - dLon, coordinate.longitude + dLon])
        return near.filter { Geodesy.distance($0.coordinate, coordinate) <= radius }
    }

    static func whereClause(_ filter: TreeFilter) -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments = StatementArguments()
        switch filter.collection {
        case .any: break
        case .unassigned: clauses.append("collectionId IS NULL")
        case .collection(let id):
            clauses.append("collectionId = ?")
            _ = arguments.append(contentsOf: [id.storageKey])
        }
        if let species = filter.species {
            clauses.append("species = ? COLLATE NOCASE")
            _ = arguments.append(contentsOf: [species])
        }
        if let search = filter.search, !search.isEmpty {
            let columns = ["species", "variety", "rootstock", "notes"]
            if search.unicodeScalars.allSatisfy(\.isASCII) {
                let pattern = "%" + Self.escapedForLike(search) + "%"
                clauses.append("(" + columns.map { "\($0) LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")")
                _ = arguments.append(contentsOf: StatementArguments(columns.map { _ in pattern }))
            } else if let run = Self.longestASCIIRun(in: search), run.count >= 2 {
                // Unicode folding is done by a Swift function, which is slow per row; SQLite's LIKE first
                // keeps only rows that contain the needle's longest ASCII run, which every match must.
                let pattern = "%" + Self.escapedForLike(run) + "%"
                clauses.append("(" + columns.map { "(\($0) LIKE ? ESCAPE '\\' AND trees_contains(\($0), ?))" }.joined(separator: " OR ") + ")")
                _ = arguments.append(contentsOf: StatementArguments(columns.flatMap { _ in [pattern, search] }))
            } else {
                clauses.append("(" + columns.map { "trees_contains(\($0), ?)" }.joined(separator: " OR ") + ")")
                _ = arguments.append(contentsOf: StatementArguments(columns.map { _ in search }))
            }
        }
        return (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "), arguments)
    }

    static func escapedForLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }

    /// The longest run of ASCII letters, digits and spaces in `text`.
    static func longestASCIIRun(in text: String) -> String? {
        var best = "", current = ""
        for ch in text {
            if ch.isASCII, ch.isLetter || ch.isNumber || ch == " " { current.append(ch) } else { current = "" }
            if current.count > best.count { best = current }
        }
        return best.isEmpty ? nil : best
    }

    // MARK: Collections

    /// All collections, alphabetical (ignoring case), with tree counts.
    public func collections() throws -> [CollectionSummary] {
        let rows = try Row.fetchAll(db, sql: """
            SELECT \(StoredValue.selection("collection", TreeCollection.columns)),
                (SELECT COUNT(*) FROM tree WHERE tree.collectionId = collection.id) AS treeCount
            FROM collection ORDER BY name COLLATE NOCASE, name
            """)
        return try rows.map { CollectionSummary(collection: try TreeCollection(row: $0), treeCount: ($0["treeCount"] as Int?) ?? 0) }
    }

    /// The collection named `name`, ignoring case as `TreeCollection.sameName` does.
    ///
    /// SQLite's NOCASE folds ASCII letters only, so it finds a name typed as stored or with ASCII
    /// letters in another case; any other spelling ("äpfel" for "Äpfel") is looked for among all
    /// the names, which are few. A store written before names were compared so may hold two that
    /// are now the same ("Äpfel" and "äpfel"): the one typed so is taken, else the name is ambiguous.
    public func collection(named name: String) throws -> TreeCollection {
        let selection = StoredValue.selection("collection", TreeCollection.columns)
        if let row = try Row.fetchOne(db, sql: "SELECT \(selection) FROM collection WHERE name = ? COLLATE NOCASE", arguments: [name]) {
            return try TreeCollection(row: row)
        }
        let all = try Row.fetchAll(db, sql: "SELECT \(selection) FROM collection ORDER BY name COLLATE NOCASE, name").map(TreeCollection.init(row:))
        let matches = all.filter { TreeCollection.sameName($0.name, name) }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw StoreError.unknownCollection(name, known: all.map(\.name))
        default: throw StoreError.ambiguousCollection(name, candidates: matches.map(\.name))
        }
    }

    /// The collection other than `excluded` whose name is `name` as names are compared, if any.
    public func collection(sameNameAs name: String, other excluded: UUID? = nil) throws -> TreeCollection? {
        let all = try Row.fetchAll(db, sql: "SELECT \(StoredValue.selection("collection", TreeCollection.columns)) FROM collection ORDER BY rowid")
            .map(TreeCollection.init(row:))
        let key = TreeCollection.nameKey(name)
        return all.first { $0.id != excluded && TreeCollection.nameKey($0.name) == key }
    }

    public func collection(id: UUID) throws -> TreeCollection? {
        try Row.fetchOne(db, sql: "SELECT \(StoredValue.selection("collection", TreeCollection.columns)) FROM collection WHERE id = ?", arguments: [id.storageKey]).map(TreeCollection.init(row:))
    }

    // MARK: Photos and preferences

    public func photos(of treeID: UUID) throws -> [Photo] {
        try Row.fetchAll(db, sql: "SELECT \(StoredValue.selection("photo", Photo.columns)) FROM photo WHERE treeId = ? ORDER BY capturedAt, id", arguments: [treeID.storageKey])
            .map(Photo.init(row:))
    }

    /// The photos taken for a care event, oldest first.
    public func photos(ofCareEvent eventID: UUID) throws -> [Photo] {
        try Row.fetchAll(db, sql: "SELECT \(StoredValue.selection("photo", Photo.columns)) FROM photo WHERE careEventId = ? ORDER BY capturedAt, id",
                         arguments: [eventID.storageKey])
            .map(Photo.init(row:))
    }

    /// Number of photo rows that refer to the file with this hash.
    public func photoReferences(sha256: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo WHERE sha256 = ?", arguments: [sha256]) ?? 0
    }

    public func preference(_ key: PreferenceKey) throws -> String? {
        try DatabaseValue.fetchOne(db, sql: "SELECT value FROM preference WHERE key = ?", arguments: [key.rawValue]).flatMap(StoredValue.text)
    }
}

/// Write access inside one transaction. Reads see the transaction's own writes.
public struct StoreWriter {
    let db: Database
    /// The transaction's time stamp, used for createdAt/updatedAt.
    public let now: Date
    /// What must be written before the transaction commits (what bulk writers have queued).
    let end = TransactionEnd()
    /// True when the transaction writes a small file's trees into a store made unseen, its pages
    /// kept in memory until the commit (see `TreeStore.write`).
    let isDirect: Bool

    init(db: Database, now: Date, isDirect: Bool = false) { self.db = db; self.now = now; self.isDirect = isDirect }

    public var reader: StoreReader { StoreReader(db: db) }

    /// Inserts a new tree (its id must be new).
    public func insert(_ tree: Tree) throws {
        try Self.check(tree)
        try db.cachedStatement(sql: Tree.insertSQL).execute(arguments: tree.storageArguments)
    }

    /// Inserts or replaces a tree with the same id.
    public func upsert(_ tree: Tree) throws {
        try Self.check(tree)
        try db.cachedStatement(sql: Tree.replaceSQL).execute(arguments: tree.storageArguments)
    }

    /// Stores changed fields of an existing tree; `updatedAt` is set to `now`.
    @discardableResult
    public func update(_ tree: Tree) throws -> Tree {
        var t = tree
        t.updatedAt = now
        try Self.check(t)
        try db.cachedStatement(sql: Tree.updateSQL).execute(arguments: t.updateArguments)
        guard db.changesCount == 1 else { throw StoreError.unknownTree(t.id.storageKey) }
        return t
    }

    /// Records a change of position in the tree's history.
    public func recordHistory(of tree: Tree, change: String) throws {
        try db.execute(sql: """
            INSERT INTO treeHistory (treeId, changedAt, change, latitude, longitude, horizontalAccuracy) VALUES (?, ?, ?, ?, ?, ?)
            """, arguments: [tree.id.storageKey, StoredDate.text(now), change, tree.latitude, tree.longitude, tree.horizontalAccuracy])
    }

    /// Deletes trees (their photo rows go with them); returns the hashes of photo files no longer referenced.
    public func deleteTrees(_ ids: [UUID]) throws -> [String] {
        var hashes: Set<String> = []
        for id in ids {
            hashes.formUnion(try DatabaseValue.fetchAll(db, sql: "SELECT sha256 FROM photo WHERE treeId = ?", arguments: [id.storageKey])
                .compactMap(StoredValue.text))
            try db.execute(sql: "DELETE FROM tree WHERE id = ?", arguments: [id.storageKey])
        }
        return try hashes.sorted().filter { try reader.photoReferences(sha256: $0) == 0 }
    }

    public func treeExists(_ id: UUID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tree WHERE id = ?)", arguments: [id.storageKey]) ?? false
    }

    static func check(_ tree: Tree) throws {
        if let problem = CoordinateCheck.latitudeProblem(tree.latitude) ?? CoordinateCheck.longitudeProblem(tree.longitude) {
            throw StoreError.invalidTree(problem)
        }
        if let a = tree.horizontalAccuracy, let problem = CoordinateCheck.accuracyProblem(a) { throw StoreError.invalidTree(problem) }
        // Blank means only white space, ASCII or Unicode; tested without building a trimmed copy.
        let blank = tree.species.unicodeScalars.allSatisfy { c in
            c.isASCII ? (c == " " || (c.value >= 0x09 && c.value <= 0x0D)) : c.properties.isWhitespace
        }
        if blank { throw StoreError.invalidTree("species is empty") }
        // One call per field rather than a loop over an array of them: imports check every tree.
        func text(_ text: String?, _ what: String) throws {
            if let text, StoredValue.hasNUL(text) {
                throw StoreError.invalidTree("\(what) contains a NUL character (U+0000), which no text may hold")
            }
        }
        func finite(_ value: Double?, _ what: String) throws {
            if let v = value, !v.isFinite { throw StoreError.invalidTree("\(what) \(v) is not a finite number") }
        }
        try text(tree.species, "species")
        try text(tree.variety, "variety")
        try text(tree.rootstock, "rootstock")
        try text(tree.notes, "notes")
        try text(tree.capture.locationSource, "location source")
        try finite(tree.altitude, "altitude")
        try finite(tree.ellipsoidHeight, "ellipsoid height")
        try finite(tree.capture.hdop, "HDOP")
        func nonNegative(_ value: Double?, _ what: String, _ unit: String) throws {
            guard let v = value else { return }
            if !v.isFinite { throw StoreError.invalidTree("\(what) \(v) is not a finite number") }
            if v < 0 { throw StoreError.invalidTree("\(what) \(v) is negative; expected \(unit), 0 or more") }
        }
        try nonNegative(tree.capture.correctionAge, "correction age", "seconds")
        try nonNegative(tree.capture.verticalAccuracy, "vertical accuracy", "metres")
        try nonNegative(tree.capture.antennaHeight, "antenna height", "metres")
        try checkDate(tree.createdAt, "the tree's creation time")
        try checkDate(tree.updatedAt, "the tree's update time")
        if let t = tree.capture.fixTime { try checkDate(t, "the tree's fix time") }
    }

    /// Refuses a date the store would keep as another value (outside years 0000 to 9999).
    static func checkDate(_ date: Date, _ what: String) throws {
        if let problem = StorableDates.problem(date) { throw StoreError.unstorable("\(what): \(problem)") }
    }

    // MARK: Collections

    /// Creates a collection; names are unique ignoring case (`TreeCollection.sameName`).
    public func createCollection(named name: String, id: UUID = .random()) throws -> TreeCollection {
        let c = TreeCollection(id: id, name: try Self.validName(name), createdAt: now)
        try insert(c)
        return c
    }

    /// Inserts a collection value as it is (for imports); fails on a duplicate name.
    public func insert(_ c: TreeCollection) throws {
        _ = try Self.validName(c.name)
        if let other = try reader.collection(sameNameAs: c.name, other: c.id) {
            throw StoreError.duplicateCollection(other.name)
        }
        try Self.checkDate(c.createdAt, "collection \(c.name)'s creation time")
        try Self.checkDate(c.updatedAt, "collection \(c.name)'s update time")
        try db.execute(sql: "INSERT INTO collection (id, name, createdAt, updatedAt) VALUES (?, ?, ?, ?)",
                       arguments: [c.id.storageKey, c.name, StoredDate.text(c.createdAt), StoredDate.text(c.updatedAt)])
    }

    /// Returns the collection named `name`, creating it when missing.
    public func collection(namedOrNew name: String) throws -> TreeCollection {
        do { return try reader.collection(named: name) } catch StoreError.unknownCollection { return try createCollection(named: name) }
    }

    public func renameCollection(_ old: String, to new: String) throws -> TreeCollection {
        var c = try reader.collection(named: old)
        let trimmed = try Self.validName(new)
        if let other = try reader.collection(sameNameAs: trimmed, other: c.id) { throw StoreError.duplicateCollection(other.name) }
        c.name = trimmed
        c.updatedAt = now
        try db.execute(sql: "UPDATE collection SET name = ?, updatedAt = ? WHERE id = ?", arguments: [c.name, StoredDate.text(c.updatedAt), c.id.storageKey])
        return c
    }

    /// Deletes a collection; its trees stay, unassigned. Returns how many trees it held.
    public func deleteCollection(named name: String) throws -> Int {
        let c = try reader.collection(named: name)
        let count = try reader.count(TreeFilter(collection: .collection(c.id)))
        // The trees leave it first, as `assign` takes them out. Left to the foreign key's
        // ON DELETE SET NULL, the update runs with a conflict policy of ABORT that overrides the
        // sync trigger's INSERT OR REPLACE of the tree's field versions, and fails for a tree
        // whose collection was changed before.
        try db.execute(sql: "UPDATE tree SET collectionId = NULL, updatedAt = ? WHERE collectionId = ?",
                       arguments: [StoredDate.text(now), c.id.storageKey])
        try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [c.id.storageKey])
        if try preference(.lastCollection) == c.id.storageKey { try setPreference(.lastCollection, nil) }
        return count
    }

    /// Puts trees into a collection (or none); returns how many changed.
    public func assign(_ treeIDs: [UUID], to collection: UUID?) throws -> Int {
        var changed = 0
        for id in treeIDs {
            try db.execute(sql: "UPDATE tree SET collectionId = ?, updatedAt = ? WHERE id = ? AND collectionId IS NOT ?",
                           arguments: [collection?.storageKey, StoredDate.text(now), id.storageKey, collection?.storageKey])
            changed += db.changesCount
        }
        return changed
    }

    /// `name` without the blanks around it, or `StoreError.invalidCollectionName` when it cannot
    /// name a collection (empty, `none`, more than one line, a NUL character).
    public static func validName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !TreeCollection.meansNone(trimmed), !trimmed.contains(where: \.isNewline), !StoredValue.hasNUL(trimmed) else {
            throw StoreError.invalidCollectionName(name)
        }
        return trimmed
    }

    // MARK: Photos and preferences

    public func insert(_ photo: Photo) throws {
        try Self.checkDate(photo.capturedAt, "the photo's capture time")
        try Self.checkDate(photo.createdAt, "the photo's creation time")
        try db.execute(sql: """
            INSERT INTO photo (id, treeId, sha256, format, byteCount, capturedAt, createdAt, careEventId) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [photo.id.storageKey, photo.treeID.storageKey, photo.sha256, photo.format, photo.byteCount,
                             StoredDate.text(photo.capturedAt), StoredDate.text(photo.createdAt), photo.careEventID?.storageKey])
    }

    /// Deletes a photo row; returns true when no row refers to its file any more.
    public func deletePhoto(_ id: UUID) throws -> (photo: Photo, orphaned: Bool)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(StoredValue.selection("photo", Photo.columns)) FROM photo WHERE id = ?", arguments: [id.storageKey]) else { return nil }
        let photo = try Photo(row: row)
        try db.execute(sql: "DELETE FROM photo WHERE id = ?", arguments: [id.storageKey])
        return (photo, try reader.photoReferences(sha256: photo.sha256) == 0)
    }

    public func preference(_ key: PreferenceKey) throws -> String? { try reader.preference(key) }

    public func setPreference(_ key: PreferenceKey, _ value: String?) throws {
        if let value {
            try db.execute(sql: "INSERT OR REPLACE INTO preference (key, value) VALUES (?, ?)", arguments: [key.rawValue, value])
        } else {
            try db.execute(sql: "DELETE FROM preference WHERE key = ?", arguments: [key.rawValue])
        }
    }
}

/// Ids as users type them: a whole id, a prefix of one (like git's), or a time-ordered id's short
/// id, which is its end (see `ShortID`).
enum IDPrefix {
    /// The stored (dashed, lower-case) form of a typed prefix; dashes may be omitted.
    static func storageForm(_ text: String) throws -> String {
        let hex = text.lowercased().filter { $0 != "-" }
        guard !hex.isEmpty, hex.count <= 32, hex.allSatisfy(\.isHexDigit) else { throw StoreError.invalidID(text) }
        var out = ""
        for (i, c) in hex.enumerated() {
            if [8, 12, 16, 20].contains(i) { out.append("-") }
            out.append(c)
        }
        return out
    }

    /// The stored form of typed text read as the end of an id, when it could be a short id (at
    /// least `ShortID.length` hex digits); dashes may be omitted.
    static func tailForm(_ text: String) -> String? {
        let hex = text.lowercased().filter { $0 != "-" }
        guard hex.count >= ShortID.length, hex.count <= 32, hex.allSatisfy(\.isHexDigit) else { return nil }
        var out = ""
        for (i, c) in hex.reversed().enumerated() {
            if [12, 16, 20, 24].contains(i) { out.append("-") }
            out.append(c)
        }
        return String(out.reversed())
    }

    /// Whether `key` (a stored id) is one that `typed` could mean.
    static func matches(_ key: String, _ typed: String) -> Bool {
        guard let prefix = try? storageForm(typed) else { return false }
        if key.hasPrefix(prefix) { return true }
        guard let tail = tailForm(typed) else { return false }
        return ShortID.isTimeOrdered(storageKey: key) && key.hasSuffix(tail)
    }

    /// Up to 11 ids of `table` (column `id`) that `typed` could mean, in order: those it starts, and
    /// time-ordered ones it ends. The second is a pass over the id index (0.12 s for a million trees).
    static func ids(in table: String, matching typed: String, _ db: Database) throws -> [String] {
        let prefix = try storageForm(typed)
        var ids = try String.fetchAll(db, sql: "SELECT id FROM \(table) WHERE id >= ? AND id < ? ORDER BY id LIMIT 11",
                                      arguments: [prefix, prefix + "z"])
        if let tail = tailForm(typed) {
            // GLOB first: it turns down almost every id at its first characters from the end.
            ids += try String.fetchAll(db, sql: """
                SELECT id FROM \(table) WHERE id GLOB ? AND substr(id, 15, 1) = '7' ORDER BY id LIMIT 11
                """, arguments: ["*" + tail])
        }
        return Array(Set(ids).sorted().prefix(11))
    }

    static func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ", ") }
}
