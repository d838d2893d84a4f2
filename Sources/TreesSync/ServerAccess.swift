import Foundation
import TreesStore

/// Writes what a store pushes, merging it with what the server holds: per field group the later
/// version wins (version, then device id), a deleted tree stays deleted, and every value that loses
/// is kept in `tree_conflict`. Each function runs inside the caller's transaction.
enum ServerWriter {
    private static let groups = ServerSchema.groupColumns
    private static let columns = ServerSchema.columns

    /// `(i.v_g, i.d_g) > (t.v_g, t.d_g)`: the incoming version of a group is the later one.
    private static func newer(_ g: String, _ a: String = "i", _ b: String = "t") -> String { "(\(a).v_\(g), \(a).d_\(g)) > (\(b).v_\(g), \(b).d_\(g))" }

    private static func json(_ cols: [ServerSchema.Column], _ table: String) -> String {
        "jsonb_build_object(" + cols.map { "'\($0.local)', \($0.text(table))" }.joined(separator: ", ") + ")::text"
    }

    private static let conflictColumns = "tree_id::text, field, loser_version::text, loser_device, loser_value, winner_version::text, winner_device, reason"

    static func conflicts(_ rows: PostgresRows) -> [SyncConflict] {
        (0..<rows.count).map { i in
            SyncConflict(treeId: rows[i, 0] ?? "", field: rows[i, 1] ?? "",
                         loser: SyncVersion(clock: Int64(rows[i, 2] ?? "") ?? 0, device: rows[i, 3] ?? ""), loserValue: rows[i, 4] ?? "{}",
                         winner: SyncVersion(clock: Int64(rows[i, 5] ?? "") ?? 0, device: rows[i, 6] ?? ""), reason: rows[i, 7] ?? "")
        }
    }

    /// The page being pushed. Beside each group's version: whether the pusher changed the group
    /// since its last push (`e_`), and the version it changed it over (`b_`, `bd_`; NULL when not known).
    /// A temporary table of the session, so its shape is the client's own and the server's schema
    /// does not depend on it.
    static let incomingTable: String = {
        let cols = ["id uuid PRIMARY KEY"] + columns.map { "\($0.server) \($0.type)" }
            + groups.flatMap { ["v_\($0.name) bigint", "d_\($0.name) text", "e_\($0.name) boolean", "b_\($0.name) bigint", "bd_\($0.name) text"] }
        return "CREATE TEMP TABLE IF NOT EXISTS incoming_tree (\(cols.joined(separator: ", "))) ON COMMIT DELETE ROWS"
    }()

    static let copySQL: String = {
        let names = ["id"] + columns.map(\.server) + groups.flatMap { ["v_\($0.name)", "d_\($0.name)", "e_\($0.name)", "b_\($0.name)", "bd_\($0.name)"] }
        return "COPY incoming_tree (\(names.joined(separator: ", "))) FROM STDIN"
    }()

    /// Whether the server's value of group `g` is lost when the incoming one wins: unless the
    /// pusher changed the group over exactly the version the server holds (it had seen that value).
    private static func serverValueLost(_ g: String) -> String {
        "NOT (i.e_\(g) AND (t.v_\(g), t.d_\(g)) IS NOT DISTINCT FROM (i.b_\(g), i.bd_\(g)))"
    }

