import Foundation
import TreesKit

/// What one decoded sentence changed, named after gpsd's report masks.
struct Changes: OptionSet {
    let rawValue: UInt32

    static let time = Changes(rawValue: 1 << 0)
    static let position = Changes(rawValue: 1 << 1)
    static let mode = Changes(rawValue: 1 << 2)
    static let status = Changes(rawValue: 1 << 3)
    static let altitude = Changes(rawValue: 1 << 4)
    static let track = Changes(rawValue: 1 << 5)
    static let magneticTrack = Changes(rawValue: 1 << 6)
    static let speed = Changes(rawValue: 1 << 7)
    static let dop = Changes(rawValue: 1 << 8)
    static let errors = Changes(rawValue: 1 << 9)
    static let satellites = Changes(rawValue: 1 << 10)
    static let used = Changes(rawValue: 1 << 11)
    static let noise = Changes(rawValue: 1 << 12)
    static let attitude = Changes(rawValue: 1 << 13)
    /// Anything else a sentence reports (depth, wind, a heading the fix does not use).
    static let other = Changes(rawValue: 1 << 14)
    /// The sentence starts a new receiver cycle.
    static let clear = Changes(rawValue: 1 << 15)
    /// The cycle is complete: report it.
    static let report = Changes(rawValue: 1 << 16)
    /// East and north velocity (SkyTraq's `$PSTI,030`).
    static let velocity = Changes(rawValue: 1 << 17)
}

/// A fix as it is merged, sentence by sentence, in the units of ``Fix``.
struct MergedFix {
    /// Milliseconds since 1970; nil until a sentence gives a time with a known date.
    var time: Int64?
    var mode: FixMode = .notSeen
    var status: FixStatus = .unknown
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var altitudeHAE: Double?
    var geoidSeparation: Double?
    var speed: Double?
    var track: Double?
    var magneticTrack: Double?
    var magneticVariation: Double?
    /// East and north velocity (m/s), which give speed and track when no sentence does.
    var velocityEast: Double?
    var velocityNorth: Double?
    var eph: Double?
    var epx: Double?
    var epy: Double?
    var epv: Double?
    /// GBS latitude and longitude errors (1σ metres), kept apart for the accuracy figure.
    var gbsLatitude: Double?
    var gbsLongitude: Double?
    var gbsAltitude: Double?
    var correctionAge: Double?
    var correctionStation: Int?
    /// Satellites used as GGA or GNS counted them.
    var satellites: Int?
    var derived: Fix.Derived = []

    var hasAltitude: Bool { altitudeMSL != nil || altitudeHAE != nil }
}

