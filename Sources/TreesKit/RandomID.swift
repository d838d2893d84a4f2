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
