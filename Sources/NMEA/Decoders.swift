import TreesKit

/// A field that failed its check: what it was and why, for the diagnostic.
struct FieldProblem: Error {
    let detail: String
}

/// A sentence type as gpsd's cycle detector tells them apart: the three letters of a standard
/// sentence (talker left out), or the whole address of a proprietary one. `.none` stands for
/// every type gpsd does not decode.
struct SentenceTag: Hashable, Sendable {
    let id: UInt64
    static let none = SentenceTag(id: 0)

    init(id: UInt64) { self.id = id }

    init(_ bytes: UnsafePointer<UInt8>, _ count: Int) {
        var v: UInt64 = 0
        for i in 0..<min(count, 8) { v = v << 8 | UInt64(bytes[i]) }
        id = v | UInt64(min(count, 15)) << 60
    }

    init(_ name: StaticString) {
        self.init(name.utf8Start, name.utf8CodeUnitCount)
    }
}

extension NMEAFixReader {
    /// Decodes a checksummed standard sentence and merges it into the cycle.
    ///
    /// Every field is checked before anything is merged: a sentence with a malformed field is
    /// skipped whole (counted as `malformed`), never half used.
    mutating func decode(_ kind: SentenceType, _ f: Fields, line: Int, emit: (Fix) -> Void) {
        if f.count < kind.minimumFields {
            statistics.skip(.malformed, line: line,
                            detail: kind.name + " has \(f.count - 1) fields, expected \(kind.minimumFields - 1) or more")
            return
        }
        assembler.beginSentence()
        let changes: Changes
        do {
            switch kind {
            case .gga: changes = try gga(f)
            case .rmc: changes = try rmc(f)
            case .gll: changes = try gll(f)
            case .gns: changes = try gns(f)
            case .gsa: changes = try gsa(f)
            case .gst: changes = try gst(f)
            case .gbs: changes = try gbs(f)
            case .vtg: changes = try vtg(f)
            case .zda: changes = try zda(f)
            case .gsv: changes = try gsv(f)
            }
        } catch {
            statistics.skip(.malformed, line: line, detail: kind.name + " " + error.detail)
            return
        }
        assembler.endSentence(changes, tag: kind.tag, continues: kind == .gll, isGSV: kind == .gsv, isGSA: kind == .gsa,
                              emit: emit, statistics: &statistics)
    }

    /// Merges a sentence the reader does not use for its values but gpsd decodes (a heading, a
    /// depth, wind), or does not know: it can still end or continue a cycle.
    mutating func passOther(address: UnsafePointer<UInt8>, _ count: Int, _ f: Fields, proprietary: Bool, emit: (Fix) -> Void) {
        assembler.beginSentence()
        let name = proprietary ? SentenceTag(address, count) : SentenceTag(address + 2, count - 2)
        guard let known = Self.otherSentences[name] else {
            assembler.endSentence([], tag: .none, continues: nil, isGSV: false, isGSA: false, emit: emit, statistics: &statistics)
            return
        }
        guard f.count >= known.minimumFields else {
            assembler.endSentence([], tag: .none, continues: nil, isGSV: false, isGSA: false, emit: emit, statistics: &statistics)
            return
        }
        let changes = known.changes(f, &assembler)
        assembler.endSentence(changes, tag: name, continues: false, isGSV: false, isGSA: false, emit: emit, statistics: &statistics)
    }

    /// Decodes one of the proprietary sentences the reader uses; false for any other.
    mutating func decodeProprietary(address: UnsafePointer<UInt8>, _ count: Int, _ f: Fields, line: Int,
                                    emit: (Fix) -> Void) -> Bool {
        var tag = SentenceTag(address, count)
        let minimum: Int
        switch tag {
        case Self.pgrmz: minimum = 4
        case Self.pgrme: minimum = 7
        case Self.psrfepe: minimum = 7
        case Self.pmgnst: minimum = 8
        case Self.pgrmf: minimum = 15
        case Self.pgrmv: minimum = 4
        case Self.psti:
            // SkyTraq's sentences are told apart by their first field, and gpsd gives each of the
            // ones it decodes a place of its own in its cycle detection.
            guard f.count > 1, let known = Self.skytraq.first(where: { f[1].equals($0.subtype) }) else { return false }
            tag = known.tag
            minimum = known.minimum
        default: return false
        }
        guard f.count >= minimum else {
            statistics.skip(.malformed, line: line, detail: Field(base: address, count: count).text
                            + " has \(f.count - 1) fields, expected \(minimum - 1) or more")
            return true
        }
        assembler.beginSentence()
        let changes: Changes
        do {
            switch tag {
            case Self.pgrmz: changes = try pgrmz(f)
            case Self.pgrme: changes = try pgrme(f)
            case Self.psrfepe: changes = try psrfepe(f)
            case Self.pmgnst: changes = try pmgnst(f)
            case Self.pgrmf: changes = try pgrmf(f)
            case Self.pgrmv: changes = try pgrmv(f)
            case Self.psti030: changes = try psti030(f)
            default: changes = try skytraqTimed(f, tag: tag)
            }
        } catch {
            statistics.skip(.malformed, line: line, detail: Field(base: address, count: count).text + " " + error.detail)
            return true
        }
        assembler.endSentence(changes, tag: tag, continues: false, isGSV: false, isGSA: false, emit: emit, statistics: &statistics)
        return true
    }

