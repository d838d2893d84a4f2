import Foundation
import TreesKit

// The sample tracks in SampleTracks/ and the large benchmark log are made here, deterministically:
// the same code writes the same bytes on every run (a fixed-seed generator, integer formatting).
// Regenerate the tracks with `trees-bench nmea --tracks SampleTracks`.

/// A small fixed-seed random generator (SplitMix64), so tracks come out byte-identical every time.
struct TrackRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 1e-12), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

/// Appends NMEA sentences (with checksums and CRLF) to a byte buffer, formatting numbers by hand.
struct NMEATextWriter {
    var bytes: [UInt8] = []
    private var start = 0

    /// Starts a sentence: `$` and the address.
    mutating func begin(_ address: StaticString) {
        start = bytes.count
        bytes.append(UInt8(ascii: "$"))
        append(address)
    }

    /// Ends the sentence with `*hh\r\n`.
    mutating func end() {
        var sum: UInt8 = 0
        for i in (start + 1)..<bytes.count { sum ^= bytes[i] }
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        bytes.append(UInt8(ascii: "*"))
        bytes.append(hex[Int(sum >> 4)])
        bytes.append(hex[Int(sum & 15)])
        bytes.append(13)
        bytes.append(10)
    }

    mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
    mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }
    mutating func comma() { bytes.append(UInt8(ascii: ",")) }

    /// A non-negative integer zero-padded to `width` digits.
    mutating func integer(_ v: Int, width: Int = 1) {
        var digits = 1
        var x = v / 10
        while x > 0 { digits += 1; x /= 10 }
        for _ in 0..<max(0, width - digits) { bytes.append(48) }
        let at = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(48), count: digits))
        var y = v
        var i = at + digits - 1
        while i >= at { bytes[i] = UInt8(48 + y % 10); y /= 10; i -= 1 }
    }

    /// `value` with exactly `places` decimals (rounded half away from zero).
    mutating func fixed(_ value: Double, places: Int, width: Int = 1) {
        var scale = 1
        for _ in 0..<places { scale *= 10 }
        let units = Int((abs(value) * Double(scale)).rounded())
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        integer(units / scale, width: width)
        if places > 0 {
            bytes.append(UInt8(ascii: "."))
            integer(units % scale, width: places)
        }
    }

    /// `hhmmss.ss` of seconds since midnight (two decimals).
    mutating func time(_ secondsOfDay: Int, hundredths: Int = 0) {
        integer(secondsOfDay / 3600, width: 2)
        integer(secondsOfDay / 60 % 60, width: 2)
        integer(secondsOfDay % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        integer(hundredths, width: 2)
    }

    /// Decimals of minutes in positions: 5 (about 2 cm), or 7 as RTK receivers write them.
    var minuteDecimals = 5

    /// Latitude as `ddmm.mmmmm,N` (`minuteDecimals` decimals of minutes).
    mutating func latitude(_ lat: Double) {
        angle(lat, degreeDigits: 2)
        bytes.append(UInt8(ascii: ","))
        bytes.append(lat < 0 ? UInt8(ascii: "S") : UInt8(ascii: "N"))
    }

    /// Longitude as `dddmm.mmmmm,E`.
    mutating func longitude(_ lon: Double) {
        angle(lon, degreeDigits: 3)
        bytes.append(UInt8(ascii: ","))
        bytes.append(lon < 0 ? UInt8(ascii: "W") : UInt8(ascii: "E"))
    }

    private mutating func angle(_ value: Double, degreeDigits: Int) {
        var unit = 1
        for _ in 0..<minuteDecimals { unit *= 10 }
        let total = Int((abs(value) * 60 * Double(unit)).rounded())
        integer(total / (60 * unit), width: degreeDigits)
        integer(total % (60 * unit) / unit, width: 2)
        bytes.append(UInt8(ascii: "."))
        integer(total % unit, width: minuteDecimals)
    }

    /// The degrees a reader gets back from `latitude`/`longitude` (rounded to 1e-5 minutes, or
    /// 1e-`decimals`).
    static func readBack(_ degrees: Double, decimals: Int = 5) -> Double {
        var unit = 1
        for _ in 0..<decimals { unit *= 10 }
        let total = Int((abs(degrees) * 60 * Double(unit)).rounded())
        let v = Double(total / (60 * unit)) + Double(total % (60 * unit)) / Double(60 * unit)
        return degrees < 0 ? -v : v
    }
}

