import Foundation

/// A value typed for the care log that cannot be used: the message names the value and what would be right.
public struct CareInputError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What was done to a tree: one of the usual kinds or any other word the orchardist uses.
///
/// Kinds are kept in lower case with inner runs of white space made one space, so `Water` and
/// `water` are the same kind in lists, schedules and what is due.
public struct CareKind: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let name: String

    /// The kinds the log knows by name; any other non-blank text is a kind too.
    public static let known = ["water", "fertilise", "prune", "spray", "graft", "harvest", "inspect", "plant", "remove"]
    public static let inspect = CareKind(checked: "inspect")
    public static let harvest = CareKind(checked: "harvest")

    private init(checked name: String) { self.name = name }

    /// The kind named by `text`; blank text is refused.
    public init(_ text: String) throws(CareInputError) {
        let words = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
        guard !words.isEmpty else {
            throw CareInputError("care kind '\(text)' is blank; expected a word such as \(Self.known.joined(separator: ", "))")
        }
        name = words.joined(separator: " ").lowercased()
    }

    /// The kind a store holds as `text` when it is a name `init(_:)` keeps as it is (lower-case
    /// ASCII letters, digits, `-` and `_`, as every kind the log knows is): nil for any other
    /// text, which `init(_:)` reads.
    public init?(stored text: String) {
        var text = text
        let plain = text.withUTF8 { b in
            !b.isEmpty && b.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F }
        }
        guard plain else { return nil }
        self.init(checked: text)
    }

    public var description: String { name }
    public static func < (a: CareKind, b: CareKind) -> Bool { a.name < b.name }
}

/// How a tree is, as set by an `inspect` event.
public enum HealthStatus: String, CaseIterable, Sendable, Codable {
    case healthy, stressed, diseased, pest, damaged, dead, unknown

    /// The status named by `text` (ignoring case and surrounding spaces).
    public init(parsing text: String) throws(CareInputError) {
        guard let s = HealthStatus(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw CareInputError("health '\(text)' is not a status; expected one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = s
    }
}

/// An amount with its unit: `12 kg` harvested, `40 l` of water, `0.5 l/ha` of a spray.
public struct CareQuantity: Equatable, Sendable {
    public var value: Double
    /// Free text after the number; nil for a bare count.
    public var unit: String?

    public init(value: Double, unit: String?) { self.value = value; self.unit = unit }

    /// The largest amount a care takes: a million million of its unit, so that totals over a
    /// whole log stay finite.
    public static let largest = 1e12

    /// Parses `12 kg`, `12kg`, `1.5 l`, `3`: a number from 0 to `largest` with a decimal point,
    /// then an optional unit. A decimal comma (`1,5 l`) is refused rather than read as 1.
    public init(parsing text: String) throws(CareInputError) {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let example = "expected a number and a unit such as '12 kg' or '40 l'"
        guard !t.isEmpty else { throw CareInputError("quantity '\(text)' is empty; \(example)") }
        var end = t.startIndex
        while end < t.endIndex, t[end].isASCII, t[end].isNumber || "+-.eE".contains(t[end]) {
            // An `e` only belongs to the number when a digit follows it (`1e3`); `12 each` keeps its unit.
            if "eE".contains(t[end]) {
                let next = t.index(after: end)
                guard next < t.endIndex, t[next].isNumber || "+-".contains(t[next]) else { break }
            }
            end = t.index(after: end)
        }
        guard let v = Double(t[..<end]) else {
            throw CareInputError("quantity '\(text)' has no number; \(example)")
        }
        if end < t.endIndex, t[end] == ",", t[t.index(after: end)...].first?.isNumber == true {
            let fixed = t[..<end] + "." + t[t.index(after: end)...]
            throw CareInputError("quantity '\(text)' has a decimal comma; write it with a point, as '\(fixed)'")
        }
        guard v >= 0 else { throw CareInputError("quantity '\(text)' is negative; expected 0 or more") }
        guard v <= Self.largest else {
            throw CareInputError("quantity '\(text)' is too large; expected at most \(TextCodec.decimal(Self.largest) ?? "")")
        }
        value = v == 0 ? 0 : v
        unit = TextTools.nonEmpty(String(t[end...]))
    }

    /// `12 kg`, `40 l`, `3`.
    public var text: String {
        let number = TextCodec.decimal(value) ?? String(value)
        return unit.map { "\(number) \($0)" } ?? number
    }
}

/// One thing done to one tree on one date.
public struct CareEvent: Sendable, Equatable, Identifiable {
    public var id: UUID
    public var treeID: UUID
    public var kind: CareKind
    /// When it was done.
    public var date: Date
    public var notes: String?
    public var quantity: CareQuantity?
    /// The status an inspection found; nil for other events and inspections that set none.
    public var health: HealthStatus?
    /// Who did it: a free-text name.
    public var who: String?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID = .random(), treeID: UUID, kind: CareKind, date: Date, notes: String? = nil,
                quantity: CareQuantity? = nil, health: HealthStatus? = nil, who: String? = nil,
                createdAt: Date, updatedAt: Date? = nil) {
        self.id = id; self.treeID = treeID; self.kind = kind; self.date = date; self.notes = notes
        self.quantity = quantity; self.health = health; self.who = who
        self.createdAt = createdAt; self.updatedAt = updatedAt ?? createdAt
    }
}

/// A calendar day: days since 1970-01-01 in the proleptic Gregorian calendar, in some time zone.
public struct Day: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var number: Int
    public init(_ number: Int) { self.number = number }

