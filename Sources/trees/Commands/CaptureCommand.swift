import ArgumentParser
import Foundation
import Location
import TreesKit
import TreesStore

struct CaptureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Capture a tree's position from a live or replayed GPS, then record what grows there.",
        discussion: """
            The gate: capture needs a fresh 2D/3D fix whose accuracy (radius of the 95% circle) is under \
            --require metres (default 20); under --encourage metres (default 10) the fix is good, and until \
            then the view encourages waiting. On a terminal: Enter freezes the current fix, a freezes the \
            average of the next --average epochs (default 10), q quits. Then the prompts for species, \
            variety, rootstock, notes, collection and photos, a summary, and Save / Re-capture / Discard.

            With --auto: waits until the fix is good, or at --timeout (or the end of the source) takes the \
            best acceptable fix seen, saves and prints the tree; exits with status 3, saving nothing, when no \
            fix passed the gate.
            """
    )

    @OptionGroup var store: StoreOptions
    @OptionGroup var sourceOptions: SourceOptions
    @OptionGroup var attributes: AttributeOptions

    @Option(help: ArgumentHelp("Capture needs accuracy under this many metres.", valueName: "m"))
    var require: Double = 20
    @Option(help: ArgumentHelp("Accuracy under this many metres is good; above it the view encourages waiting.", valueName: "m"))
    var encourage: Double = 10
    @Option(help: ArgumentHelp("A fix older than this many seconds no longer counts.", valueName: "s"))
    var stale: Double = 3
    @Option(help: ArgumentHelp("Freeze the average of this many epochs that pass the gate (with --auto: always; on a terminal: the a key, default 10).", valueName: "n"))
    var average: Int?
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
        guard encourage.isFinite, encourage > 0, encourage <= require else {
            throw ValidationError("--encourage must be positive and not above --require (\(require) m)")
        }
        guard stale.isFinite, stale > 0 else { throw ValidationError("--stale must be a positive number of seconds") }
        if let average, average < 1 { throw ValidationError("--average must be 1 or more") }
        if let timeout, !(timeout.isFinite && timeout > 0) { throw ValidationError("--timeout must be a positive number of seconds") }
        if let s = attributes.species, TextTools.nonEmpty(s) == nil { throw ValidationError("--species must not be empty") }
    }

    var gate: CaptureGate {
        CaptureGate(require: require, encourage: encourage, stale: .milliseconds(Int64(stale * 1000)))
    }

    func run() async throws {
        let db = try store.open()
        let existing = try update.map { try db.tree(matching: $0) }
        // Refuse a bad photo before waiting for a fix, not after.
        for path in photos { _ = try PhotoErrors.mapped { try PhotoLibrary.check(file: path) } }
        if auto || !Terminal.current.stdinIsTTY {
            guard auto else {
                throw CLIError("capture needs a terminal for its prompts; use --auto with --species to capture without one", status: .usage)
            }
            guard existing != nil || attributes.species != nil else {
                throw CLIError("--auto needs --species (or --update ID); name what grows there, e.g. --species Apple", status: .usage)
            }
            try await AutoCapture(command: self, store: db, existing: existing).run()
        } else {
            try await InteractiveCapture(command: self, store: db, existing: existing).run()
        }
    }
}

// MARK: - Saving

/// What the user chose for a tree, before it is stored.
struct CaptureChoices {
    var species: String
    var variety: String?
    var rootstock: String?
    var notes: String?
    /// nil: no collection.
    var collectionName: String?
    var photos: [String]
}

/// Stores a frozen fix as a new tree, or as the new position of an existing one, in one transaction.
struct CaptureSaver {
    let store: TreeStore
    let sourceDescription: String
    let allowDuplicate: Bool

    /// A tree of the same species within the larger of the two accuracies.
    struct Duplicate: Error {
        var tree: Tree
        var distance: Double
        var radius: Double
        var message: String {
            String(format: "possible duplicate: tree %@ (%@) lies %.1f m away, within the %.1f m accuracy",
                   tree.shortID, tree.species, distance, radius)
        }
    }

