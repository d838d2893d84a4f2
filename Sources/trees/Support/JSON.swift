import Foundation
import TreesKit

/// A JSON value with object keys kept in order, for deterministic command output.
enum JSON {
    case null
    case bool(Bool)
    case number(Double)
    case int(Int)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    static func optional(_ v: String?) -> JSON { v.map(JSON.string) ?? .null }
    static func optional(_ v: Double?) -> JSON { v.map(JSON.number) ?? .null }
    static func optional(_ v: Int?) -> JSON { v.map(JSON.int) ?? .null }
    static func optional(_ v: Date?) -> JSON { v.map { .string(ISOTime.string($0)) } ?? .null }

    /// Serialises; `indent` nil gives one line.
    func serialized(indent: Int? = 2) -> String {
        var out = ""
        write(to: &out, indent: indent, level: 0)
        return out
    }

    private func write(to out: inout String, indent: Int?, level: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .number(let d): out += JSON.number(d)
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                item.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                JSON.quote(key, into: &out)
                out += indent == nil ? ":" : ": "
                value.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: " ", count: indent * level)
    }

    /// Shortest representation that reads back as the same Double; integers without a fraction.
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

extension Tree {
    /// The tree as JSON, with the keys of the collection JSON format (a superset of the Tree Tracker export).
    func json(collectionName: String?, photos: [Photo] = []) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .string(id.uuidString)),
            ("latitude", .number(latitude)),
            ("longitude", .number(longitude)),
            ("horizontalAccuracy", .optional(horizontalAccuracy)),
            ("accuracySource", .optional(accuracySource?.rawValue)),
            ("altitude", .optional(altitude)),
            ("ellipsoidHeight", .optional(ellipsoidHeight)),
            ("species", .string(species)),
            ("variety", .optional(variety)),
            ("rootstock", .optional(rootstock)),
            ("notes", .optional(notes)),
            ("collectionId", .optional(collectionID?.uuidString)),
            ("collection", .optional(collectionName)),
            ("createdAt", .string(ISOTime.string(createdAt))),
            ("updatedAt", .string(ISOTime.string(updatedAt))),
        ]
        pairs.append(("capture", .object([
            ("fixTime", .optional(capture.fixTime)),
            ("fixMode", .optional(capture.fixMode?.rawValue)),
            ("satellites", .optional(capture.satellites)),
            ("hdop", .optional(capture.hdop)),
            ("averagedEpochs", .optional(capture.averagedEpochs)),
            ("locationSource", .optional(capture.locationSource)),
        ])))
        pairs.append(("photoCount", .int(photos.count)))
        pairs.append(("photoDates", .array(photos.map { .string(ISOTime.string($0.capturedAt)) })))
        return .object(pairs)
    }
}

extension TreeCollection {
    func json(treeCount: Int? = nil) -> JSON {
        var pairs: [(String, JSON)] = [
            ("id", .string(id.uuidString)),
            ("name", .string(name)),
            ("createdAt", .string(ISOTime.string(createdAt))),
            ("updatedAt", .string(ISOTime.string(updatedAt))),
        ]
        if let treeCount { pairs.append(("treeCount", .int(treeCount))) }
        return .object(pairs)
    }
}