/// One satellite of a generated sky.
struct GeneratedSatellite {
    var prn: Int
    var elevation: Int
    var azimuth: Int
    var snr: Int
}

/// What the receiver reports in one generated epoch.
struct GeneratedEpoch {
    enum Kind { case none, twoD, threeD }
    /// Seconds since 1970 (whole seconds).
    var time: Int
    var kind: Kind
    var latitude: Double
    var longitude: Double
    var altitude: Double
    var geoidSeparation = 47.3
    var speed = 0.0
    var track: Double?
    /// GST σ latitude and longitude (metres), nil for no GST.
    var sigmaLatitude: Double?
    var sigmaLongitude: Double?
    var hdop = 99.0
    var vdop = 99.0
    var pdop = 99.0
    var quality = 1
    /// GGA's age of differential data (seconds) and reference station, with corrections.
    var correctionAge: Double?
    var station: Int?
    var used: [Int] = []
    var sky: [GeneratedSatellite] = []
}

/// Sentence sets the sample tracks use.
struct TrackStyle {
    var talker: StaticString = "GP"
    var gst = true
    var gsv = true
    var zda = false
    /// GN talker with one GSA per constellation (NMEA 4.10 system IDs) and GSV per constellation.
    var multiGNSS = false
    /// An RTK receiver: positions with 7 decimals of minutes, GST errors in millimetres.
    var rtk = false
}

enum TrackGenerator {
    /// Writes one epoch: GGA, GSA, GSV…, GST, ZDA, then RMC, which ends every epoch.
    static func write(_ e: GeneratedEpoch, style: TrackStyle, into w: inout NMEATextWriter) {
        let sod = ((e.time % 86_400) + 86_400) % 86_400
        let days = e.time / 86_400
        let fix = e.kind != .none
        // GGA
        w.begin(style.multiGNSS ? "GNGGA" : "GPGGA"); w.comma(); w.time(sod); w.comma()
        if fix {
            w.latitude(e.latitude); w.comma(); w.longitude(e.longitude); w.comma()
            w.integer(e.quality); w.comma(); w.integer(e.used.count, width: 2); w.comma()
            w.fixed(e.hdop, places: 1); w.comma()
            if e.kind == .threeD { w.fixed(e.altitude, places: style.rtk ? 3 : 1) }
            w.append(",M,"); w.fixed(e.geoidSeparation, places: 1); w.append(",M,")
            if let age = e.correctionAge { w.fixed(age, places: 1) }
            w.comma()
            if let station = e.station, e.correctionAge != nil { w.integer(station, width: 4) }
        } else {
            w.append(",,,,0,"); w.integer(e.used.count, width: 2); w.append(",99.9,,M,,M,,")
        }
        w.end()
        // GSA
        let mode = e.kind == .threeD ? 3 : e.kind == .twoD ? 2 : 1
        if style.multiGNSS {
            for (system, range) in [(1, 1...32), (2, 65...96), (3, 301...336)] {
                let prns = e.used.filter { range.contains($0) }.map { system == 3 ? $0 - 300 : $0 }
                writeGSA(&w, "GNGSA", mode: mode, prns: prns, e: e, system: system)
            }
        } else {
            writeGSA(&w, "GPGSA", mode: mode, prns: e.used, e: e, system: nil)
        }
        // GSV
        if style.gsv {
            if style.multiGNSS {
                writeGSV(&w, "GPGSV", e.sky.filter { $0.prn <= 32 })
                writeGSV(&w, "GLGSV", e.sky.filter { (65...96).contains($0.prn) })
                writeGSV(&w, "GAGSV", e.sky.filter { $0.prn > 300 }.map { GeneratedSatellite(prn: $0.prn - 300, elevation: $0.elevation, azimuth: $0.azimuth, snr: $0.snr) })
                writeGSV(&w, "GBGSV", e.sky.filter { (201...237).contains($0.prn) }.map { GeneratedSatellite(prn: $0.prn - 200, elevation: $0.elevation, azimuth: $0.azimuth, snr: $0.snr) })
            } else {
                writeGSV(&w, "GPGSV", e.sky)
            }
        }
        // GST
        if style.gst, let sLat = e.sigmaLatitude, let sLon = e.sigmaLongitude, fix {
            let places = style.rtk ? 3 : 2
            w.begin(style.multiGNSS ? "GNGST" : "GPGST"); w.comma(); w.time(sod); w.comma()
            w.fixed((sLat * sLat + sLon * sLon).squareRoot() * 0.8, places: places); w.comma()
            w.fixed(max(sLat, sLon) * 1.1, places: places); w.comma()
            w.fixed(min(sLat, sLon) * 0.9, places: places); w.comma()
            w.fixed(35.0, places: 1); w.comma()
            w.fixed(sLat, places: places); w.comma()
            w.fixed(sLon, places: places); w.comma()
            w.fixed(max(sLat, sLon) * 1.6, places: places)
            w.end()
        }
        // ZDA
        let (year, month, day) = CivilDate.date(days: days)
        if style.zda {
            w.begin(style.multiGNSS ? "GNZDA" : "GPZDA"); w.comma(); w.time(sod); w.comma()
            w.integer(day, width: 2); w.comma(); w.integer(month, width: 2); w.comma(); w.integer(year, width: 4)
            w.append(",00,00")
            w.end()
        }
        // RMC, always with a date, ends the epoch.
        w.begin(style.multiGNSS ? "GNRMC" : "GPRMC"); w.comma(); w.time(sod); w.comma()
        if fix {
            w.append("A,"); w.latitude(e.latitude); w.comma(); w.longitude(e.longitude); w.comma()
            w.fixed(e.speed * 3600 / 1852, places: 2); w.comma()
            if let t = e.track { w.fixed(t, places: 1) }
            w.comma()
        } else {
            w.append("V,,,,,,,")
        }
        w.integer(day, width: 2); w.integer(month, width: 2); w.integer(year % 100, width: 2)
        w.append(",,,")
        // FAA mode: D differential, R RTK fixed, F RTK float, A autonomous, N no fix.
        w.append(!fix ? "N" : e.quality == 2 ? "D" : e.quality == 4 ? "R" : e.quality == 5 ? "F" : "A")
        w.end()
    }

