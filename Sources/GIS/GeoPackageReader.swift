import Foundation
import Interchange
import TreesKit

/// A layer (a table listed in `gpkg_contents`) of a GeoPackage, as `trees inspect` shows it.
public struct GeoPackageLayer: Sendable, Equatable {
    public var name: String
    /// `features`, `attributes`, `tiles`…
    public var dataType: String
    /// `POINT`, `MULTIPOINT`, `LINESTRING`…; nil for a table without geometry.
    public var geometryType: String?
    public var geometryColumn: String?
    public var srsID: Int?
    /// `EPSG:27700 (OSGB36 / British National Grid)`; nil without geometry.
    public var crs: String?
    public var rows: Int
    /// The extent gpkg_contents records, in the layer's CRS.
    public var extent: (minX: Double, minY: Double, maxX: Double, maxY: Double)?

    public var isPointLayer: Bool { geometryType == "POINT" || geometryType == "MULTIPOINT" }

    public static func == (a: GeoPackageLayer, b: GeoPackageLayer) -> Bool {
        a.name == b.name && a.dataType == b.dataType && a.geometryType == b.geometryType && a.srsID == b.srsID
            && a.crs == b.crs && a.rows == b.rows && a.extent?.minX == b.extent?.minX && a.extent?.minY == b.extent?.minY
            && a.extent?.maxX == b.extent?.maxX && a.extent?.maxY == b.extent?.maxY
    }
}

/// The fields of a tree a GeoPackage column can fill (see `AttributeField`).
public typealias GeoPackageField = AttributeField

/// Reads the layers of a GeoPackage and the trees of a point layer, carried into WGS 84.
public final class GeoPackageReader {
    private let db: SQLiteFile
    private let name: String

    /// Opens `path` read-only; fails with `GISError.notAGeoPackage` when it is not SQLite or has
    /// no `gpkg_contents` table.
    public init(path: String, name: String) throws(GISError) {
        self.name = name
        do throws(GISError) {
            db = try SQLiteFile(path: path, name: name, create: false)
            let s = try db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('gpkg_contents', 'gpkg_spatial_ref_sys')")
            guard try s.next(), s.int(0) == 2 else {
                throw GISError.notAGeoPackage(file: name, reason: "it has no gpkg_contents and gpkg_spatial_ref_sys tables")
            }
        } catch {
            if case .sqlite(_, let reason) = error {
                // A WAL-mode file with changes in its -wal needs a -shm file beside it, which SQLite cannot make in a
                // folder this user may not write to: that is no fault of the file.
                if !FileManager.default.isWritableFile(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path),
                   SQLiteFile.logBytes(path) > 0 {
                    throw .sqlite(file: name, reason: "its latest changes are in \(name)-wal, which SQLite reads only in a folder it may write to; copy both files into one (\(reason))")
                }
                throw .notAGeoPackage(file: name, reason: reason)
            }
            throw error
        }
    }

    /// Every layer gpkg_contents lists, in its order.
    public func layers() throws(GISError) -> [GeoPackageLayer] {
        let s = try db.prepare("""
            SELECT c.table_name, c.data_type, g.geometry_type_name, g.column_name, g.srs_id, s.organization,
                   s.organization_coordsys_id, s.srs_name, c.min_x, c.min_y, c.max_x, c.max_y
            FROM gpkg_contents c
            LEFT JOIN gpkg_geometry_columns g ON g.table_name = c.table_name
            LEFT JOIN gpkg_spatial_ref_sys s ON s.srs_id = g.srs_id
            ORDER BY c.rowid
            """)
        var layers: [GeoPackageLayer] = []
        while try s.next() {
            let table = s.text(0) ?? ""
            var crs: String?
            if !s.isNull(4) {
                let org = s.text(5) ?? "NONE", code = s.int(6) ?? 0, srsName = s.text(7) ?? "unnamed"
                crs = org.uppercased() == "NONE" ? srsName : "\(org.uppercased()):\(code) (\(srsName))"
            }
            var extent: (Double, Double, Double, Double)?
            if let a = s.double(8), let b = s.double(9), let c = s.double(10), let d = s.double(11) { extent = (a, b, c, d) }
            layers.append(GeoPackageLayer(
                name: table, dataType: s.text(1) ?? "", geometryType: s.text(2)?.uppercased(), geometryColumn: s.text(3),
                srsID: s.int(4).map { Int($0) }, crs: crs, rows: try count(table), extent: extent))
        }
        return layers
    }

