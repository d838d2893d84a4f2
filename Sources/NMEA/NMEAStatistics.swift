/// Why a line or sentence of an NMEA stream was not used.
public enum NMEASkipReason: String, Sendable, CaseIterable, Codable, Comparable {
    /// The checksum after `*` does not match the sentence.
    case badChecksum = "bad checksum"
    /// No `*hh` checksum at the end of the sentence.
    case missingChecksum = "missing checksum"
    /// A `$P…` proprietary sentence.
    case proprietary = "proprietary sentence"
    /// An AIS `!…` sentence.
    case ais = "AIS sentence"
    /// A well-formed sentence of a type this reader does not use (`$IIMWV`, `$GPRMB`).
    case unknownSentence = "unknown sentence type"
    /// A `$` line whose address is not a two-letter talker and a three-letter type (`$SkyTraq…`).
    case nonstandard = "non-standard address"
    /// A known sentence with a field that is not what the standard says (a latitude of 91°, a time of `25:00`).
    case malformed = "malformed field"
    /// A sentence longer than ``NMEAFixReader/maximumSentenceLength`` bytes.
    case overlong = "over-long sentence"
    /// Bytes outside printable ASCII inside a sentence, or a line of binary data.
    case binaryData = "binary data"
    /// A sentence cut short by the start of another (`$GPGGA,0301$GPGLL,…`).
    case collision = "cut short by another sentence"
    /// Text that is neither a sentence nor a `#` comment.
    case garbage = "not a sentence"

    public static func < (a: NMEASkipReason, b: NMEASkipReason) -> Bool { a.rank < b.rank }

    private var rank: Int { NMEASkipReason.allCases.firstIndex(of: self) ?? 0 }
}

/// One skipped line or sentence, with the line it was on (1-based).
public struct NMEADiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: NMEASkipReason
    /// What exactly was wrong, e.g. `expected 4A, found 4B` or `GGA latitude 9100.0000 out of range`.
    public var detail: String

    public init(line: Int, reason: NMEASkipReason, detail: String) {
        self.line = line; self.reason = reason; self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "line \(line): \(reason.rawValue)" : "line \(line): \(reason.rawValue): \(detail)"
    }
}

/// What an ``NMEAFixReader`` has seen so far: counts of lines, sentences, epochs and of everything skipped.
public struct NMEAStatistics: Sendable, Equatable {
    /// How many diagnostics are kept with their line numbers; later ones are only counted.
    public static let diagnosticLimit = 1000

    /// Lines read (a last line without a newline counts).
    public internal(set) var lines = 0
    /// Standard sentences with a good checksum that were decoded.
    public internal(set) var sentences = 0
    /// Receiver epochs reported (one ``Fix`` each).
    public internal(set) var epochs = 0
    /// Epochs with a 2D or 3D position.
    public internal(set) var fixes = 0
    /// `#` comment lines.
    public internal(set) var comments = 0
    /// Epochs whose time was earlier than the epoch before (reported all the same).
    public internal(set) var timeRegressions = 0
    /// Skipped lines and sentences by reason.
    public internal(set) var skippedByReason: [NMEASkipReason: Int] = [:]
    /// The first ``diagnosticLimit`` skipped lines and sentences, with line numbers.
    public internal(set) var diagnostics: [NMEADiagnostic] = []
    /// Skips beyond ``diagnosticLimit`` (counted, not listed).
    public internal(set) var diagnosticsDropped = 0

    public init() {}

    public var badChecksum: Int { skippedByReason[.badChecksum, default: 0] }
    public var missingChecksum: Int { skippedByReason[.missingChecksum, default: 0] }
    public var proprietary: Int { skippedByReason[.proprietary, default: 0] }
    public var ais: Int { skippedByReason[.ais, default: 0] }
    /// Unknown sentence types and non-standard `$` lines.
    public var unknown: Int { skippedByReason[.unknownSentence, default: 0] + skippedByReason[.nonstandard, default: 0] }
    public var malformed: Int { skippedByReason[.malformed, default: 0] }
    /// Everything skipped, whatever the reason.
    public var skipped: Int { skippedByReason.values.reduce(0, +) }

    /// True when the decoder needs the detail text for the next diagnostic (so it is built only then).
    var wantsDetail: Bool { diagnostics.count < Self.diagnosticLimit }

    mutating func skip(_ reason: NMEASkipReason, line: Int, detail: @autoclosure () -> String) {
        skippedByReason[reason, default: 0] += 1
        if diagnostics.count < Self.diagnosticLimit {
            diagnostics.append(NMEADiagnostic(line: line, reason: reason, detail: detail()))
        } else {
            diagnosticsDropped += 1
        }
    }
}
