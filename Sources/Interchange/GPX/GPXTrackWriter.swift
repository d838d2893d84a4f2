import Foundation
import TreesKit

/// Writes fixes as one GPX 1.1 track, streaming: a new segment starts after each loss of fix.
///
/// Each fix with a position becomes a `trkpt` with `ele` (above mean sea level), `time`,
/// `geoidheight`, `fix`, `sat` and the DOPs, as GPX 1.1 orders them; positions to 9 decimal
/// places (about 0.1 mm; a longitude that would round to 180 is written as −180), heights to the
/// millimetre, DOPs to two places; a height or DOP of 1e24 or more (no receiver's) as the largest
/// number schema processors read.
public struct GPXTrackWriter {
    let name: String
    var segmentOpen = false

    /// A track named `name` (the recorded file's name, say).
    public init(name: String) { self.name = name }

    /// The document's start and the track's name.
    public func begin(into out: inout [UInt8]) {
        literal("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="trees" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
             <trk>
              <name>
            """, &out)
        TextCodec.appendXMLEscaped(name, to: &out)
        literal("</name>\n", &out)
    }

    /// One fix: a track point, or the end of the open segment when the fix has no position.
    public mutating func add(_ fix: Fix, into out: inout [UInt8]) {
        guard fix.hasPosition, let c = fix.coordinate else {
            if segmentOpen { literal("  </trkseg>\n", &out); segmentOpen = false }
            return
        }
        if !segmentOpen { literal("  <trkseg>\n", &out); segmentOpen = true }
        literal("   <trkpt lat=\"", &out)
        TextCodec.appendDecimal(c.latitude, places: 9, to: &out)
        literal("\" lon=\"", &out)
        TextCodec.appendDecimal(Self.longitude(c.longitude), places: 9, to: &out)
        literal("\">", &out)
        if let ele = fix.altitudeMSL, ele.isFinite { element("ele", ele, places: 3, &out) }
        if let time = fix.time {
            literal("<time>", &out)
            TextCodec.appendISO8601(time, fraction: .milliseconds, to: &out)
            literal("</time>", &out)
        }
        if let g = fix.geoidSeparation, g.isFinite { element("geoidheight", g, places: 3, &out) }
        switch fix.status {
        case .dgps: literal("<fix>dgps</fix>", &out)
        case .pps: literal("<fix>pps</fix>", &out)
        default: literal(fix.mode == .threeD ? "<fix>3d</fix>" : "<fix>2d</fix>", &out)
        }
        if let n = fix.satellitesUsed {
            literal("<sat>", &out)
            TextCodec.appendInteger(n, to: &out)
            literal("</sat>", &out)
        }
        if let v = fix.hdop, v.isFinite, v >= 0 { element("hdop", v, places: 2, &out) }
        if let v = fix.vdop, v.isFinite, v >= 0 { element("vdop", v, places: 2, &out) }
        if let v = fix.pdop, v.isFinite, v >= 0 { element("pdop", v, places: 2, &out) }
        literal("</trkpt>\n", &out)
    }

    /// The longitude to write to 9 places: GPX longitudes run from −180 inclusive to 180
    /// exclusive, so one that would be written as 180 (179.9999999996 rounds up) is written as −180,
    /// the same meridian.
    static func longitude(_ value: Double) -> Double {
        (value.magnitude * 1e9).rounded() >= 180e9 && value > 0 ? value - 360 : value
    }

    /// Closes the open segment, the track and the document.
    public mutating func end(into out: inout [UInt8]) {
        if segmentOpen { literal("  </trkseg>\n", &out); segmentOpen = false }
        literal(" </trk>\n</gpx>\n", &out)
    }

    private func element(_ tag: StaticString, _ value: Double, places: Int, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "<")); literal(tag, &out); out.append(UInt8(ascii: ">"))
        if value.magnitude >= 1e24 {
            // More digits than schema processors read (see `GPXWriter.largestDecimal`).
            if value < 0 { out.append(UInt8(ascii: "-")) }
            literal(GPXWriter.largestDecimal, &out)
        } else {
            TextCodec.appendDecimal(value, places: places, to: &out)
        }
        literal("</", &out); literal(tag, &out); out.append(UInt8(ascii: ">"))
    }

    private func literal(_ s: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
