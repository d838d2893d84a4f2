import Foundation

/// The thresholds of the capture gate.
public struct CaptureGate: Sendable, Equatable {
    /// Capture needs a fix strictly under this 95% radius, in metres.
    public var require: Double
    /// Under this radius, in metres, the fix is good; between the two the user is encouraged to wait.
    public var encourage: Double
    /// A fix older than this (by the session's clock) no longer counts.
    public var stale: Duration
    /// The fix quality capture waits for (DGPS, RTK float, RTK fixed); nil accepts any.
    public var requiredFix: RequiredFix?

    public init(require: Double = 20, encourage: Double = 10, stale: Duration = .seconds(3), requiredFix: RequiredFix? = nil) {
        self.require = require; self.encourage = encourage; self.stale = stale; self.requiredFix = requiredFix
    }

    /// True when `fix` has the quality the gate requires.
    public func qualityIsMet(by fix: Fix) -> Bool {
        requiredFix.map { $0.isMet(by: fix.status) } ?? true
    }
}

/// Whether accuracy is getting better, from the recent history.
public enum AccuracyTrend: String, Sendable, Equatable {
    case improving, steady, worsening, unknown
}

/// Why the session is still searching.
public enum SearchReason: Sendable, Equatable {
    /// No fix has arrived (or the source reported none).
    case noFix
    /// The last fix has no 2D/3D position.
    case noPosition
    /// The last fix is older than the gate's `stale` limit; `age` is how old.
    case stale(age: Duration)
    /// The last fix has a position but no accuracy figure, so the gate cannot judge it.
    case noAccuracy
    /// The last fix has a position but not the quality `--require-fix` asks for: `status` is what
    /// the receiver has, `correctionAge` how old its corrections are (when it says).
    case fixQuality(status: FixStatus, required: RequiredFix, correctionAge: Double?)
}

/// A fix that has been frozen for saving; nothing that arrives later changes it.
public struct FrozenFix: Sendable, Equatable {
    /// The fix as frozen (for an average: the last averaged epoch, with the averaged position and accuracy).
    public var fix: Fix
    public var coordinate: Coordinate
    /// 95% radius in metres.
    public var horizontalAccuracy: Double
    public var accuracySource: AccuracySource
    /// Epochs averaged (1 for a single fix).
    public var epochs: Int
    /// Epochs dropped as outliers while averaging.
    public var outliers: Int
    /// 95% radius of the averaged epochs' scatter, in metres (nil for a single fix).
    public var spread: Double?
}

/// The capture state machine: fed fixes, status events and the time of an injected clock, it says
/// whether a tree may be captured, and freezes the fix to save.
///
/// Pure: no terminal, no clock of its own. Time is the `Duration` since the session started, as read
/// from whatever clock the caller injects.
public struct CaptureSession: Sendable {
    public enum State: Sendable, Equatable {
        case searching(SearchReason)
        /// Accuracy at or above `require`: capture disabled; `excess` is how many metres too many.
        case poor(accuracy: Double, excess: Double)
        /// Under `require`, not yet under `encourage`.
        case acceptable(accuracy: Double)
        /// Under `encourage`.
        case good(accuracy: Double)
        /// Collecting `target` epochs that pass the gate.
        case averaging(collected: Int, target: Int)
        case frozen(FrozenFix)
    }

    public let gate: CaptureGate
    /// The last fix received, and when.
    public private(set) var lastFix: Fix?
    public private(set) var lastFixAt: Duration?
    /// The most accurate fix that passed the gate so far (for `--auto` at the timeout).
    public private(set) var bestAcceptable: Fix?
    /// Accuracy history of the last minute: (time received, metres).
    public private(set) var history: [(at: Duration, metres: Double)] = []
    private var sourceSaysNoFix = true
    /// Receiver times taken, so a repeated epoch is not taken twice.
    private var timeline = ReceiverTimeline()
    private var averaging: (target: Int, fixes: [Fix])?
    private var frozen: FrozenFix?
    private var now: Duration = .zero

