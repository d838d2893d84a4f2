import Foundation
import TreesKit

/// A tree's care log as collection JSON carries it: its events (inspections keep the health they
/// found, so the history of statuses goes with them) and its own schedules.
public struct TreeCare: Sendable, Equatable {
    public var events: [CareEvent]
    public var schedules: [CareSchedule]

    public init(events: [CareEvent] = [], schedules: [CareSchedule] = []) { self.events = events; self.schedules = schedules }

    public var isEmpty: Bool { events.isEmpty && schedules.isEmpty }
}

extension ByteOutput {
    /// `"care":[…]` and `"schedules":[…]`, each only when not empty.
    ///
    /// ```json
    /// "care":[{"id":"…","kind":"water","date":"…","notes":"…","quantity":40,"unit":"l","health":"diseased","who":"…",
    ///          "photos":[1],"createdAt":"…","updatedAt":"…"}],
    /// "schedules":[{"id":"…","kind":"water","everyDays":14,"from":"2026-04-01","season":"04-01..09-30","createdAt":"…","updatedAt":"…"}]
    /// ```
    /// Dates keep their milliseconds; absent values are left out. An event's `photos` are the
    /// positions, in the tree's `photos` and `photoDates`, of those taken for it.
    mutating func appendCareMembers(_ care: TreeCare, photos: [ExportPhoto] = [], first: inout Bool) {
        if !care.events.isEmpty {
            appendJSONKey("care", first: &first)
            append("[")
            for (i, e) in care.events.enumerated() {
                append(i == 0 ? "{" : ",{")
                var f = true
                appendJSONKey("id", first: &f); appendJSONString(e.id.uuidString)
                appendJSONKey("kind", first: &f); appendJSONString(e.kind.name)
                appendJSONKey("date", first: &f); appendJSONDate(e.date)
                if let n = e.notes { appendJSONKey("notes", first: &f); appendJSONString(n) }
                if let q = e.quantity, q.value.isFinite {
                    appendJSONKey("quantity", first: &f); appendJSONNumber(q.value)
                    if let u = q.unit { appendJSONKey("unit", first: &f); appendJSONString(u) }
                }
                if let h = e.health { appendJSONKey("health", first: &f); appendJSONString(h.rawValue) }
                if let w = e.who { appendJSONKey("who", first: &f); appendJSONString(w) }
                let positions = photos.indices.filter { photos[$0].careEventID == e.id }
                if !positions.isEmpty {
                    appendJSONKey("photos", first: &f)
                    append("[" + positions.map(String.init).joined(separator: ",") + "]")
                }
                appendJSONKey("createdAt", first: &f); appendJSONDate(e.createdAt)
                appendJSONKey("updatedAt", first: &f); appendJSONDate(e.updatedAt)
                append("}")
            }
            append("]")
        }
        appendSchedules(care.schedules, first: &first)
    }

    mutating func appendSchedules(_ schedules: [CareSchedule], first: inout Bool) {
        guard !schedules.isEmpty else { return }
        appendJSONKey("schedules", first: &first)
        append("[")
        for (i, s) in schedules.enumerated() {
            append(i == 0 ? "{" : ",{")
            var f = true
            appendJSONKey("id", first: &f); appendJSONString(s.id.uuidString)
            appendJSONKey("kind", first: &f); appendJSONString(s.kind.name)
            appendJSONKey("everyDays", first: &f); appendInteger(s.everyDays)
            appendJSONKey("from", first: &f); appendJSONString(s.from.description)
            if let season = s.season { appendJSONKey("season", first: &f); appendJSONString(season.description) }
            appendJSONKey("createdAt", first: &f); appendJSONDate(s.createdAt)
            appendJSONKey("updatedAt", first: &f); appendJSONDate(s.updatedAt)
            append("}")
        }
        append("]")
    }
}