/// Merges decoded sentences into fixes the way gpsd does, so that a replayed log reports what
/// `gpspipe -w` reports for it through gpsfake.
///
/// The model is gpsd's NMEA driver and core, rule for rule:
/// - **Cycles.** A sentence with a time of day (GGA, RMC with status A, GLL, GNS, ZDA, GBS,
///   `$PSRFEPE`) whose time differs from the previous such time by more than 10 ms starts a new
///   receiver cycle: the merged fix is cleared, and so are the DOPs unless that sentence gives
///   one. The sentence type that came just before such a change is marked as the cycle's
///   *ender*; from then on the cycle is reported when a sentence of that type arrives, and again
///   after any later sentence without a time that brings new data (a GSA or GSV finishing its
///   set, a heading, a depth). GLL continues a cycle rather than starting one: it moves the
///   ender to itself. Until an ender is known, every sentence that changes the position or the
///   mode is reported. GSV and GSA sets in several parts are read whole before anything counts.
/// - **Merging.** Each sentence's values replace the cycle's; status only rises within a cycle;
///   altitude, errors and geoid separation are kept when a later sentence lacks them. Mode rules
///   follow gpsd: GGA is 3D with an altitude and four or more satellites, 2D with a position
///   (whatever its quality), no fix with fewer than three satellites on a GP or GN talker; RMC and
///   GLL are 3D when the GSA used four satellites or the fix has an altitude; a 3D fix is not
///   lowered to 2D by a sentence that cannot tell them apart while an altitude was seen lately.
/// - **Derived values.** `eph` is HDOP × 19 m (× 4.75 m with DGPS status) from the first HDOP
///   of the cycle, `epv` likewise VDOP × 23 m (× 5.75 m) in 3D; both stand once set, and a
///   receiver's own estimate (`$PSRFEPE`, `$PGRME`, GBS) takes precedence. When no sentence of
///   the cycle gives a speed, it is the distance from the previous fix of another time
///   (Vincenty, WGS 84) over the time between them; a magnetic track with a known variation
///   gives the true track. Such values are marked in ``Fix/derived``.
/// - **Reports.** gpsd may report one cycle several times as it fills; the reader emits one
///   ``Fix`` per cycle, as it stood at its last report, once the next cycle is reported. A cycle
///   gpsd never reports (one that ends before the receiver's cycle ender is known, or in which
///   that ender does not come) is emitted as it stood at its end, except when agreeing with gpsd
///   (`asGpsd`); the stream's last cycle as it stands at the end of the stream.
///
/// - **DOPs from the sky.** After each complete GSV set, the DOPs no sentence of the cycle gave
///   are worked out from the directions of the satellites the latest GSA used (four or more);
///   xDOP and yDOP, which no sentence gives, always are, and give `epx` and `epy` (× 15 m, × 3.75 m
///   with DGPS). An HDOP worked out this way is marked in ``Fix/derived``.
///
/// What gpsd does and the reader does not: geoid separation from gpsd's geoid model when GGA
/// lacks it (so `altHAE` is left out then), and magnetic variation from its world magnetic model.
struct EpochAssembler {
    // MARK: date

    /// Days since 1970-01-01 of the receiver's current date; nil until RMC or ZDA gives one.
    var dateDays: Int?
    /// Milliseconds of day at which `dateDays` was last confirmed (for midnight rollover).
    var dateTimeOfDay = 0
    /// Fixes as gpsd reports them, for agreeing with gpsd (`NMEAFixReader.init(correctingWeekRollover:asGpsd:)`):
    /// - the date stays what the last RMC or ZDA said whatever the times of day that follow (a GGA
    ///   past midnight is timed a day early then);
    /// - the stream's last cycle, once reported, ends as it stood at that report;
    /// - a cycle gpsd never reports (its receiver's cycle ender did not come in it: a 1 Hz
    ///   instrument's GLL between a 5 Hz GPS's cycles, say) gives no fix, as gpsd gives no TPV.
    var asGpsd = false

    // MARK: the fix

    /// The cycle's merged fix (gpsd's `gpsdata.fix`).
    var fix = MergedFix()
    /// What the sentence being decoded gives (gpsd's `newdata`), cleared before each sentence.
    var new = MergedFix()
    /// The last fix with a time, and the last one before it with another time (gpsd's
    /// `lastfix` and `oldfix`), for derived speed and the mode rules.
    var lastFix = MergedFix()
    var oldFix = MergedFix()
    var hdop: Double?
    var vdop: Double?
    var pdop: Double?
    /// East and north DOPs; no sentence gives them, so only the satellites' geometry does.
    var xdop: Double?
    var ydop: Double?
    /// The HDOP last worked out from the satellites' geometry: `hdop` is the receiver's unless it
    /// is this value.
    var skyHDOP: Double?
    /// The satellites of the latest GSV set (gpsd's sky view).
    var sky: [SkySatellite] = []
    /// Satellites used, as the latest GSA set counted them (duplicates across talkers once).
    var satellitesUsed = 0
    var usedPRNs: [Int] = []
    /// GST σ latitude and σ longitude (metres) and the time of day they are for.
    var gst: (latitude: Double?, longitude: Double?, altitude: Double?, timeOfDay: Int?)?

    // MARK: sentence state

    var ggaSatellitesUsed = 0
    var lastGGATalker: UInt8 = 0
    var lastGGATime: [UInt8] = []
    var latchMode = false
    var lastGSATalker: UInt8 = 0
    var seenOtherGSA = false
    var lastGSVTalker: UInt8 = 0
    var endGSVTalker: UInt8 = 0
    var seenOtherGSV = false
    var gsvSane = false

    // MARK: cycle detection

