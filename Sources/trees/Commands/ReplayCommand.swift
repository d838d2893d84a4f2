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
    var speed: String = "max"

    @Flag(help: "Write one gpsd-style TPV JSON object per fix (JSON Lines).")
    var jsonl = false

    @Flag(help: "Write the fixes as a GPX 1.1 track.")
    var gpx = false

    @Flag(help: "List every skipped line with its line number and reason.")
    var verbose = false

    func validate() throws {
        guard ReplaySpeed(speed) != nil else { throw ValidationError("--speed must be a positive number or max, not '\(speed)'") }
        if jsonl && gpx { throw ValidationError("--jsonl and --gpx cannot be used together") }
    }

    func run() async throws {
        let replaySpeed = ReplaySpeed(speed) ?? .max
        let terminal = Terminal.current
        var out = OutputBuffer(flushEachWrite: replaySpeed != .max)
        var summary = ReplaySummary()
        var gpxWriter = GPXTrackWriter(name: (file as NSString).lastPathComponent)
        let statistics: NMEAStatistics
        do {
            if gpx { gpxWriter.begin(into: &out.bytes) }
            statistics = try await ReplaySource(path: file, speed: replaySpeed).run { fix in
                summary.add(fix)
                if jsonl {
                    FixJSON.append(fix, to: &out.bytes)
                } else if gpx {
                    gpxWriter.add(fix, into: &out.bytes)
                } else {
                    out.append(Self.humanLine(fix, terminal: terminal))
                }
                try out.flushIfNeeded()
            }
            if gpx { gpxWriter.end(into: &out.bytes) }
            try out.flush()
        } catch let error as ReplayError {
            switch error {
            case .cannotOpen: throw CLIError(error.description, status: .noInput)
            case .readFailed: throw CLIError(error.description, status: .ioError)
            case .noNMEA: throw CLIError(error.description, status: .dataError)
            }
        }
        StandardError.write(summary.text(statistics: statistics, verbose: verbose))
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
        if let source = fix.accuracySource { line += " (\(source.rawValue))" }
        if let n = fix.satellitesUsed { line += "  \(n) sats" }
        return line + "\n"
    }
}

/// Counts fixes by mode and the time span for the summary line.
struct ReplaySummary {
    var epochs = 0
    var threeD = 0
    var twoD = 0
    var first: Date?
    var last: Date?

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

    static func timeText(_ date: Date) -> String {
        var bytes: [UInt8] = []
        FixJSON.appendTimestamp(date, to: &bytes)
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix(".000Z") { text = String(text.dropLast(5)) + "Z" }
        return text.replacingOccurrences(of: "T", with: " ")
    }

