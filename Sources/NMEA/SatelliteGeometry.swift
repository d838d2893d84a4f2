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
        var a = [[Double]](repeating: [0, 0, 0, 0], count: 4)
        var n = 0
        for s in sky where s.used && s.prn >= 1 {
            guard let az = s.azimuth, let el = s.elevation, az >= 0, az <= 359, abs(el) <= 90 else { continue }
            let azimuth = az * .pi / 180, elevation = el * .pi / 180
            let line = [sin(azimuth) * cos(elevation), cos(azimuth) * cos(elevation), sin(elevation), 1]
            for i in 0..<4 { for j in 0..<4 { a[i][j] += line[i] * line[j] } }
            n += 1
        }
        guard n >= 4 else { return nil }
        let det = Self.determinant(a)
        guard abs(det) >= 0.0001 else { return nil }
        // The diagonal of the inverse: each element's cofactor (the determinant of the matrix
        // without its row and column) over the determinant.
        let q = (0..<4).map { Self.minor(a, without: $0) / det }
        guard q.allSatisfy({ $0 >= 0 }) else { return nil }
        x = q[0].squareRoot()
        y = q[1].squareRoot()
        horizontal = (q[0] + q[1]).squareRoot()
        vertical = q[2].squareRoot()
        position = (q[0] + q[1] + q[2]).squareRoot()
    }

    /// The 3×3 determinant of `m` with row and column `k` left out.
    private static func minor(_ m: [[Double]], without k: Int) -> Double {
        let r = (0..<4).filter { $0 != k }
        func e(_ i: Int, _ j: Int) -> Double { m[r[i]][r[j]] }
        return e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1))
            - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0))
            + e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0))
    }

    /// The 4×4 determinant, expanded along the first row.
    private static func determinant(_ m: [[Double]]) -> Double {
        var total = 0.0
        for j in 0..<4 {
            let r = [1, 2, 3], c = (0..<4).filter { $0 != j }
            func e(_ i: Int, _ k: Int) -> Double { m[r[i]][c[k]] }
            let sub = e(0, 0) * (e(1, 1) * e(2, 2) - e(1, 2) * e(2, 1))
                - e(0, 1) * (e(1, 0) * e(2, 2) - e(1, 2) * e(2, 0))
                + e(0, 2) * (e(1, 0) * e(2, 1) - e(1, 1) * e(2, 0))
            total += (j % 2 == 0 ? 1 : -1) * m[0][j] * sub
        }
        return total
    }
}