    public init(gate: CaptureGate = CaptureGate()) {
        self.gate = gate
    }

    /// Feeds one event received at `time`.
    public mutating func handle(_ event: LocationEvent, at time: Duration) {
        now = max(now, time)
        guard frozen == nil else { return }
        switch event {
        case .fix(let fix):
            guard timeline.takes(fix.time) else { return }
            lastFix = fix
            lastFixAt = time
            sourceSaysNoFix = !fix.hasPosition
            if fix.hasPosition, let a = fix.horizontalAccuracy, a.isFinite {
                history.append((time, a))
                if passesGate(fix), a < (bestAcceptable?.horizontalAccuracy ?? .infinity) { bestAcceptable = fix }
            }
            history.removeAll { $0.at < time - .seconds(60) }
            if var run = averaging, passesGate(fix) {
                run.fixes.append(fix)
                averaging = run
                if run.fixes.count >= run.target { finishAveraging() }
            }
        case .noFix, .fixLost, .sourceLost:
            sourceSaysNoFix = true
        case .connected, .deviceAdded, .deviceRemoved, .reconnecting, .warning, .corrections:
            break
        }
    }

    /// Advances the session's clock without an event (so staleness is noticed).
    public mutating func tick(at time: Duration) { now = max(now, time) }

    public var state: State {
        if let frozen { return .frozen(frozen) }
        if let run = averaging { return .averaging(collected: run.fixes.count, target: run.target) }
        guard let fix = lastFix, let at = lastFixAt, !sourceSaysNoFix else { return .searching(.noFix) }
        guard fix.hasPosition else { return .searching(.noPosition) }
        let age = now - at
        if age > gate.stale { return .searching(.stale(age: age)) }
        if let required = gate.requiredFix, !required.isMet(by: fix.status) {
            return .searching(.fixQuality(status: fix.status, required: required, correctionAge: fix.correctionAge))
        }
        guard let a = fix.horizontalAccuracy, a.isFinite else { return .searching(.noAccuracy) }
        if a >= gate.require { return .poor(accuracy: a, excess: a - gate.require) }
        if a >= gate.encourage { return .acceptable(accuracy: a) }
        return .good(accuracy: a)
    }

    /// True when the current fix may be frozen (acceptable or good).
    public var canFreeze: Bool {
        switch state {
        case .acceptable, .good: true
        default: false
        }
    }

    /// Why freezing is not allowed now, in words for the user; nil when it is.
    public var whyNot: String? {
        switch state {
        case .searching(.noFix): "no fix yet"
        case .searching(.noPosition): "the receiver has no 2D/3D fix"
        case .searching(.stale(let age)): "the last fix is \(Int(age.components.seconds)) s old"
        case .searching(.noAccuracy): "the fix has no accuracy estimate"
        case let .searching(.fixQuality(status, required, age)): Self.qualityText(status, required, age)
        case .poor(let a, _): String(format: "accuracy %.1f m is not under %.0f m", a, gate.require)
        case .averaging: "averaging is under way"
        case .frozen: "already frozen"
        case .acceptable, .good: nil
        }
    }

    /// "RTK float — waiting for RTK fixed; corrections 3 s old".
    public static func qualityText(_ status: FixStatus, _ required: RequiredFix, _ correctionAge: Double?) -> String {
        let have = status.correctionRank == 0 ? "no corrections (\(status.title))" : status.title
        var text = "\(have) — waiting for \(required.title)"
        if let age = correctionAge, !(age < 86_400) {
            text += "; corrections over a day old"
        } else if let age = correctionAge {
            text += "; corrections \(age < 10 ? String(format: "%.1f", age) : String(Int(age.rounded()))) s old"
        } else if status.correctionRank == 0 {
            text += "; no corrections reach the receiver"
        }
        return text
    }

