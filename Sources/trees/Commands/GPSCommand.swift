import ArgumentParser
import Foundation
import Location
import TreesKit
import TreesWorkflows

/// `trees gps`: watches the location source live.
struct GPSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gps",
        abstract: "Show the live fix from gpsd, a serial receiver, a recorded track or NMEA on standard input.",
        discussion: """
            On a terminal: one status block redrawn in place — the accuracy badge (the radius in \
            metres of the 95% confidence circle, coloured by class), fix mode, satellites used, HDOP, \
            age of the last fix, position, the accuracy of the last minute as a sparkline with its \
            trend, and what the source last reported (connected, fix lost, reconnecting…). Otherwise \
            one line per fix, status events on standard error. With --jsonl, one JSON object per fix \
            (the keys and values of `trees replay --jsonl`) and per status event ({"class":"STATUS","event":…}). \
            --status prints gpsd's version and devices and exits. Ctrl-C ends cleanly (status 0). \
            If gpsd cannot be reached the exit status is 69; a bad --source is 64.
            """
    )

    @OptionGroup var sourceOptions: SourceOptions

    @Option(help: ArgumentHelp("Stop after this many fixes.", valueName: "n"))
    var count: Int?

    @Option(help: ArgumentHelp("Stop after this many seconds.", valueName: "seconds"))
    var duration: Double?

    @Flag(help: "Write one JSON object per fix and per status event (JSON Lines).")
    var jsonl = false

    @Flag(help: "Print the source's version and devices, then exit.")
    var status = false

    func validate() throws {
        if let count, count <= 0 { throw ValidationError("--count must be a positive number of fixes") }
        if let duration { try SecondsOption.check(duration, "--duration") }
    }

    func run() async throws {
        let source = try sourceOptions.locationSource(asGpsd: jsonl)
        let terminal = Terminal.current
        GPSSignals.install(live: !status && !jsonl && terminal.stdoutIsTTY)
        if status {
            try await printStatus(source, terminal: terminal)
            return
        }
        let mode: OutputMode = jsonl ? .jsonl : terminal.stdoutIsTTY ? .live : .lines
        var printer = GPSPrinter(mode: mode, terminal: terminal, sourceName: source.description)
        defer { printer.finish() }
        var fixes = 0
        let deadline = duration.map { ContinuousClock.now + SecondsOption.duration($0) }
        for try await input in source.inputs(ticking: mode == .live, until: deadline).mappingErrors(CLIError.from) {
            switch input {
            case let .event(event):
                printer.show(event, now: Date())
                if case .fix = event {
                    fixes += 1
                    if let count, fixes >= count { return }
                }
            case .tick:
                printer.tick(now: Date())
            }
        }
    }

    /// The source named by `--source`, with `--speed` applied to a replay.
    static func spec(_ options: SourceOptions) throws -> LocationSourceSpec {
        var spec: LocationSourceSpec
        do {
            spec = try LocationSourceSpec(parsing: options.source)
        } catch {
            throw CLIError(error.description, status: .usage)
        }
        if case let .replay(path, _) = spec, let speed = options.speed {
            spec = .replay(path: path, speed: speed)
        }
        return spec
    }

    /// `--status`: waits for the source to say who it is, gathers the devices it names in the
    /// next half second (up to 3 s while it names none or their drivers are unknown), prints them and ends.
    func printStatus(_ source: any LocationSource, terminal: Terminal) async throws {
        var version: String?
        var devices: [DeviceInfo] = []
        var connectedAt: ContinuousClock.Instant?
        loop: for try await input in source.inputs(ticking: true).mappingErrors(CLIError.from) {
            // Devices gpsd names in the next half second count too; while it names none, or has not
            // identified a device's driver yet, wait up to 3 s.
            let settling = devices.isEmpty || devices.contains { $0.driver == nil }
            if let at = connectedAt, ContinuousClock.now - at > (settling ? .seconds(3) : .milliseconds(500)) { break loop }
            guard case let .event(event) = input else { continue }
            switch event {
            case let .connected(v, d):
                version = v; devices = d
                connectedAt = connectedAt ?? ContinuousClock.now
            case let .deviceAdded(d):
                devices.removeAll { $0.path == d.path }
                devices.append(d)
            case let .deviceRemoved(d):
                devices.removeAll { $0.path == d.path }
            case .fix:
                if connectedAt != nil { break loop }
            default:
                break
            }
        }
        if jsonl {
            Output.line(GPSPrinter.statusJSON(.connected(version: version, devices: devices)))
            return
        }
        Output.line((version.map { "gpsd \($0)" } ?? "source") + " at \(source.description)")
        if devices.isEmpty { Output.line("no devices") }
        for d in devices {
            Output.line("  " + [d.path, d.driver, d.subtype].compactMap { $0 }.joined(separator: "  "))
        }
    }
}

extension SourceOptions {
    /// The source named by `--source` (gpsd, serial, replay or stdin), with `--speed`, `--wait`
    /// and `--ntrip` applied; `asGpsd` for output that promises gpsd's values (`--jsonl`).
    func locationSource(asGpsd: Bool = false) throws -> any LocationSource {
        let spec = try GPSCommand.spec(self)
        return spec.makeSource(wait: wait, corrections: try correctionClient(for: spec), asGpsd: asGpsd)
    }
}

/// A length of time given in seconds on the command line (`--duration`, `--timeout`, `--stale`).
enum SecondsOption {
    /// The longest accepted: a year, far past any wait in the field and well inside what the
    /// clock can count.
    static let maximum = 31_536_000.0

