import Foundation
import TreesKit

extension ByteOutput {
    /// A JSON string literal, quotes included (`TextCodec.appendJSONString`).
    mutating func appendJSONString(_ s: String) {
        var s = s
        s.withUTF8 { t in appendWritten(maxCount: TextCodec.maxJSONStringCount(t.count)) { TextCodec.writeJSONString(t, into: $0) } }
    }

    /// Writes `"key":` with a leading comma unless it is the first member.
    mutating func appendJSONKey(_ key: StaticString, first: inout Bool) {
        if !first { append(",") }
        first = false
        append("\"")
        append(key)
        append("\":")
    }

    mutating func appendJSONNumber(_ v: Double) { appendDecimal(v) }

    mutating func appendJSONDate(_ d: Date) {
        append(byte: UInt8(ascii: "\""))
        appendISO8601(d)
        append(byte: UInt8(ascii: "\""))
    }

    /// A date in whole seconds (`2025-05-01T10:00:27Z`), the only form the iOS Tree Tracker app's
    /// ISO 8601 parser accepts; a fraction of a second is cut off (the precise value goes in
    /// `precise`, see `appendPreciseDates`).
    mutating func appendJSONDateWholeSeconds(_ d: Date) {
        append(byte: UInt8(ascii: "\""))
        appendISO8601(d, fraction: .wholeSeconds)
        append(byte: UInt8(ascii: "\""))
    }

    /// A photo date for a `photoDates` array: whole seconds, or `""` for an unknown date (the Tree
    /// Tracker app's way of writing it); `precise` keeps the milliseconds.
    mutating func appendJSONPhotoDate(_ d: Date?, precise: Bool = false) {
        guard let d else { append("\"\""); return }
        if precise { appendJSONDate(d) } else { appendJSONDateWholeSeconds(d) }
    }

    /// True when `d`, to the millisecond, has a fraction of a second.
    static func hasFraction(_ d: Date?) -> Bool {
        guard let d else { return false }
        let ms = (d.timeIntervalSince1970 * 1000).rounded()
        return ms.truncatingRemainder(dividingBy: 1000) != 0
    }

    /// `"precise":{"createdAt":"…","updatedAt":"…","photoDates":[…]}` with every date to the
    /// millisecond, when any of them has a fraction of a second: the app reads whole seconds only
    /// and ignores this member; `trees import` prefers it, so a round trip keeps milliseconds.
    mutating func appendPreciseDates(_ dates: [(StaticString, Date)], photoDates: [Date?]?, first: inout Bool) {
        guard dates.contains(where: { Self.hasFraction($0.1) }) || (photoDates ?? []).contains(where: Self.hasFraction) else { return }
        appendJSONKey("precise", first: &first)
        append("{")
        var f = true
        for (key, date) in dates {
            appendJSONKey(key, first: &f); appendJSONDate(date)
        }
        if let photoDates {
            appendJSONKey("photoDates", first: &f)
            append("[")
            for (i, d) in photoDates.enumerated() {
                if i > 0 { append(",") }
                appendJSONPhotoDate(d, precise: true)
            }
            append("]")
        }
        append("}")
    }

    mutating func appendJSONUUID(_ id: UUID) {
        append(byte: UInt8(ascii: "\""))
        appendUUID(id, uppercase: true)
        append(byte: UInt8(ascii: "\""))
    }

    /// `species`, `variety`, `rootstock`, `notes`, `photoCount` and `photos`, as both our JSON and
    /// the app's have them. Optional texts the tree does not have are left out, as the app writes
    /// them ("" would be kept by the app as an empty value).
    mutating func appendTextAndPhotoMembers(_ tree: Tree, photos: [ExportPhoto], first: inout Bool) {
        appendJSONKey("species", first: &first); appendJSONString(tree.species)
        if let v = tree.variety, !v.isEmpty { appendJSONKey("variety", first: &first); appendJSONString(v) }
        if let v = tree.rootstock, !v.isEmpty { appendJSONKey("rootstock", first: &first); appendJSONString(v) }
        appendJSONKey("notes", first: &first); appendJSONString(tree.notes ?? "")
        appendJSONKey("photoCount", first: &first); appendInteger(photos.count)
        if photos.contains(where: { $0.data != nil }) {
            appendJSONKey("photos", first: &first)
            append("[")
            for (i, p) in photos.enumerated() {
                if i > 0 { append(",") }
                append("\"")
                append(Data(p.data ?? []).base64EncodedString())
                append("\"")
            }
            append("]")
        }
    }