    /// Whether accuracy is improving over the last 15 s (least-squares slope beyond ±0.05 m/s).
    public var trend: AccuracyTrend {
        let recent = history.filter { $0.at >= now - .seconds(15) }
        guard recent.count >= 3 else { return .unknown }
        let xs = recent.map { Double($0.at.components.seconds) + Double($0.at.components.attoseconds) / 1e18 }
        let ys = recent.map(\.metres)
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        let sxx = xs.map { ($0 - mx) * ($0 - mx) }.reduce(0, +)
        guard sxx > 0 else { return .unknown }
        let slope = zip(xs, ys).map { ($0 - mx) * ($1 - my) }.reduce(0, +) / sxx
        if slope < -0.05 { return .improving }
        if slope > 0.05 { return .worsening }
        return .steady
    }

    /// Freezes the current fix. Returns nil (and changes nothing) when the gate is closed.
    @discardableResult
    public mutating func freeze() -> FrozenFix? {
        guard canFreeze, let fix = lastFix, let c = fix.coordinate, let a = fix.horizontalAccuracy else { return nil }
        frozen = FrozenFix(fix: fix, coordinate: c, horizontalAccuracy: a, accuracySource: fix.accuracySource ?? .receiver,
                           epochs: 1, outliers: 0, spread: nil)
        return frozen
    }

    /// Freezes a fix chosen elsewhere (the best acceptable one, at a timeout). It must pass the gate's accuracy.
    @discardableResult
    public mutating func freeze(_ fix: Fix) -> FrozenFix? {
        guard frozen == nil, fix.hasPosition, gate.qualityIsMet(by: fix), let c = fix.coordinate, let a = fix.horizontalAccuracy,
              a < gate.require else { return nil }
        frozen = FrozenFix(fix: fix, coordinate: c, horizontalAccuracy: a, accuracySource: fix.accuracySource ?? .receiver,
                           epochs: 1, outliers: 0, spread: nil)
        return frozen
    }

    /// Starts averaging the next `epochs` fixes that pass the gate; the session freezes when they are in.
    public mutating func startAveraging(epochs: Int) {
        guard frozen == nil, averaging == nil, epochs > 0 else { return }
        averaging = (epochs, [])
    }

    /// Stops averaging early, freezing what was collected (nil when nothing was).
    @discardableResult
    public mutating func finishAveraging() -> FrozenFix? {
        guard let run = averaging else { return frozen }
        averaging = nil
        return freezeAverage(of: run.fixes)
    }

    /// Freezes the average of fixes chosen elsewhere (epochs that passed the gate, at a timeout);
    /// nil when there are none or a frozen fix is already held.
    @discardableResult
    public mutating func freezeAverage(of fixes: [Fix]) -> FrozenFix? {
        guard frozen == nil else { return nil }
        let passing = fixes.filter(passesGate)
        guard let last = passing.last, let avg = PositionAverager.average(passing) else { return nil }
        var fix = last
        fix.coordinate = avg.coordinate
        fix.horizontalAccuracy = avg.horizontalAccuracy
        fix.accuracySource = .averaged
        fix.altitudeMSL = avg.altitudeMSL ?? last.altitudeMSL
        fix.ellipsoidHeight = avg.ellipsoidHeight ?? last.ellipsoidHeight
        frozen = FrozenFix(fix: fix, coordinate: avg.coordinate, horizontalAccuracy: avg.horizontalAccuracy,
                           accuracySource: .averaged, epochs: avg.epochs, outliers: avg.outliers, spread: avg.spread)
        return frozen
    }

    /// Discards a frozen fix (re-capture): the session goes back to judging incoming fixes.
    public mutating func unfreeze() {
        frozen = nil
        averaging = nil
    }

    /// Forgets everything about the previous tree (for "next tree").
    public mutating func reset() {
        frozen = nil
        averaging = nil
        bestAcceptable = nil
    }

    private func passesGate(_ fix: Fix) -> Bool {
        guard fix.hasPosition, gate.qualityIsMet(by: fix), let a = fix.horizontalAccuracy, a.isFinite else { return false }
        return a < gate.require
    }
}
