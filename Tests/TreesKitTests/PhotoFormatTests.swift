import Foundation
import Testing
import TreesKit
import TreesTestSupport

@Suite struct PhotoFormatTests {
    @Test func recognisesFormatsByTheirBytes() {
        #expect(PhotoFormat(header: TestImages.plainJPEG) == .jpeg)
        #expect(PhotoFormat(header: TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")) == .jpeg)
        #expect(PhotoFormat(header: TestImages.png()) == .png)
        #expect(PhotoFormat(header: TestImages.heic(dateTimeOriginal: nil)) == .heic)
        #expect(PhotoFormat(header: TestImages.heic(dateTimeOriginal: nil, majorBrand: "heix")) == .heic)
    }

    @Test(arguments: [
        [UInt8](),
        Array("GIF89a".utf8),
        Array("not an image at all".utf8),
        [0xFF, 0xD8],
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A],
        TestImages.heic(dateTimeOriginal: nil, majorBrand: "avif").map { $0 == UInt8(ascii: "m") ? UInt8(ascii: "x") : $0 },
        [0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 0, 0] + Array("isommp41".utf8),
    ])
    func refusesEverythingElse(bytes: [UInt8]) {
        #expect(PhotoFormat(header: bytes) == nil)
    }

    @Test(arguments: [false, true])
    func readsDateTimeOriginalFromJPEG(littleEndian: Bool) throws {
        let bytes = TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33", littleEndian: littleEndian)
        let meta = PhotoMetadata.read(format: .jpeg, bytes: bytes)
        #expect(meta.dateTimeOriginal == ExifDateTime(year: 2025, month: 9, day: 14, hour: 16, minute: 5, second: 33))
        #expect(meta.thumbnail == nil)
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(meta.dateTimeOriginal?.date(in: berlin) == ISO8601DateFormatter().date(from: "2025-09-14T14:05:33Z"))
    }

    @Test func theFilesOwnOffsetWinsOverTheTimeZone() throws {
        let bytes = TestImages.jpeg(dateTimeOriginal: "2025:01:02 03:04:05", offset: "-05:30")
        let meta = PhotoMetadata.read(format: .jpeg, bytes: bytes)
        #expect(meta.dateTimeOriginal?.utcOffset == -(5 * 3600 + 30 * 60))
        #expect(meta.dateTimeOriginal?.description == "2025-01-02 03:04:05 -05:30")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(meta.dateTimeOriginal?.date(in: tokyo) == ISO8601DateFormatter().date(from: "2025-01-02T08:34:05Z"))
    }

    @Test func extractsTheEmbeddedThumbnail() {
        let bytes = TestImages.jpeg(dateTimeOriginal: nil, thumbnail: TestImages.plainJPEG)
        let meta = PhotoMetadata.read(format: .jpeg, bytes: bytes)
        #expect(meta.thumbnail == TestImages.plainJPEG)
        #expect(meta.dateTimeOriginal == nil)
    }

    @Test func readsDateTimeOriginalFromHEIC() {
        let meta = PhotoMetadata.read(format: .heic, bytes: TestImages.heic(dateTimeOriginal: "2024:06:01 07:08:09"))
        #expect(meta.dateTimeOriginal == ExifDateTime(year: 2024, month: 6, day: 1, hour: 7, minute: 8, second: 9))
    }

    /// Only the bytes that are asked for are read: the HEIC reader jumps to the EXIF item.
    @Test func readsOnlyWhatItNeeds() {
        let bytes = TestImages.heic(dateTimeOriginal: "2024:06:01 07:08:09") + [UInt8](repeating: 0, count: 1_000_000)
        var requested = 0
        let meta = PhotoMetadata.read(format: .heic) { offset, count in
            requested += min(count, max(0, bytes.count - offset))
            return Array(bytes[min(offset, bytes.count)..<min(bytes.count, offset + count)])
        }
        #expect(meta.dateTimeOriginal != nil)
        #expect(requested < 2000)
    }

    @Test func missingOrBrokenMetadataIsEmptyNotAnError() {
        #expect(PhotoMetadata.read(format: .jpeg, bytes: TestImages.plainJPEG) == PhotoMetadata())
        #expect(PhotoMetadata.read(format: .png, bytes: TestImages.png()) == PhotoMetadata())
        #expect(PhotoMetadata.read(format: .heic, bytes: TestImages.heic(dateTimeOriginal: nil)) == PhotoMetadata())
        // Unset dates as cameras write them.
        #expect(PhotoMetadata.read(format: .jpeg, bytes: TestImages.jpeg(dateTimeOriginal: "0000:00:00 00:00:00")).dateTimeOriginal == nil)
        // Every truncation of a JPEG with EXIF: no crash, and either the full date or none.
        let full = TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33", thumbnail: TestImages.plainJPEG)
        for n in 0..<full.count {
            let date = PhotoMetadata.read(format: .jpeg, bytes: Array(full.prefix(n))).dateTimeOriginal
            #expect(date == nil || date?.year == 2025)
        }
        let heic = TestImages.heic(dateTimeOriginal: "2024:06:01 07:08:09")
        for n in 0..<heic.count {
            let date = PhotoMetadata.read(format: .heic, bytes: Array(heic.prefix(n))).dateTimeOriginal
            #expect(date == nil || date?.year == 2024)
        }
    }

    @Test func theTestPNGIsValid() throws {
        // Decoded by the system's PNG reader when one is available; otherwise at least its CRCs are checked.
        let png = TestImages.png(width: 2, height: 1)
        #expect(png.count == 8 + 25 + (12 + 2 + 5 + 7 + 4) + 12)
        #expect(Array(png.suffix(4)) == [0xAE, 0x42, 0x60, 0x82])
    }
}