    static let pgrmz = SentenceTag("PGRMZ")
    static let pgrme = SentenceTag("PGRME")
    static let psrfepe = SentenceTag("PSRFEPE")
    static let pmgnst = SentenceTag("PMGNST")
    static let pgrmf = SentenceTag("PGRMF")
    static let pgrmv = SentenceTag("PGRMV")
    static let psti = SentenceTag("PSTI")
    static let psti030 = SentenceTag("PSTI030")
    static let psti032 = SentenceTag("PSTI032")
    static let psti033 = SentenceTag("PSTI033")
    static let psti035 = SentenceTag("PSTI035")
    static let psti036 = SentenceTag("PSTI036")

    /// The `$PSTI` sentences gpsd decodes: subtype, the tag the cycle detector knows it by, and
    /// the fields gpsd requires (the address included). Others (1 PPS timing, antenna status,
    /// event stamps) are passed on as sentences gpsd does not decode.
    static let skytraq: [(subtype: StaticString, tag: SentenceTag, minimum: Int)] = [
        ("030", psti030, 16), ("032", psti032, 16), ("033", psti033, 27), ("035", psti035, 8), ("036", psti036, 2),
    ]

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

    /// A `ddmmyy` date field; nil when empty.
    private func ddmmyy(_ f: Field) throws(FieldProblem) -> (day: Int, month: Int, year: Int)? {
        if f.isEmpty { return nil }
        guard let d = f.ddmmyy() else { throw FieldProblem(detail: "date '\(f.text)' is not ddmmyy") }
        return d
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

    /// Status from an FAA mode indicator (NMEA 2.3+), as gpsd reads it.
    static func faaStatus(_ c: UInt8) -> FixStatus {
        switch c {
        case 0, UInt8(ascii: "O"), UInt8(ascii: "V"), UInt8(ascii: "N"): .unknown
        case UInt8(ascii: "D"), UInt8(ascii: "P"): .dgps
        case UInt8(ascii: "E"): .deadReckoning
        case UInt8(ascii: "F"): .rtkFloat
        case UInt8(ascii: "M"): .timeOnly
        case UInt8(ascii: "R"): .rtkFixed
        case UInt8(ascii: "S"): .simulated
        default: .gps
        }
    }

    /// Status from GGA's quality indicator: 0→unknown, 1→GPS, 2→DGPS, 3→PPS, 4→RTK fixed,
    /// 5→RTK float, 6→dead reckoning, 7→time only (manual input), 8→simulated; nil for others.
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

    private static func isGoodDOP(_ v: Double) -> Bool { v >= 0.01 && v <= 89.99 }

    private static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// A time of day that starts or continues a cycle and, with a known date, times the fix.
    private mutating func timed(_ tod: Int, _ changes: inout Changes) {
        assembler.latchTime(tod)
        if let t = assembler.timestamp(tod) {
            assembler.new.time = t
            changes.insert(.time)
        }
    }

    // MARK: sentences

    /// GGA: time, position, quality, satellites used, HDOP, altitude MSL, geoid separation.
    private mutating func gga(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        let pos = try position(f, at: 2)
        let quality = try count(f[6], "quality")
        let sats = try count(f[7], "satellites")
        let hdop = try number(f[8], "HDOP")
        let alt = try number(f[9], "altitude")
        let sep = try number(f[11], "geoid separation")
        // Age of differential data (seconds) and the reference station, when corrections are used;
        // like gpsd, a malformed one is left out rather than costing the sentence.
        let age = f[13].decimal()
        let station = f[14].integer()

        var m: Changes = []
        let a = assembler
        let talker = f[0][1]
        assembler.lastGGATalker = talker
        if let quality, let status = Self.qualityStatus(quality) {
            if quality == 0 && f[1].isEmpty {
                // No time at all: the date is forgotten and the cycle detector no longer trusted.
                assembler.dateDays = nil
                assembler.cycleEndReliable = false
            }
            assembler.new.status = status
            assembler.new.correctionAge = age.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            assembler.new.correctionStation = station
            m = [.status]
        }
        // A GGA repeating the previous GGA's time (same talker) means the receiver lost its fix.
        if a.lastGGATalker != 0 && a.lastGGATalker != talker {
            assembler.latchMode = false
        } else {
            assembler.latchMode = f[1].equals(bytes: a.lastGGATime)
        }
        if assembler.latchMode {
            assembler.new.status = .unknown
            assembler.new.mode = .noFix
            m.formUnion([.mode, .status])
        } else {
            assembler.lastGGATime.removeAll(keepingCapacity: true)
            assembler.lastGGATime.append(contentsOf: UnsafeBufferPointer(start: f[1].base, count: f[1].count))
        }
        assembler.ggaSatellitesUsed = sats ?? 0
        if let t { timed(t, &m) }
        if let pos {
            assembler.new.mode = .twoD
            m.insert(.position)
            assembler.new.latitude = pos.0
            assembler.new.longitude = pos.1
            assembler.new.geoidSeparation = sep
            if let alt {
                assembler.new.altitudeMSL = alt
                m.insert(.altitude)
                if assembler.ggaSatellitesUsed >= 4 { assembler.new.mode = .threeD }
            }
            if assembler.ggaSatellitesUsed < 3 && f[0][0] == UInt8(ascii: "G")
                && (talker == UInt8(ascii: "P") || talker == UInt8(ascii: "N")) {
                assembler.new.mode = .noFix
            }
        } else {
            assembler.new.mode = .noFix
        }
        m.insert(.mode)
        if let sats { assembler.new.satellites = sats }
        if let hdop, Self.isGoodDOP(hdop) {
            assembler.hdop = hdop
            m.insert(.dop)
        }
        return m
    }

    /// RMC: time, status, position, speed (knots), track, date, magnetic variation, FAA mode.
    private mutating func rmc(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        let pos = try position(f, at: 3)
        let knots = try number(f[7], "speed")
        let track = try number(f[8], "track")
        let date = try ddmmyy(f[9])
        // gpsd reads the variation only with its direction: a receiver that leaves both out and
        // shifts its FAA mode into their place (`…,120816,A*7F`) still gives a fix.
        let variation = f[11].isEmpty ? nil : try number(f[10], "magnetic variation")

        var m: Changes = []
        guard f[2].first == UInt8(ascii: "A") else {
            // Not valid: no fix. Receivers send bogus times with it, so neither its time nor its date is used.
            assembler.new.mode = .noFix
            if f[1].isEmpty || f[9].isEmpty {
                assembler.dateDays = nil
                assembler.cycleEndReliable = false
                m.formUnion([.report, .time])
            }
            m.formUnion([.status, .mode])
            return m
        }
        if let t, let date { dated(t, date, &m) }
        var status = FixStatus.unknown
        if let pos {
            status = .gps
            m.insert(.position)
            assembler.new.latitude = pos.0
            assembler.new.longitude = pos.1
            if assembler.lastFix.mode <= .twoD {
                assembler.new.mode = .twoD
            } else {
                assembler.new.mode = .threeD
            }
        } else {
            assembler.new.mode = .noFix
        }
        m.insert(.mode)
        if let knots {
            assembler.new.speed = knots * 1.852 / 3.6
            m.insert(.speed)
        }
        if let track {
            assembler.new.track = track
            m.insert(.track)
        }
        if let variation, !f[11].isEmpty {
            let v: Double? = switch f[11].first {
            case UInt8(ascii: "E"): variation
            case UInt8(ascii: "W"): -variation
            default: nil
            }
            if let v, abs(v) > 0.09 {
                assembler.new.magneticVariation = v
                m.insert(.magneticTrack)
            }
        }
        if f.count > 12 && !f[12].isEmpty { status = Self.faaStatus(f[12].first) }
        if assembler.satellitesUsed > 3 {
            assembler.new.mode = .threeD
        } else if assembler.fix.hasAltitude {
            assembler.new.mode = .threeD
        }
        assembler.new.status = status
        m.formUnion([.status, .mode])
        return m
    }

    /// GLL: position, time, status, FAA mode.
    private mutating func gll(_ f: Fields) throws(FieldProblem) -> Changes {
        let pos = try position(f, at: 1)
        let t = try time(f[5])
        var m: Changes = []
        if let t { timed(t, &m) }
        let faa = f[7].first
        if f[6].isEmpty || f[6].first == UInt8(ascii: "V") {
            assembler.new.status = .unknown
            assembler.new.mode = .noFix
        } else if f[6].first == UInt8(ascii: "A"), f.count < 8 || faa != UInt8(ascii: "N"), let pos {
            m.insert(.position)
            assembler.new.latitude = pos.0
            assembler.new.longitude = pos.1
            let a = assembler
            if a.fix.hasAltitude || a.satellitesUsed > 3 {
                assembler.new.mode = .threeD
            } else if a.fix.mode < .twoD || !a.oldFix.hasAltitude {
                assembler.new.mode = .twoD
            }
            assembler.new.status = f.count >= 8 ? Self.faaStatus(faa) : .gps
        } else {
            assembler.new.status = .unknown
            assembler.new.mode = .noFix
        }
        m.formUnion([.status, .mode])
        return m
    }

    /// GNS: time, position, per-system mode characters, satellites, HDOP, altitude, geoid separation.
    private mutating func gns(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        let pos = try position(f, at: 2)
        let sats = try count(f[7], "satellites")
        let hdop = try number(f[8], "HDOP")
        let alt = try number(f[9], "altitude")
        let sep = try number(f[10], "geoid separation")
        var m: Changes = []
        if let t { timed(t, &m) }
        let mode = f[6].first
        if mode == 0 || mode == UInt8(ascii: "N") {
            assembler.new.mode = .noFix
            m.insert(.mode)
            return m
        }
        let nav = f[13].first
        if nav == UInt8(ascii: "U") || nav == UInt8(ascii: "V") { return m }
        assembler.ggaSatellitesUsed = sats ?? 0
        if let pos {
            m.insert(.position)
            assembler.new.latitude = pos.0
            assembler.new.longitude = pos.1
            assembler.new.mode = .twoD
            if let alt {
                assembler.new.altitudeMSL = alt
                m.insert(.altitude)
                if assembler.ggaSatellitesUsed > 3 { assembler.new.mode = .threeD }
                assembler.new.geoidSeparation = sep
            }
        } else {
            assembler.new.mode = .noFix
            m.insert(.mode)
        }
        if let sats { assembler.new.satellites = sats }
        if let hdop {
            assembler.hdop = hdop
            m.insert(.dop)
        }
        assembler.new.status = Self.faaStatus(mode)
        m.formUnion([.mode, .status])
        return m
    }

    /// GSA: fix mode (1 none, 2 2D, 3 3D), satellites used, PDOP, HDOP, VDOP.
    ///
    /// Several GSAs in a row (one per constellation) add their satellites up, each satellite once.
    private mutating func gsa(_ f: Fields) throws(FieldProblem) -> Changes {
        var mode: Int?
        if f[2].first != UInt8(ascii: "E") {
            guard let v = try count(f[2], "mode"), (1...3).contains(v) else {
                if f[2].isEmpty { throw FieldProblem(detail: "mode is empty") }
                throw FieldProblem(detail: "mode '\(f[2].text)' is not 1, 2 or 3")
            }
            mode = v
        }
        var prns: [Int] = []
        // Satellite fields run from 3 up to the first with a decimal point (the PDOP).
        let last = f.count - 6
        var i = 0
        while i < last {
            let field = f[i + 3]
            i += 1
            if field.isEmpty { continue }
            if field.contains(UInt8(ascii: ".")) { break }
            guard let prn = field.integer() else { throw FieldProblem(detail: "satellite '\(field.text)' is not a number") }
            prns.append(prn)
        }
        var pdop: Double?, hdop: Double?, vdop: Double?
        if f.count <= 19 {
            pdop = try number(f[15], "PDOP")
            hdop = try number(f[16], "HDOP")
            vdop = try number(f[17], "VDOP")
        }
        var system = 0
        if f.count == 19, !f[18].isEmpty, !f[18].contains(UInt8(ascii: ".")) { system = f[18].integer() ?? 0 }

        var m: Changes = []
        let talker = f[0][1]
        let previousTalker = assembler.lastGSATalker
        if !assembler.latchMode {
            if let mode, let fixMode = FixMode(rawValue: mode) {
                assembler.new.mode = fixMode
                m = [.mode]
            }
            if let pdop, Self.isGoodDOP(pdop) { assembler.pdop = pdop; m.insert(.dop) }
            if let hdop, Self.isGoodDOP(hdop) { assembler.hdop = hdop; m.insert(.dop) }
            if let vdop, Self.isGoodDOP(vdop) { assembler.vdop = vdop; m.insert(.dop) }
            if previousTalker == 0 || (talker == previousTalker && talker != UInt8(ascii: "N") && talker != UInt8(ascii: "Q")) {
                assembler.satellitesUsed = 0
                assembler.usedPRNs.removeAll(keepingCapacity: true)
            }
            assembler.lastGSATalker = talker
            // Satellites are numbered as gpsd numbers them (by talker, or by the NMEA 4.10 system
            // id), so that GPGSA and GNGSA listing the same GPS satellites count them once and a
            // GSV's satellites in view can be matched with them.
            // GP is GPS here (not in GSV, where gpsd leaves it unknown).
            system = talker == UInt8(ascii: "P") ? 1 : SatelliteNumbers.system(talker: (f[0][0], talker), given: system)
            if talker != UInt8(ascii: "P") { assembler.seenOtherGSA = true }
            for n in prns where n >= 1 && n <= 600 {
                let key = SatelliteNumbers.gpsd(talker: (f[0][0], f[0][1]), number: n, system: system)
                if key <= 0 || assembler.usedPRNs.contains(key) { continue }
                if assembler.usedPRNs.count >= 64 { break }
                assembler.usedPRNs.append(key)
                assembler.satellitesUsed = assembler.usedPRNs.count
            }
            m.insert(.used)
        }
        if assembler.seenOtherGSA && talker == UInt8(ascii: "P") {
            m = []
        } else if previousTalker != UInt8(ascii: "N") && talker == UInt8(ascii: "N") {
            m = [.mode]
        }
        return m
    }

    /// GST: error statistics; σ latitude and σ longitude (metres, 1σ) feed the horizontal accuracy.
    private mutating func gst(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        _ = try number(f[2], "RMS")
        let sLat = try number(f[6], "latitude error")
        let sLon = try number(f[7], "longitude error")
        let sAlt = try number(f[8], "altitude error")
        assembler.gst = (sLat, sLon, sAlt, t)
        assembler.applyGST()
        return [.noise]
    }

    /// GBS: expected latitude, longitude and altitude errors (metres, 1σ) of the fix of the same time.
    private mutating func gbs(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        let eLat = try number(f[2], "latitude error")
        let eLon = try number(f[3], "longitude error")
        let eAlt = try number(f[4], "altitude error")
        guard let t else { return [] }
        let previous = assembler.thisTimeOfDay
        assembler.latchTime(t)
        // Only the errors of the fix being merged (same second) are used.
        guard t / 1000 == previous / 1000 else { return [] }
        assembler.new.epy = eLat
        assembler.new.epx = eLon
        assembler.new.epv = eAlt
        assembler.new.gbsLatitude = eLat
        assembler.new.gbsLongitude = eLon
        assembler.new.gbsAltitude = eAlt
        return [.errors]
    }

    /// VTG: track made good (degrees true), magnetic track and speed over ground (knots).
    private mutating func vtg(_ f: Fields) throws(FieldProblem) -> Changes {
        let track = try number(f[1], "track")
        let magnetic = try number(f[3], "magnetic track")
        let knots = try number(f[5], "speed")
        _ = try number(f[7], "speed")
        guard let track, let knots else { return [] }
        if f.count > 9 {
            let mode = f[9].first
            if mode == UInt8(ascii: "N") || mode == UInt8(ascii: "E") { return [] }
        }
        var m: Changes = [.track, .speed]
        assembler.new.track = track
        if let magnetic {
            assembler.new.magneticTrack = magnetic
            m.insert(.magneticTrack)
        }
        assembler.new.speed = knots * 1.852 / 3.6
        return m
    }

    /// ZDA: time and full date; sets the date for the sentences that follow.
    private mutating func zda(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        let day = try count(f[2], "day")
        let month = try count(f[3], "month")
        let year = try count(f[4], "year")
        guard let t, let day, let month, let year else { return [] }
        guard (1900...2200).contains(year), (1...12).contains(month), (1...31).contains(day) else {
            throw FieldProblem(detail: "date \(f[2].text)/\(f[3].text)/\(f[4].text) is out of range")
        }
        century = year - year % 100
        assembler.setDate(year: year, month: month, day: day, timeOfDay: t)
        var m: Changes = []
        timed(t, &m)
        return m
    }

    /// GSV: satellites in view. The set, once whole, is the sky view the DOPs are worked out from
    /// when no sentence gives them (each satellite with its direction and whether GSA used it).
    private mutating func gsv(_ f: Fields) throws(FieldProblem) -> Changes {
        let total = try count(f[1], "sentence count")
        let part = try count(f[2], "sentence number")
        _ = try count(f[3], "satellites in view")
        let talker = f[0][1]
        guard f.count > 3, let total, (1...10).contains(total), let part, (1...total).contains(part) else {
            assembler.gsvSane = false
            assembler.sky.removeAll(keepingCapacity: true)
            return []
        }
        if f.count % 4 == 3 {
            assembler.gsvSane = false
            assembler.sky.removeAll(keepingCapacity: true)
            return []
        }
        if part == 1 && assembler.lastGSVTalker == 0 {
            assembler.gsvSane = false
            assembler.sky.removeAll(keepingCapacity: true)
        }
        assembler.lastGSVTalker = talker
        if talker != UInt8(ascii: "P") { assembler.seenOtherGSV = true }
        // The system a number belongs to: by talker, or (Quectel's $PQGSV) the last field.
        let system = SatelliteNumbers.system(talker: (f[0][0], talker),
                                             given: f.count % 4 == 2 ? (f[f.count - 1].leadingInteger() ?? 0) : 0)
        // A set whose satellites all have azimuth 0 is a receiver's hairball, not data.
        var record = 4
        var overflowed = false
        while record + 3 < f.count {
            if !f[record].isEmpty, let n = f[record].leadingInteger(), n != 0 {
                let el = f[record + 1], az = f[record + 2]
                if el.isEmpty || az.isEmpty || az.integer() != 0 { assembler.gsvSane = true }
                // More satellites than gpsd has room for: it forgets them all and reads no further.
                if !overflowed && assembler.sky.count >= 230 {
                    assembler.sky.removeAll(keepingCapacity: true)
                    overflowed = true
                }
                if !overflowed {
                    assembler.sky.append(skySatellite(number: n, system: system, f[0], el, az, f[record + 3]))
                }
            }
            record += 4
        }
        if part < total {
            assembler.moreParts = true
            return []
        }
        guard assembler.gsvSane else { return [] }
        if assembler.seenOtherGSV && talker == UInt8(ascii: "P") && assembler.endGSVTalker != UInt8(ascii: "P") {
            return []
        }
        return [.satellites]
    }

    /// A satellite of a GSV record, read as gpsd reads it: elevation and azimuth only together,
    /// an azimuth of 360 as 0, and used when the latest GSA listed it and its signal is above 0.
    private func skySatellite(number: Int, system: Int, _ tag: Field, _ el: Field, _ az: Field, _ snr: Field) -> SkySatellite {
        let prn = SatelliteNumbers.gpsd(talker: (tag[0], tag[1]), number: number, system: system)
        var s = SkySatellite(prn: prn, elevation: nil, azimuth: nil, used: false)
        if !el.isEmpty && !az.isEmpty {
            let e = el.leadingInteger() ?? 0
            var a = az.leadingInteger() ?? 0
            if abs(e) <= 90 { s.elevation = Double(e) }
            if a == 360 { a = 0 }
            if (0..<360).contains(a) { s.azimuth = Double(a) }
        }
        if prn > 0, !snr.isEmpty, (snr.leadingInteger() ?? 0) > 0 {
            s.used = assembler.usedPRNs.contains(prn)
        }
        return s
    }

    // MARK: proprietary sentences

    /// Garmin `$PGRMZ`: altitude in feet, and the fix mode (1 none, 2 2D, 3 3D).
    private mutating func pgrmz(_ f: Fields) throws(FieldProblem) -> Changes {
        var m: Changes = []
        if f[2].first == UInt8(ascii: "f") && !f[1].isEmpty {
            guard let feet = f[1].leadingInteger() else { throw FieldProblem(detail: "altitude '\(f[1].text)' is not a number") }
            assembler.new.altitudeMSL = Double(feet) * 0.3048
            m.insert(.altitude)
        }
        garminMode(f[3].first, noFix: UInt8(ascii: "1"), &m)
        return m
    }

    /// A Garmin fix type: the digit `noFix` for no fix, and the next two for 2D and 3D; any other
    /// leaves the mode as it was.
    private mutating func garminMode(_ c: UInt8, noFix: UInt8, _ m: inout Changes) {
        guard c >= noFix, c - noFix < 3 else { return }
        assembler.new.mode = [FixMode.noFix, .twoD, .threeD][Int(c - noFix)]
        m.insert(.mode)
    }

    /// Garmin `$PGRME`: estimated horizontal, vertical and spherical errors (metres, CEP 50),
    /// scaled to 95% as gpsd does.
    private mutating func pgrme(_ f: Fields) throws(FieldProblem) -> Changes {
        let h = try number(f[1], "horizontal error")
        let v = try number(f[3], "vertical error")
        _ = try number(f[5], "spherical error")
        guard f[2].first == UInt8(ascii: "M"), f[4].first == UInt8(ascii: "M"), f[6].first == UInt8(ascii: "M") else { return [] }
        let scale = 2.45 / 1.18
        let horizontal = h.map { $0 * (1 / 2.0.squareRoot()) * scale }
        assembler.new.epx = horizontal
        assembler.new.epy = horizontal
        assembler.new.epv = v.map { $0 * scale }
        return [.errors]
    }

    /// SiRF `$PSRFEPE`: time, status, HDOP, estimated horizontal and vertical errors (metres).
    private mutating func psrfepe(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[1])
        let hdop = try number(f[3], "HDOP")
        let eph = try number(f[4], "horizontal error")
        let epv = try number(f[5], "vertical error")
        var m: Changes = [.status]
        if let t { timed(t, &m) }
        guard f[2].first == UInt8(ascii: "A") else { return m }
        if let hdop { assembler.hdop = hdop; m.insert(.dop) }
        if let eph { assembler.new.eph = eph; m.insert(.errors) }
        if let epv { assembler.new.epv = epv; m.insert(.errors) }
        return m
    }