    public init(year: Int, month: Int, day: Int) { number = CivilDate.days(year: year, month: month, day: day) }

    /// The calendar day in `zone` of the moment `date`.
    public init(_ date: Date, in zone: TimeZone) {
        let local = date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))
        number = Int((local / 86_400).rounded(.down))
    }

    /// Parses `YYYY-MM-DD`; a date that does not exist (`2026-02-30`) is refused.
    public init(parsing text: String) throws(CareInputError) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else {
            throw CareInputError("date '\(text)' is not a date; expected YYYY-MM-DD such as 2026-05-01")
        }
        guard (1...12).contains(m), (1...CivilDate.daysIn(month: m, year: y)).contains(d) else {
            throw CareInputError("date '\(text)' does not exist; expected YYYY-MM-DD with a day of that month")
        }
        self.init(year: y, month: m, day: d)
    }

    public var fields: (year: Int, month: Int, day: Int) { CivilDate.date(days: number) }

    /// The days a care may be typed for, 0001-01-01 through 9999-12-31: the start of each lies
    /// within the years a store keeps in every time zone, which day 0000-01-01 does not east of UTC.
    public static let careRange = Day(year: 1, month: 1, day: 1)...Day(year: 9999, month: 12, day: 31)

    /// Nil for a day in `careRange`, else why it cannot be a care's day; `text` is the value as typed.
    public static func careRangeProblem(_ day: Day, text: String) -> String? {
        guard !careRange.contains(day) else { return nil }
        return "date '\(text)' is outside the years the care log keeps; expected a day from \(careRange.lowerBound) to \(careRange.upperBound)"
    }

    /// The first moment of the day in `zone`: its midnight, the earlier one when the clocks go
    /// back over midnight, the moment the clocks go forward when they skip midnight (01:00 in São
    /// Paulo on 2018-11-04), and for a day a zone skipped whole the first moment after it.
    public func start(in zone: TimeZone) -> Date {
        let midnight = Double(number) * 86_400
        // The zone's offsets around the day: midnight less one of them is where the day begins.
        var offsets: Set<Int> = []
        for probe in [-1.0, 0, 1] { offsets.insert(zone.secondsFromGMT(for: Date(timeIntervalSince1970: midnight + probe * 86_400))) }
        let moments = offsets.map { Date(timeIntervalSince1970: midnight - Double($0)) }.sorted()
        return moments.first { Day($0, in: zone) == self } ?? moments.first { Day($0, in: zone) > self } ?? moments[0]
    }

    public func adding(_ days: Int) -> Day { Day(number + days) }

    /// `2026-05-01`; years outside 0000–9999 as ISO 8601's expanded form (`-0001-03-01`).
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(10)
        append(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `description`'s bytes, for output written as bytes.
    public func append(to out: inout [UInt8]) {
        let f = fields
        if f.year < 0 { out.append(UInt8(ascii: "-")) }
        TextCodec.appendPadded(abs(f.year), width: 4, to: &out)
        out.append(UInt8(ascii: "-")); TextCodec.appendPadded(f.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-")); TextCodec.appendPadded(f.day, width: 2, to: &out)
    }

    public static func < (a: Day, b: Day) -> Bool { a.number < b.number }
}

/// The calendar days of many moments in one time zone, asking the zone for its offset once per
/// UTC day: when the offset at a day's first and last second agree it holds for the whole day,
/// and a day with a change of offset (the switch to summer time) is reckoned moment by moment.
public struct DayReckoner {
    public let zone: TimeZone
    private var offsets: [Int: Int] = [:]

    public init(zone: TimeZone) { self.zone = zone }

    public mutating func day(_ date: Date) -> Day {
        let t = date.timeIntervalSince1970
        let utcDay = Int((t / 86_400).rounded(.down))
        let offset: Int
        if let known = offsets[utcDay] {
            offset = known
        } else {
            let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utcDay) * 86_400))
            let last = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utcDay) * 86_400 + 86_399))
            guard first == last else { return Day(date, in: zone) }
            offsets[utcDay] = first
            offset = first
        }
        return Day(Int(((t + Double(offset)) / 86_400).rounded(.down)))
    }
}

