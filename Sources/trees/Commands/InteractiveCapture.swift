import Foundation
import TreesKit
import TreesStore
import TreesWorkflows

/// The interactive capture on a terminal: live view and gate, prompts, Save / Re-capture / Discard,
/// then the next tree with the same collection.
///
/// Nothing is written until Save; Ctrl-C or q at any moment leaves the store as it was (and makes
/// none where there was none) and the terminal restored.
struct InteractiveCapture {
    let command: CaptureCommand
    let target: CaptureStore
    let existing: Tree?
    let survey: CaptureCommand.SurveySettings

    enum Outcome { case saved(Tree), recapture, discard }

    func run() async throws {
        let source = try command.sourceOptions.locationSource()
        let terminal = Terminal.current
        let raw = RawTerminal()
        let keys = KeyReader()
        let gate = command.gate(survey)
        var policy = InteractiveCapturePolicy(gate: gate, averageEpochs: command.average ?? 10)
        var view = LiveView(sourceName: source.description, staleAfter: gate.stale, requiredFix: gate.requiredFix)
        view.title = "trees capture"
        view.antennaHeight = survey.antennaHeight
        let clock = ContinuousClock()
        let start = clock.now
        let (inputs, continuation) = source.captureInputs()
        defer { continuation.finish(); keys.stop(); raw.restore() }
        raw.enterRaw()
        keys.start { continuation.yield(.key($0)) }
        var screen = LiveScreen()
        var defaults = PromptDefaults(collection: try CaptureDefaults.collectionName(command.attributes.collection, in: target))
        var saved = 0
        if let existing { TerminalState.write("Re-capturing \(existing.shortID) (\(existing.species))\n") }

        loop: for await input in inputs {
            let step: InteractiveCapturePolicy.Step
            switch input {
            case .event(let event):
                step = policy.handle(.event(event), at: clock.now - start)
                view.update(with: event, now: Date())
            case .tick:
                step = policy.handle(.tick, at: clock.now - start)
                view.tick(now: Date())
            case .key(let key):
                step = policy.handle(.key(key), at: clock.now - start)
            case .ended:
                step = policy.handle(.ended, at: clock.now - start)
            case .failed(let text, let status):
                raw.restore()
                throw CLIError(text, status: status)
            }
            let frozen: FrozenFix
            switch step {
            case .watching:
                screen.draw(render(policy.session, view: view, terminal: terminal, message: policy.message))
                continue
            case .quit:
                break loop
            case .interrupted:
                raw.restore()
                TerminalState.write("\n")
                Foundation.exit(ExitStatus.interrupted.rawValue)
            case .ended:
                screen.draw(render(policy.session, view: view, terminal: terminal, message: policy.message))
                break loop
            case .frozen(let f):
                frozen = f
            }
            // Prompts read whole lines: stop the key reader and leave raw mode.
            keys.pause()
            raw.restore()
            screen.draw(render(policy.session, view: view, terminal: terminal, message: nil))
            screen.detach()
            let outcome = try prompt(frozen, defaults: &defaults, terminal: terminal, source: source.description)
            switch outcome {
            case .saved(let tree):
                saved += 1
                if existing != nil { break loop }
                let inCollection = defaults.collection.map { " in '\($0)'" } ?? ""
                Self.say("Saved \(tree.shortID) (\([tree.species, tree.variety].compactMap { $0 }.joined(separator: " ")), \(Terminal.badgeText(metres: tree.horizontalAccuracy))).")
                try CareAfterCapture.offer(for: tree, store: target.forSaving())
                guard let answer = Self.ask("Next tree\(inCollection)? Enter to go on, q to quit: ") else { break loop }
                if answer.lowercased().hasPrefix("q") { break loop }
                policy.next()
            case .recapture:
                policy.recapture()
            case .discard:
                policy.next()
                Self.say("Discarded.")
            }
            raw.enterRaw()
            keys.resume()
        }
        raw.restore()
        Self.say("\(saved) tree\(saved == 1 ? "" : "s") saved.")
    }