    /// Garmin `$PGRMF`: GPS week, time of week, UTC date and time, leap seconds, position, mode
    /// (`A` automatic), fix type (0 none, 1 2D, 2 3D), speed (km/h), course, PDOP and TDOP.
    ///
    /// Read as gpsd reads it. The leap seconds are taken first: they decide whether gpsd takes a
    /// time before 2017 for a week rollover. With a GPS week and time of week (and leap seconds)
    /// gpsd's time is the date and time of day it last merged, worked out again (its week time is
    /// replaced so); without them, the sentence's own UTC date and time. It starts no cycle.
    /// Without mode `A` nothing else is read; with it the position, the fix type as the mode, and
    /// the speed and course (empty ones count as 0, as gpsd's).
    private mutating func pgrmf(_ f: Fields) throws(FieldProblem) -> Changes {
        let pos = try position(f, at: 6)
        let kmh = try number(f[12], "speed") ?? 0
        let course = try number(f[13], "course") ?? 0
        if Self.isDigit(f[5].first), let leap = f[5].leadingInteger() { assembler.weekRollover.leapSeconds = leap }
        var m: Changes = [.other]
        if Self.isDigit(f[1].first) && Self.isDigit(f[2].first) && assembler.weekRollover.leapSeconds > 0 {
            if let tod = assembler.mergedTimeOfDay, let time = assembler.timestamp(tod) {
                assembler.new.time = time
                m.insert(.time)
            }
        } else if let t = f[4].timeOfDay(), let d = f[3].ddmmyy() {
            assembler.setDate(year: fullYear(d.year), month: d.month, day: d.day, timeOfDay: t)
            // Merged into gpsd's date, but no cycle is timed by it.
            assembler.mergedTimeOfDay = t
            if let time = assembler.timestamp(t) {
                assembler.new.time = time
                m.insert(.time)
            }
        }
        guard f[10].first == UInt8(ascii: "A") else { return m }
        if let pos {
            assembler.new.latitude = pos.0
            assembler.new.longitude = pos.1
            m.insert(.position)
        }
        garminMode(f[11].first, noFix: UInt8(ascii: "0"), &m)
        assembler.new.speed = kmh / 3.6
        assembler.new.track = course
        m.formUnion([.speed, .track])
        return m
    }