    /// Conflicts of trees that are alive on the server, group by group. A value is lost when the
    /// other side's wins over it and its author had not seen that other value: the pusher's value
    /// when the pusher changed the group and the server's is later; the server's when the pusher's
    /// is later and was not made over exactly the server's version.
    static let liveConflictSQL: String = {
        let parts = groups.filter { $0.name != "updated_at" }.map { g -> String in
            let differ = "(" + g.columns.map { "i.\($0.server)" }.joined(separator: ", ") + ") IS DISTINCT FROM ("
                + g.columns.map { "t.\($0.server)" }.joined(separator: ", ") + ")"
            return """
                SELECT i.id AS tree_id, '\(g.name == "collection" ? "collection" : SyncTreeRow.groups.first { ServerSchema.snakeCase($0.name) == g.name }?.name ?? g.name)' AS field,
                    CASE WHEN \(newer(g.name)) THEN t.v_\(g.name) ELSE i.v_\(g.name) END AS loser_version,
                    CASE WHEN \(newer(g.name)) THEN t.d_\(g.name) ELSE i.d_\(g.name) END AS loser_device,
                    CASE WHEN \(newer(g.name)) THEN \(json(g.columns, "t")) ELSE \(json(g.columns, "i")) END AS loser_value,
                    CASE WHEN \(newer(g.name)) THEN i.v_\(g.name) ELSE t.v_\(g.name) END AS winner_version,
                    CASE WHEN \(newer(g.name)) THEN i.d_\(g.name) ELSE t.d_\(g.name) END AS winner_device,
                    'older' AS reason
                FROM incoming_tree i JOIN tree t ON t.id = i.id
                WHERE t.deleted_version IS NULL AND (i.v_\(g.name), i.d_\(g.name)) <> (t.v_\(g.name), t.d_\(g.name)) AND \(differ)
                    AND CASE WHEN \(newer(g.name)) THEN \(serverValueLost(g.name)) ELSE i.e_\(g.name) END
                """
        }
        return """
            INSERT INTO tree_conflict (tree_id, field, loser_version, loser_device, loser_value, winner_version, winner_device, reason)
            \(parts.joined(separator: "\nUNION ALL\n"))
            ON CONFLICT DO NOTHING RETURNING \(conflictColumns)
            """
    }()

    /// Edits of trees the server holds as deleted: the groups the pusher changed, newer than what
    /// the server kept, lose to the deletion (the groups it did not change are older copies).
    static let deletedConflictSQL: String = {
        let parts = groups.filter { $0.name != "updated_at" }.map { g -> String in
            """
            SELECT i.id, '\(SyncTreeRow.groups.first { ServerSchema.snakeCase($0.name) == g.name }?.name ?? g.name)', i.v_\(g.name), i.d_\(g.name), \(json(g.columns, "i")),
                d.version, d.device, 'deleted'
            FROM incoming_tree i JOIN tombstone d ON d.kind = 'tree' AND d.id = i.id LEFT JOIN tree t ON t.id = i.id
            WHERE i.e_\(g.name) AND (t.id IS NULL OR (\(newer(g.name)) AND (\(g.columns.map { "i.\($0.server)" }.joined(separator: ", "))) IS DISTINCT FROM (\(g.columns.map { "t.\($0.server)" }.joined(separator: ", ")))))
            """
        }
        return """
            INSERT INTO tree_conflict (tree_id, field, loser_version, loser_device, loser_value, winner_version, winner_device, reason)
            \(parts.joined(separator: "\nUNION ALL\n"))
            ON CONFLICT DO NOTHING RETURNING \(conflictColumns)
            """
    }()