    // MARK: View

    /// The live view of `trees gps`, then the gate, the keys and the last message.
    func render(_ session: CaptureSession, view: LiveView, terminal: Terminal, message: String?) -> [String] {
        var lines = view.render(width: Terminal.width, colour: terminal.colour)
        lines.append(gateLine(session, terminal: terminal))
        lines.append(terminal.dim("Enter: capture   a: average \(command.average ?? 10) epochs   q: quit"))
        lines.append(message ?? "")
        return lines
    }

    func gateLine(_ session: CaptureSession, terminal: Terminal) -> String {
        let gate = command.gate(survey)
        switch session.state {
        case .searching:
            return terminal.paint("Searching — \(session.whyNot ?? "no fix"). Capture needs under \(Format.number(gate.require)) m.", .grey)
        case .poor(let a, let excess):
            return terminal.paint(String(format: "Too poor — %.1f m, needs under %@ m (%.1f m to go). Capture disabled.", a, Format.number(gate.require), excess), .red)
        case .acceptable:
            let trend = session.trend == .improving ? " — still improving" : ""
            return terminal.paint("Capture allowed (Enter). Waiting for under \(Format.number(gate.encourage)) m is encouraged\(trend).", .yellow)
        case .good:
            return terminal.paint("Good — press Enter to capture, or a to average.", .green)
        case .averaging(let n, let target):
            return terminal.paint("Averaging \(n)/\(target) epochs… (Enter does nothing, q quits)", .yellow)
        case .frozen(let f):
            return terminal.paint("Frozen: \(Self.summary(f))", AccuracyClass(metres: f.horizontalAccuracy).colour)
        }
    }

    static func summary(_ f: FrozenFix) -> String {
        var s = "\(Format.degrees(f.coordinate.latitude)), \(Format.degrees(f.coordinate.longitude))  \(Terminal.badgeText(metres: f.horizontalAccuracy)) (\(f.accuracySource.rawValue))"
        if f.epochs > 1 {
            s += ", averaged over \(f.epochs) epochs"
            if let spread = f.spread { s += String(format: ", spread %.1f m", spread) }
            if f.outliers > 0 { s += ", \(f.outliers) outlier\(f.outliers == 1 ? "" : "s") dropped" }
        }
        return s
    }

    // MARK: Prompts

    struct PromptDefaults {
        var collection: String?
        var species: String?
        var variety: String?
        var rootstock: String?
    }

