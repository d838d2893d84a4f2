import Foundation
import GRDB
import Testing
import TreesKit
@_spi(Fuzzing) import TreesStore

/// The probe the `store` fuzz target drives: rows of chosen values read back by the store's own
/// decoding, with reading and `trees doctor` checked to agree.
@Suite struct RowDecodingProbeTests {
    static let date = "2025-05-01 10:00:00.000".databaseValue
    static let sound: [DatabaseValue] = [
        "6f1c2e1a-1111-4222-8333-944455556666".databaseValue, 47.5.databaseValue, 8.5.databaseValue, 3.0.databaseValue,
        "gst".databaseValue, 400.0.databaseValue, 448.0.databaseValue, "Apple".databaseValue, "Gala".databaseValue,
        "M9".databaseValue, "note".databaseValue, DatabaseValue.null, date, date, date, 3.databaseValue, 9.databaseValue,
        0.9.databaseValue, 1.databaseValue, "replay:x".databaseValue, "rtk-fixed".databaseValue, 1.5.databaseValue,
        0.04.databaseValue, "gst".databaseValue, 1.8.databaseValue,
    ]

    static func tree(_ changes: [Int: DatabaseValue]) throws -> RowDecodingProbe.Outcome {
        var values = sound
        for (i, v) in changes { values[i] = v }
        return try RowDecodingProbe().tree(values)
    }

    @Test func aSoundRowReadsAndWritesBack() throws {
        #expect(RowDecodingProbe.treeColumnCount == Self.sound.count)
        #expect(try Self.tree([:]) == .read)
    }

    /// One probe reads each call's tree also as the row after the call before's: texts that
    /// repeat, change in one byte, change case, go to NULL, come back, or follow a damaged row
    /// read as they do alone (the probe throws a `Violation` where they do not).
    @Test func treesReadOneAfterAnotherReadAsTheyDoAlone() throws {
        let probe = try RowDecodingProbe()
        let rows: [[Int: DatabaseValue]] = [
            [:], [:], [7: "Apply".databaseValue], [7: "apply".databaseValue], [8: DatabaseValue.null],
            [8: "Gala".databaseValue, 19: "replay:y".databaseValue], [1: "north".databaseValue, 7: "Pear".databaseValue],
            [7: "Pear".databaseValue], [7: Data("Pear".utf8).databaseValue], [9: "M9 ".databaseValue], [:],
        ]
        var outcomes: [RowDecodingProbe.Outcome] = []
        for changes in rows {
            var values = Self.sound
            for (i, v) in changes { values[i] = v }
            outcomes.append(try probe.tree(values))
        }
        #expect(outcomes == rows.indices.map { $0 == 6 ? .damaged(column: "latitude") : .read })
    }

    @Test func eachDamagedValueIsNamedByItsColumn() throws {
        #expect(try Self.tree([1: "north".databaseValue]) == .damaged(column: "latitude"))
        #expect(try Self.tree([2: 180.5.databaseValue]) == .damaged(column: "longitude"))
        #expect(try Self.tree([3: (-1.0).databaseValue]) == .damaged(column: "horizontalAccuracy"))
        #expect(try Self.tree([7: " \u{3000}".databaseValue]) == .damaged(column: "species"))
        #expect(try Self.tree([12: "12345-01-01 00:00:00.000".databaseValue]) == .damaged(column: "createdAt"))
        #expect(try Self.tree([0: "6f1c2e1a".databaseValue]) == .damaged(column: "id"))
        #expect(try Self.tree([5: Double.infinity.databaseValue]) == .damaged(column: "altitude"))
        #expect(try Self.tree([9: Data([0xFF, 0xFE]).databaseValue]) == .damaged(column: "rootstock"))
    }