    /// Garmin `$PGRMV`: east, north and up velocity (m/s), which give the speed and track when no
    /// sentence of the cycle does; all three or nothing, as gpsd reads it.
    private mutating func pgrmv(_ f: Fields) throws(FieldProblem) -> Changes {
        if f[1].isEmpty || f[2].isEmpty || f[3].isEmpty { return [] }
        guard let east = try number(f[1], "east velocity"), let north = try number(f[2], "north velocity") else { return [] }
        _ = try number(f[3], "up velocity")
        assembler.new.velocityEast = east
        assembler.new.velocityNorth = north
        return [.velocity]
    }

    /// Magellan `$PMGNST`: the fix mode (2 2D, 3 3D, anything else none) when the fix is valid.
    ///
    /// Read where gpsd reads them: the mode in field 3 and the validity (`T`) in field 4.
    private mutating func pmgnst(_ f: Fields) throws(FieldProblem) -> Changes {
        let mode = f[3].leadingInteger() ?? 0
        if f[4].first == UInt8(ascii: "T") {
            assembler.new.mode = mode == 2 ? .twoD : mode == 3 ? .threeD : .noFix
        } else {
            assembler.new.mode = .noFix
        }
        return [.mode]
    }

    /// SkyTraq `$PSTI,030`: time, date, status, position, altitude (MSL), east, north and up
    /// velocity (m/s), FAA mode, age of corrections and RTK ratio: a whole fix, as SkyTraq's RTK
    /// receivers send it beside (or instead of) GGA and RMC.
    ///
    /// Read as gpsd reads it: status `V` or FAA mode `N` is no fix; with `A`, the time counts only
    /// with its date, a position is 2D and 3D with an altitude, and the velocity gives the speed and
    /// track when no sentence of the cycle does (empty velocity fields count as 0, as gpsd's).
    private mutating func psti030(_ f: Fields) throws(FieldProblem) -> Changes {
        let t = try time(f[2])
        let pos = try position(f, at: 4)
        let altitude = try number(f[8], "altitude")
        let east = try number(f[9], "east velocity") ?? 0
        let north = try number(f[10], "north velocity") ?? 0
        _ = try number(f[11], "up velocity")
        let age = try number(f[14], "age of corrections") ?? 0
        let ratio = try number(f[15], "RTK ratio") ?? 0
        let date = try ddmmyy(f[12])
        var m: Changes = []
        if f[3].first == UInt8(ascii: "V") || f[13].first == UInt8(ascii: "N") {
            assembler.new.mode = .noFix
            assembler.new.status = .unknown
            return [.mode, .status]
        }
        guard f[3].first == UInt8(ascii: "A") else { return [] }
        if let t, let date { dated(t, date, &m) }
        if let pos {
            assembler.new.latitude = pos.0
            assembler.new.longitude = pos.1
            assembler.new.mode = .twoD
            m.formUnion([.position, .mode])
            if let altitude {
                assembler.new.altitudeMSL = altitude
                assembler.new.mode = .threeD
                m.insert(.altitude)
            }
        }
        assembler.new.velocityEast = east
        assembler.new.velocityNorth = north
        m.insert(.velocity)
        assembler.new.status = Self.faaStatus(f[13].first)
        if age + ratio > 0.05 { assembler.new.correctionAge = age; assembler.new.correctionStation = nil }
        m.insert(.status)
        return m
    }

