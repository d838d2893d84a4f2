import ArgumentParser
import Foundation
import Location
import NMEA
import TreesKit
import TreesWorkflows

/// `trees replay FILE`: reads a recorded NMEA track and prints its fixes, as text, JSON Lines or GPX.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Read a recorded NMEA track and print one line per fix.",
        discussion: """
            Each receiver epoch becomes one fix: time (UTC), mode, position, the accuracy badge (the \
            radius in metres of the 95% confidence circle, from GST, GBS or HDOP) and satellites used. \
            A summary (epochs, fixes, skipped lines by reason, time span) goes to standard error; \
            --verbose lists every skipped line with its line number. With --speed N the fixes are paced \
            by their recorded times, N times real time; the default is max, as fast as possible.
            """
    )

    @Argument(help: ArgumentHelp("The NMEA 0183 file to read.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("A factor of real time, or max for no pacing.", valueName: "n|max"))
    var speed: ReplaySpeed = .max

    @Flag(help: ArgumentHelp("Write one gpsd-style TPV JSON object per fix (JSON Lines).", discussion: """
        Values are gpsd's for the same file: a true track worked out from a magnetic heading with gpsd's \
        grid of magnetic variation, DOPs worked out from the directions of the satellites used when the \
        receiver sends none (named in "derived", and said in the human lines), and a receiver time before 2017 moved ahead 1024 weeks (gpsd's guard \
        against the GPS week rollover) unless the file has a "# Date: yyyy-mm-dd" line; the date of the last \
        RMC or ZDA is kept past midnight, a cycle gpsd never reports (one its receiver's cycle-ending \
        sentence did not come in) gives no line, and the file's last cycle is given as gpsd last reported it. \
        The other forms keep the time the receiver sent, with the date rolled over midnight, and every cycle.
        """))
    var jsonl = false

    @Flag(help: "Write the fixes as a GPX 1.1 track.")
    var gpx = false

    @Flag(help: "List every skipped line with its line number and reason.")
    var verbose = false

    func validate() throws {
        if jsonl && gpx { throw ValidationError("--jsonl and --gpx cannot be used together") }
    }

    func run() async throws {
        let terminal = Terminal.current
        let output: ReplayWorkflow.Output =
            jsonl ? .jsonLines : gpx ? .gpxTrack(name: (file as NSString).lastPathComponent) : .lines { Self.humanLine($0, terminal: terminal) }
        let report = try await ReplayWorkflow.run(path: file, speed: speed, output: output) { bytes in
            bytes.withUnsafeBytes { Output.write($0) }
        }
        StandardError.write(ReplaySummary.text(report, verbose: verbose))
    }

    /// `2025-03-15 10:15:03Z  3D  48.1173000  11.5220667  Good 6.2 m  8 sats`
    static func humanLine(_ fix: Fix, terminal: Terminal) -> String {
        var line = fix.time.map(ReplaySummary.timeText) ?? "(no time)           "
        guard fix.hasPosition, let c = fix.coordinate else {
            line += "  " + terminal.badge(metres: nil, hasFix: false)
            if let n = fix.satellitesUsed { line += "  \(n) sats" }
            return line + "\n"
        }
        line += "  " + fix.mode.title
        line += "  " + String(format: "%11.7f %12.7f", c.latitude, c.longitude)
        line += "  " + terminal.badge(metres: fix.horizontalAccuracy)
        if let source = fix.accuracySource {
            // An HDOP the receiver did not send is said to be worked out.
            let worked = source == .dop && fix.derived.contains(.dop) ? ", from satellite geometry" : ""
            line += " (\(source.rawValue)\(worked))"
        }
        if let n = fix.satellitesUsed { line += "  \(n) sats" }
        if fix.status.correctionRank > 0 {
            line += "  " + fix.status.title
            if let age = fix.correctionAge { line += String(format: " (corrections %.1f s old)", age) }
        }
        return line + "\n"
    }
}

/// The summary of a replay, for standard error.
enum ReplaySummary {
    /// `2025-03-15 10:15:03Z`, with milliseconds only when the time has them.
    static func timeText(_ date: Date) -> String {
        TextCodec.iso8601(date, fraction: .whenPresent).replacingOccurrences(of: "T", with: " ")
    }

    static func text(_ r: ReplayReport, verbose: Bool) -> String {
        let s = r.statistics
        var out = "\(r.epochs) epochs, \(r.fixes) fixes (\(r.threeD) 3D, \(r.twoD) 2D), \(r.epochs - r.fixes) without a fix"
        if let first = r.first, let last = r.last {
            out += ", \(timeText(first)) to \(timeText(last)) (\(span(last.timeIntervalSince(first))))"
        }
        out += "\n"
        let skipped = s.skipped
        out += "\(s.lines) lines, \(s.sentences) sentences with a good checksum, \(skipped) skipped"
        if skipped > 0 {
            let reasons = s.skippedByReason.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }
            out += ": " + reasons.joined(separator: ", ")
        }
        out += "\n"
        if s.timeRegressions > 0 { out += "time went backwards \(s.timeRegressions) times\n" }
        if verbose {
            for d in s.diagnostics { out += "  \(d)\n" }
            if s.diagnosticsDropped > 0 { out += "  … and \(s.diagnosticsDropped) more\n" }
        }
        return out
    }

    static func span(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min \(total % 60) s" }
        return "\(total / 3600) h \(total / 60 % 60) min"
    }
}
