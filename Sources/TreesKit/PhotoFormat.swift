import Foundation

/// The image formats a tree's photo may have, recognised by their first bytes, never by the file name.
public enum PhotoFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, heic

    /// How many leading bytes `init?(header:)` wants to see (fewer are fine for short files).
    public static let headerLength = 64

    /// Recognises the format from the file's first bytes; nil for anything else.
    ///
    /// JPEG starts with `FF D8 FF`, PNG with its 8-byte signature, HEIC with an ISO base media `ftyp`
    /// box whose major or compatible brands name HEVC image content (AVIF and MP4 are not HEIC).
    public init?(header: some Collection<UInt8>) {
        let b = Array(header.prefix(Self.headerLength))
        if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if Self.isHEIC(b) {
            self = .heic
        } else {
            return nil
        }
    }

    /// The file name extension photos of this format are stored with.
    public var fileExtension: String { rawValue }

    /// The MIME type, for data URIs.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        }
    }

    static let heicBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]

    private static func isHEIC(_ b: [UInt8]) -> Bool {
        guard b.count >= 16, b[4...7].elementsEqual("ftyp".utf8) else { return false }
        let size = Int(BigEndian.u32(b, 0) ?? 0)
        guard size >= 16 else { return false }
        var brands = [String(decoding: b[8..<12], as: UTF8.self)]
        var i = 16
        while i + 4 <= min(size, b.count) {
            brands.append(String(decoding: b[i..<(i + 4)], as: UTF8.self))
            i += 4
        }
        return brands.contains(where: heicBrands.contains)
    }
}

/// A date and time as EXIF writes it: local time of the camera, with the UTC offset only when
/// the camera recorded one (EXIF 2.31 `OffsetTimeOriginal`).
public struct ExifDateTime: Sendable, Equatable, CustomStringConvertible {
    public var year, month, day, hour, minute, second: Int
    /// Offset from UTC in seconds, when the file says.
    public var utcOffset: Int?

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, utcOffset: Int? = nil) {
        self.year = year; self.month = month; self.day = day
        self.hour = hour; self.minute = minute; self.second = second; self.utcOffset = utcOffset
    }

    /// Parses `YYYY:MM:DD HH:MM:SS`; nil for blank or impossible values (cameras write `0000:00:00 00:00:00` when unset).
    public init?(exif text: String, offset: String? = nil) {
        let digits = text.split(whereSeparator: { $0 == ":" || $0 == " " }).map { Int($0) }
        guard digits.count == 6, let y = digits[0], let mo = digits[1], let d = digits[2],
              let h = digits[3], let mi = digits[4], let s = digits[5],
              (1...9999).contains(y), (1...12).contains(mo), (1...31).contains(d),
              (0...23).contains(h), (0...59).contains(mi), (0...60).contains(s) else { return nil }
        self.init(year: y, month: mo, day: d, hour: h, minute: mi, second: s, utcOffset: offset.flatMap(Self.parseOffset))
    }

    /// `+01:00` → 3600.
    static func parseOffset(_ text: String) -> Int? {
        let t = Array(text.utf8)
        guard t.count == 6, t[0] == UInt8(ascii: "+") || t[0] == UInt8(ascii: "-"), t[3] == UInt8(ascii: ":"),
              let h = Int(String(decoding: t[1...2], as: UTF8.self)), let m = Int(String(decoding: t[4...5], as: UTF8.self)),
              h <= 14, m < 60 else { return nil }
        return (t[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 3600 + m * 60)
    }

    /// The instant, reading the local time in `timeZone` unless the file gave its own UTC offset.
    public func date(in timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utcOffset.flatMap(TimeZone.init(secondsFromGMT:)) ?? timeZone
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return calendar.date(from: components)
    }

    public var description: String {
        String(format: "%04d-%02d-%02d %02d:%02d:%02d", year, month, day, hour, minute, second)
            + (utcOffset.map { String(format: " %@%02d:%02d", $0 < 0 ? "-" : "+", abs($0) / 3600, abs($0) % 3600 / 60) } ?? "")
    }
}