/// A window of the year, `MM-DD..MM-DD` inclusive, in which a care is done (watering April to
/// September). A window whose end comes before its start runs over the new year (`11-01..02-28`:
/// November to February). 29 February stands for 28 February in years without one.
public struct Season: Equatable, Sendable, CustomStringConvertible {
    public var start: (month: Int, day: Int)
    public var end: (month: Int, day: Int)

    public static func == (a: Season, b: Season) -> Bool {
        a.start == b.start && a.end == b.end
    }

    /// Parses `04-01..09-30`, or `11-01..02-28` for a window over the new year.
    public init(parsing text: String) throws(CareInputError) {
        let ends = text.components(separatedBy: "..")
        guard ends.count == 2, let s = Self.monthDay(ends[0]), let e = Self.monthDay(ends[1]) else {
            throw CareInputError("season '\(text)' is not a season; expected MM-DD..MM-DD such as 04-01..09-30")
        }
        start = s; end = e
    }

    /// True when the window runs over the new year: its end comes before its start.
    public var spansNewYear: Bool { (end.month, end.day) < (start.month, start.day) }

    private static func monthDay(_ text: String) -> (Int, Int)? {
        let p = text.split(separator: "-", omittingEmptySubsequences: false)
        guard p.count == 2, p[0].count == 2, p[1].count == 2, let m = Int(p[0]), let d = Int(p[1]),
              (1...12).contains(m), (1...CivilDate.daysIn(month: m, year: 2000)).contains(d) else { return nil }
        return (m, d)
    }

    private func day(_ md: (month: Int, day: Int), year: Int) -> Day {
        Day(year: year, month: md.month, day: min(md.day, CivilDate.daysIn(month: md.month, year: year)))
    }

    /// `day` if it lies in the season, else the season's first day after it.
    public func firstDay(onOrAfter day: Day) -> Day {
        let year = day.fields.year
        let opens = self.day(start, year: year), closes = self.day(end, year: year)
        if spansNewYear {
            // In season from the new year to `closes`, and from `opens` to the year's end.
            return day <= closes || day >= opens ? day : opens
        }
        if day < opens { return opens }
        if day <= closes { return day }
        return self.day(start, year: year + 1)
    }

