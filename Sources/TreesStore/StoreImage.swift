import Foundation

/// An empty store as the migrations of `Schema.migrator` leave it, byte for byte: a new store's
/// file is written from it, then given a device id of its own.
///
/// SQLite took about 4 ms to run the 95 statements that make the schema (every table, index and
/// trigger is parsed to be made, then parsed again to be read back), about as long as the rest of
/// a one-tree import; the migrations run one by one took twice that. Written from this image, a new
/// store is ready in well under a millisecond. `StoreCreationTests` makes a store from the image
/// and one through the migrations and compares their schemas, rows and settings; a new migration
/// fails that test until `StoreImageData.swift` is written again (the failing test writes it and
/// names where).
enum StoreImage {
    /// Gives a store written from the image a device id of its own, made at random as migration
    /// `v3-sync-versions` makes it.
    static let newDeviceSQL = "UPDATE syncState SET deviceId = lower(hex(randomblob(16)))"

    /// The file's bytes, or nil when `encoded` is not an image.
    static func bytes() -> [UInt8]? { decode(encoded).flatMap { $0.isEmpty ? nil : $0 } }

    /// Bytes from `encode`'s form: base64 (line breaks ignored) of runs, each a count of bytes (a
    /// LEB128 number), those bytes, then a count of zero bytes that follow them. An empty page of
    /// SQLite is a few bytes and four thousand zeros.
    static func decode(_ text: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else { return nil }
        let packed = [UInt8](data)
        var bytes: [UInt8] = []
        var at = 0
        func count() -> Int? {
            var value = 0
            var shift = 0
            while at < packed.count, shift < 35 {
                let byte = packed[at]
                at += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        while at < packed.count {
            guard let literal = count(), literal <= packed.count - at else { return nil }
            bytes += packed[at..<at + literal]
            at += literal
            // No store image comes near 64 MiB: a count that would pass it is no image.
            guard let zeros = count(), zeros <= (1 << 26) - bytes.count else { return nil }
            bytes += repeatElement(0, count: zeros)
        }
        return bytes
    }

    /// `decode`'s form of `bytes`, as base64 in lines of `width` characters.
    static func encode(_ bytes: [UInt8], width: Int = 100) -> String {
        var packed: [UInt8] = []
        func count(_ value: Int) {
            var rest = value
            while rest >= 0x80 {
                packed.append(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            packed.append(UInt8(rest))
        }
        var at = 0
        while at < bytes.count {
            // A run of zeros worth a count of its own is at least four long.
            var end = at
            while end < bytes.count, !(bytes[end] == 0 && bytes[end..<min(end + 4, bytes.count)].allSatisfy { $0 == 0 }) { end += 1 }
            var zerosEnd = end
            while zerosEnd < bytes.count, bytes[zerosEnd] == 0 { zerosEnd += 1 }
            count(end - at)
            packed += bytes[at..<end]
            count(zerosEnd - end)
            at = zerosEnd
        }
        let text = Data(packed).base64EncodedString()
        return stride(from: 0, to: text.count, by: width).map { start in
            let from = text.index(text.startIndex, offsetBy: start)
            return String(text[from..<(text.index(from, offsetBy: width, limitedBy: text.endIndex) ?? text.endIndex)])
        }.joined(separator: "\n")
    }
}
