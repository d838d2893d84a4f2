import Foundation
import TreesKit

/// Merges decoded sentences into one ``Fix`` per receiver epoch (one UTC time of day).
///
/// The rules follow gpsd's NMEA driver, so that fixes read here match what gpsd reports for the
/// same log:
/// - An epoch starts with the first sentence carrying a new UTC time (GGA, RMC with status A/D,
///   GLL, GNS) and takes every sentence up to the next such time; within an epoch the last
///   sentence that gives a value wins.
/// - Sentences without a time of their own (GSA, VTG, GST, GBS, GSV) belong to the epoch they
///   follow. As in gpsd, the epoch is reported as it stood after its *last timed sentence*: a GSA
///   sent after the last timed sentence of a cycle only reaches the next epoch, through the DOPs
///   and satellite count that carry over. The first epoch of a stream, before that cycle end is
///   known, takes everything up to the next time.
/// - The date comes from RMC (status A/D) or ZDA; GGA, GLL and GNS times take the latest date.
///   A time of day that jumps back by more than twelve hours rolls the date forward (midnight),
///   one that jumps forward by more than twelve hours rolls it back, so a ZDA running a second
///   past midnight cannot move its neighbours a day ahead.
/// - DOPs and the GSA satellite count carry over from epoch to epoch until a sentence replaces them.
struct EpochAssembler {
    /// The fields of the epoch being filled.
    struct Epoch {
        var active = false
        /// Set once a GGA/RMC/GLL/GNS has been seen: only such epochs are reported.
        var anchored = false
        var timeOfDay: Int?
        var mode: FixMode?
        var status: FixStatus?
        var latitude: Double?
        var longitude: Double?
        var altitudeMSL: Double?
        var geoidSeparation: Double?
        var satellites: Int?
        var speed: Double?
        var track: Double?
        var gstSigmaLatitude: Double?
        var gstSigmaLongitude: Double?
        var gbsLatitude: Double?
        var gbsLongitude: Double?
        var gbsAltitude: Double?
        // Carried values as they stood when the snapshot was taken.
        var hdop: Double?
        var vdop: Double?
        var pdop: Double?
        var gsaSatellites: Int?
        var dateDays: Int?
    }

    // Carried from epoch to epoch.
    /// Days since 1970-01-01 of the receiver's current date.
    var dateDays: Int?
    /// Milliseconds of day at which `dateDays` was last confirmed (for midnight rollover).
    var dateTimeOfDay = 0
    var hdop: Double?
    var vdop: Double?
    var pdop: Double?
    /// Satellites used per the latest GSA set (several GSAs in a row add up).
    var gsaSatellites: Int?
    var lastSentenceWasGSA = false
    var lastGSATalker: UInt8 = 0
    /// Mode and altitude of the last reported epoch (gpsd's `lastfix`), used by the RMC/GLL mode rules.
    var previousMode: FixMode = .notSeen
    var previousHadAltitude = false
    /// Mode and altitude of the previous epoch as merged (gpsd's `oldfix`, whatever was reported).
    var previousMergedMode: FixMode?
    var previousMergedHadAltitude = false
    /// True while the sentence being merged is the one that started the epoch: gpsd applies its
    /// mode rules to the previous epoch's merged fix then, because it clears the fix only afterwards.
    var atEpochStart = false
    var cycleEndKnown = false
    var lastReportedTime: Double?

    var live = Epoch()
    var snapshot = Epoch()

    // MARK: epochs

    /// Starts a new epoch for a timed sentence unless it belongs to the current one.
    mutating func begin(timeOfDay: Int?, emit: (Fix) -> Void, statistics: inout NMEAStatistics) {
        if live.active && live.timeOfDay == timeOfDay { atEpochStart = false; return }
        if live.active {
            previousMergedMode = live.mode
            previousMergedHadAltitude = live.altitudeMSL != nil
        }
        atEpochStart = true
        flush(emit: emit, statistics: &statistics)
        live = Epoch()
        live.active = true
        live.timeOfDay = timeOfDay
    }

    /// Records that a timed sentence has been merged: the epoch as reported ends here unless another follows.
    mutating func markTimed() {
        live.anchored = true
        live.hdop = hdop; live.vdop = vdop; live.pdop = pdop
        live.gsaSatellites = gsaSatellites
        live.dateDays = dateDays
        snapshot = live
    }

    /// Reports the current epoch, if it has anything to report.
    mutating func flush(emit: (Fix) -> Void, statistics: inout NMEAStatistics) {
        guard live.active else { return }
        defer { live = Epoch(); snapshot = Epoch() }
        guard live.anchored else { return }
        var e: Epoch
        if cycleEndKnown {
            e = snapshot
        } else {
            e = live
            e.hdop = hdop; e.vdop = vdop; e.pdop = pdop
            e.gsaSatellites = gsaSatellites
            e.dateDays = dateDays
            cycleEndKnown = true
        }
        let fix = makeFix(e)
        previousMode = fix.mode
        previousHadAltitude = e.altitudeMSL != nil
        if let t = fix.time?.timeIntervalSince1970 {
            if let last = lastReportedTime, t < last { statistics.timeRegressions += 1 }
            lastReportedTime = t
        }
        statistics.epochs += 1
        if fix.hasPosition { statistics.fixes += 1 }
        emit(fix)
    }

