import Foundation

/// Proleptic Gregorian calendar arithmetic on days since 1970-01-01 (Howard Hinnant's algorithms),
/// and a UTC time broken into its fields: the one place the project turns dates into text fields
/// and back without Foundation's calendars.
public enum CivilDate {
    /// Days from 1970-01-01 to the given date (negative before it).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Days in `month` (1…12) of `year` (proleptic Gregorian).
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The date `days` after 1970-01-01.
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// A moment in UTC, rounded to the millisecond, as calendar fields.
public struct UTCFields: Equatable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    /// Milliseconds beyond which a date is not broken into fields (about ±285,000 years).
    public static let limit: Double = 9e15

    /// The fields of `date`; nil for a date more than `limit` milliseconds from 1970, or not finite.
    public init?(_ date: Date) {
        let total = (date.timeIntervalSince1970 * 1000).rounded()
        guard total.isFinite, total.magnitude < Self.limit else { return nil }
        let ms = Int64(total)
        var days = ms / 86_400_000
        var rem = ms % 86_400_000
        if rem < 0 { rem += 86_400_000; days -= 1 }
        (year, month, day) = CivilDate.date(days: Int(days))
        let r = Int(rem)
        hour = r / 3_600_000
        minute = r / 60_000 % 60
        second = r / 1000 % 60
        millisecond = r % 1000
    }
}