    /// The members shared by collection JSON trees and GeoJSON properties, in a fixed order.
    mutating func appendTreeMembers(_ tree: Tree, photos: [ExportPhoto], collectionName: String?,
                                    coordinates: Bool, first: inout Bool) {
        appendJSONKey("id", first: &first); appendJSONUUID(tree.id)
        if coordinates {
            appendJSONKey("latitude", first: &first); appendJSONNumber(tree.latitude)
            appendJSONKey("longitude", first: &first); appendJSONNumber(tree.longitude)
        }
        if let v = tree.horizontalAccuracy, v.isFinite { appendJSONKey("horizontalAccuracy", first: &first); appendJSONNumber(v) }
        if let v = tree.altitude, v.isFinite { appendJSONKey("altitude", first: &first); appendJSONNumber(v) }
        appendTextAndPhotoMembers(tree, photos: photos, first: &first)
        appendJSONKey("photoDates", first: &first)
        append("[")
        for (i, p) in photos.enumerated() {
            if i > 0 { append(",") }
            appendJSONPhotoDate(p.capturedAt)
        }
        append("]")
        if let cid = tree.collectionID {
            appendJSONKey("collectionId", first: &first); appendJSONUUID(cid)
            if let name = collectionName { appendJSONKey("collection", first: &first); appendJSONString(name) }
        }
        appendJSONKey("createdAt", first: &first); appendJSONDateWholeSeconds(tree.createdAt)
        appendJSONKey("updatedAt", first: &first); appendJSONDateWholeSeconds(tree.updatedAt)
        appendPreciseDates([("createdAt", tree.createdAt), ("updatedAt", tree.updatedAt)], photoDates: photos.map(\.capturedAt),
                           first: &first)
        if let v = tree.accuracySource { appendJSONKey("accuracySource", first: &first); appendJSONString(v.rawValue) }
        if let v = tree.ellipsoidHeight, v.isFinite { appendJSONKey("ellipsoidHeight", first: &first); appendJSONNumber(v) }
        let c = tree.capture
        if !c.isEmpty {
            appendJSONKey("capture", first: &first)
            append("{")
            var f = true
            if let v = c.fixTime { appendJSONKey("fixTime", first: &f); appendJSONDate(v) }
            if let v = c.fixMode { appendJSONKey("fixMode", first: &f); appendJSONString(FixModeText.text(v)) }
            if let v = c.satellites { appendJSONKey("satellites", first: &f); appendInteger(v) }
            if let v = c.hdop, v.isFinite { appendJSONKey("hdop", first: &f); appendJSONNumber(v) }
            if let v = c.averagedEpochs { appendJSONKey("averagedEpochs", first: &f); appendInteger(v) }
            if let v = c.locationSource { appendJSONKey("locationSource", first: &f); appendJSONString(v) }
            if let v = c.fixStatus { appendJSONKey("fixStatus", first: &f); appendJSONString(v.name) }
            if let v = c.correctionAge, v.isFinite { appendJSONKey("correctionAge", first: &f); appendJSONNumber(v) }
            if let v = c.verticalAccuracy, v.isFinite { appendJSONKey("verticalAccuracy", first: &f); appendJSONNumber(v) }
            if let v = c.verticalAccuracySource { appendJSONKey("verticalAccuracySource", first: &f); appendJSONString(v.rawValue) }
            if let v = c.antennaHeight, v.isFinite { appendJSONKey("antennaHeight", first: &f); appendJSONNumber(v) }
            append("}")
        }
    }
}

