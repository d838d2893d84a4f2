import Foundation
import Testing
import TreesKit
@testable import TreesStore

/// The store's date text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, as every tree read back parses it
/// (`BulkText.parseDate`): whatever the store writes reads back as the same millisecond, and any
/// other shape is left to the slower reading that explains what is wrong with it.
@Suite struct StoredDateTextTests {
    func text(_ date: Date) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = try bytes.withUnsafeMutableBufferPointer { try BulkText.write(date: date, into: $0.baseAddress!) }
        return Array(bytes[..<n])
    }

    func parsed(_ text: String) -> Date? {
        Array(text.utf8).withUnsafeBufferPointer { BulkText.parseDate($0) }
    }

    @Test func everyStorableTimeReadsBackAsItsMillisecond() throws {
        var state: UInt64 = 0x853C_49E6_748F_EA9B
        var dates: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.001),
                             Date(timeIntervalSince1970: Double(StorableDates.earliestMilliseconds) / 1000),
                             Date(timeIntervalSince1970: Double(StorableDates.latestMilliseconds) / 1000),
                             Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 1_709_164_799.999)]  // 2000-02-29, 2024-02-28 23:59:59.999
        let span = UInt64(StorableDates.latestMilliseconds - StorableDates.earliestMilliseconds)
        for _ in 0..<50_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let ms = StorableDates.earliestMilliseconds + Int64((state >> 11) % span)
            dates.append(Date(timeIntervalSince1970: Double(ms) / 1000))
        }
        var wrong: [String] = []
        for date in dates {
            let bytes = try text(date)
            let back = bytes.withUnsafeBufferPointer { BulkText.parseDate($0) }
            if back != StoredDate.normalised(date) { wrong.append(String(decoding: bytes, as: UTF8.self)) }
        }
        let wrongCount = wrong.count
        #expect(wrongCount == 0, "e.g. \(wrong.prefix(5))")
    }

    @Test func readsEveryFieldWhereItStands() {
        #expect(parsed("2026-11-29 01:02:03.456") == Date(timeIntervalSince1970: 1_795_914_123.456))
        #expect(parsed("2026-11-29 01:02:03") == Date(timeIntervalSince1970: 1_795_914_123))
        #expect(parsed("2026-11-29T01:02:03.456") == Date(timeIntervalSince1970: 1_795_914_123.456))
        #expect(parsed("2024-02-29 23:59:59.999") == Date(timeIntervalSince1970: 1_709_251_199.999))
        #expect(parsed("2000-02-29 00:00:00.000") == Date(timeIntervalSince1970: 951_782_400))
        #expect(parsed("0000-01-01 00:00:00.000") == Date(timeIntervalSince1970: Double(StorableDates.earliestMilliseconds) / 1000))
    }

    @Test(arguments: [
        "2023-02-29 00:00:00.000", "1900-02-29 00:00:00.000", "2026-04-31 00:00:00.000", "2026-13-01 00:00:00.000",
        "2026-00-01 00:00:00.000", "2026-01-00 00:00:00.000", "2026-01-32 00:00:00.000", "2026-01-01 24:00:00.000",
        "2026-01-01 00:60:00.000", "2026-01-01 00:00:60.000", "2026-01-01 00:00:00,000", "2026-01-01 00:00:00.00",
        "2026-01-01 00:00:00.0000", "2026/01/01 00:00:00.000", "2026-01-01_00:00:00.000", "2026-01-01 00-00:00.000",
        "2026-01-01 00:00-00.000", "+026-01-01 00:00:00.000", "2026-01-01 00:00:00Z", "2026-01-01", "",
    ])
    func leavesAnyOtherShapeToTheSlowerReading(text: String) {
        #expect(parsed(text) == nil)
    }

    /// A byte other than a digit, anywhere a digit stands, is not read as one (nor as a digit's
    /// value plus or minus ten).
    @Test func everyDigitIsChecked() {
        let good = Array("2026-11-29 01:02:03.456".utf8)
        let digitPositions = good.indices.filter { good[$0] >= UInt8(ascii: "0") && good[$0] <= UInt8(ascii: "9") }
        #expect(digitPositions.count == 17)
        for i in digitPositions {
            for replacement in [UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "a"), 0x00, 0xFF] {
                var bytes = good
                bytes[i] = replacement
                let back = bytes.withUnsafeBufferPointer { BulkText.parseDate($0) }
                #expect(back == nil, "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }
}
