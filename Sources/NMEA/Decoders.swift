import TreesKit

/// A field that failed its check: what it was and why, for the diagnostic.
struct FieldProblem: Error {
    let detail: String
}

extension NMEAFixReader {
    /// Decodes a checksummed sentence and merges it into the current epoch.
    ///
    /// Every field is checked before anything is merged: a sentence with a malformed field is
    /// skipped whole (counted as `malformed`), never half used.
    mutating func decode(_ kind: SentenceType, _ f: Fields, line: Int, emit: (Fix) -> Void) {
        do {
            switch kind {
            case .gga: try gga(f, emit: emit)
            case .rmc: try rmc(f, emit: emit)
            case .gll: try gll(f, emit: emit)
            case .gns: try gns(f, emit: emit)
            case .gsa: try gsa(f)
            case .gst: try gst(f)
            case .gbs: try gbs(f)
            case .vtg: try vtg(f)
            case .zda: try zda(f)
            case .gsv: try gsv(f)
            }
            assembler.lastSentenceWasGSA = kind == .gsa
            assembler.atEpochStart = false
        } catch {
            assembler.atEpochStart = false
            statistics.skip(.malformed, line: line, detail: kind.name + " " + error.detail)
        }
    }

    // MARK: field checks

    private func time(_ f: Field, _ name: StaticString = "time") throws(FieldProblem) -> Int? {
        if f.isEmpty { return nil }
        guard let t = f.timeOfDay() else { throw FieldProblem(detail: "\(name) '\(f.text)' is not hhmmss") }
        return t
    }

    private func number(_ f: Field, _ name: String) throws(FieldProblem) -> Double? {
        if f.isEmpty { return nil }
        guard let v = f.decimal() else { throw FieldProblem(detail: "\(name) '\(f.text)' is not a number") }
        return v
    }

    private func count(_ f: Field, _ name: String) throws(FieldProblem) -> Int? {
        if f.isEmpty { return nil }
        guard let v = f.integer() else { throw FieldProblem(detail: "\(name) '\(f.text)' is not a whole number") }
        return v
    }

    /// Latitude and longitude from four fields (`4807.038,N,01131.324,E`); nil when any is empty.
    private func position(_ f: Fields, at i: Int) throws(FieldProblem) -> (Double, Double)? {
        let la = f[i], ns = f[i + 1], lo = f[i + 2], ew = f[i + 3]
        if la.isEmpty || ns.isEmpty || lo.isEmpty || ew.isEmpty { return nil }
        guard var lat = la.degreesMinutes() else { throw FieldProblem(detail: "latitude '\(la.text)' is not ddmm.mmmm") }
        guard var lon = lo.degreesMinutes() else { throw FieldProblem(detail: "longitude '\(lo.text)' is not dddmm.mmmm") }
        guard lat <= 90 else { throw FieldProblem(detail: "latitude \(la.text) is beyond 90°") }
        guard lon <= 180 else { throw FieldProblem(detail: "longitude \(lo.text) is beyond 180°") }
        switch ns.first {
        case UInt8(ascii: "N"): break
        case UInt8(ascii: "S"): lat = -lat
        default: throw FieldProblem(detail: "latitude hemisphere '\(ns.text)' is not N or S")
        }
        switch ew.first {
        case UInt8(ascii: "E"): break
        case UInt8(ascii: "W"): lon = -lon
        default: throw FieldProblem(detail: "longitude hemisphere '\(ew.text)' is not E or W")
        }
        return (lat, lon)
    }

    /// Status from an FAA mode indicator (NMEA 2.3+), numbered as gpsd does.
    private static func faaStatus(_ c: UInt8) -> FixStatus {
        switch c {
        case 0, UInt8(ascii: "N"), UInt8(ascii: "C"), UInt8(ascii: "U"): .unknown
        case UInt8(ascii: "D"), UInt8(ascii: "P"): .dgps
        case UInt8(ascii: "E"): .deadReckoning
        case UInt8(ascii: "F"): .rtkFloat
        case UInt8(ascii: "R"): .rtkFixed
        case UInt8(ascii: "M"), UInt8(ascii: "S"): .simulated
        default: .gps
        }
    }