    public func contains(_ day: Day) -> Bool { firstDay(onOrAfter: day) == day }

    /// `04-01..09-30`.
    public var description: String {
        String(format: "%02d-%02d..%02d-%02d", start.month, start.day, end.month, end.day)
    }
}

/// A care to be done every so many days, for one tree or every tree of a collection.
public struct CareSchedule: Sendable, Equatable, Identifiable {
    public enum Target: Sendable, Equatable, Hashable {
        case tree(UUID)
        case collection(UUID)
    }

    public var id: UUID
    public var target: Target
    public var kind: CareKind
    /// Days between two cares, 1 to `longestInterval`.
    public var everyDays: Int
    /// The first day the care is due when it was never done.
    public var from: Day
    public var season: Season?
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: UUID = .random(), target: Target, kind: CareKind, everyDays: Int, from: Day, season: Season? = nil,
                createdAt: Date, updatedAt: Date? = nil) {
        self.id = id; self.target = target; self.kind = kind; self.everyDays = everyDays; self.from = from
        self.season = season; self.createdAt = createdAt; self.updatedAt = updatedAt ?? createdAt
    }

    /// The longest interval a schedule may have, in days: a hundred years.
    public static let longestInterval = 36_500

    /// Parses `14d`, `14` or `2w` into days; 0 or less is refused.
    public static func interval(parsing text: String) throws(CareInputError) -> Int {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        var digits = Substring(t), factor = 1
        if t.hasSuffix("d") { digits = t.dropLast() } else if t.hasSuffix("w") { digits = t.dropLast(); factor = 7 }
        let decimal = !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
        guard decimal else {
            throw CareInputError("interval '\(text)' is not a number of days; expected days such as 14d or weeks such as 2w")
        }
        // Digits too many for an integer are a very long interval.
        let n = Int(digits) ?? Int.max
        guard n > 0 else {
            throw CareInputError("interval '\(text)' is no time at all; expected 1d or more")
        }
        guard n <= longestInterval / factor else {
            throw CareInputError("interval '\(text)' is longer than a hundred years; expected at most \(longestInterval)d")
        }
        return n * factor
    }

    /// The day the care is next due, given the day it was last done (nil: never).
    ///
    /// As the plant-care designs compute a next watering: the last care plus the interval, never
    /// before the schedule's first day; a day outside the season moves to the season's next first day.
    public func nextDue(lastDone: Day?) -> Day {
        var next = lastDone.map { max($0.adding(everyDays), from) } ?? from
        if let season { next = season.firstDay(onOrAfter: next) }
        return next
    }
}

/// A tree id as two numbers that order as its text does (the bytes read big-endian), to sort and
/// compare ids without making their text.
public struct TreeIDKey: Comparable, Hashable, Sendable {
    public var high: UInt64
    public var low: UInt64

    public init(_ id: UUID) {
        (high, low) = withUnsafeBytes(of: id.uuid) { raw in
            (UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)), UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    public static func < (a: TreeIDKey, b: TreeIDKey) -> Bool { a.high != b.high ? a.high < b.high : a.low < b.low }
}

/// One care that is due or overdue for one tree.
public struct DueCare: Sendable, Equatable {
    public var treeID: UUID
    public var species: String
    public var variety: String?
    /// The tree's collection, if any.
    public var collectionID: UUID?
    public var kind: CareKind
    public var lastDone: Day?
    public var due: Day
    /// Days past the due day (0 when due today, negative when due later).
    public var daysOverdue: Int

    public init(treeID: UUID, species: String, variety: String?, collectionID: UUID? = nil, kind: CareKind, lastDone: Day?, due: Day,
                today: Day) {
        self.treeID = treeID; self.species = species; self.variety = variety; self.collectionID = collectionID; self.kind = kind
        self.lastDone = lastDone; self.due = due; daysOverdue = today.number - due.number
    }