    func duplicates(of frozen: FrozenFix, species: String, excluding: UUID?) throws -> [Duplicate] {
        try store.read { r in
            try r.trees(species: species, near: frozen.coordinate, within: max(frozen.horizontalAccuracy, 500))
                .filter { $0.id != excluding }
                .compactMap { t in
                    let d = Geodesy.distance(t.coordinate, frozen.coordinate)
                    let radius = max(frozen.horizontalAccuracy, t.horizontalAccuracy ?? 0)
                    return d <= radius ? Duplicate(tree: t, distance: d, radius: radius) : nil
                }
                .sorted { $0.distance < $1.distance }
        }
    }

    func save(_ frozen: FrozenFix, choices: CaptureChoices, existing: Tree?, confirmDuplicate: (Duplicate) -> Bool) throws -> Tree {
        if !allowDuplicate, let dup = try duplicates(of: frozen, species: choices.species, excluding: existing?.id).first,
           !confirmDuplicate(dup) {
            throw CLIError(dup.message + "; pass --allow-duplicate to save anyway", status: .failure)
        }
        let fix = frozen.fix
        let capture = CaptureInfo(fixTime: fix.time, fixMode: fix.mode, satellites: fix.satellitesUsed, hdop: fix.hdop,
                                  averagedEpochs: frozen.epochs, locationSource: sourceDescription)
        let ellipsoid = fix.ellipsoidHeight ?? fix.altitudeMSL.flatMap { alt in fix.geoidSeparation.map { alt + $0 } }
        // Photo files are copied and hashed before the store is locked; the transaction records rows only.
        let photos = try PhotoAttachment.stage(choices.photos, store: store)
        do {
            return try save(frozen, choices: choices, existing: existing, capture: capture, ellipsoid: ellipsoid, photos: photos)
        } catch {
            if let photos { store.photoLibrary.discard(photos, store: store) }
            throw error
        }
    }

    private func save(_ frozen: FrozenFix, choices: CaptureChoices, existing: Tree?, capture: CaptureInfo, ellipsoid: Double?,
                      photos: PhotoLibrary.StagedPhotos?) throws -> Tree {
        let fix = frozen.fix
        return try store.write { w -> Tree in
            let collection = try choices.collectionName.map { try w.collection(namedOrNew: $0) }
            var tree: Tree
            if var t = existing {
                try w.recordHistory(of: t, change: "re-captured")
                t.coordinate = frozen.coordinate
                t.horizontalAccuracy = frozen.horizontalAccuracy
                t.accuracySource = frozen.accuracySource
                t.altitude = fix.altitudeMSL
                t.ellipsoidHeight = ellipsoid
                t.capture = capture
                tree = try w.update(t)
            } else {
                tree = Tree(coordinate: frozen.coordinate, horizontalAccuracy: frozen.horizontalAccuracy,
                            accuracySource: frozen.accuracySource, altitude: fix.altitudeMSL, ellipsoidHeight: ellipsoid,
                            species: choices.species, variety: choices.variety, rootstock: choices.rootstock,
                            notes: choices.notes, collectionID: collection?.id, createdAt: w.now, capture: capture)
                try w.insert(tree)
                try w.setPreference(.lastCollection, collection?.id.uuidString.lowercased())
            }
            if let photos { _ = try PhotoErrors.mapped { try store.photoLibrary.attach(photos, to: tree.id, in: w) } }
            return tree
        }
    }
}

/// Photo files chosen during a capture, copied into the store's photo folder before the tree is saved.
enum PhotoAttachment {
    static func stage(_ paths: [String], store: TreeStore) throws -> PhotoLibrary.StagedPhotos? {
        guard !paths.isEmpty else { return nil }
        let staged = try PhotoErrors.mapped { try store.photoLibrary.stage(files: paths) }
        for w in staged.warnings { StandardError.write("warning: \(TerminalText.escaped(w))\n") }
        return staged
    }
}

