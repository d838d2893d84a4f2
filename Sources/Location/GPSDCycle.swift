import Foundation
import TreesKit

/// The dilutions of precision and satellite count of one SKY report.
struct GPSDSky: Sendable, Equatable {
    var hdop: Double?
    var vdop: Double?
    var pdop: Double?
    var satellitesUsed: Int?
    /// The receiver time of the report, when gpsd gives one.
    var time: Date?
}

/// The error statistics of one GST report (per-axis 1-σ, metres).
struct GPSDGST: Sendable, Equatable {
    /// Nil when gpsd does not know the date yet (its first cycle): such a GST belongs to the
    /// epoch in progress.
    var time: Date?
    var sigmaLatitude: Double
    var sigmaLongitude: Double
    /// The height's 1-σ error, when the receiver gave one.
    var sigmaAltitude: Double? = nil
}

/// Where a fix's horizontal accuracy comes from, for fixes that arrive through gpsd.
///
/// The rule, in order:
/// 1. **GST.** When the receiver sent a GST report for the fix's epoch (same receiver time),
///    the accuracy is the 95% radius of its latitude and longitude 1-σ errors
///    (`AccuracyModel.radius95(sigmaLatitude:sigmaLongitude:)`), source `.gst`.
/// 2. **DOP model.** For a plain NMEA 0183 receiver gpsd has no error estimate of its own: its
///    `eph` is HDOP × 19 m (× 4.75 m with DGPS). When the driver is `NMEA0183` and `eph` equals
///    HDOP × UERE (within gpsd's printed precision) for this epoch's HDOP or the previous one,
///    the accuracy is `AccuracyModel.radius95(hdop:differential:)` of *this* epoch's HDOP,
///    source `.dop`. gpsd 3.22 computes `eph` before it has read the epoch's GSA, so its figure
///    lags one epoch behind; recomputing from the epoch's own HDOP gives the same figure the
///    NMEA reader gives for the same log. Right after an epoch without a SKY report (a gap in
///    the fix) gpsd's `eph` rests on an HDOP it never reported, so it is not checked. Without any
///    HDOP, an NMEA receiver's `eph` is taken as it is, still as `.dop`.
/// 3. **Receiver.** Otherwise gpsd's `eph` is the receiver's own estimate (binary protocols such
///    as u-blox UBX or SiRF), source `.receiver`.
///
/// Without any of these the fix has no accuracy.
enum GPSDAccuracyRule {
    /// How close `eph` must be to HDOP × UERE: gpsd prints `eph` with three decimals.
    static let tolerance = 0.0051

    static func accuracy(
        eph: Double?, gst: GPSDGST?, hdop: Double?, previousHDOP: Double?, previousKnown: Bool = true,
        differential: Bool, nmeaDriver: Bool
    ) -> (metres: Double?, source: AccuracySource?) {
        if let gst, gst.sigmaLatitude.isFinite, gst.sigmaLongitude.isFinite, gst.sigmaLatitude >= 0, gst.sigmaLongitude >= 0 {
            return (AccuracyModel.radius95(sigmaLatitude: gst.sigmaLatitude, sigmaLongitude: gst.sigmaLongitude), .gst)
        }
        if nmeaDriver {
            if let eph {
                let candidates = [hdop, previousHDOP].compactMap { $0 }
                if candidates.isEmpty { return (eph, .dop) }
                // After an epoch without a SKY report (no fix, no GSA) gpsd's eph rests on an HDOP
                // it never reported; it cannot be checked, and an NMEA receiver has no other source.
                if !previousKnown, let hdop {
                    return (AccuracyModel.radius95(hdop: hdop, differential: differential), .dop)
                }
                let matches = candidates.contains { h in
                    abs(eph - h * AccuracyModel.ueresGPS) <= tolerance || abs(eph - h * AccuracyModel.ueresDGPS) <= tolerance
                }
                if matches, let hdop {
                    return (AccuracyModel.radius95(hdop: hdop, differential: differential), .dop)
                }
                if matches { return (eph, .dop) }
                return (eph, .receiver)
            }
            if let hdop { return (AccuracyModel.radius95(hdop: hdop, differential: differential), .dop) }
            return (nil, nil)
        }
        if let eph { return (eph, .receiver) }
        return (nil, nil)
    }
}

/// Turns gpsd's reports into one fix per receiver epoch.
///
/// gpsd reports a receiver cycle when the sentence that ends it arrives, so the order of TPV,
/// SKY (DOPs, satellites used) and GST within a cycle follows the receiver's sentence order:
/// a receiver ending its cycle with RMC gives SKY, GST, TPV; one starting with RMC gives TPV, SKY,
/// GST. While gpsd is still learning the cycle (the first epoch) it sends one TPV per sentence,
/// each more complete than the last. So a TPV is held until its epoch is complete and the latest
/// TPV for that time is the one used:
/// - a GST with the TPV's time completes it, with a SKY that came between the two;
/// - a GST or TPV with a later time completes it with the SKY that came before it;
/// - the end of the burst of reports (`quiet()`, no report for a few hundred milliseconds, which
///   separates the cycles of a real receiver) completes it with a SKY that came after it, if any.
/// A fix repeating one given out (same time, or a little earlier) is dropped, across
/// reconnections too; a receiver time that steps further back starts the times over
/// (`ReceiverTimeline`).
struct GPSDCycleAssembler {
    private struct Pending {
        var fix: Fix
        var device: String?
        var skyBefore: GPSDSky?
        /// A SKY arrived between the previous TPV and this one.
        var freshSkyBefore: Bool
        var skyAfter: GPSDSky?
    }