    public var isOverdue: Bool { daysOverdue > 0 }

    /// An id that stays the same for this tree and kind, for calendars that update what they imported.
    public var stableID: String { Self.stableID(treeID, kindPart: Self.stableIDPart(kind)) }

    /// The part of `stableID` that the kind gives (letters and digits kept, anything else `_`),
    /// to be made once per kind for a long list.
    public static func stableIDPart(_ kind: CareKind) -> String {
        kind.name.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? String($0) : "_" }.joined()
    }

    public static func stableID(_ treeID: UUID, kindPart: String) -> String { "\(treeID.lowercaseText)-\(kindPart)@trees" }
}

/// Turns schedules and the last day each care was done into what is due.
public enum DueCalendar {
    /// The care is due by `today + within` (so overdue ones too), or nil.
    public static func due(schedule: CareSchedule, treeID: UUID, species: String, variety: String?, collectionID: UUID? = nil,
                           lastDone: Day?, today: Day, within days: Int) -> DueCare? {
        let next = schedule.nextDue(lastDone: lastDone)
        guard next <= today.adding(days) else { return nil }
        return DueCare(treeID: treeID, species: species, variety: variety, collectionID: collectionID, kind: schedule.kind,
                       lastDone: lastDone, due: next, today: today)
    }

    /// Most overdue first, then by tree id and kind, so output is stable.
    public static func ordered(_ items: [DueCare]) -> [DueCare] {
        // Small keys are sorted, not the items; kinds tie only within one tree's cares.
        let keys = items.indices.map { (due: items[$0].due.number, id: TreeIDKey(items[$0].treeID), index: $0) }
            .sorted { a, b in
                if a.due != b.due { return a.due < b.due }
                if a.id != b.id { return a.id < b.id }
                return items[a.index].kind < items[b.index].kind
            }
        return keys.map { items[$0.index] }
    }

    /// By tree id, then kind.
    public static func byTree(_ items: [DueCare]) -> [DueCare] {
        items.sorted { a, b in
            let (x, y) = (TreeIDKey(a.treeID), TreeIDKey(b.treeID))
            return x != y ? x < y : a.kind < b.kind
        }
    }

    /// Two lists in tree id and kind order, as one in that order.
    public static func merged(_ a: [DueCare], _ b: [DueCare]) -> [DueCare] {
        guard !b.isEmpty else { return a }
        guard !a.isEmpty else { return b }
        var out: [DueCare] = []
        out.reserveCapacity(a.count + b.count)
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            let takeA: Bool
            if i == a.count { takeA = false } else if j == b.count { takeA = true } else {
                let (x, y) = (TreeIDKey(a[i].treeID), TreeIDKey(b[j].treeID))
                takeA = x != y ? x < y : a[i].kind < b[j].kind
            }
            if takeA { out.append(a[i]); i += 1 } else { out.append(b[j]); j += 1 }
        }
        return out
    }

    /// Items in tree id and kind order put in `ordered`'s order: by due day, keeping their order
    /// within a day. Days are counted into buckets; a span of days too wide for that is sorted.
    public static func byDay(_ items: [DueCare]) -> [DueCare] {
        guard let first = items.first else { return [] }
        var (low, high) = (first.due.number, first.due.number)
        for d in items { low = min(low, d.due.number); high = max(high, d.due.number) }
        guard high - low < 1 << 22 else { return ordered(items) }
        var starts = [Int](repeating: 0, count: high - low + 2)
        for d in items { starts[d.due.number - low + 1] += 1 }
        for i in 1..<starts.count { starts[i] += starts[i - 1] }
        var positions = [Int](repeating: 0, count: items.count)
        for (i, d) in items.enumerated() {
            positions[starts[d.due.number - low]] = i
            starts[d.due.number - low] += 1
        }
        return positions.map { items[$0] }
    }
}