    /// Status from GGA's quality indicator: 1→GPS, 2→DGPS, 3→PPS, 4→RTK fixed, 5→RTK float,
    /// 6→dead reckoning, 7→time only (manual input), 8→simulated.
    private static func qualityStatus(_ q: Int) -> FixStatus? {
        switch q {
        case 0: .unknown
        case 1: .gps
        case 2: .dgps
        case 3: .pps
        case 4: .rtkFixed
        case 5: .rtkFloat
        case 6: .deadReckoning
        case 7: .timeOnly
        case 8: .simulated
        default: nil
        }
    }

    /// Starts or continues the epoch of a timed sentence, rolling the date over midnight.
    private mutating func beginTimed(_ tod: Int?, emit: (Fix) -> Void) {
        assembler.begin(timeOfDay: tod, emit: emit, statistics: &statistics)
        if let tod { assembler.advanceDate(to: tod) }
    }

    // MARK: sentences

    /// GGA: time, position, quality, satellites used, HDOP, altitude MSL, geoid separation.
    private mutating func gga(_ f: Fields, emit: (Fix) -> Void) throws(FieldProblem) {
        let t = try time(f[1])
        let pos = try position(f, at: 2)
        let quality = try count(f[6], "quality")
        let sats = try count(f[7], "satellites")
        let hdop = try number(f[8], "HDOP")
        let alt = try number(f[9], "altitude")
        let sep = try number(f[11], "geoid separation")
        let status = quality.flatMap(Self.qualityStatus)
        if quality != nil && status == nil { throw FieldProblem(detail: "quality '\(f[6].text)' is not 0-8") }

        beginTimed(t, emit: emit)
        if let status { assembler.live.status = status }
        if let pos, quality != 0 {
            var mode = FixMode.twoD
            if alt != nil, let sats, sats >= 4 { mode = .threeD }
            if let sats, sats < 3 { mode = .noFix }
            assembler.setMode(mode)
            assembler.live.latitude = pos.0
            assembler.live.longitude = pos.1
            if let alt { assembler.live.altitudeMSL = alt }
            if let sep { assembler.live.geoidSeparation = sep }
        } else {
            assembler.setMode(.noFix)
        }
        if let sats { assembler.live.satellites = sats }
        if let hdop, hdop > 0, hdop < 99 { assembler.hdop = hdop }
        assembler.markTimed()
    }

    /// RMC: time, status, position, speed (knots), track, date, FAA mode.
    private mutating func rmc(_ f: Fields, emit: (Fix) -> Void) throws(FieldProblem) {
        let valid = f[2].first == UInt8(ascii: "A") || f[2].first == UInt8(ascii: "D")
        let t = try time(f[1])
        let pos = try position(f, at: 3)
        let knots = try number(f[7], "speed")
        let track = try number(f[8], "track")
        var date: (day: Int, month: Int, year: Int)?
        if !f[9].isEmpty {
            guard let d = f[9].ddmmyy() else { throw FieldProblem(detail: "date '\(f[9].text)' is not ddmmyy") }
            date = d
        }
        guard valid else {
            // Status V: no fix. Receivers send bogus times with it, so neither its time nor its date is used.
            if assembler.live.active { assembler.setMode(.noFix); assembler.live.status = .unknown }
            return
        }
        if let t, let date {
            var year = century + date.year
            if year >= 2080 { year -= 100 }
            assembler.begin(timeOfDay: t, emit: emit, statistics: &statistics)
            assembler.setDate(year: year, month: date.month, day: date.day, timeOfDay: t)
        } else if !assembler.live.active {
            assembler.begin(timeOfDay: nil, emit: emit, statistics: &statistics)
        } else {
            assembler.atEpochStart = false
        }
        if let pos {
            var mode: FixMode = assembler.previousMode == .threeD ? .threeD : .twoD
            if let used = assembler.gsaSatellites, used > 3 {
                mode = .threeD
            } else if assembler.mergedHasAltitude {
                mode = .threeD
            }
            assembler.setMode(mode)
            assembler.live.latitude = pos.0
            assembler.live.longitude = pos.1
            var status: FixStatus = f[2].first == UInt8(ascii: "D") ? .dgps : .gps
            if f.count > 12 { status = Self.faaStatus(f[12].first) }
            assembler.mergeStatus(status)
        } else {
            assembler.setMode(.noFix)
            assembler.live.status = .unknown
        }
        if let knots { assembler.live.speed = knots * 1852 / 3600 }
        if let track { assembler.live.track = track }
        if t != nil && date != nil { assembler.markTimed() } else { assembler.live.anchored = true }
    }

