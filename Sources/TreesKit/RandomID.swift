import Foundation

extension UUID {
    /// A random (version 4) UUID from the system's random source in one `getrandom` call.
    ///
    /// Foundation's `UUID()` on Linux opens, reads and closes /dev/urandom for every id, which
    /// dominated the cost of importing large files; this draws the same kind of bytes directly.
    public static func random() -> UUID {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            raw[6] = (raw[6] & 0x0F) | 0x40   // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80   // RFC 4122 variant
        }
        return UUID(uuid: bytes)
    }
}

extension UUID {
    /// A name-based id: the first 16 bytes of the SHA-256 of `name`, marked as RFC 9562's
    /// version 8 (custom). The same name always gives the same id.
    public init(derivedFrom name: String) {
        var hash = SHA256()
        hash.update(Array(name.utf8))
        let digest = hash.finalize()
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            for i in 0..<16 { raw[i] = digest[i] }
            raw[6] = (raw[6] & 0x0F) | 0x80   // version 8
            raw[8] = (raw[8] & 0x3F) | 0x80   // RFC 4122 variant
        }
        self.init(uuid: bytes)
    }

    /// Parses the 36-byte text form `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, hex digits in either case.
    public init?(text p: UnsafeBufferPointer<UInt8>) {
        guard p.count == 36,
              p[8] == UInt8(ascii: "-"), p[13] == UInt8(ascii: "-"), p[18] == UInt8(ascii: "-"), p[23] == UInt8(ascii: "-")
        else { return nil }
        var u: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let ok = withUnsafeMutableBytes(of: &u) { out -> Bool in
            UUIDText.pairOffsets.withUnsafeBufferPointer { offsets in
                UUIDText.hexValues.withUnsafeBufferPointer { values in
                    var bad: UInt8 = 0
                    for k in 0..<16 {
                        let hi = values[Int(p[offsets[k]])], lo = values[Int(p[offsets[k] + 1])]
                        bad |= (hi | lo) & 0xF0
                        out[k] = hi << 4 | lo
                    }
                    return bad == 0
                }
            }
        }
        guard ok else { return nil }
        self.init(uuid: u)
    }

    /// The 36-character text form in lower case (the form the store keeps), made without
    /// Foundation's formatter.
    public var lowercaseText: String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeText(into: buffer.baseAddress!, uppercase: false)
            return 36
        }
    }

    /// Writes the 36-byte text form at `out`, in lower case (the stored form) or upper case.
    public func writeText(into out: UnsafeMutablePointer<UInt8>, uppercase: Bool = false) {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        let d = digits.utf8Start
        withUnsafeBytes(of: uuid) { raw in
            var n = 0
            for i in 0..<16 {
                if i == 4 || i == 6 || i == 8 || i == 10 { out[n] = UInt8(ascii: "-"); n += 1 }
                out[n] = d[Int(raw[i] >> 4)]
                out[n + 1] = d[Int(raw[i] & 0xF)]
                n += 2
            }
        }
    }
}

/// Tables for the UUID text form.
private enum UUIDText {
    /// Where each byte's two hex digits start in the text.
    static let pairOffsets = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]
    /// The value of each byte as a hex digit, 0xFF for anything else.
    static let hexValues: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "0123456789abcdef".utf8.enumerated() { table[Int(c)] = UInt8(i) }
        for (i, c) in "ABCDEF".utf8.enumerated() { table[Int(c)] = UInt8(10 + i) }
        return table
    }()
}

/// Makes time-ordered (version 7) UUIDs that increase strictly, one after another: the first 48
/// bits are the Unix time in milliseconds, the next 42 a counter that starts at a random value
/// each millisecond (RFC 9562's monotonic counter), the last 32 random.
///
/// Ids an import makes for trees without one come from here, so each lands at the end of the
/// store's id index instead of at a random page of it: the cost of an insert stays the same
/// however large the store grows. Pure: the time is given.
public struct TimeOrderedIDs: Sendable {
    private var lastMillisecond: UInt64 = 0
    private var counter: UInt64 = 0
    private var random = BufferedRandom()

    public init() {}

    /// The next id at `time` (or just after the previous id, if that is later).
    public mutating func next(at time: Date) -> UUID {
        let ms = UInt64(max(0, min((time.timeIntervalSince1970 * 1000).rounded(.down), 281_474_976_710_655)))
        if ms > lastMillisecond {
            lastMillisecond = ms
            counter = random.next() & ((1 << 41) - 1)  // the top bit stays 0: room to count
        } else {
            counter += 1
            if counter >= 1 << 42 {
                lastMillisecond += 1
                counter = random.next() & ((1 << 41) - 1)
            }
        }
        let tail = random.next() as UInt64
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            let high = lastMillisecond << 16 | 0x7000 | (counter >> 30)           // time, version 7, counter's top 12 bits
            let low = 0x8000_0000_0000_0000 | (counter & 0x3FFF_FFFF) << 32 | (tail & 0xFFFF_FFFF)  // variant, counter's low 30 bits, random
            raw.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
        }
        return UUID(uuid: bytes)
    }
}

/// Random numbers from the C library's `arc4random_buf` (a generator the kernel's random source
/// seeds), drawn 4 KiB at a time: an import that made an id for each of a million trees made a
/// `getrandom` system call for each, a tenth of the time storing one took.
struct BufferedRandom: RandomNumberGenerator, Sendable {
    private var pool = [UInt64](repeating: 0, count: 512)
    private var used = 512

    mutating func next() -> UInt64 {
        if used == pool.count {
            pool.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
            used = 0
        }
        defer { used += 1 }
        return pool[used]
    }
}