    private static func writeGSA(_ w: inout NMEATextWriter, _ address: StaticString, mode: Int, prns: [Int], e: GeneratedEpoch, system: Int?) {
        w.begin(address); w.append(",A,"); w.integer(mode)
        for i in 0..<12 {
            w.comma()
            if i < prns.count { w.integer(prns[i], width: 2) }
        }
        w.comma(); w.fixed(e.pdop, places: 1); w.comma(); w.fixed(e.hdop, places: 1); w.comma(); w.fixed(e.vdop, places: 1)
        if let system { w.comma(); w.integer(system) }
        w.end()
    }

    private static func writeGSV(_ w: inout NMEATextWriter, _ address: StaticString, _ sats: [GeneratedSatellite]) {
        let count = max(1, (sats.count + 3) / 4)
        for part in 0..<count {
            w.begin(address); w.comma(); w.integer(count); w.comma(); w.integer(part + 1); w.comma()
            w.integer(sats.count, width: 2)
            for s in sats.dropFirst(part * 4).prefix(4) {
                w.comma(); w.integer(s.prn, width: 2); w.comma(); w.integer(s.elevation, width: 2)
                w.comma(); w.integer(s.azimuth, width: 3); w.comma()
                if s.snr > 0 { w.integer(s.snr, width: 2) }
            }
            w.end()
        }
    }

