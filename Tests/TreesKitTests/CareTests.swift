import Foundation
import Testing
import TreesKit

/// The care log's values and the computation of what is due, in calendar days.
@Suite struct CareTests {
    static func day(_ text: String) throws -> Day { try Day(parsing: text) }

    @Test func daysParseAndRefuseDatesThatDoNotExist() throws {
        #expect(try Self.day("2024-02-29").description == "2024-02-29")
        #expect(try Self.day("2026-05-01").number == 20_574)
        #expect(throws: CareInputError("date '2026-02-29' does not exist; expected YYYY-MM-DD with a day of that month")) {
            try Day(parsing: "2026-02-29")
        }
        #expect(throws: CareInputError("date '2026-13-01' does not exist; expected YYYY-MM-DD with a day of that month")) {
            try Day(parsing: "2026-13-01")
        }
        for text in ["2026-5-1", "yesterday", "", "2026-05-01T10:00", "+026-05-01", "٢٠٢٦-05-01"] {
            #expect(throws: CareInputError("date '\(text)' is not a date; expected YYYY-MM-DD such as 2026-05-01")) { try Day(parsing: text) }
        }
    }

    /// The calendar day of a moment depends on the time zone: 23:30 UTC is the next day in Auckland
    /// and the same day in New York; the start of a day lands back on it.
    @Test func calendarDaysFollowTheTimeZone() throws {
        let moment = try #require(TextCodec.parseISO8601("2026-05-01T23:30:00Z"))
        let auckland = try #require(TimeZone(identifier: "Pacific/Auckland"))
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(Day(moment, in: .gmt).description == "2026-05-01")
        #expect(Day(moment, in: auckland).description == "2026-05-02")
        #expect(Day(moment.addingTimeInterval(-5 * 3600), in: newYork).description == "2026-05-01")
        for zone in [auckland, newYork, TimeZone.gmt] {
            for text in ["2026-03-08", "2026-03-29", "2026-04-05", "2026-09-27", "2026-11-01", "2026-05-01"] {
                let d = try Self.day(text)
                #expect(Day(d.start(in: zone), in: zone) == d, "\(zone.identifier) \(text)")
                #expect(Day(d.start(in: zone).addingTimeInterval(-1), in: zone) == d.adding(-1), "\(zone.identifier) \(text)")
            }
        }
    }

    @Test func reckonedDaysAgreeWithTheZoneAtEveryMomentOfAYear() throws {
        // Every 17 minutes through a year, in zones with summer time at 02:00, at 00:00, by half an
        // hour, and at a quarter-hour offset: the day-cached reckoning gives the zone's own answer.
        let start = try #require(TextCodec.parseISO8601("2026-01-01T00:00:00Z")).timeIntervalSince1970
        for name in ["Europe/Berlin", "America/Santiago", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Auckland"] {
            let zone = try #require(TimeZone(identifier: name))
            var reckoner = DayReckoner(zone: zone)
            var disagreements = 0
            for step in 0..<(366 * 24 * 60 / 17) {
                let moment = Date(timeIntervalSince1970: start + Double(step) * 17 * 60)
                if reckoner.day(moment) != Day(moment, in: zone) { disagreements += 1 }
            }
            #expect(disagreements == 0, "\(name)")
        }
        #expect(Day(year: -1, month: 3, day: 1).description == "-0001-03-01")
        #expect(Day(year: 12345, month: 12, day: 31).description == "12345-12-31")
        #expect(Day(year: 7, month: 1, day: 9).description == "0007-01-09")
    }

    /// A day begins at its first moment in the zone, also where the clocks skip or repeat midnight.
    @Test func daysStartAtTheirFirstMomentWhereMidnightIsSkipped() throws {
        let cases: [(zone: String, day: String, start: String)] = [
            ("America/Sao_Paulo", "2018-11-04", "2018-11-04T03:00:00Z"), // 00:00 skipped: 01:00 -02
            ("America/Havana", "2026-03-08", "2026-03-08T05:00:00Z"),    // 00:00 skipped: 01:00 -04
            ("America/Asuncion", "2024-10-06", "2024-10-06T04:00:00Z"),  // 00:00 skipped: 01:00 -03
            ("America/Havana", "2026-11-01", "2026-11-01T04:00:00Z"),    // 01:00 CDT back to 00:00: the first midnight
            ("Pacific/Apia", "2011-12-30", "2011-12-30T10:00:00Z"),      // skipped whole: 2011-12-31 00:00 +14
            ("Europe/Berlin", "2026-03-29", "2026-03-28T23:00:00Z"),
            ("Pacific/Auckland", "2026-05-01", "2026-04-30T12:00:00Z"),
        ]
        for c in cases {
            let zone = try #require(TimeZone(identifier: c.zone))
            let start = try Self.day(c.day).start(in: zone)
            #expect(start == TextCodec.parseISO8601(c.start), "\(c.zone) \(c.day): \(start)")
            #expect(Day(start, in: zone) >= (try Self.day(c.day)), "\(c.zone) \(c.day)")
            #expect(Day(start.addingTimeInterval(-0.001), in: zone) < (try Self.day(c.day)), "\(c.zone) \(c.day)")
        }
    }

    @Test func quantitiesNeedANumber() throws {
        #expect(try CareQuantity(parsing: "12 kg") == CareQuantity(value: 12, unit: "kg"))
        #expect(try CareQuantity(parsing: "12kg") == CareQuantity(value: 12, unit: "kg"))
        #expect(try CareQuantity(parsing: " 1.5 l/ha ") == CareQuantity(value: 1.5, unit: "l/ha"))
        #expect(try CareQuantity(parsing: "3") == CareQuantity(value: 3, unit: nil))
        #expect(try CareQuantity(parsing: "12 each") == CareQuantity(value: 12, unit: "each"))
        #expect(try CareQuantity(parsing: "2e1 l") == CareQuantity(value: 20, unit: "l"))
        #expect(try CareQuantity(parsing: "12 kg").text == "12 kg")
        #expect(try CareQuantity(parsing: "2.5kg") == CareQuantity(value: 2.5, unit: "kg"))
        #expect(try CareQuantity(parsing: "0 l") == CareQuantity(value: 0, unit: "l"))
        #expect(try CareQuantity(parsing: "1e12 l") == CareQuantity(value: 1e12, unit: "l"))
        for text in ["kg", "- kg", "inf kg", "nan", "٣ l", "1.5.5 l"] {
            #expect(throws: CareInputError("quantity '\(text)' has no number; expected a number and a unit such as '12 kg' or '40 l'")) {
                try CareQuantity(parsing: text)
            }
        }
        let refused = [
            ("", "quantity '' is empty; expected a number and a unit such as '12 kg' or '40 l'"),
            ("   ", "quantity '   ' is empty; expected a number and a unit such as '12 kg' or '40 l'"),
            ("1,5 l", "quantity '1,5 l' has a decimal comma; write it with a point, as '1.5 l'"),
            ("-3 l", "quantity '-3 l' is negative; expected 0 or more"),
            ("1e999 l", "quantity '1e999 l' is too large; expected at most 1000000000000"),
            ("1.7e308 kg", "quantity '1.7e308 kg' is too large; expected at most 1000000000000"),
            (String(repeating: "9", count: 400), "quantity '\(String(repeating: "9", count: 400))' is too large; expected at most 1000000000000"),
        ]
        for (text, message) in refused {
            #expect(throws: CareInputError(message), "\(text)") { try CareQuantity(parsing: text) }
        }
    }

    @Test func kindsAreWordsInLowerCase() throws {
        #expect(try CareKind("Water").name == "water")
        #expect(try CareKind("  mulch   and\tweed ").name == "mulch and weed")
        #expect(throws: CareInputError("care kind ' \t' is blank; expected a word such as water, fertilise, prune, spray, graft, harvest, inspect, plant, remove")) {
            try CareKind(" \t")
        }
        #expect(try HealthStatus(parsing: " Diseased") == .diseased)
        #expect(throws: CareInputError("health 'sick' is not a status; expected one of healthy, stressed, diseased, pest, damaged, dead, unknown")) {
            try HealthStatus(parsing: "sick")
        }
    }

    @Test func intervalsAreWholeDaysOrWeeks() throws {
        #expect(try CareSchedule.interval(parsing: "14d") == 14)
        #expect(try CareSchedule.interval(parsing: "14") == 14)
        #expect(try CareSchedule.interval(parsing: "2w") == 14)
        #expect(throws: CareInputError("interval '0d' is no time at all; expected 1d or more")) { try CareSchedule.interval(parsing: "0d") }
        #expect(throws: CareInputError("interval '-3d' is not a number of days; expected days such as 14d or weeks such as 2w")) {
            try CareSchedule.interval(parsing: "-3d")
        }
        #expect(throws: CareInputError("interval 'weekly' is not a number of days; expected days such as 14d or weeks such as 2w")) {
            try CareSchedule.interval(parsing: "weekly")
        }
        for text in ["1e9", "٣d", "", "d"] {
            #expect(throws: CareInputError("interval '\(text)' is not a number of days; expected days such as 14d or weeks such as 2w")) {
                try CareSchedule.interval(parsing: text)
            }
        }
        for text in ["36501d", "1000000000d", "99999999999999999999d", "99999999999999999999w"] {
            #expect(throws: CareInputError("interval '\(text)' is longer than a hundred years; expected at most 36500d")) {
                try CareSchedule.interval(parsing: text)
            }
        }
        #expect(try CareSchedule.interval(parsing: "36500d") == 36_500)
    }

    @Test func seasonsRunWithinOneYear() throws {
        let season = try Season(parsing: "04-01..09-30")
        #expect(season.description == "04-01..09-30")
        #expect(season.firstDay(onOrAfter: try Self.day("2026-03-15")) == (try Self.day("2026-04-01")))
        #expect(season.firstDay(onOrAfter: try Self.day("2026-06-15")) == (try Self.day("2026-06-15")))
        #expect(season.firstDay(onOrAfter: try Self.day("2026-09-30")) == (try Self.day("2026-09-30")))
        #expect(season.firstDay(onOrAfter: try Self.day("2026-10-01")) == (try Self.day("2027-04-01")))
        // 29 February opens the season in leap years and 28 February in others.
        let leap = try Season(parsing: "02-29..03-10")
        #expect(leap.firstDay(onOrAfter: try Self.day("2027-01-10")) == (try Self.day("2027-02-28")))
        #expect(leap.firstDay(onOrAfter: try Self.day("2028-01-10")) == (try Self.day("2028-02-29")))
        // A season ending on 29 February ends on the 28th in years without one.
        let toLeap = try Season(parsing: "01-15..02-29")
        #expect(toLeap.firstDay(onOrAfter: try Self.day("2027-02-28")) == (try Self.day("2027-02-28")))
        #expect(toLeap.firstDay(onOrAfter: try Self.day("2027-03-01")) == (try Self.day("2028-01-15")))
        #expect(toLeap.firstDay(onOrAfter: try Self.day("2028-02-29")) == (try Self.day("2028-02-29")))
    }

    /// A season whose end comes before its start runs over the new year.
    @Test func seasonsMayRunOverTheNewYear() throws {
        let winter = try Season(parsing: "11-01..02-29")
        #expect(winter.spansNewYear && winter.description == "11-01..02-29")
        for (day, first) in [("2026-12-25", "2026-12-25"), ("2027-01-10", "2027-01-10"), ("2027-02-28", "2027-02-28"),
                             ("2027-03-01", "2027-11-01"), ("2027-10-31", "2027-11-01"), ("2027-11-01", "2027-11-01"),
                             ("2028-02-29", "2028-02-29"), ("2028-03-01", "2028-11-01")] {
            #expect(winter.firstDay(onOrAfter: try Self.day(day)) == (try Self.day(first)), "\(day)")
        }
        let (june, december) = (try Self.day("2027-06-01"), try Self.day("2027-12-31"))
        #expect(!winter.contains(june) && winter.contains(december))
        let s = CareSchedule(target: .tree(UUID()), kind: try CareKind("prune"), everyDays: 30, from: try Self.day("2026-01-01"),
                             season: winter, createdAt: Date(timeIntervalSince1970: 0))
        #expect(s.nextDue(lastDone: try Self.day("2026-12-20")) == (try Self.day("2027-01-19")))
        #expect(s.nextDue(lastDone: try Self.day("2027-02-10")) == (try Self.day("2027-11-01")))
        #expect(try Season(parsing: "12-31..01-01").firstDay(onOrAfter: try Self.day("2027-01-02")) == (try Self.day("2027-12-31")))
        for text in ["04-01", "04-31..05-01", "4-1..9-30", "04-01..13-01", "04-01...09-30"] {
            #expect(throws: CareInputError("season '\(text)' is not a season; expected MM-DD..MM-DD such as 04-01..09-30")) {
                try Season(parsing: text)
            }
        }
    }

    @Test func nextDueIsTheIntervalAfterTheLastCareWithinTheSeason() throws {
        let t0 = Date(timeIntervalSince1970: 0)
        var s = CareSchedule(target: .tree(UUID()), kind: try CareKind("water"), everyDays: 14, from: try Self.day("2026-04-01"), createdAt: t0)
        #expect(s.nextDue(lastDone: nil) == (try Self.day("2026-04-01")))
        #expect(s.nextDue(lastDone: try Self.day("2026-04-10")) == (try Self.day("2026-04-24")))
        // Done long before the schedule began: due on its first day, not in the past.
        #expect(s.nextDue(lastDone: try Self.day("2025-01-01")) == (try Self.day("2026-04-01")))
        s.season = try Season(parsing: "04-01..09-30")
        #expect(s.nextDue(lastDone: try Self.day("2026-09-20")) == (try Self.day("2027-04-01")))
        #expect(s.nextDue(lastDone: try Self.day("2026-09-16")) == (try Self.day("2026-09-30")))

        let today = try Self.day("2026-05-01")
        let tree = UUID()
        let overdue = try #require(DueCalendar.due(schedule: s, treeID: tree, species: "Apple", variety: nil,
                                                   lastDone: try Self.day("2026-04-10"), today: today, within: 0))
        #expect(overdue.daysOverdue == 7 && overdue.isOverdue)
        #expect(DueCalendar.due(schedule: s, treeID: tree, species: "Apple", variety: nil, lastDone: try Self.day("2026-04-20"),
                                today: today, within: 0) == nil)
        let soon = try #require(DueCalendar.due(schedule: s, treeID: tree, species: "Apple", variety: nil,
                                                lastDone: try Self.day("2026-04-20"), today: today, within: 7))
        #expect(soon.daysOverdue == -3 && !soon.isOverdue)
        #expect(soon.stableID == "\(tree.uuidString.lowercased())-water@trees")
    }

    /// The store lists what is due by merging lists in tree order and counting days into buckets;
    /// that must give exactly what sorting the whole list gives, ties between ids and kinds too.
    @Test func bucketingByDayOrdersAsTheFullSortDoes() throws {
        var generator = SystemRandomNumberGenerator()
        // Ids that share their first eight bytes, so the second half decides.
        let ids = (0..<40).map { i in UUID(uuid: (0, 0, 0, 0, 0, 0, 0, UInt8(i % 3), 0, 0, 0, 0, 0, 0, 0, UInt8(i))) } + (0..<40).map { _ in UUID() }
        let kinds = try ["water", "spray", "prune", "Fertilise"].map { try CareKind($0) }
        let today = try Self.day("2026-05-28")
        var items: [DueCare] = []
        for id in ids {
            for kind in kinds where Bool.random(using: &generator) {
                items.append(DueCare(treeID: id, species: "Apple", variety: nil, kind: kind, lastDone: nil,
                                     due: today.adding(-Int.random(in: 0...5, using: &generator)), today: today))
            }
        }
        let (a, b) = (items.filter { $0.kind.name != "prune" }, items.filter { $0.kind.name == "prune" })
        let listed = DueCalendar.byDay(DueCalendar.merged(DueCalendar.byTree(a), DueCalendar.byTree(b)))
        #expect(listed == DueCalendar.ordered(items))
        #expect(listed.count == items.count)
        #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.due <= $1.due })
        // A span of days too wide for buckets is sorted instead, to the same order.
        let wide = items + [DueCare(treeID: ids[0], species: "Pear", variety: nil, kind: kinds[0], lastDone: nil, due: Day(-5_000_000), today: today)]
        #expect(DueCalendar.byDay(DueCalendar.byTree(wide)) == DueCalendar.ordered(wide))
        #expect(DueCalendar.byDay(DueCalendar.byTree(wide)).first?.species == "Pear")
    }
}
