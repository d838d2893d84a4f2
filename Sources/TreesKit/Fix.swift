import Foundation

/// The kind of fix, numbered as gpsd numbers its TPV `mode`.
public enum FixMode: Int, Sendable, Codable, Comparable, CaseIterable {
    case notSeen = 0
    case noFix = 1
    case twoD = 2
    case threeD = 3

    public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }

    /// True for 2D and 3D fixes.
    public var hasPosition: Bool { self >= .twoD }

    public var title: String {
        switch self {
        case .notSeen: "no data"
        case .noFix: "no fix"
        case .twoD: "2D"
        case .threeD: "3D"
        }
    }
}

/// The quality of a fix, numbered as gpsd numbers its TPV `status`.
public enum FixStatus: Int, Sendable, Codable, CaseIterable {
    case unknown = 0
    case gps = 1
    case dgps = 2
    case rtkFixed = 3
    case rtkFloat = 4
    case deadReckoning = 5
    case gnssDeadReckoning = 6
    case timeOnly = 7
    case simulated = 8
    case pps = 9

    public var title: String {
        switch self {
        case .unknown: "unknown"
        case .gps: "GPS"
        case .dgps: "DGPS"
        case .rtkFixed: "RTK fixed"
        case .rtkFloat: "RTK float"
        case .deadReckoning: "estimated"
        case .gnssDeadReckoning: "GNSS+DR"
        case .timeOnly: "time only"
        case .simulated: "simulated"
        case .pps: "PPS"
        }
    }

    /// True when differential corrections were applied (DGPS, RTK), which changes gpsd's UERE.
    public var isDifferential: Bool { self == .dgps || self == .rtkFixed || self == .rtkFloat }

    /// The rank of a position fix's quality for `capture --require-fix`: 0 without corrections
    /// (or not a positioning status), 1 DGPS, 2 RTK float, 3 RTK fixed.
    public var correctionRank: Int {
        switch self {
        case .dgps: 1
        case .rtkFloat: 2
        case .rtkFixed: 3
        default: 0
        }
    }

    /// The short name used in files and columns: `gps`, `dgps`, `rtk-fixed`, `rtk-float`, ….
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .gps: "gps"
        case .dgps: "dgps"
        case .rtkFixed: "rtk-fixed"
        case .rtkFloat: "rtk-float"
        case .deadReckoning: "dead-reckoning"
        case .gnssDeadReckoning: "gnss-dead-reckoning"
        case .timeOnly: "time-only"
        case .simulated: "simulated"
        case .pps: "pps"
        }
    }

    /// The status a short name (`name`) stands for; case is ignored.
    public init?(name: String) {
        guard let s = FixStatus.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = s
    }
}

/// The fix quality `capture --require-fix` waits for.
public enum RequiredFix: String, Sendable, Codable, CaseIterable {
    case dgps
    case rtkFloat = "rtk-float"
    case rtkFixed = "rtk-fixed"

    /// The least `FixStatus.correctionRank` that meets it.
    public var rank: Int {
        switch self {
        case .dgps: 1
        case .rtkFloat: 2
        case .rtkFixed: 3
        }
    }

    public var title: String {
        switch self {
        case .dgps: "DGPS"
        case .rtkFloat: "RTK float"
        case .rtkFixed: "RTK fixed"
        }
    }

    /// True when a fix of status `status` is good enough.
    public func isMet(by status: FixStatus) -> Bool { status.correctionRank >= rank }
}

