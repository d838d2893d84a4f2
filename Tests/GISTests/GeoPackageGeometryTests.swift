import GIS
import Testing

/// The GeoPackage geometry blob: header flags, srs_id, WKB, in both byte orders.
@Suite struct GeoPackageGeometryTests {
    func decode(_ bytes: [UInt8]) -> Result<GeoPackageGeometry.Decoded, GeoPackageGeometry.DecodeFailure> {
        bytes.withUnsafeBytes { GeoPackageGeometry.decodePoint($0) }
    }

    @Test func writesALittleEndianPointWithoutEnvelope() {
        var out: [UInt8] = []
        GeoPackageGeometry.point(x: 1.5, y: -2, srsID: 27700, into: &out)
        #expect(out == [
            0x47, 0x50, 0x00, 0x01,              // "GP", version 0, flags: little-endian, no envelope
            0x34, 0x6C, 0x00, 0x00,              // srs_id 27700
            0x01, 0x01, 0x00, 0x00, 0x00,        // WKB: little-endian, type 1 (point)
            0, 0, 0, 0, 0, 0, 0xF8, 0x3F,        // 1.5
            0, 0, 0, 0, 0, 0, 0x00, 0xC0,        // -2
        ])
        #expect(decode(out) == .success(.point(x: 1.5, y: -2)))
    }

    @Test func readsBigEndianWithAnEnvelopeAndZ() {
        // Big-endian header and WKB, an xy envelope (flags 0b0000_0010), a point Z (1001).
        var b: [UInt8] = [0x47, 0x50, 0x00, 0x02, 0x00, 0x00, 0x10, 0xE6]
        func be(_ v: Double) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v.bitPattern >> (56 - 8 * $0)) } }
        b += be(7) + be(7) + be(45) + be(45)
        b += [0x00, 0x00, 0x00, 0x03, 0xE9] + be(7) + be(45) + be(120)
        #expect(decode(b) == .success(.point(x: 7, y: 45)))
    }

    @Test func refusesWhatIsNoPoint() {
        var line: [UInt8] = [0x47, 0x50, 0x00, 0x01, 0xE6, 0x10, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00]
        line += [UInt8](repeating: 0, count: 36)
        #expect(decode(line) == .failure(.init(reason: "a line string, not a point")))
        #expect(decode([0x00, 0x01, 0x02]) == .failure(.init(reason: "not a GeoPackage geometry (no GP header)")))
        var cut: [UInt8] = []
        GeoPackageGeometry.point(x: 1, y: 2, srsID: 4326, into: &cut)
        #expect(decode(Array(cut.prefix(20))) == .failure(.init(reason: "a point cut short")))
        // The empty flag (bit 4), and a point of NaNs (WKB's empty point).
        #expect(decode([0x47, 0x50, 0x00, 0x11, 0xE6, 0x10, 0x00, 0x00]) == .success(.empty))
        var nan: [UInt8] = []
        GeoPackageGeometry.point(x: .nan, y: .nan, srsID: 4326, into: &nan)
        #expect(decode(nan) == .success(.empty))
    }
}
