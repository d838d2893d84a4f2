import Foundation
import Testing
import TreesKit

@Suite struct TimeOrderedIDsTests {
    @Test func idsIncreaseStrictlyEvenWithinAMillisecondAndWhenTheClockGoesBack() {
        var ids = TimeOrderedIDs()
        let t = Date(timeIntervalSince1970: 1_777_777_777.123)
        var previous = ids.next(at: t)
        for i in 0..<20_000 {
            // The same millisecond, a later one, and one from the past.
            let time = i % 3 == 0 ? t : i % 3 == 1 ? t + Double(i) / 1000 : t - 5
            let id = ids.next(at: time)
            #expect(id.uuidString.lowercased() > previous.uuidString.lowercased(), "\(previous) then \(id)")
            previous = id
        }
    }

    @Test func idsAreVersion7WithTheTimeInFront() {
        var ids = TimeOrderedIDs()
        let id = ids.next(at: Date(timeIntervalSince1970: 1_700_000_000.5))
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
        #expect(bytes[6] >> 4 == 7)
        #expect(bytes[8] >> 6 == 0b10)
        let ms = bytes[0..<6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(ms == 1_700_000_000_500)
    }

    /// The random bits come from a pool drawn 4 KiB at a time: ids past the first draws get new ones.
    @Test func theRandomTailStaysRandomAcrossManyIDs() {
        var ids = TimeOrderedIDs()
        let t = Date(timeIntervalSince1970: 1_700_000_000)
        let tails = (0..<3000).map { _ in withUnsafeBytes(of: ids.next(at: t).uuid) { $0.load(fromByteOffset: 12, as: UInt32.self) } }
        // 32 random bits: among 3,000 draws a repeat or two may happen; a pool used again repeats hundreds.
        #expect(Set(tails).count >= 2990)
    }
}