    private func count(_ table: String) throws(GISError) -> Int {
        guard let s = try? db.prepare("SELECT count(*) FROM \(table.sqlIdentifier)"), try s.next() else { return 0 }
        return Int(s.int(0) ?? 0)
    }

    /// The point layer named `layer`, or the first point layer.
    public func pointLayer(_ layer: String?) throws(GISError) -> GeoPackageLayer {
        let all = try layers()
        if let layer {
            guard let found = all.first(where: { $0.name == layer }) ?? all.first(where: { $0.name.lowercased() == layer.lowercased() }) else {
                throw .noPointLayer(file: name, reason: "no layer named \(layer) (layers: \(Self.list(all)))")
            }
            guard found.isPointLayer else {
                throw .noPointLayer(file: name, reason: "layer \(found.name) holds \(found.geometryType ?? "no geometry"), not points")
            }
            return found
        }
        guard let first = all.first(where: \.isPointLayer) else {
            throw .noPointLayer(file: name, reason: "no point layer to import trees from (layers: \(Self.list(all)))")
        }
        return first
    }

    private static func list(_ layers: [GeoPackageLayer]) -> String {
        layers.isEmpty ? "none" : layers.map { "\($0.name) \($0.geometryType ?? $0.dataType)" }.joined(separator: ", ")
    }

    /// The projection from the layer's CRS, nil for WGS 84 (and the undefined geographic CRS,
    /// taken as WGS 84).
    private func projection(of layer: GeoPackageLayer) throws(GISError) -> Projection? {
        guard let srsID = layer.srsID else { throw .badLayer(file: name, layer: layer.name, reason: "no CRS") }
        let s = try db.prepare("SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?")
        s.bind(1, srsID)
        guard try s.next() else {
            throw .badLayer(file: name, layer: layer.name, reason: "its srs_id \(srsID) is not in gpkg_spatial_ref_sys")
        }
        let org = (s.text(0) ?? "").uppercased(), code = Int(s.int(1) ?? 0), definition = s.text(2) ?? ""
        if srsID == 0 || (org == "EPSG" && code == 4326) { return nil }
        if srsID == -1 { throw .badLayer(file: name, layer: layer.name, reason: "its CRS is the undefined cartesian one: positions cannot be placed on Earth") }
        if org == "EPSG", code > 0, let p = try? Projection("EPSG:\(code)") { return p }
        guard !definition.isEmpty, definition.lowercased() != "undefined" else {
            throw .badLayer(file: name, layer: layer.name, reason: "its CRS \(org):\(code) is unknown to PROJ and the file gives no definition")
        }
        do throws(GISError) {
            return try Projection(definition)
        } catch {
            throw .badLayer(file: name, layer: layer.name, reason: "its CRS \(org):\(code) is unknown to PROJ, and so is its definition")
        }
    }

