import Foundation
import Interchange
import Location
import NMEA
import TreesKit

/// Replays a recorded NMEA track: every fix written in one output form, and a report of what the
/// file held (epochs, fixes by mode, time span, skipped lines).
public enum ReplayWorkflow {
    /// How each fix is written.
    public enum Output {
        /// One gpsd-style TPV object per line (JSON Lines).
        case jsonLines
        /// One GPX 1.1 track named `name`.
        case gpxTrack(name: String)
        /// Each fix as the caller renders it (the command line's text lines, say).
        case lines((Fix) -> String)
    }

    /// Where the bytes go: called with each block (and with every fix when pacing), in order;
    /// a throw stops the replay.
    public typealias Sink = ([UInt8]) throws -> Void

    /// Reads `path` at `speed`, writing to `sink`; throws `LocationError` for a file it cannot read.
    public static func run(path: String, speed: ReplaySpeed, output: Output, sink: Sink) async throws -> ReplayReport {
        var out: [UInt8] = []
        let blockSize = 1 << 18
        out.reserveCapacity(blockSize + 4096)
        let eachFix = speed != .max
        var report = ReplayReport()
        var track = GPXTrackWriter(name: { if case .gpxTrack(let name) = output { name } else { "" } }())
        if case .gpxTrack = output { track.begin(into: &out) }
        // JSON Lines are gpsd's reports: times as gpsd gives them (its week-rollover guard).
        let asGpsd = if case .jsonLines = output { true } else { false }
        report.statistics = try await ReplaySource(path: path, speed: speed, timesAsGpsd: asGpsd).run { fix in
            report.add(fix)
            switch output {
            case .jsonLines: FixJSON.append(fix, to: &out)
            case .gpxTrack: track.add(fix, into: &out)
            case .lines(let render):
                var line = render(fix)
                line.withUTF8 { out.append(contentsOf: $0) }
            }
            if eachFix || out.count >= blockSize {
                try sink(out)
                out.removeAll(keepingCapacity: true)
            }
        }
        if case .gpxTrack = output { track.end(into: &out) }
        if !out.isEmpty { try sink(out) }
        return report
    }
}

/// What a replayed file held: epochs, fixes by mode, the time span, and the reader's counts of
/// lines, sentences and skipped lines by reason.
public struct ReplayReport: Sendable {
    public var epochs = 0
    public var threeD = 0
    public var twoD = 0
    /// Receiver time of the first and last epoch that had one.
    public var first: Date?
    public var last: Date?
    public var statistics = NMEAStatistics()

    public init() {}

    public var fixes: Int { threeD + twoD }

    mutating func add(_ fix: Fix) {
        epochs += 1
        if fix.hasPosition {
            if fix.mode == .threeD { threeD += 1 } else { twoD += 1 }
        }
        if let t = fix.time {
            if first == nil { first = t }
            last = t
        }
    }
}