    /// SkyTraq `$PSTI,032`, `033`, `035` and `036` (RTK baseline, raw measurement slips, moving
    /// base, attitude): the reader takes their time and date, which gpsd uses for its cycles when
    /// both are given and the sentence is valid as far as gpsd reads it before the time.
    private mutating func skytraqTimed(_ f: Fields, tag: SentenceTag) throws(FieldProblem) -> Changes {
        switch tag {
        case Self.psti032: guard f[4].first == UInt8(ascii: "A") else { return [] }
        case Self.psti033:
            guard f[4].first == UInt8(ascii: "2"), f[5].first == UInt8(ascii: "B") || f[5].first == UInt8(ascii: "R") else { return [] }
        default: break
        }
        guard f.count > 3, let t = try time(f[2]), let date = try ddmmyy(f[3]) else { return [] }
        var m: Changes = []
        dated(t, date, &m)
        switch tag {
        case Self.psti035: if f[4].first == UInt8(ascii: "A") { m.insert(.attitude) }
        case Self.psti036: if f.count > 7, !f[7].isEmpty, f[7].first != UInt8(ascii: "N") { m.insert(.attitude) }
        default: break
        }
        return m
    }

    /// A time of day with a two-digit-year date (RMC's way): sets the date and times the fix.
    private mutating func dated(_ t: Int, _ date: (day: Int, month: Int, year: Int), _ m: inout Changes) {
        assembler.setDate(year: fullYear(date.year), month: date.month, day: date.day, timeOfDay: t)
        timed(t, &m)
    }

