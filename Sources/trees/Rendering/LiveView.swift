import Foundation
import TreesKit

/// The live GPS status block: accuracy badge, fix, satellites, HDOP, age, position, the accuracy
/// of the last minute as a sparkline with its trend, and what the source last reported.
///
/// A value type that renders to lines of text, so it can be tested without a terminal and used by
/// any command that shows a live fix (`trees gps`, `trees capture`). Feed it every event with the
/// time it arrived (`update(with:now:)`), call `tick(now:)` between events so the age and the
/// stale state move on, and draw `render(width:colour:)`.
struct LiveView {
    /// How the source was named, e.g. `gpsd://localhost:2947`.
    var sourceName: String
    /// The command shown in the header (`trees gps`, `trees capture`).
    var title = "trees gps"
    /// A fix older than this is shown as stale (grey).
    var staleAfter: Duration
    private(set) var session: CaptureSession
    private(set) var version: String?
    private(set) var devices: [DeviceInfo] = []
    /// Recent status messages, newest last, with the wall-clock time they arrived.
    private(set) var messages: [(at: Date, text: String)] = []
    private var origin: Date?
    private var now: Date?
    /// How many status messages are kept on screen.
    static let messageLines = 3
    /// The source has gone away (gpsd stopped, device unplugged) and is being reconnected.
    private(set) var sourceDown = false
    /// The correction stream the source forwards to the receiver, when there is one (NTRIP).
    private(set) var corrections: CorrectionStreamStatus?

    /// Height of the antenna above the ground, shown beside the heights it is taken from.
    var antennaHeight: Double?

    init(sourceName: String, staleAfter: Duration = .seconds(5), requiredFix: RequiredFix? = nil) {
        self.sourceName = sourceName
        self.staleAfter = staleAfter
        session = CaptureSession(gate: CaptureGate(stale: staleAfter, requiredFix: requiredFix))
    }

    mutating func update(with event: LocationEvent, now: Date) {
        tick(now: now)
        session.handle(event, at: offset(now))
        switch event {
        case .fix:
            sourceDown = false
            return
        case let .connected(version, devices):
            sourceDown = false
            self.version = version
            self.devices = devices
        case let .deviceAdded(device):
            devices.removeAll { $0.path == device.path }
            devices.append(device)
        case let .deviceRemoved(device):
            devices.removeAll { $0.path == device.path }
        case .sourceLost, .reconnecting:
            sourceDown = true
        case .noFix, .fixLost, .warning:
            break
        case let .corrections(status):
            // Streaming reports come once a second; only a change of state is worth a message.
            let changed = corrections?.state != status.state || corrections?.caster != status.caster
            corrections = status
            if !changed { return }
        }
        messages.append((now, Self.describe(event)))
        if messages.count > Self.messageLines { messages.removeFirst(messages.count - Self.messageLines) }
    }

    /// Moves the view's clock on without an event.
    mutating func tick(now: Date) {
        if origin == nil { origin = now }
        self.now = now
        session.tick(at: offset(now))
    }

    private func offset(_ date: Date) -> Duration {
        .milliseconds(Int64((date.timeIntervalSince(origin ?? date) * 1000).rounded()))
    }

