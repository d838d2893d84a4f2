import Foundation
import Interchange
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
    /// A value already written as compact JSON by a library writer (a tree, by `TreeJSON`).
    case raw([UInt8])

    static func optional(_ v: String?) -> JSON { v.map(JSON.string) ?? .null }
    static func optional(_ v: Double?) -> JSON { v.map(JSON.number) ?? .null }
    static func optional(_ v: Int?) -> JSON { v.map(JSON.int) ?? .null }
    static func optional(_ v: Date?) -> JSON { v.map { .string(ISOTime.string($0)) } ?? .null }

    /// Serialises; `indent` nil gives one line.
    func serialized(indent: Int? = 2) -> String {
        String(decoding: bytes(indent: indent), as: UTF8.self)
    }

    /// `serialized(indent:)` as UTF-8 bytes, built as bytes: a listing of a whole orchard is megabytes.
    func bytes(indent: Int? = 2) -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out, indent: indent, level: 0)
        return out
    }

    func write(to out: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): TextCodec.appendInteger(i, to: &out)
        case .number(let d): if !TextCodec.appendDecimal(d, to: &out) { out.append(contentsOf: "null".utf8) }
        case .string(let s): TextCodec.appendJSONString(s, to: &out)
        case .raw(let bytes): JSON.reindent(bytes, into: &out, indent: indent, level: level)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                item.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            if pairs.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                TextCodec.appendJSONString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                value.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Compact JSON laid out as `serialized(indent:)` lays out the other values: the same
    /// bytes with a line per member and element, and `": "` after keys.
    private static func reindent(_ bytes: [UInt8], into text: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { text.append(contentsOf: bytes); return }
        var depth = level
        var inString = false
        var escaped = false
        func newline() {
            text.append(UInt8(ascii: "\n"))
            text.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * depth))
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if inString {
                text.append(b)
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true; text.append(b)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                text.append(b)
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") || bytes[i] == UInt8(ascii: "]") {
                    text.append(bytes[i]); i += 1
                } else {
                    depth += 1; newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; newline(); text.append(b)
            case UInt8(ascii: ","): text.append(b); newline()
            case UInt8(ascii: ":"): text.append(b); text.append(UInt8(ascii: " "))
            default: text.append(b)
            }
        }
    }
}

extension Tree {
    /// The tree as JSON: the object the collection JSON export writes for it (`TreeJSON`).
    func json(collectionName: String?, photos: [Photo] = []) -> JSON {
        .raw(TreeJSON.object(self, photos: photos.map { ExportPhoto(capturedAt: $0.capturedAt) }, collectionName: collectionName))
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

/// A JSON array written to standard output element by element, byte for byte as `Output.json`
/// writes `.array` of the same elements (at `level`, after `prefix`): for listings too long to
/// hold (a million trees).
struct JSONArrayStream {
    private var out: [UInt8]
    private let level: Int
    private var count = 0

    init(level: Int = 0, after prefix: [UInt8] = []) {
        self.level = level
        out = prefix
    }

    mutating func append(_ item: JSON) {
        out.append(count == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * (level + 1)))
        item.write(to: &out, indent: 2, level: level + 1)
        count += 1
        if out.count >= 1 << 16 {
            out.withUnsafeBytes { Output.write($0) }
            out.removeAll(keepingCapacity: true)
        }
    }

    /// Closes the array (`[]` when nothing was appended), then `suffix`, and writes out what is waiting.
    mutating func finish(then suffix: String = "\n") {
        if count == 0 {
            out.append(contentsOf: "[]".utf8)
        } else {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: suffix.utf8)
        out.withUnsafeBytes { Output.write($0) }
        out.removeAll()
    }
}
