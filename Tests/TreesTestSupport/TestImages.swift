import Foundation

/// Small, valid test images built byte by byte: a JPEG with an EXIF block, a PNG, a HEIC header with an EXIF item.
package enum TestImages {
    /// A 16×16 baseline JPEG (JFIF), everything after its start-of-image marker.
    static let jpegBody: [UInt8] = hex("""
        ffe000104a46494600010100000100010000ffdb0043000d090a0b0a080d0b0a0b0e0e0d0f13201513121213271c1e17202e2931302e292d2c33\
        3a4a3e333646372c2d405741464c4e525352323e5a615a50604a51524fffdb0043010e0e0e131113261515264f352d354f4f4f4f4f4f4f4f4f4f4f4f\
        4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4f4fffc00011080010001003012200021101031101ffc400\
        160001010100000000000000000000000000000103ffc4001d10010001040301000000000000000000000121000211123141b1c1ffc4001401010000\
        0000000000000000000000000005ffc40014110100000000000000000000000000000000ffda000c03010002110311003f00c00b6d009f6af3661487\
        3ed1d5932477435d59f98a3c33ffd9
        """)

    /// The plain 16×16 JPEG without metadata.
    package static var plainJPEG: [UInt8] { [0xFF, 0xD8] + jpegBody }

    /// A JPEG whose APP1 segment holds EXIF with DateTimeOriginal (`YYYY:MM:DD HH:MM:SS`), an optional
    /// OffsetTimeOriginal (`+02:00`) and an optional embedded thumbnail.
    package static func jpeg(dateTimeOriginal: String?, offset: String? = nil, thumbnail: [UInt8]? = nil,
                     littleEndian: Bool = false) -> [UInt8] {
        let payload = Array("Exif".utf8) + [0, 0]
            + tiff(dateTimeOriginal: dateTimeOriginal, offset: offset, thumbnail: thumbnail, littleEndian: littleEndian)
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpegBody
    }

    /// A TIFF structure: IFD0 pointing to an Exif IFD, and IFD1 with a thumbnail when given.
    static func tiff(dateTimeOriginal: String?, offset: String?, thumbnail: [UInt8]?, littleEndian: Bool) -> [UInt8] {
        var t = Writer(little: littleEndian)
        t.raw(Array((littleEndian ? "II" : "MM").utf8)); t.u16(42); t.u32(8)
        t.u16(1); t.u16(0x8769); t.u16(4); t.u32(1)
        let exifPointer = t.bytes.count; t.u32(0)
        let nextPointer = t.bytes.count; t.u32(0)
        t.set32(exifPointer, t.bytes.count)
        var tags: [(UInt16, [UInt8])] = []
        if let dateTimeOriginal { tags.append((0x9003, Array(dateTimeOriginal.utf8) + [0])) }
        if let offset { tags.append((0x9011, Array(offset.utf8) + [0])) }
        t.u16(UInt16(tags.count))
        var patches: [(Int, [UInt8])] = []
        for (tag, value) in tags {
            t.u16(tag); t.u16(2); t.u32(UInt32(value.count))
            patches.append((t.bytes.count, value)); t.u32(0)
        }
        t.u32(0)
        for (at, value) in patches { t.set32(at, t.bytes.count); t.raw(value) }
        if let thumbnail {
            t.set32(nextPointer, t.bytes.count)
            t.u16(2)
            t.u16(0x0201); t.u16(4); t.u32(1)
            let start = t.bytes.count; t.u32(0)
            t.u16(0x0202); t.u16(4); t.u32(1); t.u32(UInt32(thumbnail.count))
            t.u32(0)
            t.set32(start, t.bytes.count)
            t.raw(thumbnail)
        }
        return t.bytes
    }

    /// A solid-colour RGB PNG (zlib stored blocks, real CRCs).
    package static func png(width: Int = 4, height: Int = 4, rgb: (UInt8, UInt8, UInt8) = (200, 40, 40)) -> [UInt8] {
        var raw: [UInt8] = []
        for _ in 0..<height {
            raw.append(0)
            for _ in 0..<width { raw += [rgb.0, rgb.1, rgb.2] }
        }
        var zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(raw.count & 0xFF), UInt8(raw.count >> 8),
                             UInt8(~raw.count & 0xFF), UInt8((~raw.count >> 8) & 0xFF)]
        zlib += raw
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += be32(b << 16 | a)
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(UInt32(data.count)) + body + be32(crc32(body))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0])
            + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// A HEIC file's boxes: `ftyp` (heic), `meta` with an `Exif` item located by `iloc`, and `mdat` holding it.
    /// No image data: enough to be recognised and to carry a capture date.
    package static func heic(dateTimeOriginal: String?, majorBrand: String = "heic") -> [UInt8] {
        func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(UInt32(payload.count + 8)) + Array(type.utf8) + payload }
        let ftyp = box("ftyp", Array(majorBrand.utf8) + be32(0) + Array("mif1".utf8) + Array(majorBrand.utf8))
        let exif = be32(6) + Array("Exif".utf8) + [0, 0]
            + tiff(dateTimeOriginal: dateTimeOriginal, offset: nil, thumbnail: nil, littleEndian: false)
        func meta(exifOffset: UInt32) -> [UInt8] {
            let hdlr = box("hdlr", be32(0) + be32(0) + Array("pict".utf8) + be32(0) + be32(0) + be32(0) + [0])
            let infe = box("infe", [2, 0, 0, 0] + be16(1) + be16(0) + Array("Exif".utf8) + [0])
            let iinf = box("iinf", be32(0) + be16(1) + infe)
            let iloc = box("iloc", be32(0) + [0x44, 0x00] + be16(1) + be16(1) + be16(0) + be16(1)
                           + be32(exifOffset) + be32(UInt32(exif.count)))
            return box("meta", be32(0) + hdlr + iinf + iloc)
        }
        let metaSize = meta(exifOffset: 0).count
        let offset = UInt32(ftyp.count + metaSize + 8)
        return ftyp + meta(exifOffset: offset) + box("mdat", exif)
    }

    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8).filter { $0 != 10 && $0 != 32 }
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...($0 + 1)], as: UTF8.self), radix: 16) }
    }

    struct Writer {
        var little: Bool
        var bytes: [UInt8] = []
        mutating func raw(_ b: [UInt8]) { bytes += b }
        mutating func u16(_ v: UInt16) { bytes += little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        mutating func u32(_ v: UInt32) {
            let b = be32(v)
            bytes += little ? b.reversed() : b
        }
        mutating func set32(_ at: Int, _ value: Int) {
            let b = be32(UInt32(value))
            let ordered = little ? Array(b.reversed()) : b
            for i in 0..<4 { bytes[at + i] = ordered[i] }
        }
    }
}