    /// GLL: position, time, status, FAA mode.
    private mutating func gll(_ f: Fields, emit: (Fix) -> Void) throws(FieldProblem) {
        let pos = try position(f, at: 1)
        let t = try time(f[5])
        beginTimed(t, emit: emit)
        let faa = f[7].first
        if f[6].first == UInt8(ascii: "A"), faa != UInt8(ascii: "N"), let pos {
            let a = assembler
            if a.mergedHasAltitude {
                assembler.setMode(.threeD)
            } else if let used = a.gsaSatellites, used > 3 {
                assembler.setMode(.threeD)
            } else if (a.mergedMode ?? .notSeen) < .twoD || !a.previousMergedHadAltitude {
                assembler.setMode(.twoD)
            } else if a.live.mode == nil {
                assembler.setMode(a.mergedMode ?? .twoD)
            }
            assembler.live.latitude = pos.0
            assembler.live.longitude = pos.1
            assembler.mergeStatus(f.count > 7 ? Self.faaStatus(faa) : .gps)
        } else {
            assembler.setMode(.noFix)
            assembler.live.status = .unknown
        }
        assembler.markTimed()
    }

    /// GNS: time, position, per-system mode characters, satellites, HDOP, altitude, geoid separation.
    private mutating func gns(_ f: Fields, emit: (Fix) -> Void) throws(FieldProblem) {
        let t = try time(f[1])
        let pos = try position(f, at: 2)
        let sats = try count(f[7], "satellites")
        let hdop = try number(f[8], "HDOP")
        let alt = try number(f[9], "altitude")
        let sep = try number(f[10], "geoid separation")
        beginTimed(t, emit: emit)
        defer { assembler.markTimed() }
        let mode = f[6].first
        if mode == 0 || mode == UInt8(ascii: "N") {
            assembler.setMode(.noFix)
            return
        }
        let nav = f[13].first
        if nav == UInt8(ascii: "U") || nav == UInt8(ascii: "V") { return }
        if let pos {
            assembler.setMode(alt != nil && (sats ?? 0) > 3 ? .threeD : .twoD)
            assembler.live.latitude = pos.0
            assembler.live.longitude = pos.1
            if let alt { assembler.live.altitudeMSL = alt }
            if let sep { assembler.live.geoidSeparation = sep }
        } else {
            assembler.setMode(.noFix)
        }
        if let sats { assembler.live.satellites = sats }
        if let hdop, hdop > 0, hdop < 99 { assembler.hdop = hdop }
        assembler.mergeStatus(Self.faaStatus(mode))
    }

    /// GSA: fix mode (1 none, 2 2D, 3 3D), satellites used, PDOP, HDOP, VDOP.
    ///
    /// Several GSAs in a row (one per constellation) add their satellites up.
    private mutating func gsa(_ f: Fields) throws(FieldProblem) {
        guard f.count >= 18 else { throw FieldProblem(detail: "has \(f.count - 1) fields, expected 17 or more") }
        var mode: FixMode?
        if f[2].first != UInt8(ascii: "E") {
            guard let m = try count(f[2], "mode"), (1...3).contains(m) else {
                if f[2].isEmpty { throw FieldProblem(detail: "mode is empty") }
                throw FieldProblem(detail: "mode '\(f[2].text)' is not 1, 2 or 3")
            }
            mode = FixMode(rawValue: m)
        }
        var used = 0
        // Twelve satellite fields (3–14) before the DOPs; NMEA 4.10 adds a system ID after them,
        // and a few receivers send more satellite fields (the DOPs are then the last three).
        let satelliteEnd = f.count <= 19 ? 15 : f.count - 3
        for i in 3..<satelliteEnd {
            let field = f[i]
            if field.isEmpty { continue }
            guard let prn = field.integer() else { throw FieldProblem(detail: "satellite '\(field.text)' is not a number") }
            if prn > 0 { used += 1 }
        }
        var pdop: Double?, hdop: Double?, vdop: Double?
        if f.count <= 19 {
            pdop = try number(f[15], "PDOP")
            hdop = try number(f[16], "HDOP")
            vdop = try number(f[17], "VDOP")
        }
        let talker = f[0][1]
        if assembler.lastSentenceWasGSA && (talker != assembler.lastGSATalker || talker == UInt8(ascii: "N")) {
            assembler.gsaSatellites = (assembler.gsaSatellites ?? 0) + used
        } else {
            assembler.gsaSatellites = used
        }
        assembler.lastGSATalker = talker
        if let pdop, pdop > 0, pdop < 99 { assembler.pdop = pdop }
        if let hdop, hdop > 0, hdop < 99 { assembler.hdop = hdop }
        if let vdop, vdop > 0, vdop < 99 { assembler.vdop = vdop }
        assembler.atEpochStart = false
        if let mode, assembler.live.active { assembler.setMode(mode) }
    }

