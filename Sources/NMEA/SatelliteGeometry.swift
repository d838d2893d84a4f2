import Foundation

/// One satellite of the latest complete GSV set, as gpsd keeps it in its sky view.
struct SkySatellite {
    /// The satellite's number as gpsd gives it (see ``SatelliteNumbers/gpsd(talker:number:system:)``).
    var prn: Int
    /// Degrees above the horizon; nil when the sentence left it out or it was out of range.
    var elevation: Double?
    /// Degrees from true north, 0 up to 359; nil when left out or out of range.
    var azimuth: Double?
    /// The latest GSA set used it, and the receiver hears it (signal above 0 dB-Hz).
    var used: Bool
}

/// The numbers gpsd gives satellites, so that a GSA's used satellites and a GSV's satellites in
/// view meet on the same number.
enum SatelliteNumbers {
    /// The NMEA 4.10 system id of a GSA's or GSV's satellites as gpsd tells it from the talker
    /// (GA Galileo 3, GB and BD BeiDou 4, GI NavIC 6, GL GLONASS 2, GQ and QZ QZSS 5), else `given`:
    /// the sentence's own field, which Quectel's `$PQ` sentences use for BeiDou or QZSS.
    static func system(talker: (UInt8, UInt8), given: Int) -> Int {
        switch talker.1 {
        case UInt8(ascii: "A"): 3
        case UInt8(ascii: "B"), UInt8(ascii: "D"): 4
        case UInt8(ascii: "I"): 6
        case UInt8(ascii: "L"): 2
        case UInt8(ascii: "Q") where talker.0 == UInt8(ascii: "P") && given != 0: given
        case UInt8(ascii: "Q"), UInt8(ascii: "Z"): 5
        default: given
        }
    }

    /// gpsd's number for satellite `number` of a sentence from `talker` (the sentence's first two
    /// letters, `GP`, `GL`, `BD`, `PQ`…) with the NMEA 4.10 system id `system` (0 when unknown).
    ///
    /// With a system id: GPS and SBAS keep their numbers, GLONASS goes to 65–96 or beyond,
    /// Galileo to 301–, BeiDou to 401–, QZSS to 193–, NavIC to 501–. Without one, numbers 1–32
    /// move by talker (GA Galileo, GB and BD BeiDou, GI NavIC, GL GLONASS, GQ and QZ QZSS, PQ
    /// BeiDou); higher numbers keep their NMEA ranges, and BeiDou's 201–237 move to 401–437.
    /// 0 stands for a number gpsd does not place, which is never used.
    static func gpsd(talker: (UInt8, UInt8), number n: Int, system: Int) -> Int {
        guard n >= 1 else { return 0 }
        if system > 0 {
            switch system {
            case 1:
                switch n {
                case 1...136, 152...157, 193...264: return n
                default: return 0
                }
            case 2:
                return 64 + (n < 64 ? n : n - 64)
            case 3:
                let svid = n < 100 ? n : (101...199).contains(n) ? n - 100 : (301...399).contains(n) ? n - 300 : 0
                return 300 + svid
            case 4:
                let svid = n < 100 ? n : (201...299).contains(n) ? n - 200 : (401...499).contains(n) ? n - 400 : 0
                return 400 + svid
            case 5:
                return 192 + (n < 100 ? n : n - 192)
            case 6:
                return 500 + n
            default:
                return 0
            }
        }
        if n <= 32 {
            switch (talker.0, talker.1) {
            case (UInt8(ascii: "G"), UInt8(ascii: "A")): return 300 + n
            case (UInt8(ascii: "G"), UInt8(ascii: "B")), (UInt8(ascii: "B"), UInt8(ascii: "D")),
                 (UInt8(ascii: "P"), UInt8(ascii: "Q")): return 400 + n
            case (UInt8(ascii: "G"), UInt8(ascii: "I")): return 500 + n
            case (UInt8(ascii: "G"), UInt8(ascii: "L")): return 64 + n
            case (UInt8(ascii: "G"), UInt8(ascii: "Q")), (UInt8(ascii: "Q"), UInt8(ascii: "Z")): return 192 + n
            default: return n
            }
        }
        switch n {
        case 33...96, 120...158, 173...182, 193...197, 301...356, 401...437, 500...518, 901...918: return n
        case 201...237: return n + 200
        default: return 0
        }
    }
}

