import Foundation

/// The span of moments a store keeps: years 0000 through 9999 in UTC, to the millisecond.
///
/// Dates are stored as `yyyy-MM-dd HH:mm:ss.SSS` text, which has room for four-digit years only.
/// Every date that enters a store (files, photos, the clock) is checked against this span at the
/// boundary where it is read, so nothing is ever stored as a value other than the one read.
public enum StorableDates {
    /// Milliseconds since 1970 of 0000-01-01T00:00:00.000Z.
    public static let earliestMilliseconds = Int64(CivilDate.days(year: 0, month: 1, day: 1)) * 86_400_000
    /// Milliseconds since 1970 of 9999-12-31T23:59:59.999Z.
    public static let latestMilliseconds = Int64(CivilDate.days(year: 10_000, month: 1, day: 1)) * 86_400_000 - 1

    /// The span in words, for messages: "years 0000 to 9999 (UTC)".
    public static let span = "years 0000 to 9999 (UTC)"

    /// True when `date`, rounded to the millisecond as the store rounds it, lies within the span.
    public static func contains(_ date: Date) -> Bool {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return false }
        return ms >= Double(earliestMilliseconds) && ms <= Double(latestMilliseconds)
    }

    /// Nil for a storable date, else why it is not: "12345-01-01T00:00:00Z is outside years 0000 to
    /// 9999 (UTC)". `text` is the date as it was read, when there was text.
    public static func problem(_ date: Date, text: String? = nil) -> String? {
        guard !contains(date) else { return nil }
        let shown = text.map { "\"\($0.prefix(60))\"" } ?? describe(date)
        return "\(shown) is outside \(span)"
    }

    /// A date for messages, even one outside the span: its seconds since 1970 when it cannot be
    /// broken into calendar fields.
    static func describe(_ date: Date) -> String {
        let s = date.timeIntervalSince1970
        guard s.isFinite, let f = UTCFields(date) else { return "a time \(s) s from 1970" }
        let sign = f.year < 0 ? "-" : ""
        let year = String(abs(f.year))
        let padded = String(repeating: "0", count: max(0, 4 - year.count)) + year
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(sign)\(padded)-\(two(f.month))-\(two(f.day))T\(two(f.hour)):\(two(f.minute)):\(two(f.second))Z"
    }
}