    func prompt(_ frozen: FrozenFix, defaults: inout PromptDefaults, terminal: Terminal, source: String) throws -> Outcome {
        let attributes = command.attributes
        var choices: CaptureChoices
        if let existing {
            choices = CaptureChoices(species: existing.species, variety: existing.variety, rootstock: existing.rootstock,
                                     notes: existing.notes, collectionName: nil, photos: command.photos)
        } else {
            let species: String
            if let given = attributes.species.flatMap(TextTools.nonEmpty) {
                species = given
            } else {
                let known = try target.store?.read { try $0.species() } ?? []
                species = try askSpecies(suggestions: CommonSpecies.suggestions(known: known), default: defaults.species)
            }
            let variety = try attributes.variety.map(Values.text) ?? askText("Variety", default: defaults.variety)
            let rootstock = try attributes.rootstock.map(Values.text) ?? askText("Rootstock", default: defaults.rootstock)
            let notes = try attributes.notes.map(Values.text) ?? askText("Notes", default: nil)
            let collection = try attributes.collection != nil ? defaults.collection : askCollection(default: defaults.collection)
            let photos = command.photos.isEmpty ? try askPhotos() : command.photos
            choices = CaptureChoices(species: species, variety: variety, rootstock: rootstock, notes: notes,
                                     collectionName: collection, photos: photos)
            defaults.species = species
            defaults.variety = variety
            defaults.rootstock = rootstock
            defaults.collection = collection
        }
        Self.say("")
        Self.say(terminal.bold("Summary"))
        Self.say("  position    \(Self.summary(frozen))")
        Self.say("  species     \(choices.species)")
        if let v = choices.variety { Self.say("  variety     \(v)") }
        if let r = choices.rootstock { Self.say("  rootstock   \(r)") }
        if let n = choices.notes { Self.say("  notes       \(n)") }
        if existing == nil { Self.say("  collection  \(choices.collectionName ?? "none")") }
        if !choices.photos.isEmpty { Self.say("  photos      \(choices.photos.joined(separator: ", "))") }
        while true {
            guard let answer = Self.ask("[S]ave, [R]e-capture or [D]iscard? [S] ") else { throw CLIError("input ended; nothing saved") }
            switch answer.lowercased().first {
            case nil, "s":
                var saver = CaptureSaver(store: try target.forSaving(), sourceDescription: source, allowDuplicate: command.allowDuplicate)
                saver.antennaHeight = survey.antennaHeight
                saver.onWarning = { StandardError.write("warning: \(TerminalText.escaped($0))\n") }
                do {
                    let tree = try saver.save(frozen, choices: choices, existing: existing) { dup in
                        Self.say(terminal.paint("Warning: " + dup.message + ".", .orange))
                        return Self.ask("Save anyway? [y/N] ").map { ["y", "yes"].contains($0.lowercased()) } ?? false
                    }
                    return .saved(tree)
                } catch WorkflowError.possibleDuplicate {
                    Self.say("Not saved.")
                    continue
                }
            case "r": return .recapture
            case "d": return .discard
            default: continue
            }
        }
    }

    func askSpecies(suggestions: [String], default value: String?) throws -> String {
        let shown = Array(suggestions.prefix(9))
        Self.say("Species: " + shown.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: "  ") + (suggestions.count > 9 ? "  …" : ""))
        while true {
            guard let line = Self.ask("Species (number or name)\(value.map { " [\($0)]" } ?? ""): ") else { throw CLIError("input ended; nothing saved") }
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty, let value { return value }
            if let n = Int(text), (1...shown.count).contains(n) { return shown[n - 1] }
            if let match = suggestions.first(where: { $0.lowercased() == text.lowercased() }) { return match }
            if !text.isEmpty { return text }
            Self.say("A species is needed, e.g. 1 or Apple.")
        }
    }

    func askText(_ label: String, default value: String?) throws -> String? {
        guard let line = Self.ask("\(label)\(value.map { " [\($0)]; - for none" } ?? ""): ") else { throw CLIError("input ended; nothing saved") }
        let text = line.trimmingCharacters(in: .whitespaces)
        if text == "-" { return nil }
        return text.isEmpty ? value : text
    }

    func askCollection(default value: String?) throws -> String? {
        let names = try target.store?.collections().map(\.collection.name) ?? []
        if !names.isEmpty { Self.say("Collections: " + names.joined(separator: ", ")) }
        guard let line = Self.ask("Collection\(value.map { " [\($0)]" } ?? "") (none for no collection): ") else { throw CLIError("input ended; nothing saved") }
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return value }
        if TreeCollection.meansNone(text) { return nil }
        if let match = names.first(where: { $0.lowercased() == text.lowercased() }) { return match }
        Self.say("'\(text)' is new; it will be created when the tree is saved.")
        return text
    }

    func askPhotos() throws -> [String] {
        while true {
            guard let line = Self.ask("Photos (file paths separated by spaces; Enter for none): ") else { throw CLIError("input ended; nothing saved") }
            let paths = line.split(separator: " ").map(String.init)
            let problems = paths.compactMap { path -> String? in
                do { _ = try PhotoLibrary.check(file: path); return nil } catch { return String(describing: error) }
            }
            if problems.isEmpty { return paths }
            Self.say(problems.joined(separator: "; ") + "; try again.")
        }
    }

    static func say(_ text: String) { TerminalState.write(text + "\n") }

    static func ask(_ question: String) -> String? {
        TerminalState.write(question)
        return readLine()
    }
}