    /// Reads the trees of the point layer `layer` (the first one when nil), positions carried into
    /// WGS 84; `mapping` names the column for a field where the default names do not fit. Rows
    /// without a species are passed to `skipped` with their fid; a row that cannot be read (no
    /// geometry or an empty one, a malformed blob, a position outside WGS 84 or the CRS, a value
    /// of the wrong kind) stops everything with `GISError.badRow`. `projecting` is told the layer's CRS (its code,
    /// else its name) before the first tree when positions are carried through PROJ.
    public func readTrees(layer: String?, mapping: [GeoPackageField: String] = [:],
                          progress: (Double) -> Void = { _ in },
                          projecting: (_ crs: String) throws -> Void = { _ in },
                          skipped: (_ row: Int, _ reason: String) throws -> Void,
                          _ body: (ImportedTree) throws -> Void) throws {
        let layer = try pointLayer(layer)
        let projection = try projection(of: layer)
        if let projection { try projecting(projection.target.code ?? projection.target.name) }
        let crsName = layer.crs ?? "its CRS"
        guard let geometryColumn = layer.geometryColumn else { throw GISError.badLayer(file: name, layer: layer.name, reason: "no geometry column") }

        // The table's columns, matched to fields.
        let info = try db.prepare("PRAGMA table_info(\(layer.name.sqlIdentifier))")
        var columns: [String] = []
        var primaryKey: String?
        while try info.next() {
            let column = info.text(1) ?? ""
            columns.append(column)
            if info.int(5) == 1 { primaryKey = column }
        }
        for (field, column) in mapping where !columns.contains(column) {
            throw GISError.badLayer(file: name, layer: layer.name,
                                    reason: "--map \(field.rawValue)=\(column): no such column (columns: \(columns.joined(separator: ", ")))")
        }
        var chosen: [(GeoPackageField, String)] = []
        for field in GeoPackageField.allCases {
            if let column = mapping[field] { chosen.append((field, column)); continue }
            let normalised = columns.map { GeoPackageField.normalised($0) }
            for candidate in field.defaultColumns {
                if let i = normalised.firstIndex(of: candidate), columns[i] != geometryColumn, columns[i] != primaryKey || field != .id {
                    chosen.append((field, columns[i]))
                    break
                }
            }
        }
        let rowid = primaryKey ?? "rowid"
        let selected = ([rowid, geometryColumn] + chosen.map(\.1)).map(\.sqlIdentifier).joined(separator: ", ")
        let s = try db.prepare("SELECT \(selected) FROM \(layer.name.sqlIdentifier) ORDER BY \(rowid.sqlIdentifier)")
        let total = max(1, layer.rows)
        var seen = 0
        while try s.next() {
            let fid = Int(s.int(0) ?? 0)
            seen += 1
            if seen % 4096 == 0 { progress(Double(seen) / Double(total)) }
            // A tree is a position: a row without one cannot be read as a tree.
            guard let blob = s.blob(1) else {
                throw GISError.badRow(file: name, layer: layer.name, row: Int64(fid),
                                      reason: "no geometry (NULL in \(geometryColumn)); give the row a point or delete it")
            }
            let x: Double, y: Double
            switch GeoPackageGeometry.decodePoint(blob) {
            case .success(.point(let px, let py)): (x, y) = (px, py)
            case .success(.empty):
                throw GISError.badRow(file: name, layer: layer.name, row: Int64(fid),
                                      reason: "an empty point; give the row a position or delete it")
            case .failure(let f): throw GISError.badRow(file: name, layer: layer.name, row: Int64(fid), reason: f.reason)
            }
            let coordinate: Coordinate
            if let projection {
                guard let c = projection.unproject(x: x, y: y) else {
                    throw GISError.badRow(file: name, layer: layer.name, row: Int64(fid),
                                          reason: "\(x), \(y) cannot be carried from \(crsName) to WGS 84")
                }
                coordinate = c
            } else {
                guard abs(y) <= 90, abs(x) <= 180 else {
                    throw GISError.badRow(file: name, layer: layer.name, row: Int64(fid),
                                          reason: "longitude \(x), latitude \(y) is outside WGS 84's range")
                }
                coordinate = Coordinate(latitude: y, longitude: x)
            }
            var t = ImportedTree(coordinate: coordinate, species: "", line: fid)
            for (i, (field, _)) in chosen.enumerated() {
                let c = Int32(i + 2)
                guard !s.isNull(c) else { continue }
                try read(field, column: c, from: s, into: &t, row: fid, layer: layer.name)
            }
            if Self.isBlank(t.species) { try skipped(fid, FileFormat.gpkg.noSpeciesReason); continue }
            try body(t)
        }
        progress(1)
    }