    /// Time of day (ms) of the latest timed sentence and of the one before it.
    var thisTimeOfDay = 0
    var lastTimeOfDay = 0
    /// The sentence being decoded registered a time of day.
    var timeLatched = false
    /// More parts of a GSV or GSA set are to come.
    var moreParts = false
    var lastTag: SentenceTag = .none
    /// The sentence types that end a cycle (one or two in practice: a short array, no hashing).
    var enders: [SentenceTag] = []
    var cycleContinues = false
    var cycleEndReliable = false

    // MARK: reporting

    /// The fix of the latest report, not yet emitted, and what identifies its cycle.
    var pending: Fix?
    var pendingKey: Int64 = 0
    var cycles: Int64 = 0
    var reportedThisCycle = false
    var changedSinceReport = false
    var lastReportedTime: Double?

    // MARK: per sentence

    /// Clears what a sentence gives; call before decoding one.
    mutating func beginSentence() {
        new = MergedFix()
        timeLatched = false
        moreParts = false
    }

    /// Records a sentence's time of day for cycle detection.
    mutating func latchTime(_ timeOfDay: Int) {
        lastTimeOfDay = thisTimeOfDay
        thisTimeOfDay = timeOfDay
        timeLatched = true
        mergedTimeOfDay = timeOfDay
    }

    /// The time of day a sentence last gave (gpsd's merged date's time), whether or not it times
    /// a cycle; nil until one does.
    var mergedTimeOfDay: Int?

    /// The time (ms since 1970) of a sentence's time of day on the current date, rolling the
    /// date over midnight; nil without a date.
    mutating func timestamp(_ timeOfDay: Int) -> Int64? {
        advanceDate(to: timeOfDay)
        guard let d = dateDays else { return nil }
        let t = Int64(d) * 86_400_000 + Int64(timeOfDay)
        guard weekRollover.corrects(t) else { return t }
        // gpsd moves its date too: the times that follow stay in the new era even once the leap
        // seconds (a Garmin's $PGRMF) no longer call for it.
        dateDays = d + Int(WeekRollover.span / 86_400_000)
        return t + WeekRollover.span
    }

    /// gpsd's correction of receivers whose GPS week count rolled over (see ``WeekRollover``).
    var weekRollover = WeekRollover()

    /// Merges a decoded sentence, detects the cycle's start and end, and reports.
    ///
    /// `tag` names the sentence type (`.none` for types gpsd does not decode), `continues` is
    /// true for GLL. Sentences gpsd does not know at all leave `cycleContinues` as it was.
    mutating func endSentence(_ changes: Changes, tag: SentenceTag, continues: Bool?, isGSV: Bool, isGSA: Bool,
                              emit: (Fix) -> Void, statistics: inout NMEAStatistics) {
        var m = changes
        if let continues { cycleContinues = continues }
        if !isGSV {
            if lastGSVTalker != 0 { endGSVTalker = lastGSVTalker }
            lastGSVTalker = 0
        }
        if !isGSA { lastGSATalker = 0 }

        // The end-of-cycle detector.
        if moreParts {
            // Wait for the whole set.
        } else if timeLatched {
            if abs(thisTimeOfDay - lastTimeOfDay) > 10 {
                m.insert(.clear)
                if lastTag != .none && !enders.contains(lastTag) && !cycleContinues {
                    enders.append(lastTag)
                    cycleEndReliable = true
                }
            }
        } else {
            if enders.contains(lastTag) && !m.isEmpty {
                m.insert(.report)
            }
            if cycleContinues {
                enders.removeAll { $0 == lastTag }
                if !enders.contains(tag) { enders.append(tag) }
                cycleEndReliable = true
            }
        }
        if (timeLatched || cycleContinues) && enders.contains(tag) && !moreParts {
            m.insert(.report)
        }
        if timeLatched { lastTag = tag }

        // A sentence that cannot tell 2D from 3D does not lower a 3D fix while an altitude was seen.
        if m.contains(.mode) && fix.mode == .threeD && new.mode != .noFix
            && (lastFix.hasAltitude || oldFix.hasAltitude) {
            new.mode = .threeD
        }

        if m.contains(.clear) {
            // A cycle gpsd never reported is still a fix, but for agreeing with gpsd.
            if !reportedThisCycle && !asGpsd && (fix.mode != .notSeen || fix.time != nil) {
                report(emit: emit, statistics: &statistics)
            }
            cycles += 1
            reportedThisCycle = false
            if !m.contains(.dop) { hdop = nil; vdop = nil; pdop = nil; xdop = nil; ydop = nil }
            fix = MergedFix()
        }
        merge(m)
        if m.contains(.satellites) && !sky.isEmpty { fillDOPsFromGeometry() }
        errorModel()
        if !m.isEmpty { changedSinceReport = true }

        if !cycleEndReliable && !m.isDisjoint(with: [.attitude, .position, .mode]) { m.insert(.report) }
        if m.contains(.report) { report(emit: emit, statistics: &statistics) }
    }