    /// GST: error statistics; σ latitude and σ longitude (metres, 1σ) feed the horizontal accuracy.
    private mutating func gst(_ f: Fields) throws(FieldProblem) {
        let t = try time(f[1])
        _ = try number(f[2], "RMS")
        let sLat = try number(f[6], "latitude error")
        let sLon = try number(f[7], "longitude error")
        _ = try number(f[8], "altitude error")
        guard assembler.live.active, t == nil || t == assembler.live.timeOfDay else { return }
        assembler.live.gstSigmaLatitude = sLat
        assembler.live.gstSigmaLongitude = sLon
        // A GST names its epoch by time, so it belongs to that epoch wherever the receiver puts it
        // in the cycle, even after the epoch's last timed sentence (where a GSA would not count).
        if t != nil, assembler.snapshot.active, assembler.snapshot.timeOfDay == t {
            assembler.snapshot.gstSigmaLatitude = sLat
            assembler.snapshot.gstSigmaLongitude = sLon
        }
    }

    /// GBS: expected latitude, longitude and altitude errors (metres, 1σ) of the fix of the same time.
    private mutating func gbs(_ f: Fields) throws(FieldProblem) {
        let t = try time(f[1])
        let eLat = try number(f[2], "latitude error")
        let eLon = try number(f[3], "longitude error")
        let eAlt = try number(f[4], "altitude error")
        guard assembler.live.active, let t, t / 1000 == (assembler.live.timeOfDay ?? -1) / 1000 else { return }
        if eLat == nil && eLon == nil && eAlt == nil { return }
        assembler.live.gbsLatitude = eLat
        assembler.live.gbsLongitude = eLon
        assembler.live.gbsAltitude = eAlt
        assembler.markTimed()
    }

    /// VTG: track made good (degrees true) and speed over ground (knots, or km/h when knots are missing).
    private mutating func vtg(_ f: Fields) throws(FieldProblem) {
        let track = try number(f[1], "track")
        let knots = try number(f[5], "speed")
        let kmh = try number(f[7], "speed")
        let mode = f[9].first
        if mode == UInt8(ascii: "N") || mode == UInt8(ascii: "E") { return }
        guard assembler.live.active, let track, let speed = knots.map({ $0 * 1852 / 3600 }) ?? kmh.map({ $0 / 3.6 }) else { return }
        assembler.live.track = track
        assembler.live.speed = speed
    }

    /// ZDA: time and full date; sets the date for the sentences that follow (it does not start an epoch).
    private mutating func zda(_ f: Fields) throws(FieldProblem) {
        let t = try time(f[1])
        let day = try count(f[2], "day")
        let month = try count(f[3], "month")
        let year = try count(f[4], "year")
        guard let t, let day, let month, let year else { return }
        guard (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else {
            throw FieldProblem(detail: "date \(f[2].text)/\(f[3].text)/\(f[4].text) is out of range")
        }
        century = year - year % 100
        assembler.setDate(year: year, month: month, day: day, timeOfDay: t)
    }

    /// GSV: satellites in view; checked for form only (a fix does not carry the sky view).
    private mutating func gsv(_ f: Fields) throws(FieldProblem) {
        _ = try count(f[1], "sentence count")
        _ = try count(f[2], "sentence number")
        _ = try count(f[3], "satellites in view")
    }
}