// MARK: - Events

/// What the capture loop reacts to: the source's events, clock ticks and (interactive) key presses.
enum CaptureInput: Sendable {
    case event(LocationEvent)
    case tick
    case key(KeyPress)
    case ended
    case failed(String, ExitStatus)
}

enum KeyPress: Sendable, Equatable {
    case enter, average, quit, interrupt, other
}

extension LocationSource {
    /// The live view's input (`GPSCommand.inputs`: events and clock ticks), as capture inputs that
    /// key presses can join through the returned continuation; ends after the source ends.
    func captureInputs() -> (AsyncStream<CaptureInput>, AsyncStream<CaptureInput>.Continuation) {
        let (stream, continuation) = AsyncStream<CaptureInput>.makeStream(bufferingPolicy: .unbounded)
        let inputs = GPSCommand.inputs(self, ticking: true, until: nil)
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
    let store: TreeStore
    let existing: Tree?

    func run() async throws {
        let source = try command.sourceOptions.locationSource()
        var session = CaptureSession(gate: command.gate)
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = command.timeout.map { start + .milliseconds(Int64($0 * 1000)) }
        let (inputs, continuation) = source.captureInputs()
        defer { continuation.finish() }
        var frozen: FrozenFix?
        var failure: (String, ExitStatus)?
        loop: for await input in inputs {
            let now = clock.now - start
            switch input {
            case .event(let event):
                session.handle(event, at: now)
                if case .warning(let text) = event { StandardError.write("trees: \(text)\n") }
            case .tick:
                session.tick(at: now)
            case .ended, .key:
                break loop
            case .failed(let message, let status):
                failure = (message, status)
                break loop
            }
            switch session.state {
            case .good where command.average != nil:
                session.startAveraging(epochs: command.average ?? 1)
            case .good:
                frozen = session.freeze()
            case .frozen(let f):
                frozen = f
            default:
                break
            }
            if frozen != nil { break }
            if let deadline, clock.now >= deadline { break }
        }
        if frozen == nil, case .averaging = session.state { frozen = session.finishAveraging() }
        if frozen == nil, let best = session.bestAcceptable { frozen = session.freeze(best) }
        guard let frozen else {
            if let failure { throw CLIError(failure.0, status: failure.1) }
            throw CLIError(String(format: "no fix under %@ m from %@; nothing saved", JSON.number(command.require), source.description),
                           status: .noAcceptableFix)
        }
        let species = command.attributes.species.flatMap(TextTools.nonEmpty) ?? existing?.species ?? ""
        let collectionName = try CaptureDefaults.collectionName(command.attributes.collection, store: store)
        let choices = CaptureChoices(
            species: species, variety: Values.text(command.attributes.variety), rootstock: Values.text(command.attributes.rootstock),
            notes: Values.text(command.attributes.notes), collectionName: collectionName, photos: command.photos)
        let saver = CaptureSaver(store: store, sourceDescription: source.description, allowDuplicate: command.allowDuplicate)
        let tree = try saver.save(frozen, choices: choices, existing: existing) { _ in false }
        try store.read { r in
            try TreeDetails.print(tree, reader: r, store: store, json: command.json, terminal: .current)
        }
    }
}

/// Defaults that capture shares between its scripted and interactive forms.
enum CaptureDefaults {
    /// `--collection NAME` (created on save when new), `none`, or else the last used collection.
    static func collectionName(_ option: String?, store: TreeStore) throws -> String? {
        if let option {
            let trimmed = option.trimmingCharacters(in: .whitespaces)
            return trimmed.lowercased() == "none" || trimmed.isEmpty ? nil : trimmed
        }
        guard let id = try store.preference(.lastCollection).flatMap(UUID.init(uuidString:)) else { return nil }
        return try store.read { try $0.collection(id: id) }?.name
    }
}