    /// Inserts new trees and merges known ones; a change row for every tree that changed.
    static let mergeSQL: String = {
        let names = columns.map(\.server)
        let versionNames = groups.flatMap { ["v_\($0.name)", "d_\($0.name)"] }
        var sets: [String] = []
        for g in groups {
            let cond = newer(g.name, "excluded", "t")
            for c in g.columns { sets.append("\(c.server) = CASE WHEN \(cond) THEN excluded.\(c.server) ELSE t.\(c.server) END") }
            if g.name == "position" { sets.append("geom = CASE WHEN \(cond) THEN excluded.geom ELSE t.geom END") }
            sets.append("v_\(g.name) = CASE WHEN \(cond) THEN excluded.v_\(g.name) ELSE t.v_\(g.name) END")
            sets.append("d_\(g.name) = CASE WHEN \(cond) THEN excluded.d_\(g.name) ELSE t.d_\(g.name) END")
        }
        let anyNewer = groups.map { newer($0.name, "excluded", "t") }.joined(separator: " OR ")
        return """
            WITH merged AS (
                INSERT INTO tree AS t (id, geom, \(names.joined(separator: ", ")), \(versionNames.joined(separator: ", ")))
                SELECT i.id, ST_SetSRID(ST_MakePoint(i.longitude, i.latitude), 4326), \(names.map { "i.\($0)" }.joined(separator: ", ")),
                       \(versionNames.map { "i.\($0)" }.joined(separator: ", "))
                FROM incoming_tree i
                WHERE NOT EXISTS (SELECT 1 FROM tombstone d WHERE d.kind = 'tree' AND d.id = i.id)
                ORDER BY i.id
                ON CONFLICT (id) DO UPDATE SET \(sets.joined(separator: ", "))
                WHERE \(anyNewer)
                RETURNING t.id
            )
            INSERT INTO change (kind, entity_id, device) SELECT 'tree', id, $1 FROM merged ORDER BY id
            """
    }()

    static func pushTrees(_ rows: [SyncTreeRow], device: String, _ connection: PostgresConnection) throws(SyncError) -> [SyncConflict] {
        try connection.execute(incomingTable)
        try connection.copyIn(copySQL) { (sink: inout CopyRows) throws(SyncError) in
            for row in rows.sorted(by: { $0.id < $1.id }) {
                var values: [String?] = [row.id]
                values.append(contentsOf: row.columns)
                for (v, e) in zip(row.versions, row.edits) {
                    values.append(String(v.clock)); values.append(v.device)
                    switch e {
                    case .unchanged: values += ["f", nil, nil]
                    case .edited(let base): values += ["t", base.map { String($0.clock) }, base?.device]
                    }
                }
                sink.append(values)
            }
        }
        // A page touches a few thousand trees of a table that may hold millions: look each up by
        // its id. Right after a bulk push the table's statistics still say it is small, and the
        // planner would scan it once per incoming tree.
        try connection.execute("ANALYZE incoming_tree")
        try connection.execute("SET LOCAL enable_seqscan = off")
        try connection.execute("SELECT 1 FROM tree WHERE id IN (SELECT id FROM incoming_tree) ORDER BY id FOR UPDATE")
        var found = conflicts(try connection.execute(deletedConflictSQL))
        found += conflicts(try connection.execute(liveConflictSQL))
        try connection.execute(mergeSQL, [device])
        return found
    }

    static func pushCollection(_ c: SyncCollectionRow, device: String, _ connection: PostgresConnection) throws(SyncError) {
        try connection.execute("""
            WITH up AS (
                INSERT INTO collection AS c (id, name, created_at, updated_at, version, device)
                SELECT $1::uuid, $2, $3::timestamptz, $4::timestamptz, $5::bigint, $6
                WHERE NOT EXISTS (SELECT 1 FROM tombstone WHERE kind = 'collection' AND id = $1::uuid)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, created_at = excluded.created_at, updated_at = excluded.updated_at,
                    version = excluded.version, device = excluded.device
                WHERE (excluded.version, excluded.device) > (c.version, c.device)
                RETURNING c.id
            )
            INSERT INTO change (kind, entity_id, device) SELECT 'collection', id, $7 FROM up
            """, [c.id, c.name, c.createdAt, c.updatedAt, String(c.version.clock), c.version.device, device])
    }

    static func pushPhoto(_ p: SyncPhotoRow, device: String, _ connection: PostgresConnection) throws(SyncError) {
        try connection.execute("""
            WITH up AS (
                INSERT INTO photo (id, tree_id, sha256, format, byte_count, captured_at, created_at, version, device, care_event_id)
                SELECT $1::uuid, $2::uuid, $3, $4, $5::bigint, $6::timestamptz, $7::timestamptz, $8::bigint, $9, $11::uuid
                WHERE NOT EXISTS (SELECT 1 FROM tombstone WHERE (kind = 'photo' AND id = $1::uuid) OR (kind = 'tree' AND id = $2::uuid))
                ON CONFLICT (id) DO NOTHING
                RETURNING id
            )
            INSERT INTO change (kind, entity_id, device) SELECT 'photo', id, $10 FROM up
            """, [p.id, p.treeId, p.sha256, p.format, String(p.byteCount), p.capturedAt, p.createdAt, String(p.version.clock), p.version.device, device,
                  p.careEventId])
    }