/// One position report from a receiver: the result of one receiver cycle (epoch).
///
/// Units follow gpsd's TPV: degrees, metres, metres per second, degrees true. Every field the
/// receiver did not give is nil. `time` is the receiver's UTC time, never the computer's clock.
public struct Fix: Sendable, Equatable, Codable {
    /// Receiver UTC time of the fix.
    public var time: Date?
    public var mode: FixMode
    public var status: FixStatus
    /// Position; nil without a 2D/3D fix.
    public var coordinate: Coordinate?
    /// Altitude above mean sea level, in metres.
    public var altitudeMSL: Double?
    /// Geoid separation (ellipsoid minus geoid), in metres.
    public var geoidSeparation: Double?
    /// Height above the WGS 84 ellipsoid, in metres.
    public var ellipsoidHeight: Double?
    /// Satellites used in the solution.
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// Speed over ground, in metres per second.
    public var speed: Double?
    /// Course over ground, in degrees true.
    public var track: Double?
    /// gpsd's horizontal error estimate, in metres (HDOP × UERE for NMEA receivers).
    public var eph: Double?
    /// gpsd's longitude error estimate, in metres.
    public var epx: Double?
    /// gpsd's latitude error estimate, in metres.
    public var epy: Double?
    /// gpsd's vertical error estimate, in metres.
    public var epv: Double?
    /// Radius of the 95% confidence circle, in metres: the figure users see.
    public var horizontalAccuracy: Double?
    /// Where `horizontalAccuracy` comes from.
    public var accuracySource: AccuracySource?
    /// Half-width of the 95% confidence interval of the height, in metres.
    public var verticalAccuracy: Double?
    /// Where `verticalAccuracy` comes from.
    public var verticalAccuracySource: AccuracySource?
    /// Seconds since the receiver last applied differential corrections (GGA's age of
    /// differential data, gpsd's `dgpsAge`).
    public var correctionAge: Double?
    /// The reference station the corrections come from (gpsd's `dgpsSta`).
    public var correctionStation: Int?
    /// Values worked out rather than measured: gpsd reports them as if the receiver had sent
    /// them, so human output should say which they are.
    public var derived: Derived = []

    /// Values of a fix that were worked out rather than measured by the receiver.
    public struct Derived: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Speed from the distance to the previous fix over the time between them (no sentence
        /// of the cycle gave one).
        public static let speed = Derived(rawValue: 1 << 0)
        /// True track from a magnetic heading or track and the magnetic variation.
        public static let track = Derived(rawValue: 1 << 1)
        /// DOPs (and the error estimates and accuracy made from them) worked out from the
        /// directions of the satellites used, because the receiver sent none.
        public static let dop = Derived(rawValue: 1 << 2)
    }

    public init(
        time: Date? = nil, mode: FixMode = .notSeen, status: FixStatus = .unknown,
        coordinate: Coordinate? = nil, altitudeMSL: Double? = nil, geoidSeparation: Double? = nil,
        ellipsoidHeight: Double? = nil, satellitesUsed: Int? = nil, hdop: Double? = nil,
        vdop: Double? = nil, pdop: Double? = nil, speed: Double? = nil, track: Double? = nil,
        eph: Double? = nil, epx: Double? = nil, epy: Double? = nil, epv: Double? = nil,
        horizontalAccuracy: Double? = nil, accuracySource: AccuracySource? = nil,
        verticalAccuracy: Double? = nil, verticalAccuracySource: AccuracySource? = nil,
        correctionAge: Double? = nil, correctionStation: Int? = nil, derived: Derived = []
    ) {
        self.time = time; self.mode = mode; self.status = status; self.coordinate = coordinate
        self.altitudeMSL = altitudeMSL; self.geoidSeparation = geoidSeparation
        self.ellipsoidHeight = ellipsoidHeight; self.satellitesUsed = satellitesUsed
        self.hdop = hdop; self.vdop = vdop; self.pdop = pdop; self.speed = speed; self.track = track
        self.eph = eph; self.epx = epx; self.epy = epy; self.epv = epv
        self.horizontalAccuracy = horizontalAccuracy; self.accuracySource = accuracySource
        self.verticalAccuracy = verticalAccuracy; self.verticalAccuracySource = verticalAccuracySource
        self.correctionAge = correctionAge; self.correctionStation = correctionStation
        self.derived = derived
    }