    /// Copies what the sentence gave into the cycle's fix (gpsd's `gps_merge_fix`).
    private mutating func merge(_ m: Changes) {
        if m.contains(.time) { fix.time = new.time }
        if m.contains(.position) { fix.latitude = new.latitude; fix.longitude = new.longitude }
        if m.contains(.mode) { fix.mode = new.mode }
        if m.contains(.status), fix.status.rawValue < new.status.rawValue { fix.status = new.status }
        if m.contains(.altitude) {
            if let a = new.altitudeHAE { fix.altitudeHAE = a }
            if let a = new.altitudeMSL { fix.altitudeMSL = a }
        }
        if m.contains(.track) { fix.track = new.track; fix.derived.remove(.track) }
        if m.contains(.magneticTrack) {
            if let t = new.magneticTrack { fix.magneticTrack = t }
            if let v = new.magneticVariation { fix.magneticVariation = v }
        }
        if m.contains(.speed) { fix.speed = new.speed; fix.derived.remove(.speed) }
        if m.contains(.velocity) { fix.velocityEast = new.velocityEast; fix.velocityNorth = new.velocityNorth }
        if let x = new.epx, let y = new.epy { fix.epx = x; fix.epy = y }
        if let e = new.eph { fix.eph = e }
        if let s = new.geoidSeparation { fix.geoidSeparation = s }
        if let v = new.epv { fix.epv = v }
        if let a = new.gbsLatitude, let b = new.gbsLongitude { fix.gbsLatitude = a; fix.gbsLongitude = b; fix.gbsAltitude = new.gbsAltitude }
        if m.contains(.status), let age = new.correctionAge { fix.correctionAge = age; fix.correctionStation = new.correctionStation }
        if let n = new.satellites { fix.satellites = n }
    }

    /// The DOPs no sentence of the cycle gave, from the directions of the satellites used (gpsd's
    /// `fill_dop`, after each complete GSV set); a DOP the receiver sent is kept.
    private mutating func fillDOPsFromGeometry() {
        if xdop != nil && ydop != nil && hdop != nil && vdop != nil && pdop != nil { return }
        guard let g = GeometryDOP(sky) else { return }
        if xdop == nil { xdop = g.x }
        if ydop == nil { ydop = g.y }
        if hdop == nil { hdop = g.horizontal; skyHDOP = g.horizontal }
        if vdop == nil { vdop = g.vertical }
        if pdop == nil { pdop = g.position }
    }