/// Dilutions of precision worked out from the directions of the satellites used, as gpsd does
/// when a receiver does not send them.
struct GeometryDOP {
    var x: Double
    var y: Double
    var horizontal: Double
    var vertical: Double
    var position: Double

    /// The DOPs of the used satellites of `sky` that have a direction, or nil with fewer than four
    /// of them or a geometry too poor to solve (the determinant of the normal matrix below 1e-4).
    ///
    /// Each satellite gives a line of sight (east, north, up, 1 for the clock); the DOPs are the
    /// square roots of the diagonal of the inverse of the sum of the lines' outer products.
    init?(_ sky: [SkySatellite]) {
        // The normal matrix is symmetric: its ten distinct elements, aIJ for row I, column J.
        var a00 = 0.0, a01 = 0.0, a02 = 0.0, a03 = 0.0, a11 = 0.0, a12 = 0.0, a13 = 0.0
        var a22 = 0.0, a23 = 0.0, a33 = 0.0
        var n = 0
        for s in sky where s.used && s.prn >= 1 {
            guard let az = s.azimuth, let el = s.elevation, az >= 0, az <= 359, abs(el) <= 90 else { continue }
            let cosEl = Self.cosine(el)
            let e = Self.sine(az) * cosEl, u = Self.cosine(az) * cosEl, h = Self.sine(el)
            a00 += e * e; a01 += e * u; a02 += e * h; a03 += e
            a11 += u * u; a12 += u * h; a13 += u
            a22 += h * h; a23 += h
            a33 += 1
            n += 1
        }
        guard n >= 4 else { return nil }
        // 2×2 determinants of rows 2 and 3 (columns named), shared by the cofactors below.
        let d23_01 = a02 * a13 - a12 * a03, d23_02 = a02 * a23 - a22 * a03, d23_03 = a02 * a33 - a23 * a03
        let d23_12 = a12 * a23 - a22 * a13, d23_13 = a12 * a33 - a23 * a13, d23_23 = a22 * a33 - a23 * a23
        // Cofactors of the first row; the determinant is their sum weighted by that row.
        let c00 = a11 * d23_23 - a12 * d23_13 + a13 * d23_12
        let c01 = -(a01 * d23_23 - a12 * d23_03 + a13 * d23_02)
        let c02 = a01 * d23_13 - a11 * d23_03 + a13 * d23_01
        let c03 = -(a01 * d23_12 - a11 * d23_02 + a12 * d23_01)
        let det = a00 * c00 + a01 * c01 + a02 * c02 + a03 * c03
        guard abs(det) >= 0.0001 else { return nil }
        // The other diagonal cofactors: the 3×3 determinants without row and column 1, 2 and 3.
        let c11 = a00 * d23_23 - a02 * d23_03 + a03 * d23_02
        let c22 = a00 * (a11 * a33 - a13 * a13) - a01 * (a01 * a33 - a13 * a03) + a03 * (a01 * a13 - a11 * a03)
        let c33 = a00 * (a11 * a22 - a12 * a12) - a01 * (a01 * a22 - a12 * a02) + a02 * (a01 * a12 - a11 * a02)
        let q0 = c00 / det, q1 = c11 / det, q2 = c22 / det
        guard q0 >= 0, q1 >= 0, q2 >= 0, c33 / det >= 0 else { return nil }
        x = q0.squareRoot()
        y = q1.squareRoot()
        horizontal = (q0 + q1).squareRoot()
        vertical = q2.squareRoot()
        position = (q0 + q1 + q2).squareRoot()
    }

    /// Sines and cosines of whole degrees 0–359, worked out once: GSV gives whole degrees.
    private static let sines: [Double] = (0..<360).map { sin(Double($0) * .pi / 180) }
    private static let cosines: [Double] = (0..<360).map { cos(Double($0) * .pi / 180) }

    private static func sine(_ degrees: Double) -> Double {
        let d = Int(degrees)
        guard Double(d) == degrees, d > -360, d < 360 else { return sin(degrees * .pi / 180) }
        return d >= 0 ? sines[d] : -sines[-d]
    }

    private static func cosine(_ degrees: Double) -> Double {
        let d = Int(degrees)
        guard Double(d) == degrees, d > -360, d < 360 else { return cos(degrees * .pi / 180) }
        return cosines[abs(d)]
    }
}
