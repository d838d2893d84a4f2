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

    init(sourceName: String, staleAfter: Duration = .seconds(5)) {
        self.sourceName = sourceName
        self.staleAfter = staleAfter
        session = CaptureSession(gate: CaptureGate(stale: staleAfter))
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
            corrections = status
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
        default:
            badge = t.bold(t.badge(metres: fix?.horizontalAccuracy))
            if let source = fix?.accuracySource { badge += t.dim("  (\(source.rawValue), 95% radius)") }
        }
        lines.append(badge)

        var facts: [String] = []
        let current: Bool = switch state { case .searching: false; default: true }
        let modeText = fix.map { $0.mode.hasPosition ? "\($0.mode.title) fix" : $0.mode.title } ?? "waiting for a fix"
        facts.append(fix != nil && !current && fix?.hasPosition == true ? "last fix \(modeText)" : modeText)
        if let n = fix?.satellitesUsed { facts.append("\(n) satellites") }
        if let h = fix?.hdop { facts.append(String(format: "HDOP %.1f", h)) }
        if let age { facts.append("age \(Self.seconds(age))") }
        lines.append(facts.joined(separator: "  "))

        if let c = fix?.coordinate, fix?.hasPosition == true {
            var p = "\(Format.degrees(c.latitude)), \(Format.degrees(c.longitude))"
            if let alt = fix?.altitudeMSL { p += String(format: "  alt %.1f m", alt) }
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