    /// The care event columns in `SyncCareEventRow.columnNames` order: server name and type.
    static let careColumns: [(server: String, type: String)] = SyncCareEventRow.columnNames.map { name in
        let type = switch name {
        case "treeId": "uuid"
        case "date", "createdAt", "updatedAt": "timestamptz"
        case "quantity": "double precision"
        default: "text"
        }
        return (ServerSchema.snakeCase(name), type)
    }

    /// The page of care events being pushed, as `incoming_tree` is for trees.
    static let incomingCareTable = """
        CREATE TEMP TABLE IF NOT EXISTS incoming_care_event (id uuid PRIMARY KEY, \(careColumns.map { "\($0.server) \($0.type)" }.joined(separator: ", ")),
            version bigint, device text) ON COMMIT DELETE ROWS
        """
    static let careCopySQL = "COPY incoming_care_event (id, \(careColumns.map(\.server).joined(separator: ", ")), version, device) FROM STDIN"

    /// Stores each care event of the page unless the server has a later version of it, or the
    /// event or its tree was deleted; a change row for each one stored.
    static let careMergeSQL = """
        WITH up AS (
            INSERT INTO care_event AS c (id, \(careColumns.map(\.server).joined(separator: ", ")), version, device)
            SELECT i.id, \(careColumns.map { "i.\($0.server)" }.joined(separator: ", ")), i.version, i.device FROM incoming_care_event i
            WHERE NOT EXISTS (SELECT 1 FROM tombstone d WHERE d.kind = 'careEvent' AND d.id = i.id)
              AND NOT EXISTS (SELECT 1 FROM tombstone d WHERE d.kind = 'tree' AND d.id = i.tree_id)
            ORDER BY i.id
            ON CONFLICT (id) DO UPDATE SET \(careColumns.map { "\($0.server) = excluded.\($0.server)" }.joined(separator: ", ")),
                version = excluded.version, device = excluded.device
            WHERE (excluded.version, excluded.device) > (c.version, c.device)
            RETURNING c.id
        )
        INSERT INTO change (kind, entity_id, device) SELECT 'care_event', id, $1 FROM up ORDER BY id
        """

    /// Merges a page of care events (ids unique within it): one COPY and one statement.
    static func pushCareEvents(_ events: [SyncCareEventRow], device: String, _ connection: PostgresConnection) throws(SyncError) {
        try connection.execute(incomingCareTable)
        try connection.copyIn(careCopySQL) { (sink: inout CopyRows) throws(SyncError) in
            for e in events { sink.append([e.id] + e.columns + [String(e.version.clock), e.version.device]) }
        }
        try connection.execute("ANALYZE incoming_care_event")
        try connection.execute(careMergeSQL, [device])
    }

    static let scheduleColumns: [(server: String, type: String)] = SyncCareScheduleRow.columnNames.map { name in
        let type = switch name {
        case "everyDays": "integer"
        case "createdAt", "updatedAt": "timestamptz"
        default: "text"
        }
        return (ServerSchema.snakeCase(name), type)
    }

    static let incomingScheduleTable = """
        CREATE TEMP TABLE IF NOT EXISTS incoming_care_schedule (target_id uuid, kind text, \(scheduleColumns.map { "\($0.server) \($0.type)" }.joined(separator: ", ")),
            version bigint, device text, PRIMARY KEY (target_id, kind)) ON COMMIT DELETE ROWS
        """