    /// True when the text is empty or holds only what `CharacterSet.whitespaces` holds (what
    /// `trimmingCharacters(in: .whitespaces)` would leave empty), looked at scalar by scalar
    /// rather than through a trimmed copy.
    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.isASCII ? ($0 == " " || $0 == "\t") : CharacterSet.whitespaces.contains($0) }
    }

    private func read(_ field: GeoPackageField, column c: Int32, from s: SQLiteFile.Statement, into t: inout ImportedTree,
                      row: Int, layer: String) throws(GISError) {
        func text() -> String? { s.text(c).flatMap { $0.isEmpty ? nil : $0 } }
        func number() throws(GISError) -> Double {
            guard let v = s.double(c), v.isFinite else { throw bad("\(field.rawValue) \(s.text(c) ?? "") is not a number") }
            return v
        }
        func integer() throws(GISError) -> Int {
            guard let v = s.int(c) else { throw bad("\(field.rawValue) \(s.text(c) ?? "") is not a whole number") }
            return Int(v)
        }
        func date() throws(GISError) -> Date {
            guard let d = s.textBytes(c).flatMap({ TextCodec.parseISO8601($0) }) else { throw bad("\(field.rawValue) \(s.text(c) ?? "") is not an ISO 8601 time") }
            return d
        }
        func bad(_ reason: String) -> GISError { .badRow(file: name, layer: layer, row: Int64(row), reason: reason) }
        switch field {
        case .id:
            if let v = text() {
                // The plain 36 characters read in place; anything else (surrounding spaces) as before.
                if let id = s.textBytes(c).flatMap({ UUID(text: $0) ?? ByteParsing.uuid(Array($0)[...]) }) { t.id = id } else { t.unusableID = v }
            }
        case .species: t.species = text() ?? ""
        case .variety: t.variety = text()
        case .rootstock: t.rootstock = text()
        case .notes: t.notes = text()
        case .collection: t.collectionName = text()
        case .horizontalAccuracy:
            let v = try number()
            guard v >= 0 else { throw bad("horizontalAccuracy \(v) is negative") }
            t.horizontalAccuracy = v
        case .accuracySource: t.accuracySource = text().flatMap { AccuracySource(rawValue: $0.lowercased()) }
        case .altitude: t.altitude = try number()
        case .ellipsoidHeight: t.ellipsoidHeight = try number()
        case .createdAt: t.createdAt = try date()
        case .updatedAt: t.updatedAt = try date()
        case .fixTime: t.capture.fixTime = try date()
        case .fixMode: t.capture.fixMode = text().flatMap { FixModeText.mode($0) }
        case .satellites: t.capture.satellites = try integer()
        case .hdop: t.capture.hdop = try number()
        case .averagedEpochs: t.capture.averagedEpochs = try integer()
        case .locationSource: t.capture.locationSource = text()
        case .fixStatus:
            guard let v = text() else { return }
            guard let status = FixStatus(name: v) else { throw bad("fixStatus \(FixQualityText.unknownStatus(v))") }
            t.capture.fixStatus = status
        case .verticalAccuracySource:
            guard let v = text() else { return }
            guard let source = AccuracySource(rawValue: v.lowercased()) else { throw bad("verticalAccuracySource \(FixQualityText.unknownSource(v))") }
            t.capture.verticalAccuracySource = source
        case .correctionAge, .verticalAccuracy, .antennaHeight:
            let v = try number()
            if let problem = FixQualityText.measureProblem(v) { throw bad("\(field.rawValue) \(problem)") }
            switch field {
            case .correctionAge: t.capture.correctionAge = v
            case .verticalAccuracy: t.capture.verticalAccuracy = v
            default: t.capture.antennaHeight = v
            }
        }
    }
}