    /// Builds the reported fix, with gpsd's error estimates and the 95% horizontal accuracy.
    ///
    /// - `eph` = HDOP × 19 m, or HDOP × 4.75 m with DGPS status (gpsd's UERE, already a 95% figure);
    /// - `epv` = VDOP × 23 m, or × 5.75 m with DGPS, unless GBS gives the altitude error;
    /// - `epx`, `epy` = GBS longitude and latitude errors, 1σ metres, unscaled (as gpsd does);
    /// - `horizontalAccuracy`: from GST when its σ latitude and σ longitude are sane
    ///   (finite, above 0, at most 1000 m): `AccuracyModel.radius95(sigmaLatitude:sigmaLongitude:)`,
    ///   i.e. √(σlat² + σlon²) × 2.4477 / √2; else from GBS's latitude and longitude errors (1σ) the
    ///   same way; else HDOP × 19 m (× 4.75 m with differential corrections, DGPS or RTK).
    func makeFix(_ e: Epoch) -> Fix {
        var fix = Fix()
        if let tod = e.timeOfDay, let days = e.dateDays {
            let ms = Double(days) * 86_400_000 + Double(tod)
            fix.time = Date(timeIntervalSince1970: ms / 1000)
        }
        var mode = e.mode ?? .notSeen
        if mode == .notSeen && e.latitude != nil && e.longitude != nil { mode = .twoD }
        if mode.hasPosition && (e.latitude == nil || e.longitude == nil) { mode = .noFix }
        fix.mode = mode
        fix.status = e.status ?? .unknown
        fix.satellitesUsed = e.satellites ?? e.gsaSatellites
        guard mode.hasPosition, let lat = e.latitude, let lon = e.longitude else { return fix }
        // DOPs carry over from earlier epochs; they are reported only with a position.
        fix.hdop = e.hdop
        fix.vdop = e.vdop
        fix.pdop = e.pdop
        fix.coordinate = Coordinate(latitude: lat, longitude: lon)
        fix.speed = e.speed
        fix.track = e.track
        // A 2D fix has no measured altitude (the receiver holds it), so none is reported.
        fix.geoidSeparation = e.geoidSeparation
        if mode == .threeD, let alt = e.altitudeMSL {
            fix.altitudeMSL = alt
            if let sep = e.geoidSeparation { fix.ellipsoidHeight = alt + sep }
        }
        let dgps = fix.status == .dgps
        if let h = e.hdop, h > 0 { fix.eph = h * (dgps ? 4.75 : 19.0) }
        if let v = e.gbsAltitude {
            fix.epv = v
        } else if let v = e.vdop, v > 0 {
            fix.epv = v * (dgps ? 5.75 : 23.0)
        }
        fix.epx = e.gbsLongitude
        fix.epy = e.gbsLatitude
        if let a = e.gstSigmaLatitude, let b = e.gstSigmaLongitude, Self.isSaneSigma(a), Self.isSaneSigma(b) {
            fix.horizontalAccuracy = AccuracyModel.radius95(sigmaLatitude: a, sigmaLongitude: b)
            fix.accuracySource = .gst
        } else if let a = e.gbsLatitude, let b = e.gbsLongitude, Self.isSaneSigma(a), Self.isSaneSigma(b) {
            fix.horizontalAccuracy = AccuracyModel.radius95(sigmaLatitude: a, sigmaLongitude: b)
            fix.accuracySource = .gbs
        } else if let h = e.hdop, h > 0 {
            fix.horizontalAccuracy = AccuracyModel.radius95(hdop: h, differential: fix.status.isDifferential)
            fix.accuracySource = .dop
        }
        return fix
    }

    /// A 1σ error in metres a receiver can mean: above zero and at most 1 km (receivers without a
    /// fix send 300 km and the like).
    static func isSaneSigma(_ v: Double) -> Bool { v.isFinite && v > 0 && v <= 1000 }

    // MARK: mode rules

    /// Applies a mode from a sentence, keeping a 3D fix from being downgraded to 2D by a sentence
    /// that cannot tell 2D from 3D (gpsd's rule).
    mutating func setMode(_ mode: FixMode) {
        if mergedMode == .threeD && mode != .noFix && (previousHadAltitude || mergedHasAltitude) {
            live.mode = .threeD
            return
        }
        live.mode = mode
    }

    /// The mode of the merged fix as gpsd sees it while a sentence is decoded.
    var mergedMode: FixMode? { atEpochStart ? previousMergedMode : live.mode }
    /// Whether the merged fix has an altitude as gpsd sees it while a sentence is decoded.
    var mergedHasAltitude: Bool { atEpochStart ? previousMergedHadAltitude : live.altitudeMSL != nil }

    /// Applies a status from RMC, GLL or GNS: a plain GPS or DGPS indication does not replace a
    /// more specific status the epoch already has from GGA (RTK, DGPS, dead reckoning…), as in gpsd.
    mutating func mergeStatus(_ status: FixStatus) {
        if let s = live.status, s.rawValue > FixStatus.gps.rawValue,
           status == .gps || status == .dgps {
            return
        }
        live.status = status
    }

    // MARK: dates

    /// Sets the receiver's date from RMC or ZDA at a given time of day.
    mutating func setDate(year: Int, month: Int, day: Int, timeOfDay: Int) {
        dateDays = CivilDate.days(year: year, month: month, day: day)
        dateTimeOfDay = timeOfDay
    }

    /// Rolls the date over midnight when a time of day jumps by more than twelve hours.
    mutating func advanceDate(to timeOfDay: Int) {
        guard let d = dateDays else { return }
        let half = 43_200_000
        if timeOfDay - dateTimeOfDay < -half {
            dateDays = d + 1
        } else if timeOfDay - dateTimeOfDay > half {
            dateDays = d - 1
        }
        dateTimeOfDay = timeOfDay
    }
}