    /// Sets (or removes) each schedule of the page unless the server has a later version for that
    /// tree or collection and kind, or the tree or collection was deleted; a change row for each.
    static let scheduleMergeSQL = """
        WITH up AS (
            INSERT INTO care_schedule AS s (target_id, kind, \(scheduleColumns.map(\.server).joined(separator: ", ")), version, device)
            SELECT i.target_id, i.kind, \(scheduleColumns.map { "i.\($0.server)" }.joined(separator: ", ")), i.version, i.device
            FROM incoming_care_schedule i
            WHERE NOT EXISTS (SELECT 1 FROM tombstone d WHERE d.kind IN ('tree', 'collection') AND d.id = i.target_id)
            ORDER BY i.target_id, i.kind
            ON CONFLICT (target_id, kind) DO UPDATE SET \(scheduleColumns.map { "\($0.server) = excluded.\($0.server)" }.joined(separator: ", ")),
                version = excluded.version, device = excluded.device
            WHERE (excluded.version, excluded.device) > (s.version, s.device)
            RETURNING s.id
        )
        INSERT INTO change (kind, entity_id, device) SELECT 'care_schedule', id, $1 FROM up ORDER BY id
        """

    /// Merges a page of care schedules, set or removed: one COPY and one statement.
    static func pushCareSchedules(_ schedules: [SyncCareScheduleRow], device: String, _ connection: PostgresConnection) throws(SyncError) {
        try connection.execute(incomingScheduleTable)
        let names = ["target_id", "kind"] + scheduleColumns.map(\.server) + ["version", "device"]
        try connection.copyIn("COPY incoming_care_schedule (\(names.joined(separator: ", "))) FROM STDIN") { (sink: inout CopyRows) throws(SyncError) in
            for s in schedules {
                sink.append([s.targetId, s.kind] + (s.columns ?? Array(repeating: nil, count: scheduleColumns.count)) + [String(s.version.clock), s.version.device])
            }
        }
        try connection.execute(scheduleMergeSQL, [device])
    }

    /// The page of deletions being pushed, and those of them the server did not have yet.
    static let incomingTombstoneTables = """
        CREATE TEMP TABLE IF NOT EXISTS incoming_tombstone (kind text, id uuid, version bigint, device text, PRIMARY KEY (kind, id)) ON COMMIT DELETE ROWS;
        CREATE TEMP TABLE IF NOT EXISTS new_tombstone (kind text, id uuid, version bigint, device text, PRIMARY KEY (kind, id)) ON COMMIT DELETE ROWS
        """