extension ByteOutput {
    /// A tree as the iOS Tree Tracker app decodes it: its keys only (`horizontalAccuracy`,
    /// `species`, `notes`, `photoCount` always; `altitude`, `variety`, `rootstock`, `photos`,
    /// `photoDates`, `collectionId` when known), dates in whole seconds, a photo without bytes
    /// dated but not embedded.
    mutating func appendTreeTrackerMembers(_ tree: Tree, photos: [ExportPhoto], flavour: TreeTrackerFlavour, first: inout Bool) {
        appendJSONKey("id", first: &first); appendJSONUUID(tree.id)
        appendJSONKey("latitude", first: &first); appendJSONNumber(tree.latitude)
        appendJSONKey("longitude", first: &first); appendJSONNumber(tree.longitude)
        let accuracy = tree.horizontalAccuracy.map { $0 / AccuracyModel.phoneTo95 } ?? flavour.unknownAccuracy ?? 0
        appendJSONKey("horizontalAccuracy", first: &first); appendJSONNumber((accuracy * 100).rounded() / 100)
        if let v = tree.altitude, v.isFinite { appendJSONKey("altitude", first: &first); appendJSONNumber(v) }
        appendTextAndPhotoMembers(tree, photos: photos, first: &first)
        if !photos.isEmpty {
            appendJSONKey("photoDates", first: &first)
            append("[")
            for (i, p) in photos.enumerated() {
                if i > 0 { append(",") }
                appendJSONPhotoDate(p.capturedAt)
            }
            append("]")
        }
        if let cid = tree.collectionID { appendJSONKey("collectionId", first: &first); appendJSONUUID(cid) }
        appendJSONKey("createdAt", first: &first); appendJSONDateWholeSeconds(tree.createdAt)
        appendJSONKey("updatedAt", first: &first); appendJSONDateWholeSeconds(tree.updatedAt)
    }
}

/// The text form of fix modes in our files: `none`, `2d`, `3d` (and `unseen` for a receiver not yet heard).
package enum FixModeText {
    package static func text(_ m: FixMode) -> String {
        switch m {
        case .notSeen: "unseen"
        case .noFix: "none"
        case .twoD: "2d"
        case .threeD: "3d"
        }
    }

    package static func mode(_ s: String) -> FixMode? {
        s.lowercased() == "unseen" ? .notSeen : ImportedTree.fixMode(s)
    }
}

/// Writes the collection JSON document: a superset of the iOS Tree Tracker export.
///
/// ```json
/// {"format":"trees-collection","version":1,"exportedAt":"…",
///  "collections":[{"id":"…","name":"…","createdAt":"…","updatedAt":"…"}],
///  "trees":[
///   {"id":"…","latitude":…,"longitude":…,"horizontalAccuracy":…,"altitude":…,"species":"…","variety":"…",
///    "rootstock":"…","notes":"…","photoCount":0,"photos":["base64…"],"photoDates":["…"],"collectionId":"…",
///    "collection":"…","createdAt":"…","updatedAt":"…","accuracySource":"gst","ellipsoidHeight":…,
///    "capture":{"fixTime":"…","fixMode":"3d","satellites":9,"hdop":0.8,"averagedEpochs":10,"locationSource":"…",
///               "fixStatus":"rtk-fixed","correctionAge":1.2,"verticalAccuracy":0.03,"verticalAccuracySource":"gst",
///               "antennaHeight":1.8}}
///  ]}
/// ```
/// Keys always come in this order and each tree sits on its own line, so the same store always
/// gives the same bytes (apart from `exportedAt`). Dates the app reads are in whole seconds (its
/// parser takes no fraction); when a date has milliseconds, `precise` repeats the dates exactly.
/// `variety` and `rootstock` are left out when unknown and `notes` is `""`, as the app writes
/// them; absent numbers are left out.
public struct CollectionJSONWriter: TreeWriter {
    /// The value of the `format` key.
    public static let formatName = "trees-collection"
    public static let version = 1