    /// Seconds since 1970 of a UTC date and time.
    static func seconds(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> Int {
        CivilDate.days(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s
    }
}

// MARK: - The sample tracks

/// The orchard the sample tracks walk in: rows run north, 6 m apart; trees stand every 4 m.
enum Orchard {
    static let latitude = 51.2795
    static let longitude = 0.5420
    static let rowSpacing = 6.0
    static let treeSpacing = 4.0

    /// Position of tree `k` of row `r` as metres north and east of the orchard's corner.
    static func tree(row r: Int, index k: Int) -> (north: Double, east: Double) {
        (4 + Double(k) * treeSpacing, Double(r) * rowSpacing)
    }

    static func degrees(north: Double, east: Double) -> (Double, Double) {
        (latitude + north / 111_320, longitude + east / (111_320 * cos(latitude * .pi / 180)))
    }
}

/// What a reader of a generated track sees, for the README and its test.
struct TrackFacts {
    var name: String
    var epochs = 0
    var fixes = 0
    var first: Int?
    var last: Int?
    var firstUnder10: (time: Int, lat: Double, lon: Double, accuracy: Double, source: String)?
    var firstUnder20: (time: Int, lat: Double, lon: Double, accuracy: Double, source: String)?
    var best: Double?
}

/// Builds one track epoch by epoch: a walker among the trees, a correlated position error and a sky.
struct TrackBuilder {
    var style: TrackStyle
    var time: Int
    var north: Double
    var east: Double
    var random: TrackRandom
    var writer = NMEATextWriter()
    var errorNorth = 0.0
    var errorEast = 0.0
    var facts: TrackFacts
    var lastTrack: Double?
    var lastSigma = 0.0

    init(name: String, style: TrackStyle, start: Int, north: Double, east: Double, seed: UInt64) {
        self.style = style
        if style.rtk { writer.minuteDecimals = 7 }
        self.time = start
        self.north = north
        self.east = east
        self.random = TrackRandom(seed: seed)
        self.facts = TrackFacts(name: name)
    }

    /// The sky: GPS always; GLONASS, Galileo and BeiDou for multi-GNSS tracks. Signal grows with `strength` (0…1).
    func sky(strength: Double) -> [GeneratedSatellite] {
        var sats: [(Int, Int, Int)] = [(12, 71, 130), (25, 63, 285), (5, 55, 48), (29, 47, 210), (2, 41, 312),
                                        (18, 36, 95), (20, 28, 160), (15, 22, 250), (13, 17, 20), (21, 12, 340),
                                        (7, 8, 120), (9, 5, 200)]
        if style.multiGNSS {
            sats += [(66, 58, 75), (75, 44, 190), (67, 33, 300), (82, 25, 20), (76, 12, 140),
                     (303, 61, 230), (311, 49, 110), (305, 30, 15), (324, 19, 265),
                     (208, 52, 170), (214, 38, 60), (205, 15, 330)]
        }
        let drift = (time / 60) % 360
        return sats.map { prn, el, az in
            let snr = Int((14 + Double(el) * 0.35 + 18 * strength).rounded())
            return GeneratedSatellite(prn: prn, elevation: el, azimuth: (az + drift) % 360, snr: strength <= 0 && el < 40 ? 0 : snr)
        }
    }

    /// Satellites used: the `count` highest (per constellation in proportion for multi-GNSS).
    func used(_ count: Int, sky: [GeneratedSatellite]) -> [Int] {
        Array(sky.sorted { $0.elevation > $1.elevation }.prefix(count).map(\.prn)).sorted()
    }

    /// Moves up to `speed` metres toward a point; returns true when there.
    mutating func walk(toward target: (north: Double, east: Double), speed: Double) -> Bool {
        let dn = target.north - north, de = target.east - east
        let d = (dn * dn + de * de).squareRoot()
        if d <= speed {
            north = target.north; east = target.east
            return true
        }
        north += dn / d * speed
        east += de / d * speed
        var heading = atan2(de, dn) * 180 / .pi
        if heading < 0 { heading += 360 }
        lastTrack = heading
        return false
    }

    /// Writes one epoch at the walker's position and advances the time by a second.
    mutating func emit(_ kind: GeneratedEpoch.Kind, sigma: Double, hdop: Double, used count: Int,
                       moving: Bool = false, quality: Int = 1, strength: Double = 1, correctionAge: Double? = nil) {
        // A solution that becomes much better at once (RTK fixing) brings its error down with it.
        if sigma > 0, lastSigma > 0, sigma < lastSigma / 2 {
            errorNorth *= sigma / lastSigma
            errorEast *= sigma / lastSigma
        }
        if sigma > 0 { lastSigma = sigma }
        // Correlated error: an AR(1) walk whose spread is `sigma` per axis.
        let keep = 0.92
        let spread = sigma * (1 - keep * keep).squareRoot()
        errorNorth = keep * errorNorth + spread * random.gaussian()
        errorEast = keep * errorEast + spread * random.gaussian()
        let (lat, lon) = Orchard.degrees(north: north + errorNorth, east: east + errorEast)
        let skyNow = sky(strength: strength)
        var e = GeneratedEpoch(time: time, kind: kind, latitude: lat, longitude: lon,
                               altitude: 44.0 + north * 0.02 + errorNorth * 0.5)
        e.quality = quality
        e.correctionAge = correctionAge
        e.station = correctionAge == nil ? nil : 24
        e.speed = moving ? 1.0 + 0.05 * random.gaussian() : 0
        e.track = moving ? lastTrack : nil
        let places = style.rtk ? 1000.0 : 100.0
        let sLat = ((sigma * (1.05 + 0.1 * random.unit())) * places).rounded() / places
        let sLon = ((sigma * (0.85 + 0.1 * random.unit())) * places).rounded() / places
        e.sigmaLatitude = sLat
        e.sigmaLongitude = sLon
        e.hdop = (hdop * 10).rounded() / 10
        e.vdop = ((hdop * 1.4) * 10).rounded() / 10
        e.pdop = ((hdop * 1.7) * 10).rounded() / 10
        e.used = kind == .none ? [] : used(count, sky: skyNow)
        e.sky = skyNow
        TrackGenerator.write(e, style: style, into: &writer)

        facts.epochs += 1
        if facts.first == nil { facts.first = time }
        facts.last = time
        if kind != .none {
            facts.fixes += 1
            let accuracy: Double
            let source: String
            if style.gst {
                accuracy = AccuracyModel.radius95(sigmaLatitude: sLat, sigmaLongitude: sLon)
                source = "gst"
            } else {
                accuracy = AccuracyModel.radius95(hdop: e.hdop, differential: quality == 2)
                source = "dop"
            }
            let decimals = writer.minuteDecimals
            let seen = (time, NMEATextWriter.readBack(lat, decimals: decimals), NMEATextWriter.readBack(lon, decimals: decimals), accuracy, source)
            if accuracy < 10 && facts.firstUnder10 == nil { facts.firstUnder10 = seen }
            if accuracy < 20 && facts.firstUnder20 == nil { facts.firstUnder20 = seen }
            facts.best = min(facts.best ?? .infinity, accuracy)
        }
        time += 1
    }
}

extension TrackGenerator {
    static let day = (2025, 4, 12)

    static func start(_ h: Int, _ m: Int) -> Int { seconds(day.0, day.1, day.2, h, m, 0) }

    /// A walk along rows 0–2, stopping 15 s at five trees of each row; accuracy settles from ~40 m to ~3 m.
    static func orchardWalk() -> TrackBuilder {
        var b = TrackBuilder(name: "orchard-walk.nmea", style: TrackStyle(), start: start(9, 12), north: 0, east: -4, seed: 1)
        var t = 0.0
        func settle(_ t: Double) -> (Double, Double, Int) {
            (1.25 + 15.05 * exp(-t / 45), 0.9 + 2.6 * exp(-t / 45), 5 + Int(5 * (1 - exp(-t / 40))))
        }
        for _ in 0..<60 {
            let (s, h, n) = settle(t)
            b.emit(.threeD, sigma: s, hdop: h, used: n)
            t += 1
        }
        for row in 0..<3 {
            let order = row % 2 == 0 ? Array(0..<5) : Array((0..<5).reversed())
            for k in order {
                let p = Orchard.tree(row: row, index: k)
                let target = (north: p.north, east: p.east - 1)
                while !b.walk(toward: target, speed: 1.0) {
                    let (s, h, n) = settle(t)
                    b.emit(.threeD, sigma: s, hdop: h, used: n, moving: true)
                    t += 1
                }
                for _ in 0..<15 {
                    let (s, h, n) = settle(t)
                    b.emit(.threeD, sigma: s, hdop: h, used: n)
                    t += 1
                }
            }
        }
        return b
    }

    /// A cold start at one tree: 35 s without a fix, 25 s of a poor 2D fix, then 3D settling to ~3.5 m.
    static func coldStart() -> TrackBuilder {
        var style = TrackStyle()
        style.zda = true
        let tree = Orchard.tree(row: 2, index: 3)
        var b = TrackBuilder(name: "cold-start.nmea", style: style, start: start(8, 55), north: tree.north, east: tree.east - 1, seed: 2)
        for i in 0..<35 { b.emit(.none, sigma: 0, hdop: 99.9, used: 0, strength: Double(i) / 70) }
        for i in 0..<25 {
            b.emit(.twoD, sigma: 28 - 10 * Double(i) / 25, hdop: 4.8 - 1.3 * Double(i) / 25, used: 3, strength: 0.5)
        }
        for i in 0..<180 {
            let t = Double(i)
            b.emit(.threeD, sigma: 1.4 + 12 * exp(-t / 50), hdop: 1.0 + 1.8 * exp(-t / 50),
                   used: 4 + Int(5 * (1 - exp(-t / 60))), strength: 0.6 + 0.4 * (1 - exp(-t / 60)))
        }
        return b
    }

    /// A walk up row 3 with a good fix, lost for 45 s under the hedge at its end, then regained.
    static func signalLoss() -> TrackBuilder {
        var b = TrackBuilder(name: "signal-loss.nmea", style: TrackStyle(), start: start(10, 30), north: 0, east: 17, seed: 3)
        var i = 0
        var k = 0
        var stop = 0
        while i < 300 {
            let target = Orchard.tree(row: 3, index: k)
            var moving = false
            if stop > 0 {
                stop -= 1
            } else if b.walk(toward: (target.north, target.east - 1), speed: 1.0) {
                stop = 10
                k = min(k + 1, 24)
            } else {
                moving = true
            }
            switch i {
            case 100..<145:
                b.emit(.none, sigma: 0, hdop: 99.9, used: 0, moving: moving, strength: 0)
            case 145..<150:
                b.emit(.twoD, sigma: 11.6, hdop: 3.9, used: 3, moving: moving, strength: 0.4)
            case 150...:
                let t = Double(i - 150)
                b.emit(.threeD, sigma: 1.6 + 9 * exp(-t / 25), hdop: 1.0 + 2 * exp(-t / 25), used: 5 + min(4, i - 150), moving: moving)
            default:
                b.emit(.threeD, sigma: 1.6 + 0.1 * sin(Double(i) / 7), hdop: 1.0, used: 9, moving: moving)
            }
            i += 1
        }
        return b
    }

    /// Like the orchard walk (row 4) but without GST: accuracy only from HDOP × 19 m, never under 10 m.
    static func noGST() -> TrackBuilder {
        var style = TrackStyle()
        style.gst = false
        var b = TrackBuilder(name: "no-gst.nmea", style: style, start: start(11, 5), north: 0, east: 20, seed: 4)
        var t = 0.0
        func model(_ t: Double) -> (Double, Int) { (0.8 + 2.7 * exp(-t / 50), 5 + Int(5 * (1 - exp(-t / 40)))) }
        for _ in 0..<40 {
            let (h, n) = model(t)
            b.emit(.threeD, sigma: 2, hdop: h, used: n)
            t += 1
        }
        for k in 0..<8 {
            let p = Orchard.tree(row: 4, index: k)
            while !b.walk(toward: (p.north, p.east - 1), speed: 1.0) {
                let (h, n) = model(t)
                b.emit(.threeD, sigma: 2, hdop: h, used: n, moving: true)
                t += 1
            }
            for _ in 0..<20 {
                let (h, n) = model(t)
                b.emit(.threeD, sigma: 2, hdop: h, used: n)
                t += 1
            }
        }
        return b
    }

    /// A multi-constellation receiver (GN, GL, GA, GB talkers): fast to settle, ~2.2 m.
    static func multiGNSS() -> TrackBuilder {
        var style = TrackStyle()
        style.multiGNSS = true
        let first = Orchard.tree(row: 5, index: 0)
        var b = TrackBuilder(name: "multi-gnss.nmea", style: style, start: start(11, 40), north: first.north, east: first.east - 1, seed: 5)
        var t = 0.0
        func model(_ t: Double) -> (Double, Double) { (0.9 + 7 * exp(-t / 20), 0.5 + 1.2 * exp(-t / 20)) }
        for _ in 0..<40 {
            let (s, h) = model(t)
            b.emit(.threeD, sigma: s, hdop: h, used: 16)
            t += 1
        }
        for k in 1..<5 {
            let p = Orchard.tree(row: 5, index: k)
            while !b.walk(toward: (p.north, p.east - 1), speed: 1.0) {
                let (s, h) = model(t)
                b.emit(.threeD, sigma: s, hdop: h, used: 16, moving: true)
                t += 1
            }
            for _ in 0..<20 {
                let (s, h) = model(t)
                b.emit(.threeD, sigma: s, hdop: h, used: 16)
                t += 1
            }
        }
        return b
    }

    /// A receiver that never gets a fix: a minute of RMC status V, GGA quality 0 and weak satellites.
    static func noFix() -> TrackBuilder {
        var style = TrackStyle()
        style.zda = true
        style.gst = false
        var b = TrackBuilder(name: "no-fix.nmea", style: style, start: start(12, 0), north: 20, east: 10, seed: 6)
        for i in 0..<60 { b.emit(.none, sigma: 0, hdop: 99.9, used: 0, strength: Double(i % 20) / 100) }
        return b
    }

    /// An RTK receiver with a 2 m pole along row 5: 20 s without corrections, RTK float settling
    /// for 30 s, RTK fixed at three trees, then the corrections stop for 40 s (fixed, float, then
    /// no corrections as their age grows) and come back: float, then fixed again at a fourth tree.
    static func rtkWalk() -> TrackBuilder {
        var style = TrackStyle()
        style.rtk = true
        let first = Orchard.tree(row: 5, index: 0)
        var b = TrackBuilder(name: "rtk-walk.nmea", style: style, start: start(13, 0), north: first.north - 3, east: first.east - 1, seed: 7)
        var age = 1.0
        var t = 0
        /// One epoch of the corrections' story at second `t`.
        func epoch(_ b: inout TrackBuilder, moving: Bool) {
            let jitter = 0.05 * Double(t % 7)
            switch t {
            case ..<20:
                b.emit(.threeD, sigma: 1.4, hdop: 0.8, used: 12, moving: moving)
            case ..<50:
                age = 0.8 + jitter
                let s = 0.12 + 0.5 * exp(-Double(t - 20) / 8)
                b.emit(.threeD, sigma: s, hdop: 0.7, used: 12, moving: moving, quality: 5, correctionAge: age)
            case ..<160:
                age = 0.8 + jitter
                b.emit(.threeD, sigma: 0.012, hdop: 0.7, used: 12, moving: moving, quality: 4, correctionAge: age)
            case ..<200:
                // Corrections lost at 160 s: their age grows; fixed holds 5 s, float until 30 s, then none.
                let lost = Double(t - 160) + 1
                if lost <= 5 {
                    b.emit(.threeD, sigma: 0.015 + 0.01 * lost, hdop: 0.7, used: 12, moving: moving, quality: 4, correctionAge: lost + 0.8)
                } else if lost <= 30 {
                    b.emit(.threeD, sigma: 0.1 + 0.05 * lost, hdop: 0.7, used: 12, moving: moving, quality: 5, correctionAge: lost + 0.8)
                } else {
                    b.emit(.threeD, sigma: 1.5, hdop: 0.8, used: 12, moving: moving)
                }
            case ..<225:
                age = 0.8 + jitter
                let s = 0.12 + 0.4 * exp(-Double(t - 200) / 6)
                b.emit(.threeD, sigma: s, hdop: 0.7, used: 12, moving: moving, quality: 5, correctionAge: age)
            default:
                age = 0.8 + jitter
                b.emit(.threeD, sigma: 0.011, hdop: 0.7, used: 12, moving: moving, quality: 4, correctionAge: age)
            }
            t += 1
        }
        for k in 0..<4 {
            let tree = Orchard.tree(row: 5, index: k)
            while !b.walk(toward: (tree.north, tree.east - 1), speed: 0.5) { epoch(&b, moving: true) }
            // Waits at the first tree for the fix, at the others 15 s (the last until the end).
            let wait = k == 0 ? max(15, 60 - t) : k == 3 ? max(15, 260 - t) : 15
            for _ in 0..<wait { epoch(&b, moving: false) }
            if k == 2 { while t < 200 { epoch(&b, moving: false) } }
        }
        return b
    }

    static var all: [TrackBuilder] { [orchardWalk(), coldStart(), signalLoss(), noGST(), multiGNSS(), noFix(), rtkWalk()] }

    /// ~150 surveyed trees in six rows as GPX 1.1 waypoints (name = species, type = variety).
    static func surveyedTreesGPX() -> String {
        let species = ["Apple", "Apple", "Pear", "Plum", "Cherry", "Quince"]
        let varieties = [
            ["Cox's Orange Pippin", "Bramley", "Egremont Russet", "Discovery", "Worcester Pearmain"],
            ["Gala", "Braeburn", "Jonagold", "Spartan", "Katy"],
            ["Conference", "Doyenné du Comice", "Concorde", "Beth"],
            ["Victoria", "Czar", "Marjorie's Seedling", "Opal"],
            ["Stella", "Sweetheart", "Morello", "Lapins"],
            ["Meech's Prolific", "Vranja", "Champion"],
        ]
        let rootstocks = ["M9", "M26", "MM106", "Quince A", "St Julien A", "Colt", "Quince C"]
        var random = TrackRandom(seed: 7)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="trees sample generator" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <metadata>
              <name>Surveyed trees, east orchard</name>
              <desc>150 trees in six rows, surveyed with an RTK receiver; name is the species, type the variety.</desc>
              <time>2025-03-20T09:00:00Z</time>
             </metadata>

            """
        let start = seconds(2025, 3, 20, 9, 0, 0)
        var i = 0
        for row in 0..<6 {
            for k in 0..<25 {
                let p = Orchard.tree(row: row, index: k)
                let (lat, lon) = Orchard.degrees(north: p.north + 0.15 * random.gaussian(), east: p.east + 0.15 * random.gaussian())
                let variety = varieties[row][(k * 7 + row) % varieties[row].count]
                let rootstock = rootstocks[(row * 3 + k) % rootstocks.count]
                var w = NMEATextWriter()
                w.append("  <wpt lat=\""); w.fixed(lat, places: 8); w.append("\" lon=\""); w.fixed(lon, places: 8); w.append("\">\n")
                w.append("   <ele>"); w.fixed(44.0 + p.north * 0.02 + 0.05 * random.gaussian(), places: 2); w.append("</ele>\n")
                let (y, mo, d) = CivilDate.date(days: (start + i * 45) / 86_400)
                let sod = (start + i * 45) % 86_400
                w.append("   <time>"); w.integer(y, width: 4); w.append("-"); w.integer(mo, width: 2); w.append("-"); w.integer(d, width: 2)
                w.append("T"); w.integer(sod / 3600, width: 2); w.append(":"); w.integer(sod / 60 % 60, width: 2); w.append(":")
                w.integer(sod % 60, width: 2); w.append("Z</time>\n")
                w.append("   <name>\(species[row])</name>\n")
                w.append("   <cmt>rootstock \(rootstock)</cmt>\n")
                w.append("   <desc>Row \(row + 1), tree \(k + 1): \(xml(variety)) on \(rootstock)</desc>\n")
                w.append("   <type>\(xml(variety))</type>\n")
                w.append("   <fix>3d</fix>\n   <sat>"); w.integer(10 + (k % 5)); w.append("</sat>\n")
                w.append("   <hdop>"); w.fixed(0.6 + 0.5 * random.unit(), places: 1); w.append("</hdop>\n")
                w.append("  </wpt>\n")
                out += String(decoding: w.bytes, as: UTF8.self)
                i += 1
            }
        }
        return out + "</gpx>\n"
    }

    static func xml(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }

    /// Writes every sample track and the surveyed trees into `folder`; returns what a reader sees in each.
    static func writeSampleTracks(to folder: String) throws -> [TrackFacts] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var facts: [TrackFacts] = []
        for b in all {
            try Data(b.writer.bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(b.facts.name))
            facts.append(b.facts)
        }
        try Data(surveyedTreesGPX().utf8).write(to: URL(fileURLWithPath: folder).appendingPathComponent("surveyed-trees.gpx"))
        return facts
    }

    static func describe(_ f: TrackFacts) -> String {
        func time(_ t: Int) -> String {
            let sod = t % 86_400
            return String(format: "%02d:%02d:%02dZ", sod / 3600, sod / 60 % 60, sod % 60)
        }
        var s = "\(f.name): \(f.epochs) epochs, \(f.fixes) fixes"
        if let a = f.first, let b = f.last { s += ", \(time(a))–\(time(b))" }
        if let g = f.firstUnder10 {
            s += String(format: "; first < 10 m: %@ %.7f %.7f %.2f m (%@)", time(g.time), g.lat, g.lon, g.accuracy, g.source)
        } else {
            s += "; never < 10 m"
        }
        if let g = f.firstUnder20 {
            s += String(format: "; first < 20 m: %@ %.7f %.7f %.2f m (%@)", time(g.time), g.lat, g.lon, g.accuracy, g.source)
        }
        if let best = f.best { s += String(format: "; best %.2f m", best) }
        return s
    }
}
