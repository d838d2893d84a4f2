import Foundation
import Interchange
import TreesKit

/// The attribute columns of the `trees` layer a GeoPackage export writes, in order (the CSV's
/// names, so a column means the same in both). The geometry is `geom`; dates are ISO 8601 UTC
/// text (`DATETIME`); `photo` is the first photo's path relative to the GeoPackage and `photos`
/// all of them, separated by `;`.
public enum GeoPackageColumns {
    public static let all: [(name: String, type: String)] = [
        ("id", "TEXT"), ("species", "TEXT"), ("variety", "TEXT"), ("rootstock", "TEXT"), ("notes", "TEXT"),
        ("collection", "TEXT"), ("collectionId", "TEXT"),
        ("horizontalAccuracy", "DOUBLE"), ("accuracySource", "TEXT"), ("accuracyClass", "TEXT"),
        ("altitude", "DOUBLE"), ("ellipsoidHeight", "DOUBLE"),
        ("createdAt", "DATETIME"), ("updatedAt", "DATETIME"),
        ("fixTime", "DATETIME"), ("fixMode", "TEXT"), ("satellites", "INTEGER"), ("hdop", "DOUBLE"),
        ("averagedEpochs", "INTEGER"), ("locationSource", "TEXT"),
        ("fixStatus", "TEXT"), ("correctionAge", "DOUBLE"), ("verticalAccuracy", "DOUBLE"), ("verticalAccuracySource", "TEXT"),
        ("antennaHeight", "DOUBLE"),
        ("photoCount", "INTEGER"), ("photo", "TEXT"), ("photos", "TEXT"),
    ]
}

/// Writes trees as an OGC GeoPackage 1.3 file: one `trees` point layer in the chosen CRS with
/// an R-tree spatial index (the `gpkg_rtree_index` extension), and a `collections` table.
///
/// The file is built in place at `path` (a temporary file the caller renames when `finish()`
/// returns), in one transaction without a journal: a failed export is thrown away whole.
public final class GeoPackageWriter {
    public static let layer = "trees"
    private let db: SQLiteFile
    private let projection: Projection?
    private let srsID: Int32
    private let crsName: String
    private let collections: [UUID: TreeCollection]
    private var insert: SQLiteFile.Statement?
    /// The spatial index, packed at the end (see `RTreeBuilder`) from each row's point, which
    /// `points` keeps meanwhile (20 bytes a tree, in bounded memory).
    private var index = RTreeBuilder(nodeSize: 0)
    private let points: RTreeEntrySorter
    private var geometry: [UInt8] = []
    /// Text written without a `String` on the way: ids and dates.
    private let idText = UnsafeMutablePointer<UInt8>.allocate(capacity: 36)
    private var dateText: [UInt8] = []
    private var extent: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    private var fid: Int64 = 0
    public private(set) var count = 0

    /// - Parameters:
    ///   - path: where the file is built (an empty or missing file).
    ///   - name: the file as errors name it.
    ///   - projection: WGS 84 to the CRS of the layer; nil for WGS 84 longitude, latitude.
    public convenience init(path: String, name: String, projection: Projection?, collections: [TreeCollection]) throws(GISError) {
        try self.init(path: path, name: name, projection: projection, collections: collections, indexRunLength: 1 << 16)
    }

