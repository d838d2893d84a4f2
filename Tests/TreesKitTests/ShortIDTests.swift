import Foundation
import Testing
import TreesKit

@Suite struct ShortIDTests {
    @Test func aRandomIdShowsItsStartAndATimeOrderedIdItsEnd() throws {
        let random = try #require(UUID(uuidString: "3F2A9C1B-0D4E-4F60-8A7B-1C2D3E4F5A6B"))
        #expect(ShortID.of(random) == "3f2a9c1b")
        #expect(!ShortID.isTimeOrdered(random))
        var ids = TimeOrderedIDs()
        let timed = ids.next(at: Date(timeIntervalSince1970: 1_790_000_000))
        #expect(ShortID.isTimeOrdered(timed))
        #expect(ShortID.isTimeOrdered(storageKey: timed.uuidString.lowercased()))
        #expect(!ShortID.isTimeOrdered(storageKey: "3f2a9c1b-0d4e-4f60-8a7b-1c2d3e4f5a6b"))
        #expect(ShortID.of(timed) == String(timed.uuidString.lowercased().suffix(8)))
        #expect(ShortID.form(of: timed, digits: 13) == String(timed.uuidString.lowercased().suffix(13)))
    }

    /// Every tree of an import is made within a few milliseconds; their short ids must still differ.
    @Test func idsMadeInOneMillisecondHaveDifferentShortIds() {
        var ids = TimeOrderedIDs()
        let t = Date(timeIntervalSince1970: 1_790_000_000)
        let made = (0..<2000).map { _ in ids.next(at: t) }
        #expect(Set(made.map { String($0.uuidString.prefix(8)) }).count == 1)  // what the start would show
        // 32 random bits each: a repeat among 2,000 is possible (about 1 in 2,000), more than two is not.
        #expect(Set(made.map(ShortID.of)).count >= 1998)
    }

    @Test func distinctFormsGrowUntilTheyTellIdsApart() throws {
        let a = try #require(UUID(uuidString: "abcdef01-0000-4000-8000-000000000001"))
        let b = try #require(UUID(uuidString: "abcdef01-2000-4000-8000-000000000002"))
        let c = try #require(UUID(uuidString: "01a2221f-6080-7519-a304-d09bc17cc423"))
        let d = try #require(UUID(uuidString: "01a2221f-6080-751a-a304-d09ac17cc423"))
        #expect(ShortID.distinct([a, b]) == ["abcdef01-0", "abcdef01-2"])
        #expect(ShortID.distinct([c, d]) == ["bc17cc423", "ac17cc423"])
        #expect(ShortID.distinct([a, c]) == ["abcdef01", "c17cc423"])
        #expect(ShortID.distinct([a, a]) == ["abcdef01", "abcdef01"])
    }
}
