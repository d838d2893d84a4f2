import Foundation

/// The geometry blobs of a GeoPackage: a header (`GP`, version, flags, srs_id, optional
/// envelope) followed by a standard WKB geometry (GeoPackage 1.3, clause 2.1.3).
public enum GeoPackageGeometry {
    /// A point without an envelope, little-endian: 8 header bytes and 21 of WKB.
    ///
    /// Flags 0x01: byte order little-endian (bit 0), no envelope (bits 1–3 zero), not empty
    /// (bit 4), standard binary (bit 5).
    public static func point(x: Double, y: Double, srsID: Int32, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.append(0x47); out.append(0x50); out.append(0); out.append(0x01)
        append32(UInt32(bitPattern: srsID), &out)
        out.append(0x01)
        append32(1, &out)
        append64(x.bitPattern, &out)
        append64(y.bitPattern, &out)
    }

    private static func append32(_ v: UInt32, _ out: inout [UInt8]) {
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    private static func append64(_ v: UInt64, _ out: inout [UInt8]) {
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * i))) }
    }

    /// What a geometry blob holds, for a layer of points.
    public enum Decoded: Equatable, Sendable {
        case point(x: Double, y: Double)
        /// An empty point or multipoint (NaN coordinates, the empty flag, no parts).
        case empty
    }

    /// Reads a point (2D, Z, M or ZM; or a multipoint of one point) from a GeoPackage geometry
    /// blob; the reason it cannot otherwise.
    public static func decodePoint(_ b: UnsafeRawBufferPointer) -> Result<Decoded, DecodeFailure> {
        guard b.count >= 8, b[0] == 0x47, b[1] == 0x50 else { return .failure(.init("not a GeoPackage geometry (no GP header)")) }
        let flags = b[3]
        guard flags & 0x20 == 0 else { return .failure(.init("an extended geometry type")) }
        let envelopeBytes: Int
        switch (flags >> 1) & 0x07 {
        case 0: envelopeBytes = 0
        case 1: envelopeBytes = 32
        case 2, 3: envelopeBytes = 48
        case 4: envelopeBytes = 64
        default: return .failure(.init("an envelope indicator of \((flags >> 1) & 0x07)"))
        }
        if flags & 0x10 != 0 { return .success(.empty) }
        var at = 8 + envelopeBytes
        guard b.count >= at + 5 else { return .failure(.init("a geometry cut short")) }
        return readPoint(b, &at, depth: 0)
    }

    private static func readPoint(_ b: UnsafeRawBufferPointer, _ at: inout Int, depth: Int) -> Result<Decoded, DecodeFailure> {
        guard b.count >= at + 5 else { return .failure(.init("a geometry cut short")) }
        let little = b[at] == 1
        guard b[at] <= 1 else { return .failure(.init("a WKB byte order of \(b[at])")) }
        let raw = read32(b, at + 1, little)
        at += 5
        // ISO (1001, 2001, 3001) and extended (high bits) codes for Z and M.
        let type = raw & 0x0FFF_FFFF
        let hasZ = type / 1000 == 1 || type / 1000 == 3 || raw & 0x8000_0000 != 0
        let hasM = type / 1000 == 2 || type / 1000 == 3 || raw & 0x4000_0000 != 0
        switch type % 1000 {
        case 1:
            let dims = 2 + (hasZ ? 1 : 0) + (hasM ? 1 : 0)
            guard b.count >= at + 8 * dims else { return .failure(.init("a point cut short")) }
            let x = Double(bitPattern: read64(b, at, little)), y = Double(bitPattern: read64(b, at + 8, little))
            at += 8 * dims
            if x.isNaN && y.isNaN { return .success(.empty) }
            guard x.isFinite, y.isFinite else { return .failure(.init("a point with coordinates that are not numbers")) }
            return .success(.point(x: x, y: y))
        case 4 where depth == 0:
            guard b.count >= at + 4 else { return .failure(.init("a multipoint cut short")) }
            let n = read32(b, at, little)
            at += 4
            if n == 0 { return .success(.empty) }
            guard n == 1 else { return .failure(.init("a multipoint of \(n) points (one tree is one point)")) }
            return readPoint(b, &at, depth: 1)
        default:
            return .failure(.init("a \(typeName(type % 1000)), not a point"))
        }
    }

    static func typeName(_ code: UInt32) -> String {
        switch code {
        case 1: "point"
        case 2: "line string"
        case 3: "polygon"
        case 4: "multipoint"
        case 5: "multi line string"
        case 6: "multipolygon"
        case 7: "geometry collection"
        default: "geometry of type \(code)"
        }
    }

    private static func read32(_ b: UnsafeRawBufferPointer, _ at: Int, _ little: Bool) -> UInt32 {
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(b[at + i]) << (8 * (little ? i : 3 - i)) }
        return v
    }

    private static func read64(_ b: UnsafeRawBufferPointer, _ at: Int, _ little: Bool) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(b[at + i]) << (8 * (little ? i : 7 - i)) }
        return v
    }

    /// Why a blob is not a readable point.
    public struct DecodeFailure: Error, Equatable, Sendable {
        public var reason: String
        init(_ reason: String) { self.reason = reason }
        public init(reason: String) { self.reason = reason }
    }
}
