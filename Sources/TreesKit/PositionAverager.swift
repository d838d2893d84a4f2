import Foundation

/// Averages the positions of several epochs into one, honestly.
///
/// Outliers are found robustly: the centre is the per-axis median, the spread σ = 1.4826 × the
/// median absolute deviation of the distances from it (floored at the epochs' own 1-σ claim, median
/// accuracy ÷ 2.4477, so a tight cluster of identical positions does not reject a point a few
/// centimetres off), and an epoch farther than 3 σ from the centre is dropped and counted. (Plain
/// mean ± 3 σ can never flag anything with 10 or fewer samples, because the outlier inflates σ.)
///
/// The accuracy of the average is conservative: the larger of
/// - the 95% radius of the scatter of the kept epochs (σ_east, σ_north → `AccuracyModel.radius95`), and
/// - the median of the epochs' own 95% accuracies.
/// It is never divided by √N: receiver errors are correlated over minutes, so averaging a few
/// seconds of epochs removes noise but not the slowly varying bias the per-epoch figure describes.
public struct PositionAverage: Sendable, Equatable {
    public var coordinate: Coordinate
    /// Conservative 95% radius, in metres (see the type's documentation).
    public var horizontalAccuracy: Double
    /// 95% radius of the scatter of the kept epochs, in metres.
    public var spread: Double
    /// Epochs averaged (after dropping outliers).
    public var epochs: Int
    /// Epochs dropped as outliers.
    public var outliers: Int
    /// Mean altitude above mean sea level of the kept epochs that had one, in metres.
    public var altitudeMSL: Double?
    /// Mean ellipsoid height of the kept epochs that had one, in metres.
    public var ellipsoidHeight: Double?
}

public enum PositionAverager {
    /// Averages fixes that have positions; nil when none has.
    public static func average(_ fixes: [Fix]) -> PositionAverage? {
        let usable = fixes.filter { $0.coordinate != nil }
        guard let origin = usable.first?.coordinate else { return nil }
        let offsets = usable.map { Geodesy.offset(of: $0.coordinate!, from: origin) }
        let accuracies = usable.compactMap(\.horizontalAccuracy)
        let claimed = median(accuracies) ?? 0

        let centreE = median(offsets.map(\.east)) ?? 0
        let centreN = median(offsets.map(\.north)) ?? 0
        let distances = offsets.map { hypot($0.east - centreE, $0.north - centreN) }
        let mad = median(distances.map { abs($0 - (median(distances) ?? 0)) }) ?? 0
        let sigma = max(1.4826 * mad, median(distances) ?? 0, claimed / AccuracyModel.sigmaTo95, 0.01)
        let keep = distances.map { $0 <= 3 * sigma }
        let kept = zip(usable, keep).filter(\.1).map(\.0)
        let keptOffsets = zip(offsets, keep).filter(\.1).map(\.0)
        let n = Double(keptOffsets.count)
        let meanE = keptOffsets.map(\.east).reduce(0, +) / n
        let meanN = keptOffsets.map(\.north).reduce(0, +) / n
        var spread = 0.0
        if keptOffsets.count > 1 {
            let varE = keptOffsets.map { ($0.east - meanE) * ($0.east - meanE) }.reduce(0, +) / (n - 1)
            let varN = keptOffsets.map { ($0.north - meanN) * ($0.north - meanN) }.reduce(0, +) / (n - 1)
            spread = AccuracyModel.radius95(sigmaLatitude: varN.squareRoot(), sigmaLongitude: varE.squareRoot())
        }
        let keptClaims = kept.compactMap(\.horizontalAccuracy)
        let accuracy = max(spread, median(keptClaims) ?? spread)
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
        return PositionAverage(
            coordinate: Geodesy.coordinate(east: meanE, north: meanN, from: origin),
            horizontalAccuracy: accuracy, spread: spread, epochs: kept.count, outliers: usable.count - kept.count,
            altitudeMSL: mean(kept.compactMap(\.altitudeMSL)), ellipsoidHeight: mean(kept.compactMap(\.ellipsoidHeight)))
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }
}
