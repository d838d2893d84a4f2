import Foundation
import TreesStore

/// The server's schema: PostGIS, trees with a `geometry(Point, 4326)` column and a GiST index,
/// collections, photos by content hash, care events and schedules, deletions, losing values and the change feed
/// that pulls read.
///
/// Migrations are numbered and recorded in `trees_schema`; each runs once, in a transaction,
/// under an advisory lock, so `trees server init` may run any number of times, from any number of
/// laptops at once. A shipped migration is never edited: the schema changes by adding one.
enum ServerSchema {
    /// The newest migration this `trees` knows.
    static var version: Int { migrations.count }

    /// One column of the server's tree table: its local name, its server name and type.
    struct Column {
        let local: String
        let server: String
        let type: String
        /// The column as text, in the form the local store keeps (dates as `yyyy-MM-dd HH:mm:ss.SSS` UTC).
        func text(_ table: String) -> String {
            type == "timestamptz" ? "trees_time_text(\(table).\(server))" : "\(table).\(server)::text"
        }
    }

    static let columns: [Column] = SyncTreeRow.columnNames.map { name in
        let server = snakeCase(name)
        let type: String
        switch name {
        case "latitude", "longitude", "horizontalAccuracy", "altitude", "ellipsoidHeight", "hdop", "correctionAge",
             "verticalAccuracy", "antennaHeight": type = "double precision"
        case "fixMode", "satellites", "averagedEpochs": type = "integer"
        case "createdAt", "updatedAt", "fixTime": type = "timestamptz"
        case "collectionId": type = "uuid"
        default: type = "text"
        }
        return Column(local: name, server: server, type: type)
    }

    /// The tree columns migration 1 made, frozen with it: later columns come with later migrations.
    static let firstColumns: Set<String> = [
        "latitude", "longitude", "horizontalAccuracy", "accuracySource", "altitude", "ellipsoidHeight", "species", "variety",
        "rootstock", "notes", "collectionId", "createdAt", "updatedAt", "fixTime", "fixMode", "satellites", "hdop",
        "averagedEpochs", "locationSource",
    ]

    /// The fix quality of a captured tree, added by migration 2.
    static let fixQualityColumns = ["fixStatus", "correctionAge", "verticalAccuracy", "verticalAccuracySource", "antennaHeight"]

    /// Server column names of each field group, in `SyncTreeRow.groups` order.
    static let groupColumns: [(name: String, columns: [Column])] = SyncTreeRow.groups.map { g in
        (snakeCase(g.name), g.columns.compactMap { c in columns.first { $0.local == c } })
    }

    static func snakeCase(_ name: String) -> String {
        var out = ""
        for ch in name {
            if ch.isUppercase { out += "_" + ch.lowercased() } else { out.append(ch) }
        }
        return out
    }