    /// Refuses anything but a positive number of seconds up to `maximum`.
    static func check(_ seconds: Double, _ option: String) throws {
        guard seconds.isFinite, seconds > 0, seconds <= maximum else {
            throw ValidationError("\(option) must be a positive number of seconds, at most \(Int(maximum)) (a year)")
        }
    }

    /// A checked number of seconds as a `Duration`, to the millisecond.
    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((min(max(seconds, 0), maximum) * 1000).rounded()))
    }
}


enum OutputMode { case live, lines, jsonl }

/// Writes events in the chosen output mode.
struct GPSPrinter {
    let mode: OutputMode
    let terminal: Terminal
    var view: LiveView
    var screen = LiveScreen()
    /// The last correction stream state written in `.lines` mode.
    private var linesCorrectionState: CorrectionStreamStatus.State?

    init(mode: OutputMode, terminal: Terminal, sourceName: String) {
        self.mode = mode
        self.terminal = terminal
        view = LiveView(sourceName: sourceName)
        if mode == .live { TerminalState.write("\u{1B}[?25l") }
    }

    mutating func show(_ event: LocationEvent, now: Date) {
        switch mode {
        case .live:
            view.update(with: event, now: now)
            screen.draw(view.render(width: Terminal.width, colour: terminal.colour))
        case .lines:
            if case let .fix(fix) = event {
                Self.write(ReplayCommand.humanLine(fix, terminal: terminal))
            } else if case let .corrections(status) = event, status.state == linesCorrectionState {
                // A correction stream's state is written when it changes, not with each second's byte count.
            } else {
                StandardError.write("trees: \(LiveView.describe(event))\n")
            }
            if case let .corrections(status) = event { linesCorrectionState = status.state }
        case .jsonl:
            if case let .fix(fix) = event {
                Self.write(FixJSON.line(fix) + "\n")
            } else {
                Self.write(Self.statusJSON(event) + "\n")
            }
        }
    }

    mutating func tick(now: Date) {
        guard mode == .live else { return }
        view.tick(now: now)
        screen.draw(view.render(width: Terminal.width, colour: terminal.colour))
    }

    /// Leaves the terminal as it was found: attributes reset, cursor shown.
    func finish() {
        if mode == .live { TerminalState.write("\u{1B}[0m\u{1B}[?25h") }
    }

    /// Unbuffered, so every line is out when the process is interrupted.
    static func write(_ text: String) { Output.text(text) }

    /// A status event as one JSON object: `{"class":"STATUS","event":"reconnecting","attempt":2,"delay":2}`.
    static func statusJSON(_ event: LocationEvent) -> String {
        func device(_ d: DeviceInfo) -> JSON {
            var pairs: [(String, JSON)] = [("path", .string(d.path))]
            if let driver = d.driver { pairs.append(("driver", .string(driver))) }
            if let subtype = d.subtype { pairs.append(("subtype", .string(subtype))) }
            return .object(pairs)
        }
        var pairs: [(String, JSON)] = [("class", .string("STATUS"))]
        switch event {
        case .fix:
            pairs.append(("event", .string("fix")))
        case let .connected(version, devices):
            pairs.append(("event", .string("connected")))
            if let version { pairs.append(("version", .string(version))) }
            pairs.append(("devices", .array(devices.map(device))))
        case .noFix:
            pairs.append(("event", .string("noFix")))
        case .fixLost:
            pairs.append(("event", .string("fixLost")))
        case let .deviceAdded(d):
            pairs.append(("event", .string("deviceAdded")))
            pairs.append(("device", device(d)))
        case let .deviceRemoved(d):
            pairs.append(("event", .string("deviceRemoved")))
            pairs.append(("device", device(d)))
        case let .sourceLost(reason):
            pairs.append(("event", .string("sourceLost")))
            pairs.append(("reason", .string(reason)))
        case let .reconnecting(attempt, delay):
            pairs.append(("event", .string("reconnecting")))
            pairs.append(("attempt", .int(attempt)))
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            pairs.append(("delay", .number(seconds)))
        case let .warning(text):
            pairs.append(("event", .string("warning")))
            pairs.append(("message", .string(text)))
        case let .corrections(status):
            pairs.append(("event", .string("corrections")))
            pairs.append(("caster", .string(status.caster)))
            switch status.state {
            case .connecting: pairs.append(("state", .string("connecting")))
            case .streaming: pairs.append(("state", .string("streaming")))
            case let .failed(reason):
                pairs.append(("state", .string("failed")))
                pairs.append(("reason", .string(reason)))
            }
            pairs.append(("bytes", .int(status.bytes)))
        }
        return JSON.object(pairs).serialized(indent: nil)
    }
}

/// Ctrl-C ends `trees gps` cleanly: the terminal is restored (attributes reset, cursor shown)
/// and the exit status is 0. SIGTERM and SIGHUP restore it too and exit with 128 + the signal.
enum GPSSignals {
    /// Set while the live block is on screen: the handler must restore the terminal.
    nonisolated(unsafe) static var live = false

    static func install(live: Bool) {
        Self.live = live
        // A parent may have started us with these blocked; they must reach us.
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        for s in [SIGINT, SIGTERM, SIGHUP] {
            signal(s) { sig in
                if GPSSignals.live { TerminalState.write("\u{1B}[0m\u{1B}[?25h\n") }
                _exit(sig == SIGINT ? 0 : 128 + sig)
            }
        }
    }
}