    /// A two-digit year in the century the log is in, as gpsd takes it (2080 and on are a
    /// century earlier).
    private func fullYear(_ twoDigits: Int) -> Int {
        let year = century + twoDigits
        return year >= 2080 ? year - 100 : year
    }

    // MARK: other sentences gpsd decodes

    /// A sentence type gpsd decodes that the reader reads only for its effect on the cycle.
    struct OtherSentence: Sendable {
        /// Fields gpsd requires, the address included.
        let minimumFields: Int
        let changes: @Sendable (Fields, inout EpochAssembler) -> Changes
    }

    private static func nothing(_ f: Fields, _ a: inout EpochAssembler) -> Changes { [] }
    private static func data(_ f: Fields, _ a: inout EpochAssembler) -> Changes { [.other] }

    /// What gpsd's decoders of other sentences report, as far as cycles are concerned: whether
    /// they bring data (which makes a sentence after the cycle's ender report it again), and for
    /// HDG the magnetic heading and variation it merges into the fix.
    static let otherSentences: [SentenceTag: OtherSentence] = {
        var t: [SentenceTag: OtherSentence] = [:]
        func add(_ name: StaticString, _ minimum: Int, _ changes: @escaping @Sendable (Fields, inout EpochAssembler) -> Changes) {
            t[SentenceTag(name)] = OtherSentence(minimumFields: minimum, changes: changes)
        }
        add("HDG", 0) { f, a in
            guard let heading = f[1].decimal(), (0...360).contains(heading) else { return [] }
            let deviation = f[2].isEmpty ? 0 : (f[2].decimal() ?? 0)
            guard (0...360).contains(deviation) else { return [] }
            a.new.magneticTrack = heading
            if !f[3].isEmpty, let v = f[3].decimal() {
                switch f[4].first {
                case UInt8(ascii: "E"): a.new.magneticVariation = v
                case UInt8(ascii: "W"): a.new.magneticVariation = -v
                default: break
                }
            }
            return [.magneticTrack]
        }
        add("HDM", 3) { f, _ in f[1].isEmpty ? [] : [.attitude] }
        add("HDT", 1) { f, _ in
            guard let h = f[1].decimal(), (0...360).contains(h) else { return [] }
            return [.attitude]
        }
        add("ROT", 3) { f, _ in f[1].isEmpty ? [] : [.attitude] }
        add("THS", 0, nothing)
        add("DBT", 7) { f, _ in f[1].isEmpty && f[3].isEmpty && f[5].isEmpty ? [] : [.other] }
        add("DPT", 4) { f, _ in f[1].isEmpty ? [] : [.other] }
        add("MWV", 0) { f, _ in
            f[2].first == UInt8(ascii: "R") && f[4].first == UInt8(ascii: "N") && f[5].first == UInt8(ascii: "A") ? [.other] : []
        }
        add("MWD", 0, data)
        add("XDR", 5) { f, _ in
            var i = 1
            while i + 3 < f.count + 1 && i <= 37 {
                let kind = f[i].first, name = f[i + 3]
                if !f[i + 1].isEmpty {
                    if kind == UInt8(ascii: "A") && f[i + 2].first == UInt8(ascii: "D")
                        && (name.equals("PTCH") || name.equals("PITCH") || name.equals("ROLL")) {
                        return [.attitude]
                    }
                    if kind == UInt8(ascii: "G") && (name.equals("MAGX") || name.equals("MAGY") || name.equals("MAGZ")) {
                        return [.attitude]
                    }
                }
                i += 4
            }
            return []
        }
        add("MTW", 3, nothing)
        add("DTM", 2, nothing)
        add("GRS", 4, nothing)
        add("TXT", 5, nothing)
        add("STI", 2, nothing)
        add("BWC", 12) { f, a in
            var m: Changes = []
            if let t = f[1].timeOfDay(), let time = a.timestamp(t) {
                a.new.time = time
                m.insert(.time)
            }
            return m
        }
        add("PGLOR", 2, nothing)
        add("PGRMM", 2, nothing)
        add("PGRMT", 10, nothing)
        add("PMTK001", 3, nothing)
        add("PMTK424", 3, nothing)
        add("PMTK705", 4, nothing)
        add("PSTMVER", 1, nothing)
        add("PSTMCPU", 4, nothing)
        add("PTNTA", 8, data)
        add("PTNTHTM", 9, data)
        return t
    }()
}