    /// `indexRunLength`: how many points of the spatial index are held in memory before they go
    /// to a scratch file beside `path` (see `RTreeEntrySorter`).
    package init(path: String, name: String, projection: Projection?, collections: [TreeCollection],
                 indexRunLength: Int) throws(GISError) {
        db = try SQLiteFile(path: path, name: name, create: true)
        points = RTreeEntrySorter(scratchPath: path + "-index-scratch", name: name, runLength: indexRunLength)
        self.projection = projection
        self.collections = Dictionary(collections.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        if let target = projection?.target, !(target.organization == "EPSG" && target.organizationCode == 4326) {
            srsID = Int32(clamping: target.organization == "EPSG" ? (target.organizationCode ?? 100_000) : 100_000)
            crsName = target.code ?? target.name
        } else {
            srsID = 4326
            crsName = "EPSG:4326"
        }
        // The page size before anything creates the file; no journal before the first write, so
        // nothing but the temporary file is ever made beside the destination.
        try db.execute("""
            PRAGMA page_size = 32768;
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA application_id = 1196444487;
            PRAGMA user_version = 10300;
            PRAGMA cache_size = -8192;
            BEGIN;
            """)
        try createTables(collections: collections)
    }

    /// The definition of EPSG:4326 in OGC WKT 1, as the GeoPackage standard's own row for it has
    /// one: written as it stands, so that a file in WGS 84 needs nothing of PROJ.
    static let wgs84Definition = #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]]"#

    private func createTables(collections: [TreeCollection]) throws(GISError) {
        try db.execute("""
            CREATE TABLE gpkg_spatial_ref_sys (
              srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
              organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
            CREATE TABLE gpkg_contents (
              table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
              description TEXT DEFAULT '',
              last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
              min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
              CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
            CREATE TABLE gpkg_geometry_columns (
              table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
              srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
              CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
              CONSTRAINT uk_gc_table_name UNIQUE (table_name),
              CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
              CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
            CREATE TABLE gpkg_extensions (
              table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
              scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
            INSERT INTO gpkg_spatial_ref_sys VALUES
              ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
              ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
              ('WGS 84 geodetic', 4326, 'EPSG', 4326, \(Self.wgs84Definition.sqlLiteral),
               'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
            """)
        if srsID != 4326, let target = projection?.target {
            try db.execute("""
                INSERT INTO gpkg_spatial_ref_sys VALUES (\(target.name.sqlLiteral), \(srsID),
                  \((target.organization ?? "NONE").sqlLiteral), \(target.organizationCode ?? Int(srsID)),
                  \(target.wkt.sqlLiteral), \(target.name.sqlLiteral));
                """)
        }
        let columns = GeoPackageColumns.all.map { "\($0.name.sqlIdentifier) \($0.type)" }.joined(separator: ", ")
        let layer = Self.layer
        try db.execute("""
            CREATE TABLE \(layer) (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom POINT, \(columns));
            INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id)
              VALUES ('\(layer)', 'features', '\(layer)', 'Trees and how their positions were captured', \(srsID));
            INSERT INTO gpkg_geometry_columns VALUES ('\(layer)', 'geom', 'POINT', \(srsID), 0, 0);
            CREATE VIRTUAL TABLE rtree_\(layer)_geom USING rtree(id, minx, maxx, miny, maxy);
            INSERT INTO gpkg_extensions VALUES ('\(layer)', 'geom', 'gpkg_rtree_index',
              'http://www.geopackage.org/spec120/#extension_rtree', 'write-only');
            CREATE TABLE collections (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, id TEXT NOT NULL UNIQUE,
              name TEXT NOT NULL, createdAt DATETIME NOT NULL, updatedAt DATETIME NOT NULL);
            INSERT INTO gpkg_contents (table_name, data_type, identifier, description)
              VALUES ('collections', 'attributes', 'collections', 'Named groups of trees');
            """)
        let add = try db.prepare("INSERT INTO collections (id, name, createdAt, updatedAt) VALUES (?, ?, ?, ?)")
        for c in collections {
            add.bind(1, c.id.lowercaseText); add.bind(2, c.name)
            add.bind(3, TextCodec.iso8601(c.createdAt)); add.bind(4, TextCodec.iso8601(c.updatedAt))
            try add.run()
        }
        let names = GeoPackageColumns.all.map(\.name.sqlIdentifier).joined(separator: ", ")
        let marks = Array(repeating: "?", count: GeoPackageColumns.all.count + 2).joined(separator: ", ")
        insert = try db.prepare("INSERT INTO \(layer) (fid, geom, \(names)) VALUES (\(marks))")
        let root = try db.prepare("SELECT length(data) FROM rtree_\(layer)_geom_node WHERE nodeno = 1")
        guard try root.next(), let size = root.int(0), size >= 28 else {
            throw .sqlite(file: db.name, reason: "SQLite made no R-tree root node")
        }
        index = RTreeBuilder(nodeSize: Int(size))
    }

    deinit { idText.deallocate() }

    private func bind(_ statement: SQLiteFile.Statement, _ index: Int32, id: UUID?) {
        guard let id else { statement.bind(index, nil as String?); return }
        id.writeText(into: idText)
        statement.bind(index, utf8: idText, count: 36)
    }

    private func bind(_ statement: SQLiteFile.Statement, _ index: Int32, date: Date?) {
        guard let date else { statement.bind(index, nil as String?); return }
        dateText.removeAll(keepingCapacity: true)
        TextCodec.appendISO8601(date, to: &dateText)
        dateText.withUnsafeBufferPointer { b in
            if let base = b.baseAddress { statement.bind(index, utf8: base, count: b.count) }
        }
    }

    /// Adds one tree; `photoPaths` are its photos' paths relative to the GeoPackage.
    public func write(_ tree: Tree, photoPaths: [String] = []) throws(GISError) {
        guard let insert else { return }
        var x = tree.longitude, y = tree.latitude
        if let projection {
            guard let p = projection.project(tree.coordinate) else {
                throw .cannotTransform(crs: crsName, what: "tree \(tree.shortID) at \(tree.latitude), \(tree.longitude)")
            }
            (x, y) = p
        }
        fid += 1
        GeoPackageGeometry.point(x: x, y: y, srsID: srsID, into: &geometry)
        let c = tree.capture
        insert.bind(1, Int(fid))
        insert.bind(2, blob: geometry)
        bind(insert, 3, id: tree.id)
        insert.bind(4, tree.species)
        insert.bind(5, tree.variety)
        insert.bind(6, tree.rootstock)
        insert.bind(7, tree.notes)
        insert.bind(8, tree.collectionID.flatMap { collections[$0]?.name })
        bind(insert, 9, id: tree.collectionID)
        insert.bind(10, tree.horizontalAccuracy)
        insert.bind(11, tree.accuracySource?.rawValue)
        insert.bind(12, tree.horizontalAccuracy == nil ? nil : tree.accuracyClass.title)
        insert.bind(13, tree.altitude)
        insert.bind(14, tree.ellipsoidHeight)
        bind(insert, 15, date: tree.createdAt)
        bind(insert, 16, date: tree.updatedAt)
        bind(insert, 17, date: c.fixTime)
        insert.bind(18, c.fixMode.map(FixModeText.text))
        insert.bind(19, c.satellites)
        insert.bind(20, c.hdop)
        insert.bind(21, c.averagedEpochs)
        insert.bind(22, c.locationSource)
        insert.bind(23, c.fixStatus?.name)
        insert.bind(24, c.correctionAge)
        insert.bind(25, c.verticalAccuracy)
        insert.bind(26, c.verticalAccuracySource?.rawValue)
        insert.bind(27, c.antennaHeight)
        insert.bind(28, photoPaths.count)
        insert.bind(29, photoPaths.first)
        insert.bind(30, photoPaths.isEmpty ? nil : photoPaths.joined(separator: ";"))
        try insert.run()
        try points.add(RTreeBuilder.entry(id: fid, x: x, y: y))
        if var e = extent {
            e.minX = min(e.minX, x); e.maxX = max(e.maxX, x); e.minY = min(e.minY, y); e.maxY = max(e.maxY, y)
            extent = e
        } else {
            extent = (x, y, x, y)
        }
        count += 1
    }

    /// Writes the packed R-tree straight into the virtual table's shadow tables.
    private func writeIndex() throws(GISError) {
        let t = "rtree_\(Self.layer)_geom"
        let node = try db.prepare("INSERT OR REPLACE INTO \(t)_node (nodeno, data) VALUES (?, ?)")
        let rowid = try db.prepare("INSERT INTO \(t)_rowid (rowid, nodeno) VALUES (?, ?)")
        let parent = try db.prepare("INSERT INTO \(t)_parent (nodeno, parentnode) VALUES (?, ?)")
        let sorted = try points.sorted()
        do {
            try index.build(
                count: points.count,
                sortedByX: sorted,
                node: { number, data in node.bind(1, Int(number)); node.bind(2, blob: data); try node.run() },
                rowLeaf: { row, leaf in rowid.bind(1, Int(row)); rowid.bind(2, Int(leaf)); try rowid.run() },
                parent: { child, above in parent.bind(1, Int(child)); parent.bind(2, Int(above)); try parent.run() })
        } catch let e as GISError {
            throw e
        } catch {
            throw .sqlite(file: db.name, reason: "\(error)")
        }
    }

    /// Records the layer's extent, adds the index's triggers and commits: the file is complete.
    public func finish() throws(GISError) {
        insert = nil
        let layer = Self.layer
        try writeIndex()
        if let e = extent {
            try db.execute("UPDATE gpkg_contents SET min_x = \(e.minX), min_y = \(e.minY), max_x = \(e.maxX), max_y = \(e.maxY) WHERE table_name = '\(layer)'")
        }
        // The triggers keep the index right when another program edits the layer (they call
        // the ST_ functions GeoPackage readers provide; this writer fills the index itself).
        let t = "rtree_\(layer)_geom"
        let values = "(NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom))"
        try db.execute("""
            CREATE TRIGGER \(t)_insert AFTER INSERT ON \(layer)
              WHEN (NEW.geom NOT NULL AND NOT ST_IsEmpty(NEW.geom))
              BEGIN INSERT OR REPLACE INTO \(t) VALUES \(values); END;
            CREATE TRIGGER \(t)_update1 AFTER UPDATE OF geom ON \(layer)
              WHEN OLD.fid = NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
              BEGIN INSERT OR REPLACE INTO \(t) VALUES \(values); END;
            CREATE TRIGGER \(t)_update2 AFTER UPDATE OF geom ON \(layer)
              WHEN OLD.fid = NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
              BEGIN DELETE FROM \(t) WHERE id = OLD.fid; END;
            CREATE TRIGGER \(t)_update3 AFTER UPDATE ON \(layer)
              WHEN OLD.fid != NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
              BEGIN DELETE FROM \(t) WHERE id = OLD.fid; INSERT OR REPLACE INTO \(t) VALUES \(values); END;
            CREATE TRIGGER \(t)_update4 AFTER UPDATE ON \(layer)
              WHEN OLD.fid != NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
              BEGIN DELETE FROM \(t) WHERE id IN (OLD.fid, NEW.fid); END;
            CREATE TRIGGER \(t)_delete AFTER DELETE ON \(layer)
              WHEN OLD.geom NOT NULL
              BEGIN DELETE FROM \(t) WHERE id = OLD.fid; END;
            COMMIT;
            """)
    }
}