    private var out: ByteOutput
    private let context: ExportContext
    private var count = 0

    public init(context: ExportContext, sink: @escaping ByteOutput.Sink) {
        self.context = context
        self.out = ByteOutput(sink: sink)
    }

    public mutating func begin() throws {
        if context.treeTracker != nil {
            out.append("{\"collections\":[")
            for (i, c) in context.collectionList.enumerated() {
                out.append(i == 0 ? "\n" : ",\n")
                out.append("{\"id\":"); out.appendJSONString(c.id.uuidString)
                out.append(",\"name\":"); out.appendJSONString(c.name)
                out.append(",\"createdAt\":"); out.appendJSONDateWholeSeconds(c.createdAt)
                out.append(",\"updatedAt\":"); out.appendJSONDateWholeSeconds(c.updatedAt)
                out.append("}")
            }
            out.append(context.collectionList.isEmpty ? "],\n\"trees\":[" : "\n],\n\"trees\":[")
            return
        }
        out.append("{\"format\":\"")
        out.append(Self.formatName)
        out.append("\",\"version\":")
        out.appendInteger(Self.version)
        out.append(",\"exportedAt\":")
        out.appendJSONString(TextCodec.iso8601(context.exportedAt, fraction: .whenPresent))
        out.append(",\n\"collections\":[")
        for (i, c) in context.collectionList.enumerated() {
            out.append(i == 0 ? "\n" : ",\n")
            out.append("{\"id\":"); out.appendJSONString(c.id.uuidString)
            out.append(",\"name\":"); out.appendJSONString(c.name)
            out.append(",\"createdAt\":"); out.appendJSONDateWholeSeconds(c.createdAt)
            out.append(",\"updatedAt\":"); out.appendJSONDateWholeSeconds(c.updatedAt)
            var first = false
            out.appendPreciseDates([("createdAt", c.createdAt), ("updatedAt", c.updatedAt)], photoDates: nil, first: &first)
            out.appendSchedules(context.collectionSchedules[c.id] ?? [], first: &first)
            out.append("}")
        }
        out.append(context.collectionList.isEmpty ? "],\n\"trees\":[" : "\n],\n\"trees\":[")
    }

    public mutating func write(_ tree: Tree, photos: [ExportPhoto]) throws {
        try write(tree, photos: photos, care: TreeCare())
    }

    /// Writes one tree; our own format (not the app's) adds its care log (`care`, `schedules`).
    public mutating func write(_ tree: Tree, photos: [ExportPhoto], care: TreeCare) throws {
        out.append(count == 0 ? "\n{" : ",\n{")
        count += 1
        var first = true
        if let flavour = context.treeTracker {
            out.appendTreeTrackerMembers(tree, photos: photos, flavour: flavour, first: &first)
        } else {
            out.appendTreeMembers(tree, photos: photos, collectionName: tree.collectionID.flatMap { context.collections[$0]?.name },
                                  coordinates: true, first: &first)
            out.appendCareMembers(care, photos: photos, first: &first)
        }
        out.append("}")
        try out.flushIfFull()
    }

    public mutating func finish() throws {
        out.append(count == 0 ? "]}\n" : "\n]}\n")
        try out.flush()
    }
}

/// One tree as JSON, exactly as the collection JSON export writes it: the one shape of a tree in
/// every JSON that `trees` prints (`show --json`, `list --json`, `add --json`, the export).
public enum TreeJSON {
    /// The tree's object on one line, the bytes of its line in an export.
    public static func object(_ tree: Tree, photos: [ExportPhoto], collectionName: String?) -> [UInt8] {
        let box = StringBox()
        var out = ByteOutput.collecting(into: box)
        out.append("{")
        var first = true
        out.appendTreeMembers(tree, photos: photos, collectionName: collectionName, coordinates: true, first: &first)
        out.append("}")
        out.flushToBox()
        return box.bytes
    }
}