    static var migrations: [String] {
        let treeColumns = columns.filter { firstColumns.contains($0.local) }.map { "    \($0.server) \($0.type)" }.joined(separator: ",\n")
        let fixQuality = fixQualityColumns.compactMap { c in columns.first { $0.local == c } }
            .map { "ADD COLUMN \($0.server) \($0.type)" }.joined(separator: ", ")
        let versionColumns = groupColumns.map { "    v_\($0.name) bigint NOT NULL,\n    d_\($0.name) text NOT NULL" }.joined(separator: ",\n")
        return [
            """
            CREATE FUNCTION trees_time_text(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE
                RETURN to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS');
            CREATE TABLE collection (
                id uuid PRIMARY KEY,
                name text NOT NULL,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                version bigint NOT NULL,
                device text NOT NULL
            );
            CREATE TABLE tree (
                id uuid PRIMARY KEY,
                geom geometry(Point, 4326) NOT NULL,
            \(treeColumns),
            \(versionColumns),
                deleted_version bigint
            );
            CREATE INDEX tree_geom ON tree USING gist (geom);
            CREATE INDEX tree_collection_id ON tree (collection_id);
            CREATE TABLE photo (
                id uuid PRIMARY KEY,
                tree_id uuid NOT NULL,
                sha256 text NOT NULL,
                format text NOT NULL,
                byte_count bigint NOT NULL,
                captured_at timestamptz NOT NULL,
                created_at timestamptz NOT NULL,
                version bigint NOT NULL,
                device text NOT NULL
            );
            CREATE INDEX photo_tree_id ON photo (tree_id);
            CREATE TABLE photo_file (
                sha256 text PRIMARY KEY,
                byte_count bigint NOT NULL
            );
            CREATE TABLE photo_chunk (
                sha256 text NOT NULL,
                n integer NOT NULL,
                bytes bytea NOT NULL,
                PRIMARY KEY (sha256, n)
            );
            CREATE TABLE tombstone (
                kind text NOT NULL,
                id uuid NOT NULL,
                version bigint NOT NULL,
                device text NOT NULL,
                PRIMARY KEY (kind, id)
            );
            CREATE TABLE tree_conflict (
                tree_id uuid NOT NULL,
                field text NOT NULL,
                loser_version bigint NOT NULL,
                loser_device text NOT NULL,
                loser_value text NOT NULL,
                winner_version bigint NOT NULL,
                winner_device text NOT NULL,
                reason text NOT NULL,
                recorded_at timestamptz NOT NULL DEFAULT now(),
                PRIMARY KEY (tree_id, field, loser_version, loser_device)
            );
            CREATE TABLE change (
                seq bigserial PRIMARY KEY,
                xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
                kind text NOT NULL,
                entity_id uuid NOT NULL,
                device text NOT NULL
            );
            -- Covering: a pull walks it in order and never visits the table.
            CREATE INDEX change_xid_seq ON change (xid, seq) INCLUDE (kind, entity_id, device);
            CREATE VIEW trees_layer AS
                SELECT t.id, t.geom, t.species, t.variety, t.rootstock, t.notes, t.horizontal_accuracy,
                       CASE WHEN t.horizontal_accuracy IS NULL THEN 'No fix'
                            WHEN t.horizontal_accuracy < 5 THEN 'Excellent'
                            WHEN t.horizontal_accuracy < 10 THEN 'Good'
                            WHEN t.horizontal_accuracy < 15 THEN 'Acceptable'
                            WHEN t.horizontal_accuracy < 20 THEN 'Marginal'
                            ELSE 'Poor' END AS accuracy_class,
                       t.accuracy_source, t.altitude, c.name AS collection, t.created_at, t.updated_at
                FROM tree t LEFT JOIN collection c ON c.id = t.collection_id
                WHERE t.deleted_version IS NULL;
            """,
            // The fix quality of captured trees; the layer shows it and the Survey class (under 0.1 m).
            """
            ALTER TABLE tree \(fixQuality);
            CREATE OR REPLACE VIEW trees_layer AS
                SELECT t.id, t.geom, t.species, t.variety, t.rootstock, t.notes, t.horizontal_accuracy,
                       CASE WHEN t.horizontal_accuracy IS NULL THEN 'No fix'
                            WHEN t.horizontal_accuracy < 0.1 THEN 'Survey'
                            WHEN t.horizontal_accuracy < 5 THEN 'Excellent'
                            WHEN t.horizontal_accuracy < 10 THEN 'Good'
                            WHEN t.horizontal_accuracy < 15 THEN 'Acceptable'
                            WHEN t.horizontal_accuracy < 20 THEN 'Marginal'
                            ELSE 'Poor' END AS accuracy_class,
                       t.accuracy_source, t.altitude, c.name AS collection, t.created_at, t.updated_at,
                       t.fix_status, t.correction_age, t.vertical_accuracy, t.antenna_height
                FROM tree t LEFT JOIN collection c ON c.id = t.collection_id
                WHERE t.deleted_version IS NULL;
            """,
            // The care log: events, each one value whose later version wins; deleting a tree deletes its events.
            """
            CREATE TABLE care_event (
                id uuid PRIMARY KEY,
                tree_id uuid NOT NULL,
                kind text NOT NULL,
                date timestamptz NOT NULL,
                notes text,
                quantity double precision,
                unit text,
                health text,
                who text,
                created_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL,
                version bigint NOT NULL,
                device text NOT NULL
            );
            CREATE INDEX care_event_tree_id ON care_event (tree_id);
            """,
            // Care schedules, one per tree or collection and kind, removals kept as rows without
            // values; each row's id (for the change feed) is made from that pair.
            """
            CREATE TABLE care_schedule (
                target_id uuid NOT NULL,
                kind text NOT NULL,
                target text CHECK (target IN ('tree', 'collection')),
                every_days integer,
                from_day text,
                season text,
                created_at timestamptz,
                updated_at timestamptz,
                version bigint NOT NULL,
                device text NOT NULL,
                id uuid GENERATED ALWAYS AS (md5(target_id::text || ' ' || kind)::uuid) STORED UNIQUE,
                PRIMARY KEY (target_id, kind)
            );
            """,
            // The care event a photo was taken for, if any.
            "ALTER TABLE photo ADD COLUMN care_event_id uuid;",
        ]
    }

    /// Creates or upgrades the schema; returns the versions it applied.
    static func migrate(_ connection: PostgresConnection) throws(SyncError) -> (from: Int, to: Int) {
        do {
            try connection.execute("CREATE EXTENSION IF NOT EXISTS postgis")
        } catch .server(let state, let message) where state == "0A000" || state == "58P01" || message.contains("postgis") {
            throw .postgisMissing(message)
        }
        return try connection.transaction { () throws(SyncError) -> (Int, Int) in
            try connection.execute("SELECT pg_advisory_xact_lock(7432001)")
            try connection.execute("CREATE TABLE IF NOT EXISTS trees_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            let current = Int(try connection.execute("SELECT coalesce(max(version), 0) FROM trees_schema")[0, 0] ?? "0") ?? 0
            if current > version {
                throw .serverSchema("the server's schema is version \(current), newer than this trees knows (\(version)); upgrade trees")
            }
            for (i, sql) in migrations.enumerated() where i + 1 > current {
                try connection.executeScript(sql)
                try connection.execute("INSERT INTO trees_schema (version) VALUES ($1)", [String(i + 1)])
            }
            return (current, version)
        }
    }

    /// Refuses a server whose schema is missing or newer than this `trees` knows.
    static func check(_ connection: PostgresConnection) throws(SyncError) {
        let exists = try connection.execute("SELECT to_regclass('trees_schema') IS NOT NULL")[0, 0] == "t"
        guard exists else { throw .serverSchema("\(connection.displayName) has no trees schema; run 'trees server init' first") }
        let current = Int(try connection.execute("SELECT coalesce(max(version), 0) FROM trees_schema")[0, 0] ?? "0") ?? 0
        if current < version { throw .serverSchema("the server's schema is version \(current), older than this trees needs (\(version)); run 'trees server init'") }
        if current > version { throw .serverSchema("the server's schema is version \(current), newer than this trees knows (\(version)); upgrade trees") }
    }
}