    /// The fix quality: a status or source name the model does not know, or a number of the wrong
    /// kind, is named; a negative age, accuracy or antenna height never becomes a row.
    @Test func damagedFixQualityIsNamedByItsColumn() throws {
        #expect(try Self.tree([20: "rtk".databaseValue]) == .damaged(column: "fixStatus"))
        #expect(try Self.tree([20: "RTK-FIXED".databaseValue]) == .damaged(column: "fixStatus"))
        #expect(try Self.tree([20: 3.databaseValue]) == .damaged(column: "fixStatus"))
        #expect(try Self.tree([20: Data("gps\u{0}".utf8).databaseValue]) == .damaged(column: "fixStatus"))
        #expect(try Self.tree([21: "old".databaseValue]) == .damaged(column: "correctionAge"))
        #expect(try Self.tree([22: Double.infinity.databaseValue]) == .damaged(column: "verticalAccuracy"))
        #expect(try Self.tree([23: "guess".databaseValue]) == .damaged(column: "verticalAccuracySource"))
        #expect(try Self.tree([24: Data([0x31]).databaseValue]) == .damaged(column: "antennaHeight"))
        #expect(try Self.tree([21: (-1.0).databaseValue]) == .refusedByTheSchema)
        #expect(try Self.tree([22: (-0.5).databaseValue]) == .refusedByTheSchema)
        #expect(try Self.tree([24: (-2).databaseValue]) == .refusedByTheSchema)
        // Every status the model names, and none at all, reads back.
        for status in FixStatus.allCases { #expect(try Self.tree([20: status.name.databaseValue]) == .read) }
        #expect(try Self.tree([20: .null, 21: .null, 22: .null, 23: .null, 24: .null]) == .read)
        #expect(try Self.tree([21: 0.databaseValue, 24: 0.databaseValue]) == .read)
    }

    /// Found by the `store` fuzz target: text holding a NUL character read back whole, but a write
    /// binding the Swift string stopped at the NUL ("a\0b" came back as "a", a species "\0" as
    /// ""). Such text is now a damaged value, in text and in blobs alike. (GRDB binds a Swift string
    /// only up to its NUL, so these rows hold blobs; StoreTrustTests writes such text with sqlite3.)
    @Test func textHoldingANULCharacterIsDamaged() throws {
        #expect(try Self.tree([10: Data("fire\u{0}blight".utf8).databaseValue]) == .damaged(column: "notes"))
        #expect(try Self.tree([7: Data([0]).databaseValue]) == .damaged(column: "species"))
        #expect(try Self.tree([19: Data(">\u{0}\u{0}x".utf8).databaseValue]) == .damaged(column: "locationSource"))
        #expect(try RowDecodingProbe().collection(["0e5c0c1e-0000-4000-8000-000000000001".databaseValue, Data("No\u{0}rth".utf8).databaseValue,
                                                   Self.date, Self.date]) == .damaged(column: "name"))
    }

    /// Found by the `store` fuzz target: a date written in another form than the store's (four
    /// digits of fraction, a day's 24:00) read as a time between two milliseconds, so writing the
    /// tree back and reading it again gave a different date. Dates read as whole milliseconds.
    @Test func datesInOtherFormsReadAsTheMillisecondAWriteKeeps() throws {
        #expect(try Self.tree([12: "2025-05-01 10:00:00.9999".databaseValue, 13: "2025-05-01 24:00:00.000".databaseValue,
                               14: "2025-05-01 24:00:00.000".databaseValue]) == .read)
        #expect(try Self.tree([12: "2025-05-01T10:00:00.1234567".databaseValue, 14: "2025-05-01 10:00".databaseValue]) == .read)
    }

    @Test func aValueTheSchemaRefusesNeverBecomesARow() throws {
        #expect(try Self.tree([1: .null]) == .refusedByTheSchema)
    }

    @Test func collectionsAndPhotosReadBackChecked() throws {
        let probe = try RowDecodingProbe()
        let id = "0e5c0c1e-0000-4000-8000-000000000001".databaseValue
        #expect(try probe.collection([id, "North".databaseValue, Self.date, Self.date]) == .read)
        #expect(try probe.collection([id, "North".databaseValue, "yesterday".databaseValue, Self.date]) == .damaged(column: "createdAt"))
        let photo: [DatabaseValue] = [id, Self.sound[0], String(repeating: "ab", count: 32).databaseValue, "jpeg".databaseValue,
                                      1234.databaseValue, Self.date, Self.date, .null]
        #expect(try probe.photo(photo) == .read)
        var damaged = photo
        damaged[4] = 12.5.databaseValue
        #expect(try probe.photo(damaged) == .damaged(column: "byteCount"))
    }
}