    /// Derived values, as gpsd's `gpsd_error_model` computes them after every sentence.
    private mutating func errorModel() {
        var delta = -1.0
        if let t = fix.time, t > 0 {
            delta = Double(t - (lastFix.time ?? 0)) / 1000
            if abs(delta) > 0.0099 {
                oldFix = lastFix
            } else {
                delta = Double(t - (oldFix.time ?? 0)) / 1000
            }
        }
        if fix.latitude == nil || fix.longitude == nil { fix.latitude = nil; fix.longitude = nil }
        if let s = fix.speed, abs(s) > 9999.9 { fix.speed = nil }
        if let v = fix.velocityNorth, abs(v) > 9999.9 { fix.velocityNorth = nil }
        if let v = fix.velocityEast, abs(v) > 9999.9 { fix.velocityEast = nil }
        // A receiver's velocity gives the speed and track no sentence gave: measured, not derived.
        if let n = fix.velocityNorth, let e = fix.velocityEast {
            if fix.speed == nil { fix.speed = (n * n + e * e).squareRoot() }
            if fix.track == nil { fix.track = atan2(e, n) * 180 / .pi }
        }

        // No variation, or one so small it stands for "unknown" (`0.0,E`): gpsd's own grid's.
        if let la = fix.latitude, let lo = fix.longitude, abs(fix.magneticVariation ?? 0) <= 0.09,
           let v = MagneticVariation.gpsdVariation(latitude: la, longitude: lo) {
            fix.magneticVariation = v
        }
        if let v = fix.magneticVariation {
            if fix.magneticTrack == nil, let t = fix.track {
                fix.magneticTrack = t + v
            } else if let m = fix.magneticTrack, fix.track == nil {
                fix.track = m - v
                fix.derived.insert(.track)
            }
        }
        if let t = fix.track { fix.track = Self.normalised(t) }
        if let m = fix.magneticTrack { fix.magneticTrack = Self.normalised(m) }
        if let sep = fix.geoidSeparation {
            if let hae = fix.altitudeHAE, fix.altitudeMSL == nil {
                fix.altitudeMSL = hae - sep
            } else if fix.altitudeHAE == nil, let msl = fix.altitudeMSL {
                fix.altitudeHAE = msl + sep
            }
        }

        if delta > 0, fix.mode >= .twoD, oldFix.mode >= .twoD, fix.speed == nil,
           let la = fix.latitude, let lo = fix.longitude, let oa = oldFix.latitude, let oo = oldFix.longitude {
            let v = Vincenty.distance(la, lo, oa, oo) / delta
            if v.isFinite && abs(v) <= 9999.9 {
                fix.speed = v
                fix.derived.insert(.speed)
            }
        }

        if fix.mode >= .twoD {
            let dgps = fix.status == .dgps
            if new.epx == nil, let x = xdop { fix.epx = x * (dgps ? 3.75 : 15.0) }
            if new.epy == nil, let y = ydop { fix.epy = y * (dgps ? 3.75 : 15.0) }
            if fix.mode == .threeD, fix.epv == nil, let v = vdop { fix.epv = v * (dgps ? 5.75 : 23.0) }
            if fix.eph == nil, let h = hdop {
                fix.eph = h * (dgps ? 4.75 : 19.0)
                if h == skyHDOP { fix.derived.insert(.dop) }
            }
        }
        if let t = fix.time, t > 0 { lastFix = fix }
    }

    private static func normalised(_ degrees: Double) -> Double {
        var d = degrees
        if d < 0 { d += 360 }
        if d >= 360 { d -= 360 }
        return d
    }

    // MARK: reports

    private mutating func report(emit: (Fix) -> Void, statistics: inout NMEAStatistics) {
        let out = makeFix()
        // A new cycle, or a new time within the cycle (sentences a few milliseconds apart), is a
        // new fix; a cycle that gains its time (from a later sentence with a date) is not.
        if let p = pending, pendingKey != cycles || (p.time != nil && p.time != out.time) {
            flush(emit: emit, statistics: &statistics)
        }
        pending = out
        pendingKey = cycles
        reportedThisCycle = true
        changedSinceReport = false
    }

    /// Gives the fix of a GST's time its accuracy, when the GST comes after the fix was reported.
    mutating func applyGST() {
        guard let p = pending, p.time != nil, let g = gst, let tod = g.timeOfDay,
              fix.time.map({ Int(($0 % 86_400_000 + 86_400_000) % 86_400_000) }) == tod, pendingKey == cycles else { return }
        var updated = makeFix()
        updated.time = p.time
        pending?.horizontalAccuracy = updated.horizontalAccuracy
        pending?.accuracySource = updated.accuracySource
        pending?.verticalAccuracy = updated.verticalAccuracy
        pending?.verticalAccuracySource = updated.verticalAccuracySource
    }