    /// Records a page of deletions. A deletion the server already has changes nothing; a new one
    /// removes what it deleted (a tree takes its photos, care events and schedules along, a collection its schedules and leaves
    /// its trees in none) and keeps a deleted tree's last values in its history, whoever typed them.
    /// Returns those values, as conflicts.
    static func pushTombstones(_ tombstones: [SyncTombstone], device: String, _ connection: PostgresConnection) throws(SyncError) -> [SyncConflict] {
        try connection.executeScript(incomingTombstoneTables)
        try connection.copyIn("COPY incoming_tombstone (kind, id, version, device) FROM STDIN") { (sink: inout CopyRows) throws(SyncError) in
            for d in tombstones { sink.append([d.kind.rawValue, d.id, String(d.version.clock), d.version.device]) }
        }
        try connection.execute("ANALYZE incoming_tombstone")
        try connection.execute("""
            WITH added AS (
                INSERT INTO tombstone (kind, id, version, device) SELECT kind, id, version, device FROM incoming_tombstone ORDER BY kind, id
                ON CONFLICT DO NOTHING RETURNING kind, id, version, device
            )
            INSERT INTO new_tombstone SELECT * FROM added
            """)
        try connection.execute("ANALYZE new_tombstone")
        let all = json(columns, "t")
        let found = conflicts(try connection.execute("""
            INSERT INTO tree_conflict (tree_id, field, loser_version, loser_device, loser_value, winner_version, winner_device, reason)
            SELECT t.id, 'tree', t.v_updated_at, t.d_updated_at, \(all), n.version, n.device, 'deleted'
            FROM new_tombstone n JOIN tree t ON t.id = n.id WHERE n.kind = 'tree' AND t.deleted_version IS NULL
            ORDER BY t.id
            ON CONFLICT DO NOTHING RETURNING \(conflictColumns)
            """))
        for statement in [
            "UPDATE tree t SET deleted_version = n.version FROM new_tombstone n WHERE n.kind = 'tree' AND t.id = n.id",
            "DELETE FROM photo p USING new_tombstone n WHERE n.kind = 'tree' AND p.tree_id = n.id",
            "DELETE FROM photo p USING new_tombstone n WHERE n.kind = 'photo' AND p.id = n.id",
            "DELETE FROM care_event c USING new_tombstone n WHERE n.kind = 'tree' AND c.tree_id = n.id",
            "DELETE FROM care_event c USING new_tombstone n WHERE n.kind = 'careEvent' AND c.id = n.id",
            "DELETE FROM care_schedule s USING new_tombstone n WHERE n.kind IN ('tree', 'collection') AND s.target_id = n.id",
            "UPDATE tree t SET collection_id = NULL FROM new_tombstone n WHERE n.kind = 'collection' AND t.collection_id = n.id",
            "DELETE FROM collection c USING new_tombstone n WHERE n.kind = 'collection' AND c.id = n.id",
        ] { try connection.execute(statement) }
        try connection.execute("INSERT INTO change (kind, entity_id, device) SELECT 'tombstone', id, $1 FROM new_tombstone ORDER BY kind, id", [device])
        return found
    }
}

/// Reads what pulled change rows point at, as the store merges it.
enum ServerReader {
    static func array(_ ids: Set<String>) -> String { "{" + ids.sorted().joined(separator: ",") + "}" }

    static let treeSQL: String = {
        let cols = ServerSchema.columns.map { $0.text("t") }.joined(separator: ", ")
        let versions = ServerSchema.groupColumns.map { "t.v_\($0.name)::text, t.d_\($0.name)" }.joined(separator: ", ")
        return "SELECT t.id::text, \(cols), \(versions) FROM tree t WHERE t.id = ANY($1::uuid[]) AND t.deleted_version IS NULL"
    }()