    /// Driver names by device path, from DEVICES and DEVICE reports.
    var drivers: [String: String] = [:]
    /// Receiver times given out, so a repeated epoch is not given twice.
    private var timeline: ReceiverTimeline
    /// Receiver time of the last fix given out.
    var lastTime: Date? { timeline.last }
    private var pending: Pending?
    private var lastSky: GPSDSky?
    private var skySinceTPV = false
    private var recentGST: [GPSDGST] = []
    private var untimedGST: GPSDGST?
    private var hadPosition: Bool?
    /// Whether the last epoch given out had a SKY report of its own.
    private var lastEpochHadSky = true

    init(lastTime: Date? = nil) { timeline = ReceiverTimeline(last: lastTime) }

    /// True while a TPV waits for the rest of its epoch.
    var isHolding: Bool { pending != nil }

    /// Forgets the state of a connection (not `lastTime`): call after reconnecting.
    mutating func reset() {
        pending = nil; lastSky = nil; skySinceTPV = false; recentGST = []; untimedGST = nil; hadPosition = nil; drivers = [:]
        lastEpochHadSky = true
    }

    /// A TPV report. `fix` carries gpsd's values without DOPs and accuracy.
    mutating func tpv(_ fix: Fix, device: String?) -> [LocationEvent] {
        guard let time = fix.time else { return [] }
        var out: [LocationEvent] = []
        if var p = pending {
            if p.fix.time == time, p.device == device {
                p.fix = fix
                if p.skyAfter != nil { p.skyBefore = p.skyAfter; p.skyAfter = nil }
                pending = p
                return []
            }
            out = finish(sky: p.skyBefore)
        }
        pending = Pending(fix: fix, device: device, skyBefore: lastSky, freshSkyBefore: skySinceTPV, skyAfter: nil)
        skySinceTPV = false
        return out
    }

    /// A SKY report.
    mutating func sky(_ sky: GPSDSky) -> [LocationEvent] {
        lastSky = sky
        skySinceTPV = true
        if var p = pending {
            if let t = sky.time, let ft = p.fix.time, t != ft { return [] }
            p.skyAfter = sky
            pending = p
        }
        return []
    }

    /// A GST report: completes a held TPV.
    mutating func gst(_ gst: GPSDGST) -> [LocationEvent] {
        guard let gstTime = gst.time else {
            untimedGST = gst
            return []
        }
        recentGST.append(gst)
        if recentGST.count > 4 { recentGST.removeFirst(recentGST.count - 4) }
        guard let p = pending, let t = p.fix.time else { return [] }
        if t == gstTime { return finish(sky: p.skyAfter ?? p.skyBefore) }
        if gstTime > t { return finish(sky: p.skyBefore) }
        return []
    }

    /// The burst of reports has ended: gives out a held TPV.
    mutating func quiet() -> [LocationEvent] {
        guard let p = pending else { return [] }
        return finish(sky: p.skyAfter ?? p.skyBefore)
    }

    private mutating func finish(sky: GPSDSky?) -> [LocationEvent] {
        guard let p = pending else { return [] }
        pending = nil
        var fix = p.fix
        guard let time = fix.time else { return [] }
        guard timeline.takes(time) else { return [] }
        fix.hdop = sky?.hdop
        fix.vdop = sky?.vdop
        fix.pdop = sky?.pdop
        fix.satellitesUsed = sky?.satellitesUsed
        let nmea = p.device.flatMap { drivers[$0] } == "NMEA0183"
        let gst = recentGST.last { $0.time == time } ?? untimedGST
        untimedGST = nil
        // gpsd computed eph with the DOPs it held when it sent the TPV: the SKY before it.
        let acc = GPSDAccuracyRule.accuracy(
            eph: fix.eph, gst: gst, hdop: sky?.hdop, previousHDOP: p.skyBefore?.hdop, previousKnown: lastEpochHadSky,
            differential: fix.status.isDifferential, nmeaDriver: nmea)
        lastEpochHadSky = p.freshSkyBefore || p.skyAfter != nil
        if fix.hasPosition {
            fix.horizontalAccuracy = acc.metres
            fix.accuracySource = acc.metres == nil ? nil : acc.source
            if fix.altitudeMSL != nil || fix.ellipsoidHeight != nil {
                // The height's 95% interval: GST's height error when given, else gpsd's epv
                // (VDOP × UERE for an NMEA receiver, the receiver's own figure otherwise).
                if let s = gst?.sigmaAltitude, s.isFinite, s > 0, s <= 1000 {
                    fix.verticalAccuracy = AccuracyModel.vertical95(sigma: s)
                    fix.verticalAccuracySource = .gst
                } else if let v = sky?.vdop, v > 0, nmea {
                    fix.verticalAccuracy = AccuracyModel.vertical95(vdop: v, differential: fix.status.isDifferential)
                    fix.verticalAccuracySource = .dop
                } else if let e = fix.epv, e > 0 {
                    fix.verticalAccuracy = e
                    fix.verticalAccuracySource = nmea ? .dop : .receiver
                }
            }
        }
        var out: [LocationEvent] = []
        let has = fix.hasPosition
        switch (hadPosition, has) {
        case (true?, false): out.append(.fixLost)
        case (nil, false): out.append(.noFix)
        default: break
        }
        hadPosition = has
        out.append(.fix(fix))
        return out
    }
}