/// What a photo's EXIF block says that `trees` uses.
public struct PhotoMetadata: Sendable, Equatable {
    /// EXIF DateTimeOriginal (with OffsetTimeOriginal when present).
    public var dateTimeOriginal: ExifDateTime?
    /// The small JPEG preview many cameras embed (EXIF IFD1), if any.
    public var thumbnail: [UInt8]?

    public init(dateTimeOriginal: ExifDateTime? = nil, thumbnail: [UInt8]? = nil) {
        self.dateTimeOriginal = dateTimeOriginal; self.thumbnail = thumbnail
    }

    /// Reads the metadata of a photo through `read(offset, count)`, which returns up to `count`
    /// bytes at `offset` (fewer at the end of the file).
    ///
    /// Random access rather than the whole file, so a HEIC whose EXIF item sits behind the image
    /// data is read without loading the image. Malformed or missing metadata gives empty results,
    /// never an error: the capture date then falls back to the file's time.
    public static func read(format: PhotoFormat, _ read: (_ offset: Int, _ count: Int) -> [UInt8]) -> PhotoMetadata {
        switch format {
        case .jpeg: return jpeg(read)
        case .heic: return heic(read)
        case .png: return png(read)
        }
    }

    /// Metadata of a photo held in memory.
    public static func read(format: PhotoFormat, bytes: [UInt8]) -> PhotoMetadata {
        read(format: format) { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    // MARK: JPEG

    /// Walks the marker segments before the image data and parses the first `Exif` APP1 segment.
    static func jpeg(_ read: (Int, Int) -> [UInt8]) -> PhotoMetadata {
        var offset = 2
        for _ in 0..<64 {
            let head = read(offset, 4)
            guard head.count == 4, head[0] == 0xFF else { break }
            let marker = head[1]
            if marker == 0xFF { offset += 1; continue }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(head[2]) << 8 | Int(head[3])
            guard length >= 2 else { break }
            if marker == 0xE1 {
                let segment = read(offset + 4, length - 2)
                if segment.starts(with: Array("Exif".utf8) + [0, 0]) {
                    return TIFF.metadata(Array(segment.dropFirst(6)))
                }
            }
            offset += 2 + length
        }
        return PhotoMetadata()
    }

    // MARK: PNG

    /// PNG keeps EXIF (rarely) in an `eXIf` chunk holding a bare TIFF structure.
    static func png(_ read: (Int, Int) -> [UInt8]) -> PhotoMetadata {
        var offset = 8
        for _ in 0..<10_000 {
            let head = read(offset, 8)
            guard head.count == 8, let length = BigEndian.u32(head, 0) else { break }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if type == "eXIf" { return TIFF.metadata(read(offset + 8, Int(length))) }
            if type == "IDAT" || type == "IEND" { break }
            offset += 12 + Int(length)
        }
        return PhotoMetadata()
    }

    // MARK: HEIC

    /// Finds the `Exif` item through the `meta` box's item information (`iinf`) and locations (`iloc`).
    static func heic(_ read: (Int, Int) -> [UInt8]) -> PhotoMetadata {
        var offset = 0
        for _ in 0..<64 {
            let head = read(offset, 16)
            guard head.count >= 8, var size = BigEndian.u32(head, 0).map(Int.init) else { break }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            var headerSize = 8
            if size == 1, head.count == 16, let large = BigEndian.u64(head, 8) { size = Int(clamping: large); headerSize = 16 }
            guard size >= headerSize else { break }
            if type == "meta" {
                guard size <= 4 << 20 else { break }
                let meta = read(offset + headerSize, size - headerSize)
                guard let location = exifLocation(inMeta: meta) else { break }
                let item = read(location.offset, min(location.length, 1 << 20))
                guard let skip = BigEndian.u32(item, 0), 4 + Int(skip) < item.count else { break }
                var tiff = Array(item.dropFirst(4 + Int(skip)))
                if tiff.starts(with: Array("Exif".utf8) + [0, 0]) { tiff.removeFirst(6) }
                return TIFF.metadata(tiff)
            }
            offset += size
        }
        return PhotoMetadata()
    }

    /// The file offset and length of the `Exif` item described by a `meta` box's payload.
    static func exifLocation(inMeta meta: [UInt8]) -> (offset: Int, length: Int)? {
        // `meta` is a full box: 4 bytes of version and flags, then child boxes.
        let children = ISOBox.children(meta, from: 4)
        guard let iinf = children.first(where: { $0.type == "iinf" }),
              let iloc = children.first(where: { $0.type == "iloc" }) else { return nil }
        var exifID: UInt32?
        let iinfVersion = meta[iinf.start]
        let entriesStart = iinf.start + 4 + (iinfVersion == 0 ? 2 : 4)
        for infe in ISOBox.children(meta, from: entriesStart, end: iinf.end) where infe.type == "infe" {
            let version = meta[infe.start]
            guard version >= 2 else { continue }
            let p = infe.start + 4
            let id: UInt32? = version == 2 ? BigEndian.u16(meta, p).map(UInt32.init) : BigEndian.u32(meta, p)
            let typeAt = p + (version == 2 ? 2 : 4) + 2
            guard let id, typeAt + 4 <= infe.end else { continue }
            if meta[typeAt..<(typeAt + 4)].elementsEqual("Exif".utf8) { exifID = id; break }
        }
        guard let exifID else { return nil }
        return itemLocation(of: exifID, in: meta, iloc: iloc)
    }

    private static func itemLocation(of wanted: UInt32, in b: [UInt8], iloc: ISOBox) -> (offset: Int, length: Int)? {
        let version = b[iloc.start]
        var p = iloc.start + 4
        guard p + 2 <= iloc.end else { return nil }
        let offsetSize = Int(b[p] >> 4), lengthSize = Int(b[p] & 0x0F)
        let baseOffsetSize = Int(b[p + 1] >> 4), indexSize = version >= 1 ? Int(b[p + 1] & 0x0F) : 0
        p += 2
        func field(_ size: Int) -> Int? {
            guard size > 0 else { return 0 }
            guard p + size <= iloc.end else { return nil }
            var v = 0
            for i in 0..<size { v = v << 8 | Int(b[p + i]) }
            p += size
            return v
        }
        guard let itemCount = field(version < 2 ? 2 : 4) else { return nil }
        for _ in 0..<itemCount {
            guard let id = field(version < 2 ? 2 : 4) else { return nil }
            var method = 0
            if version >= 1 { guard let m = field(2) else { return nil }; method = m & 0x0F }
            guard field(2) != nil, let base = field(baseOffsetSize), let extents = field(2) else { return nil }
            var first: (Int, Int)?
            for _ in 0..<extents {
                if indexSize > 0 { guard field(indexSize) != nil else { return nil } }
                guard let o = field(offsetSize), let l = field(lengthSize) else { return nil }
                if first == nil { first = (base + o, l) }
            }
            if UInt32(truncatingIfNeeded: id) == wanted {
                guard method == 0, let first else { return nil }
                return first
            }
        }
        return nil
    }
}

/// One ISO base media box inside a byte array: its type and payload range.
struct ISOBox {
    var type: String
    var start: Int
    var end: Int

    static func children(_ b: [UInt8], from: Int, end: Int? = nil) -> [ISOBox] {
        var boxes: [ISOBox] = []
        var p = from
        let limit = min(end ?? b.count, b.count)
        while p + 8 <= limit, let size = BigEndian.u32(b, p).map(Int.init), size >= 8, p + size <= limit {
            boxes.append(ISOBox(type: String(decoding: b[(p + 4)..<(p + 8)], as: UTF8.self), start: p + 8, end: p + size))
            p += size
        }
        return boxes
    }
}

/// The TIFF structure inside an EXIF block: byte order, IFD0 → Exif IFD, IFD1 for the thumbnail.
enum TIFF {
    static func metadata(_ t: [UInt8]) -> PhotoMetadata {
        guard t.count >= 8 else { return PhotoMetadata() }
        let little: Bool
        if t[0] == 0x49, t[1] == 0x49 { little = true } else if t[0] == 0x4D, t[1] == 0x4D { little = false } else { return PhotoMetadata() }
        let reader = Reader(bytes: t, little: little)
        guard reader.u16(2) == 42, let ifd0 = reader.u32(4) else { return PhotoMetadata() }
        var result = PhotoMetadata()
        let zeroth = reader.entries(at: Int(ifd0))
        if let exifPointer = zeroth.entries.first(where: { $0.tag == 0x8769 }).flatMap({ reader.u32($0.valueOffset) }) {
            let exif = reader.entries(at: Int(exifPointer)).entries
            if let original = exif.first(where: { $0.tag == 0x9003 }).flatMap(reader.ascii) {
                let offset = exif.first(where: { $0.tag == 0x9011 }).flatMap(reader.ascii)
                result.dateTimeOriginal = ExifDateTime(exif: original, offset: offset)
            }
        }
        if let next = zeroth.next, next > 0 {
            let first = reader.entries(at: Int(next)).entries
            if let start = first.first(where: { $0.tag == 0x0201 }).flatMap({ reader.long($0) }),
               let length = first.first(where: { $0.tag == 0x0202 }).flatMap({ reader.long($0) }),
               length > 0, start + length <= t.count {
                let thumb = Array(t[start..<(start + length)])
                if thumb.starts(with: [0xFF, 0xD8, 0xFF]) { result.thumbnail = thumb }
            }
        }
        return result
    }

    struct Entry { var tag: UInt16; var type: UInt16; var count: Int; var valueOffset: Int }

    struct Reader {
        var bytes: [UInt8]
        var little: Bool

        func u16(_ p: Int) -> UInt16? {
            guard p >= 0, p + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[p]), b = UInt16(bytes[p + 1])
            return little ? a | b << 8 : a << 8 | b
        }

        func u32(_ p: Int) -> UInt32? {
            guard let a = u16(p), let b = u16(p + 2) else { return nil }
            return little ? UInt32(a) | UInt32(b) << 16 : UInt32(a) << 16 | UInt32(b)
        }

        /// The entries of the IFD at `p` and the offset of the next IFD.
        func entries(at p: Int) -> (entries: [Entry], next: Int?) {
            guard let n = u16(p), n < 1000 else { return ([], nil) }
            var result: [Entry] = []
            for i in 0..<Int(n) {
                let e = p + 2 + i * 12
                guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { break }
                result.append(Entry(tag: tag, type: type, count: Int(count), valueOffset: e + 8))
            }
            return (result, u32(p + 2 + Int(n) * 12).map(Int.init))
        }

        /// An ASCII value up to its first NUL (stored inline when 4 bytes or fewer).
        func ascii(_ e: Entry) -> String? {
            guard e.type == 2, e.count > 0, e.count < 256 else { return nil }
            let start = e.count <= 4 ? e.valueOffset : (u32(e.valueOffset).map(Int.init) ?? -1)
            guard start >= 0, start + e.count <= bytes.count else { return nil }
            let raw = bytes[start..<(start + e.count)].prefix { $0 != 0 }
            return String(decoding: raw, as: UTF8.self)
        }

        /// A SHORT or LONG value.
        func long(_ e: Entry) -> Int? {
            switch e.type {
            case 3: u16(e.valueOffset).map(Int.init)
            case 4: u32(e.valueOffset).map(Int.init)
            default: nil
            }
        }
    }
}

enum BigEndian {
    static func u16(_ b: [UInt8], _ p: Int) -> UInt16? {
        guard p >= 0, p + 2 <= b.count else { return nil }
        return UInt16(b[p]) << 8 | UInt16(b[p + 1])
    }

    static func u32(_ b: [UInt8], _ p: Int) -> UInt32? {
        guard let hi = u16(b, p), let lo = u16(b, p + 2) else { return nil }
        return UInt32(hi) << 16 | UInt32(lo)
    }

    static func u64(_ b: [UInt8], _ p: Int) -> UInt64? {
        guard let hi = u32(b, p), let lo = u32(b, p + 4) else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }
}
