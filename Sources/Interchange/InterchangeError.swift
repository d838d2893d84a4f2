/// Everything that can make reading or writing an interchange file fail.
///
/// Lines and columns are 1-based; columns count bytes of the UTF-8 text (after any transcoding),
/// which equals characters for ASCII.
public enum InterchangeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are not well-formed XML, or use XML features refused for safety (entity declarations).
    case malformedXML(line: Int, column: Int, reason: String)
    /// The XML declaration names an encoding this reader does not transcode.
    case unsupportedEncoding(String)
    /// Well-formed XML, but not a GPX 1.0 or 1.1 document.
    case notGPX(line: Int, column: Int, reason: String)
    /// The bytes are not valid JSON.
    case malformedJSON(line: Int, column: Int, reason: String)
    /// Valid syntax, but the content is not what the format needs (wrong shape, missing field, bad value).
    case invalidContent(line: Int, column: Int, reason: String)
    /// A CSV problem (missing required column, bad number, unterminated quote).
    case invalidCSV(line: Int, reason: String)
    /// The format of a file could not be told from its name or content.
    case unknownFormat(String)
    /// A value that would be stored as something other than itself (a time outside years 0000 to 9999).
    case unstorableValue(line: Int, reason: String)

    /// The 1-based line of the problem, when it has one.
    public var line: Int? {
        switch self {
        case .malformedXML(let l, _, _), .notGPX(let l, _, _), .malformedJSON(let l, _, _), .invalidContent(let l, _, _):
            l
        case .invalidCSV(let l, _), .unstorableValue(let l, _): l
        case .unsupportedEncoding, .unknownFormat: nil
        }
    }

    /// The 1-based column of the problem, when it has one.
    public var column: Int? {
        switch self {
        case .malformedXML(_, let c, _), .notGPX(_, let c, _), .malformedJSON(_, let c, _), .invalidContent(_, let c, _):
            c
        case .invalidCSV, .unsupportedEncoding, .unknownFormat, .unstorableValue: nil
        }
    }

    /// What went wrong, without the location.
    public var reason: String {
        switch self {
        case .malformedXML(_, _, let r), .notGPX(_, _, let r), .malformedJSON(_, _, let r), .invalidContent(_, _, let r),
             .invalidCSV(_, let r), .unstorableValue(_, let r):
            r
        case .unsupportedEncoding(let name): "unsupported encoding \"\(name)\"; use UTF-8, UTF-16, ISO-8859-1 or windows-1252"
        case .unknownFormat(let r): r
        }
    }

    /// `line L, column C: reason`, or just the reason when there is no location.
    public var description: String {
        switch (line, column) {
        case let (l?, c?): "line \(l), column \(c): \(reason)"
        case let (l?, nil): "line \(l): \(reason)"
        default: reason
        }
    }
}

/// A problem found in the input that does not stop reading (a point without coordinates,
/// an unreadable time). The caller decides whether it refuses the file.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What the reader did about the problem.
    public enum Kind: Sendable, Equatable {
        /// A whole point was left out (no usable coordinates).
        case pointSkipped
        /// One value was left out; the rest of its point was read.
        case valueIgnored
    }

    public var line: Int
    public var message: String
    public var kind: Kind
    public init(line: Int, message: String, kind: Kind = .valueIgnored) { self.line = line; self.message = message; self.kind = kind }
    public var description: String { "line \(line): \(message)" }
}
