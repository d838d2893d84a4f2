import ArgumentParser
import Foundation
import Location
import TreesKit
import TreesStore
import TreesWorkflows

struct CaptureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Capture a tree's position from a live or replayed GPS, then record what grows there.",
        discussion: """
            The gate: capture needs a fresh 2D/3D fix whose accuracy (radius of the 95% circle) is under \
            --require metres (default 20); under --encourage metres (default 10, or --require when that is less) the fix is good, and until \
            then the view encourages waiting. On a terminal: Enter freezes the current fix, a freezes the \
            average of the next --average epochs (default 10), q quits. Then the prompts for species, \
            variety, rootstock, notes, collection and photos, a summary, and Save / Re-capture / Discard.

            With --auto: waits until the fix is good, or at --timeout (or the end of the source) takes the \
            best acceptable fix seen, saves and prints the tree; exits with status 3, saving nothing, when no \
            fix passed the gate.

            Survey receivers: --require-fix dgps|rtk-float|rtk-fixed lets only fixes of that quality or \
            better pass the gate (the view says what is missing, e.g. "RTK float — waiting for RTK fixed; \
            corrections 3.0 s old"); --antenna-height M is subtracted from the altitude and ellipsoid height \
            and recorded with the tree. The store remembers both for the next capture; --require-fix any \
            and --antenna-height 0 forget them.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var sourceOptions: SourceOptions
    @OptionGroup var attributes: AttributeOptions

    @Option(help: ArgumentHelp("Capture needs accuracy under this many metres.", valueName: "m"))
    var require: Double = 20
    @Option(help: ArgumentHelp("Accuracy under this many metres is good; above it the view encourages waiting.", valueName: "m"))
    var encourage: Double?
    @Option(help: ArgumentHelp("A fix older than this many seconds no longer counts.", valueName: "s"))
    var stale: Double = 3
    @Option(help: ArgumentHelp("Freeze the average of this many epochs that pass the gate (with --auto: always; on a terminal: the a key, default 10).", valueName: "n"))
    var average: Int?
    @Option(name: .customLong("require-fix"), help: ArgumentHelp(
        "Only fixes of this quality or better pass the gate: dgps, rtk-float, rtk-fixed, or any (remembered).", valueName: "quality"))
    var requireFix: String?
    @Option(name: .customLong("antenna-height"), help: ArgumentHelp(
        "Height of the antenna above the ground, subtracted from the heights saved (remembered; 0 forgets it).", valueName: "m"))
    var antennaHeight: Double?
    @Flag(help: "Capture without prompts: wait for a good fix (or the best acceptable one at the timeout), save, print.")
    var auto = false
    @Option(help: ArgumentHelp("With --auto: stop waiting after this many seconds.", valueName: "s"))
    var timeout: Double?
    @Option(name: .customLong("photo"), help: ArgumentHelp("A photo file to attach (repeatable).", valueName: "file"))
    var photos: [String] = []
    @Option(help: ArgumentHelp("Re-capture the position of this existing tree (keeps its attributes).", valueName: "id"))
    var update: String?
    @Flag(help: "Save even when a tree of the same species lies within the accuracy circle.")
    var allowDuplicate = false
    @Flag(help: "Print the saved tree as JSON (as trees show --json).")
    var json = false

    func validate() throws {
        guard require.isFinite, require > 0 else { throw ValidationError("--require must be a positive number of metres") }
        if let encourage, !(encourage.isFinite && encourage > 0 && encourage <= require) {
            throw ValidationError("--encourage must be positive and not above --require (\(Format.number(require)) m)")
        }
        try SecondsOption.check(stale, "--stale")
        if let average, average < 1 { throw ValidationError("--average must be 1 or more") }
        if let timeout { try SecondsOption.check(timeout, "--timeout") }
        if let s = attributes.species, TextTools.nonEmpty(s) == nil { throw ValidationError("--species must not be empty") }
        if let q = requireFix, q.lowercased() != "any", RequiredFix(rawValue: q.lowercased()) == nil {
            throw ValidationError("--require-fix must be dgps, rtk-float, rtk-fixed or any, not '\(TerminalText.escaped(q))'")
        }
        if let h = antennaHeight, !(h.isFinite && CaptureDefaults.antennaHeights.contains(h)) {
            throw ValidationError(String(format: "--antenna-height must be from 0 to %.0f metres (the antenna's height above the ground), not %@",
                                         CaptureDefaults.antennaHeights.upperBound, h.isFinite ? Format.number(h) : "\(h)"))
        }
    }

    /// The gate, with the fix quality this capture requires (`survey.requiredFix`).
    func gate(_ survey: SurveySettings = SurveySettings()) -> CaptureGate {
        CaptureGate(require: require, encourage: encourage ?? min(Self.defaultEncourage, require), stale: SecondsOption.duration(stale), requiredFix: survey.requiredFix)
    }

    /// The `--encourage` radius when none is given and `--require` is not under it.
    static let defaultEncourage = 10.0

    /// What a survey receiver's capture remembers between runs.
    struct SurveySettings {
        var requiredFix: RequiredFix?
        var antennaHeight: Double?
    }

    func run() async throws {
        // A source that cannot be (a malformed address, a track that cannot be read) is refused
        // before a store is made for what it would bring.
        if case .replay(let path, _) = try GPSCommand.spec(sourceOptions) {
            do { try ReplaySource.checkReadable(path) } catch { throw CLIError.from(error) }
        }
        let target = try captureStore()
        let existing = try update.map { try target.forSaving().tree(matching: $0) }
        let survey = SurveySettings(requiredFix: try CaptureDefaults.requiredFix(requireFix, in: target),
                                    antennaHeight: try CaptureDefaults.antennaHeight(antennaHeight, in: target))
        // Refuse a bad photo before waiting for a fix, not after.
        for path in photos { _ = try PhotoErrors.mapped { try PhotoLibrary.check(file: path) } }
        if auto || !Terminal.current.stdinIsTTY {
            guard auto else {
                throw CLIError("capture needs a terminal for its prompts; use --auto with --species to capture without one", status: .usage)
            }
            guard existing != nil || attributes.species != nil else {
                throw CLIError("--auto needs --species (or --update ID); name what grows there, e.g. --species Apple", status: .usage)
            }
            try await AutoCapture(command: self, target: target, existing: existing, survey: survey).run()
        } else {
            try await InteractiveCapture(command: self, target: target, existing: existing, survey: survey).run()
        }
    }
}

extension CaptureCommand {
    /// The store this capture saves into. One that exists is opened now; one that does not is made
    /// at the first save (a capture that saves nothing makes no store), but a path that cannot
    /// hold one is refused now, before the wait for a fix. `--update` needs the store at once.
    func captureStore() throws -> CaptureStore {
        let path = store.resolvedPath
        if update != nil || FileManager.default.fileExists(atPath: path) {
            return CaptureStore(existing: try store.open(creating: update == nil))
        }
        if let problem = TreeStore.problemMaking(at: path) { throw CLIError.from(problem) }
        return CaptureStore(makingOnFirstSave: { [store] in try store.open(creating: true) })
    }
}

// MARK: - Events

/// What the capture loop reacts to: the source's events, clock ticks and (interactive) key presses.
enum CaptureInput: Sendable {
    case event(LocationEvent)
    case tick
    case key(InteractiveCapturePolicy.Key)
    case ended
    case failed(String, ExitStatus)
}

extension LocationSource {
    /// The live view's input (events and clock ticks), as capture inputs that key presses can
    /// join through the returned continuation; ends after the source ends.
    func captureInputs() -> (AsyncStream<CaptureInput>, AsyncStream<CaptureInput>.Continuation) {
        let (stream, continuation) = AsyncStream<CaptureInput>.makeStream(bufferingPolicy: .unbounded)
        let inputs = self.inputs(ticking: true)
        let reader = Task {
            do {
                for try await input in inputs {
                    switch input {
                    case .event(let event): continuation.yield(.event(event))
                    case .tick: continuation.yield(.tick)
                    }
                }
                continuation.yield(.ended)
            } catch is CancellationError {
            } catch {
                let mapped = CLIError.from(error)
                continuation.yield(.failed(mapped.message, mapped.status))
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return (stream, continuation)
    }
}

// MARK: - Scripted capture

struct AutoCapture {
    let command: CaptureCommand
    let target: CaptureStore
    let existing: Tree?
    let survey: CaptureCommand.SurveySettings

    func run() async throws {
        let source = try command.sourceOptions.locationSource()
        let gate = command.gate(survey)
        var policy = AutoCapturePolicy(gate: gate, average: command.average)
        var bestStatus: FixStatus?
        var bestAccuracy: Double?
        /// The receivers the source names (gpsd may have none).
        var receivers: Set<String>?
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = command.timeout.map { start + SecondsOption.duration($0) }
        let (inputs, continuation) = source.captureInputs()
        defer { continuation.finish() }
        var frozen: FrozenFix?
        var failure: (String, ExitStatus)?
        var timedOut = false
        loop: for await input in inputs {
            let now = clock.now - start
            switch input {
            case .event(let event):
                frozen = policy.handle(.event(event), at: now)
                if case .warning(let text) = event { StandardError.write("trees: \(text)\n") }
                switch event {
                case .connected(_, let devices): receivers = Set(devices.map(\.path))
                case .deviceAdded(let d): receivers?.insert(d.path)
                case .deviceRemoved(let d): receivers?.remove(d.path)
                default: break
                }
                if case .fix(let f) = event, f.hasPosition, f.status.correctionRank >= (bestStatus?.correctionRank ?? -1) {
                    bestStatus = f.status
                }
                if case .fix(let f) = event, f.hasPosition, let a = f.horizontalAccuracy, a.isFinite, a < (bestAccuracy ?? .infinity) {
                    bestAccuracy = a
                }
            case .tick:
                frozen = policy.handle(.tick, at: now)
            case .ended, .key:
                break loop
            case .failed(let message, let status):
                failure = (message, status)
                break loop
            }
            if frozen != nil { break }
            if let deadline, clock.now >= deadline {
                timedOut = true
                break
            }
        }
        if frozen == nil { frozen = policy.finish() }
        guard let frozen else {
            if let failure { throw CLIError(failure.0, status: failure.1) }
            if let required = gate.requiredFix {
                let best = bestStatus.map { $0.correctionRank == 0 ? "no fix had corrections" : "the best was \($0.title)" }
                    ?? "no fix with a position arrived"
                throw CLIError(String(format: "no %@ fix under %@ m from %@ (%@); nothing saved", required.title,
                                      Format.number(command.require), source.description, best),
                               status: .noAcceptableFix)
            }
            if bestAccuracy == nil, receivers?.isEmpty == true {
                throw CLIError("no fix from \(source.description): gpsd has no receiver; nothing saved. "
                               + "Plug the receiver in, or check the device gpsd is started with", status: .noAcceptableFix)
            }
            guard let best = bestAccuracy else {
                throw CLIError(String(format: "no fix under %@ m from %@; nothing saved", Format.number(command.require), source.description),
                               status: .noAcceptableFix)
            }
            throw CLIError(Self.notAccurateEnough(require: command.require, best: best, source: source.description, timedOut: timedOut),
                           status: .noAcceptableFix)
        }
        try save(frozen, source: source)
    }

    /// Why nothing was saved when fixes came but none was accurate enough: the best accuracy seen,
    /// and what to do about it.
    static func notAccurateEnough(require: Double, best: Double, source: String, timedOut: Bool) -> String {
        let looser = Format.number(best.rounded(.down) + 1)
        let head = String(format: "no fix under %@ m from %@ (the best was %.1f m); nothing saved. ", Format.number(require), source, best)
        guard timedOut else { return head + "To take a fix that good, capture with --require \(looser)" }
        return head + "Give it longer with a larger --timeout, move the receiver away from buildings and canopy, "
            + "or take a fix that good with --require \(looser)"
    }

    private func save(_ frozen: FrozenFix, source: any LocationSource) throws {
        let species = command.attributes.species.flatMap(TextTools.nonEmpty) ?? existing?.species ?? ""
        let collectionName = try CaptureDefaults.collectionName(command.attributes.collection, in: target)
        let store = try target.forSaving()
        let choices = CaptureChoices(
            species: species, variety: Values.text(command.attributes.variety), rootstock: Values.text(command.attributes.rootstock),
            notes: Values.text(command.attributes.notes), collectionName: collectionName, photos: command.photos)
        var saver = CaptureSaver(store: store, sourceDescription: source.description, allowDuplicate: command.allowDuplicate)
        saver.antennaHeight = survey.antennaHeight
        saver.onWarning = { StandardError.write("warning: \(TerminalText.escaped($0))\n") }
        let tree = try saver.save(frozen, choices: choices, existing: existing) { _ in false }
        try store.read { r in
            try TreeDetails.print(tree, reader: r, store: store, json: command.json, terminal: .current)
        }
    }
}