    /// The block's lines, each at most `width` visible characters; ANSI colour only when `colour`.
    func render(width: Int, colour: Bool) -> [String] {
        let t = Terminal(stdoutIsTTY: colour, stdinIsTTY: false, colour: colour)
        var lines: [String] = []
        var header = "\(title)  \(sourceName)"
        if let version { header += "  gpsd \(version)" }
        if !devices.isEmpty {
            header += "  " + devices.map { d in d.driver.map { "\(d.path) (\($0))" } ?? d.path }.joined(separator: ", ")
        }
        lines.append(t.dim(header))

        let fix = session.lastFix
        let state = session.state
        let age = session.lastFixAt.map { offset(now ?? Date()) - $0 }
        var badge: String
        switch state {
        case .searching(.stale(let a)):
            badge = t.paint("Stale", .grey) + t.dim("  last fix \(Self.seconds(a)) ago")
        case .searching(.noFix), .searching(.noPosition):
            badge = t.paint("No fix", .grey) + (sourceDown ? t.dim("  source lost, reconnecting") : "")
        case .searching(.noAccuracy):
            badge = t.paint("Fix, accuracy unknown", .grey)
        case let .searching(.fixQuality(status, required, correctionAge)):
            badge = t.bold(t.badge(metres: fix?.horizontalAccuracy)) + "  "
                + t.paint(CaptureSession.qualityText(status, required, correctionAge), .orange)
        default:
            badge = t.bold(t.badge(metres: fix?.horizontalAccuracy))
            if let source = fix?.accuracySource { badge += t.dim("  (\(source.rawValue), 95% radius)") }
        }
        lines.append(badge)

        var facts: [String] = []
        let current: Bool = switch state { case .searching(.fixQuality): true; case .searching: false; default: true }
        let modeText = fix.map { $0.mode.hasPosition ? "\($0.mode.title) fix" : $0.mode.title } ?? "waiting for a fix"
        facts.append(fix != nil && !current && fix?.hasPosition == true ? "last fix \(modeText)" : modeText)
        if let f = fix, f.hasPosition, f.status != .unknown, f.status != .gps {
            var quality = f.status.title
            if let age = f.correctionAge { quality += ", corrections \(Self.age(age)) old" }
            facts.append(quality)
        }
        if let n = fix?.satellitesUsed { facts.append("\(n) satellites") }
        if let h = fix?.hdop {
            // A receiver that sends no DOPs: the HDOP (and the accuracy from it) is worked out.
            let worked = fix?.derived.contains(.dop) == true ? " from satellite geometry" : ""
            facts.append(String(format: "HDOP %.1f", h) + worked)
        }
        if let age { facts.append("age \(Self.seconds(age))") }
        lines.append(facts.joined(separator: "  "))

        if let c = fix?.coordinate, fix?.hasPosition == true {
            var p = "\(Format.degrees(c.latitude)), \(Format.degrees(c.longitude))"
            if let alt = fix?.altitudeMSL {
                let pole = antennaHeight ?? 0
                // Centimetres matter once the height is known that well (RTK).
                let precise = (fix?.verticalAccuracy ?? .infinity) < 1
                p += String(format: precise ? "  alt %.3f m" : "  alt %.1f m", alt - pole)
                if let v = fix?.verticalAccuracy { p += "  ±" + Format.metres(v) + " (95%)" }
                if pole != 0 { p += String(format: "  (antenna %.2f m above the ground)", pole) }
            } else if let pole = antennaHeight, pole != 0 {
                p += String(format: "  antenna %.2f m above the ground", pole)
            }
            lines.append(p)
        } else {
            lines.append(t.dim("no position"))
        }

        let values = session.history.map(\.metres)
        if values.isEmpty {
            lines.append(t.dim("last minute: no accuracy yet"))
        } else {
            let spark = Sparkline.render(values, width: max(8, min(60, width - 40)))
            let range = String(format: "%.1f–%.1f m", values.min() ?? 0, values.max() ?? 0)
            let trend = session.trend == .unknown ? "" : "  " + session.trend.rawValue
            lines.append("last minute \(t.paint(spark, AccuracyClass(metres: values.last).colour))  \(range)\(trend)")
        }

        if let c = corrections { lines.append(correctionsLine(c, terminal: t)) }

        for m in messages { lines.append(t.dim(Self.clock(m.at) + "  " + m.text)) }
        for _ in messages.count..<Self.messageLines { lines.append("") }
        return lines.map { Self.fit($0, width: width) }
    }

    /// One line for a status event, as people read it.
    static func describe(_ event: LocationEvent) -> String {
        switch event {
        case let .fix(fix):
            fix.hasPosition ? "fix" : "no fix"
        case let .connected(version, devices):
            (version.map { "connected to gpsd \($0)" } ?? "connected")
                + (devices.isEmpty ? "" : "; " + devices.map(deviceText).joined(separator: ", "))
        case .noFix: "no fix yet"
        case .fixLost: "fix lost"
        case let .deviceAdded(d): "device \(deviceText(d))"
        case let .deviceRemoved(d): "device \(d.path) gone"
        case let .sourceLost(reason): "lost the source: \(reason)"
        case let .reconnecting(attempt, delay): "reconnecting in \(seconds(delay)) (attempt \(attempt))"
        case let .warning(text): text
        case let .corrections(status):
            switch status.state {
            case .connecting: "corrections: connecting to \(status.caster)"
            case .streaming: "corrections: streaming from \(status.caster)"
            case let .failed(reason): "corrections: \(reason)"
            }
        }
    }

    /// The state of the correction stream: where from, how much, how fresh.
    func correctionsLine(_ c: CorrectionStreamStatus, terminal t: Terminal) -> String {
        switch c.state {
        case .connecting:
            return t.paint("Corrections: connecting to \(c.caster)", .yellow)
        case let .failed(reason):
            return t.paint("Corrections: \(reason)", .red)
        case .streaming:
            var text = "Corrections: \(c.caster), \(Self.bytes(c.bytes))"
            if let last = c.lastData, let now {
                let age = max(0, now.timeIntervalSince(last))
                text += ", last \(Self.age(age)) ago"
                if age > 10 { return t.paint(text, .orange) }
            }
            return t.paint(text, .green)
        }
    }

    /// Seconds as "0.4 s", "3 s", "2 min", "over a day".
    static func age(_ seconds: Double) -> String {
        guard seconds < 86_400 else { return "over a day" }
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        if seconds < 120 { return "\(Int(seconds.rounded())) s" }
        return "\(Int((seconds / 60).rounded())) min"
    }

    /// A byte count as "812 B", "14.2 kB", "3.1 MB".
    static func bytes(_ n: Int) -> String {
        if n < 1000 { return "\(n) B" }
        if n < 1_000_000 { return String(format: "%.1f kB", Double(n) / 1000) }
        return String(format: "%.1f MB", Double(n) / 1_000_000)
    }

    static func deviceText(_ d: DeviceInfo) -> String {
        [d.path, d.driver, d.subtype].compactMap { $0 }.joined(separator: " ")
    }

    static func seconds(_ d: Duration) -> String {
        let s = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        return s < 10 ? String(format: "%.1f s", max(0, s)) : String(format: "%.0f s", s)
    }


    static func clock(_ date: Date) -> String { Format.clock(date) }

    /// Cuts a line to `width` visible characters (dropping its colour if it must be cut).
    static func fit(_ line: String, width: Int) -> String {
        let plain = ANSI.strip(line)
        guard plain.count > width, width > 1 else { return line }
        return String(plain.prefix(width - 1)) + "…"
    }
}