    /// Reports the cycle being merged if it changed since its last report, then emits the last
    /// fix. Call once at the end of the stream.
    ///
    /// gpsd would report that cycle when its ender arrives; a stream that ends first still has it.
    mutating func finish(emit: (Fix) -> Void, statistics: inout NMEAStatistics) {
        if changedSinceReport && !(asGpsd && reportedThisCycle) && (fix.mode != .notSeen || fix.time != nil) {
            report(emit: emit, statistics: &statistics)
        }
        flush(emit: emit, statistics: &statistics)
    }

    /// Emits the fix of the latest report, if any.
    mutating func flush(emit: (Fix) -> Void, statistics: inout NMEAStatistics) {
        guard let out = pending else { return }
        pending = nil
        if let t = out.time?.timeIntervalSince1970 {
            if let last = lastReportedTime, t < last { statistics.timeRegressions += 1 }
            lastReportedTime = t
        }
        statistics.epochs += 1
        if out.hasPosition { statistics.fixes += 1 }
        emit(out)
    }

    /// The reported fix, as gpsd's TPV shows the merged fix, plus DOPs, satellites and the 95% accuracy.
    ///
    /// `horizontalAccuracy` comes from GST when it is for this fix's time (or gives none) and its
    /// σ latitude and σ longitude are sane (above 0, at most 1000 m):
    /// `AccuracyModel.radius95(sigmaLatitude:sigmaLongitude:)`; else from GBS's latitude and
    /// longitude errors (1σ) the same way; else HDOP × 19 m (× 4.75 m with DGPS or RTK).
    func makeFix() -> Fix {
        var out = Fix()
        if let t = fix.time, t > 0 { out.time = Date(timeIntervalSince1970: Double(t) / 1000) }
        out.mode = fix.mode
        out.status = fix.status
        out.satellitesUsed = fix.satellites ?? (satellitesUsed > 0 ? satellitesUsed : nil)
        guard fix.mode.hasPosition else { return out }
        if let lat = fix.latitude, let lon = fix.longitude {
            out.coordinate = Coordinate(latitude: lat, longitude: lon)
        }
        out.hdop = hdop
        out.vdop = vdop
        out.pdop = pdop
        out.altitudeMSL = fix.altitudeMSL
        out.geoidSeparation = fix.geoidSeparation
        out.ellipsoidHeight = fix.altitudeHAE
        out.speed = fix.speed
        out.track = fix.track
        out.derived = fix.derived
        if let h = hdop, h == skyHDOP { out.derived.insert(.dop) }
        out.eph = fix.eph
        out.epx = fix.epx
        out.epy = fix.epy
        out.epv = fix.epv
        let tod = fix.time.map { Int(($0 % 86_400_000 + 86_400_000) % 86_400_000) }
        if let g = gst, g.timeOfDay == nil || g.timeOfDay == tod,
           let a = g.latitude, let b = g.longitude, Self.isSaneSigma(a), Self.isSaneSigma(b) {
            out.horizontalAccuracy = AccuracyModel.radius95(sigmaLatitude: a, sigmaLongitude: b)
            out.accuracySource = .gst
        } else if let a = fix.gbsLatitude, let b = fix.gbsLongitude, Self.isSaneSigma(a), Self.isSaneSigma(b) {
            out.horizontalAccuracy = AccuracyModel.radius95(sigmaLatitude: a, sigmaLongitude: b)
            out.accuracySource = .gbs
        } else if let h = hdop, h > 0 {
            out.horizontalAccuracy = AccuracyModel.radius95(hdop: h, differential: fix.status.isDifferential)
            out.accuracySource = .dop
        }
        if fix.status.isDifferential {
            out.correctionAge = fix.correctionAge
            out.correctionStation = fix.correctionStation
        }
        guard fix.hasAltitude else { return out }
        if let g = gst, g.timeOfDay == nil || g.timeOfDay == tod, let v = g.altitude, Self.isSaneSigma(v) {
            out.verticalAccuracy = AccuracyModel.vertical95(sigma: v)
            out.verticalAccuracySource = .gst
        } else if let v = fix.gbsAltitude, Self.isSaneSigma(v) {
            out.verticalAccuracy = AccuracyModel.vertical95(sigma: v)
            out.verticalAccuracySource = .gbs
        } else if let v = vdop, v > 0 {
            out.verticalAccuracy = AccuracyModel.vertical95(vdop: v, differential: fix.status.isDifferential)
            out.verticalAccuracySource = .dop
        }
        return out
    }