    func text(statistics s: NMEAStatistics, verbose: Bool) -> String {
        let fixes = threeD + twoD
        var out = "\(epochs) epochs, \(fixes) fixes (\(threeD) 3D, \(twoD) 2D), \(epochs - fixes) without a fix"
        if let first, let last {
            out += ", \(Self.timeText(first)) to \(Self.timeText(last)) (\(Self.span(last.timeIntervalSince(first))))"
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

/// Standard output collected in a byte buffer and written with write(2) in large blocks.
struct OutputBuffer {
    var bytes: [UInt8] = []
    let flushEachWrite: Bool
    static let blockSize = 1 << 18

    init(flushEachWrite: Bool) {
        self.flushEachWrite = flushEachWrite
        bytes.reserveCapacity(Self.blockSize + 4096)
    }

    mutating func append(_ text: String) {
        var t = text
        t.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func flushIfNeeded() throws {
        if flushEachWrite || bytes.count >= Self.blockSize { try flush() }
    }

    mutating func flush() throws {
        if let code = bytes.withUnsafeBytes({ writeAll(STDOUT_FILENO, $0) }) {
            throw CLIError("cannot write standard output: \(String(cString: strerror(code)))", status: .ioError)
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// Writes fixes as one GPX 1.1 track, streaming: a new segment starts after each loss of fix.
struct GPXTrackWriter {
    let name: String
    var segmentOpen = false

    init(name: String) { self.name = name }

    func begin(into out: inout [UInt8]) {
        out.append(contentsOf: Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="trees" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <trk>
              <name>\(Self.escape(name))</name>

            """.utf8))
    }

    mutating func add(_ fix: Fix, into out: inout [UInt8]) {
        guard fix.hasPosition, let c = fix.coordinate else {
            if segmentOpen { Self.literal("  </trkseg>\n", &out); segmentOpen = false }
            return
        }
        if !segmentOpen { Self.literal("  <trkseg>\n", &out); segmentOpen = true }
        Self.literal("   <trkpt lat=\"", &out)
        Self.decimal(c.latitude, places: 9, &out)
        Self.literal("\" lon=\"", &out)
        Self.decimal(c.longitude, places: 9, &out)
        Self.literal("\">", &out)
        if let ele = fix.altitudeMSL, ele.isFinite { element("ele", ele, places: 3, &out) }
        if let time = fix.time {
            Self.literal("<time>", &out)
            FixJSON.appendTimestamp(time, to: &out)
            Self.literal("</time>", &out)
        }
        if let g = fix.geoidSeparation, g.isFinite { element("geoidheight", g, places: 3, &out) }
        switch fix.status {
        case .dgps: Self.literal("<fix>dgps</fix>", &out)
        case .pps: Self.literal("<fix>pps</fix>", &out)
        default: Self.literal(fix.mode == .threeD ? "<fix>3d</fix>" : "<fix>2d</fix>", &out)
        }
        if let n = fix.satellitesUsed {
            Self.literal("<sat>", &out)
            FixJSON.appendInteger(n, to: &out)
            Self.literal("</sat>", &out)
        }
        if let v = fix.hdop, v.isFinite, v >= 0 { element("hdop", v, places: 2, &out) }
        if let v = fix.vdop, v.isFinite, v >= 0 { element("vdop", v, places: 2, &out) }
        if let v = fix.pdop, v.isFinite, v >= 0 { element("pdop", v, places: 2, &out) }
        Self.literal("</trkpt>\n", &out)
    }

    mutating func end(into out: inout [UInt8]) {
        if segmentOpen { Self.literal("  </trkseg>\n", &out); segmentOpen = false }
        Self.literal(" </trk>\n</gpx>\n", &out)
    }

    private func element(_ tag: StaticString, _ value: Double, places: Int, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "<")); Self.literal(tag, &out); out.append(UInt8(ascii: ">"))
        Self.decimal(value, places: places, &out)
        Self.literal("</", &out); Self.literal(tag, &out); out.append(UInt8(ascii: ">"))
    }

    static func literal(_ s: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private static let scales: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// Fixed-point decimal (xsd:decimal has no exponent), rounded to `places`, trailing zeros trimmed.
    static func decimal(_ value: Double, places: Int, _ out: inout [UInt8]) {
        let scaled = (abs(value) * scales[places]).rounded()
        guard scaled < 9e18 else { out.append(contentsOf: Array(String(format: "%.\(places)f", value).utf8)); return }
        var units = Int64(scaled)
        if value < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        let divisor = Int64(scales[places])
        FixJSON.appendInteger(Int(units / divisor), to: &out)
        units %= divisor
        guard units != 0 else { return }
        out.append(UInt8(ascii: "."))
        var digits = places
        while units % 10 == 0 { units /= 10; digits -= 1 }
        let start = out.count
        out.append(contentsOf: repeatElement(UInt8(48), count: digits))
        var i = start + digits - 1
        while units > 0 { out[i] = UInt8(48 + units % 10); units /= 10; i -= 1 }
    }

    static func escape(_ text: String) -> String {
        var s = ""
        for ch in text.unicodeScalars {
            switch ch {
            case "&": s += "&amp;"
            case "<": s += "&lt;"
            case ">": s += "&gt;"
            case "\"": s += "&quot;"
            default:
                if ch.value < 0x20 && ch != "\t" && ch != "\n" { continue }
                s.unicodeScalars.append(ch)
            }
        }
        return s
    }
}