    static func page(_ ids: [String: Set<String>], _ connection: PostgresConnection) throws(SyncError) -> PulledPage {
        var page = PulledPage()
        if let c = ids["collection"], !c.isEmpty {
            let rows = try connection.execute("""
                SELECT id::text, name, trees_time_text(created_at), trees_time_text(updated_at), version::text, device FROM collection WHERE id = ANY($1::uuid[])
                """, [array(c)])
            for i in 0..<rows.count {
                page.collections.append(SyncCollectionRow(id: rows[i, 0] ?? "", name: rows[i, 1] ?? "", createdAt: rows[i, 2] ?? "", updatedAt: rows[i, 3] ?? "",
                                                          version: SyncVersion(clock: Int64(rows[i, 4] ?? "") ?? 0, device: rows[i, 5] ?? "")))
            }
        }
        var conflictIDs = Set<String>()
        if let t = ids["tree"], !t.isEmpty {
            conflictIDs.formUnion(t)
            let rows = try connection.execute(treeSQL, [array(t)])
            let n = ServerSchema.columns.count
            for i in 0..<rows.count {
                let columns = (0..<n).map { rows[i, $0 + 1] }
                let versions = (0..<ServerSchema.groupColumns.count).map { g in
                    SyncVersion(clock: Int64(rows[i, n + 1 + 2 * g] ?? "") ?? 0, device: rows[i, n + 2 + 2 * g] ?? "")
                }
                page.trees.append(SyncTreeRow(id: rows[i, 0] ?? "", columns: columns, versions: versions))
            }
        }
        if let p = ids["photo"], !p.isEmpty {
            let rows = try connection.execute("""
                SELECT id::text, tree_id::text, sha256, format, byte_count::text, trees_time_text(captured_at), trees_time_text(created_at), version::text, device,
                       care_event_id::text
                FROM photo WHERE id = ANY($1::uuid[])
                """, [array(p)])
            for i in 0..<rows.count {
                page.photos.append(SyncPhotoRow(id: rows[i, 0] ?? "", treeId: rows[i, 1] ?? "", sha256: rows[i, 2] ?? "", format: rows[i, 3] ?? "",
                                                byteCount: Int64(rows[i, 4] ?? "") ?? 0, capturedAt: rows[i, 5] ?? "", createdAt: rows[i, 6] ?? "",
                                                careEventId: rows[i, 9], version: SyncVersion(clock: Int64(rows[i, 7] ?? "") ?? 0, device: rows[i, 8] ?? "")))
            }
        }
        if let c = ids["care_event"], !c.isEmpty {
            let columns = ServerWriter.careColumns.map { $0.type == "timestamptz" ? "trees_time_text(\($0.server))" : "\($0.server)::text" }
            let rows = try connection.execute("""
                SELECT id::text, \(columns.joined(separator: ", ")), version::text, device FROM care_event WHERE id = ANY($1::uuid[]) ORDER BY id
                """, [array(c)])
            let n = columns.count
            for i in 0..<rows.count {
                page.careEvents.append(SyncCareEventRow(id: rows[i, 0] ?? "", columns: (0..<n).map { rows[i, $0 + 1] },
                                                        version: SyncVersion(clock: Int64(rows[i, n + 1] ?? "") ?? 0, device: rows[i, n + 2] ?? "")))
            }
        }
        if let s = ids["care_schedule"], !s.isEmpty {
            let columns = ServerWriter.scheduleColumns.map { $0.type == "timestamptz" ? "trees_time_text(\($0.server))" : "\($0.server)::text" }
            let rows = try connection.execute("""
                SELECT target_id::text, kind, target IS NOT NULL, \(columns.joined(separator: ", ")), version::text, device FROM care_schedule
                WHERE id = ANY($1::uuid[]) ORDER BY target_id, kind
                """, [array(s)])
            let n = columns.count
            for i in 0..<rows.count {
                let values = rows[i, 2] == "t" ? (0..<n).map { rows[i, $0 + 3] } : nil
                page.careSchedules.append(SyncCareScheduleRow(targetId: rows[i, 0] ?? "", kind: rows[i, 1] ?? "", columns: values,
                                                              version: SyncVersion(clock: Int64(rows[i, n + 3] ?? "") ?? 0, device: rows[i, n + 4] ?? "")))
            }
        }
        if let d = ids["tombstone"], !d.isEmpty {
            let rows = try connection.execute("SELECT kind, id::text, version::text, device FROM tombstone WHERE id = ANY($1::uuid[]) ORDER BY kind, id", [array(d)])
            for i in 0..<rows.count {
                guard let kind = SyncTombstone.Kind(rawValue: rows[i, 0] ?? "") else { continue }
                if kind == .tree { conflictIDs.insert(rows[i, 1] ?? "") }
                page.tombstones.append(SyncTombstone(kind: kind, id: rows[i, 1] ?? "", version: SyncVersion(clock: Int64(rows[i, 2] ?? "") ?? 0, device: rows[i, 3] ?? "")))
            }
        }
        if !conflictIDs.isEmpty {
            page.conflicts = ServerWriter.conflicts(try connection.execute("""
                SELECT tree_id::text, field, loser_version::text, loser_device, loser_value, winner_version::text, winner_device, reason
                FROM tree_conflict WHERE tree_id = ANY($1::uuid[]) ORDER BY tree_id, loser_version, field
                """, [array(conflictIDs)]))
        }
        return page
    }
}