    private enum CodingKeys: String, CodingKey {
        case time, mode, status, coordinate, altitudeMSL, geoidSeparation, ellipsoidHeight, satellitesUsed
        case hdop, vdop, pdop, speed, track, eph, epx, epy, epv, horizontalAccuracy, accuracySource
        case verticalAccuracy, verticalAccuracySource, correctionAge, correctionStation, derived
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        time = try c.decodeIfPresent(Date.self, forKey: .time)
        mode = try c.decode(FixMode.self, forKey: .mode)
        status = try c.decode(FixStatus.self, forKey: .status)
        coordinate = try c.decodeIfPresent(Coordinate.self, forKey: .coordinate)
        altitudeMSL = try c.decodeIfPresent(Double.self, forKey: .altitudeMSL)
        geoidSeparation = try c.decodeIfPresent(Double.self, forKey: .geoidSeparation)
        ellipsoidHeight = try c.decodeIfPresent(Double.self, forKey: .ellipsoidHeight)
        satellitesUsed = try c.decodeIfPresent(Int.self, forKey: .satellitesUsed)
        hdop = try c.decodeIfPresent(Double.self, forKey: .hdop)
        vdop = try c.decodeIfPresent(Double.self, forKey: .vdop)
        pdop = try c.decodeIfPresent(Double.self, forKey: .pdop)
        speed = try c.decodeIfPresent(Double.self, forKey: .speed)
        track = try c.decodeIfPresent(Double.self, forKey: .track)
        eph = try c.decodeIfPresent(Double.self, forKey: .eph)
        epx = try c.decodeIfPresent(Double.self, forKey: .epx)
        epy = try c.decodeIfPresent(Double.self, forKey: .epy)
        epv = try c.decodeIfPresent(Double.self, forKey: .epv)
        horizontalAccuracy = try c.decodeIfPresent(Double.self, forKey: .horizontalAccuracy)
        accuracySource = try c.decodeIfPresent(AccuracySource.self, forKey: .accuracySource)
        verticalAccuracy = try c.decodeIfPresent(Double.self, forKey: .verticalAccuracy)
        verticalAccuracySource = try c.decodeIfPresent(AccuracySource.self, forKey: .verticalAccuracySource)
        correctionAge = try c.decodeIfPresent(Double.self, forKey: .correctionAge)
        correctionStation = try c.decodeIfPresent(Int.self, forKey: .correctionStation)
        // Fixes written before the field existed have no derived values.
        derived = try c.decodeIfPresent(Derived.self, forKey: .derived) ?? []
    }

    /// True for a 2D/3D fix with a position.
    public var hasPosition: Bool { mode.hasPosition && coordinate != nil }

    /// The accuracy class of this fix (unknown without a position).
    public var accuracyClass: AccuracyClass {
        hasPosition ? AccuracyClass(metres: horizontalAccuracy) : .unknown
    }
}

/// A GPS device as a location source describes it.
public struct DeviceInfo: Sendable, Equatable, Codable {
    public var path: String
    public var driver: String?
    public var subtype: String?
    public init(path: String, driver: String? = nil, subtype: String? = nil) {
        self.path = path; self.driver = driver; self.subtype = subtype
    }
}

/// What a location source reports: fixes and changes of its own state.
public enum LocationEvent: Sendable, Equatable {
    case fix(Fix)
    /// Connected to the source (gpsd version where known, devices it sees).
    case connected(version: String?, devices: [DeviceInfo])
    /// The source is up but the receiver has no fix.
    case noFix
    /// A fix was held and is now lost.
    case fixLost
    case deviceAdded(DeviceInfo)
    case deviceRemoved(DeviceInfo)
    /// The connection to the source was lost (`reason` says why).
    case sourceLost(reason: String)
    /// Trying to reconnect; `attempt` counts from 1, `delay` is the wait before this attempt.
    case reconnecting(attempt: Int, delay: Duration)
    /// A recoverable problem worth showing (a skipped sentence, an unknown report).
    case warning(String)
    /// The correction stream (NTRIP) the source forwards to its receiver changed state.
    case corrections(CorrectionStreamStatus)
}

/// The state of a stream of corrections (RTCM from an NTRIP caster) that a location source
/// forwards to its receiver.
public struct CorrectionStreamStatus: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        /// Connecting, or waiting for the caster's answer.
        case connecting
        /// Corrections are arriving and being forwarded.
        case streaming
        /// The stream stopped or was refused (`reason` says why); another attempt follows.
        case failed(reason: String)
    }

    /// `HOST:PORT/MOUNT`, never a user name or password.
    public var caster: String
    public var state: State
    /// Bytes of corrections forwarded to the receiver so far.
    public var bytes: Int
    /// When the last bytes arrived, by the computer's clock.
    public var lastData: Date?

    public init(caster: String, state: State, bytes: Int = 0, lastData: Date? = nil) {
        self.caster = caster; self.state = state; self.bytes = bytes; self.lastData = lastData
    }
}