    /// A 1σ error in metres a receiver can mean: above zero and at most 1 km (receivers without a
    /// fix send 300 km and the like).
    static func isSaneSigma(_ v: Double) -> Bool { v.isFinite && v > 0 && v <= 1000 }

    // MARK: dates

    /// Sets the receiver's date from RMC or ZDA at a given time of day.
    mutating func setDate(year: Int, month: Int, day: Int, timeOfDay: Int) {
        dateDays = CivilDate.days(year: year, month: month, day: day)
        dateTimeOfDay = timeOfDay
    }

    /// Rolls the date over midnight when a time of day jumps by more than twelve hours (unless
    /// `asGpsd`).
    ///
    /// A jump back by more than twelve hours rolls the date forward (midnight); one forward by
    /// more than twelve hours rolls it back, so a ZDA running a second past midnight cannot move
    /// its neighbours a day ahead.
    mutating func advanceDate(to timeOfDay: Int) {
        guard let d = dateDays, !asGpsd else { return }
        let half = 43_200_000
        if timeOfDay - dateTimeOfDay < -half {
            dateDays = d + 1
        } else if timeOfDay - dateTimeOfDay > half {
            dateDays = d - 1
        }
        dateTimeOfDay = timeOfDay
    }
}

/// Distance on the WGS 84 ellipsoid by Vincenty's inverse formula.
enum Vincenty {
    /// Metres between two points given in degrees; NaN when the iteration does not converge
    /// (nearly antipodal points).
    static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let a = 6_378_137.0
        let f = 1 / 298.257223563
        let b = a * (1 - f)
        let rad = Double.pi / 180
        let l = (lon2 - lon1) * rad
        let u1 = atan((1 - f) * tan(lat1 * rad))
        let u2 = atan((1 - f) * tan(lat2 * rad))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)
        var lambda = l
        var iterations = 0
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cos2Alpha = 0.0, cos2SigmaM = 0.0
        while true {
            let sinLambda = sin(lambda), cosLambda = cos(lambda)
            let p = cosU2 * sinLambda
            let q = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (p * p + q * q).squareRoot()
            if sinSigma == 0 { return 0 }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cos2Alpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cos2Alpha == 0 ? 0 : cosSigma - 2 * sinU1 * sinU2 / cos2Alpha
            let c = f / 16 * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha))
            let previous = lambda
            lambda = l + (1 - c) * f * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            iterations += 1
            if abs(lambda - previous) <= 1e-12 { break }
            if iterations >= 100 { return .nan }
        }
        let uSquared = cos2Alpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let bigB = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
            - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return b * bigA * (sigma - deltaSigma)
    }
}

/// gpsd's guard against the GPS week rollover: a receiver that reports a time before 2017 while
/// the leap seconds are 18 or more (gpsd's built-in count, or one the receiver sent) is taken to
/// have lost 1024 weeks, and 1024 weeks are added. A log that says when it was recorded
/// (`# Date: yyyy-mm-dd`, as gpsd's regression logs do) is read as dated.
///
/// It is what gpsd reports for a log replayed through it today, and it mends a live receiver
/// with the rollover bug; but a genuine recording from before 2017 read this way is moved 19.6
/// years ahead, so readers of recorded tracks turn it on only to agree with gpsd.
struct WeekRollover: Sendable {
    /// 1024 weeks in milliseconds.
    static let span: Int64 = 1024 * 7 * 86_400_000
    /// 2017-01-01T00:00:00Z, when the 18th leap second came in.
    static let eighteenthLeapSecond: Int64 = 1_483_228_800_000

    /// Whether the correction is made at all.
    var enabled = false
    /// GPS − UTC leap seconds as gpsd knows them: its build's 18 until a receiver says otherwise.
    var leapSeconds = 18
    /// The log said when it was recorded: times are taken as they come.
    var dated = false

    func corrects(_ t: Int64) -> Bool { enabled && !dated && leapSeconds > 17 && t < Self.eighteenthLeapSecond }
}
