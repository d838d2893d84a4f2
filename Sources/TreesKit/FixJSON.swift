import Foundation

/// Renders a ``Fix`` as one JSON object on one line, with gpsd's TPV key names and units.
///
/// Keys, in this order, each only when the fix has the value: `class` ("TPV", optional), `time`
/// (ISO 8601 UTC with milliseconds), `mode`, `status` (omitted when unknown), `lat`, `lon`
/// (degrees), `altMSL`, `altHAE`, `geoidSep` (metres), `eph`, `epx`, `epy`, `epv` (metres),
/// `speed` (m/s), `track` (degrees true), `hdop`, `vdop`, `pdop`, `satellites` (used), then
/// `horizontalAccuracy` (95% radius, metres), `accuracySource`, and `derived` (an array naming
/// `speed` and/or `track` when they were worked out rather than measured; gpsd reports such
/// values without saying so). Numbers are written as the
/// shortest text that reads back to the same double, whatever the locale; no `JSONEncoder` is
/// involved, so a stream of fixes costs little per line.
public enum FixJSON {
    /// Appends the JSON object (and a newline when `newline` is true) to `out` as UTF-8 bytes.
    public static func append(_ fix: Fix, to out: inout [UInt8], includeClass: Bool = true, newline: Bool = true) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: StaticString) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }
        func number(_ name: StaticString, _ value: Double?) {
            guard let value, value.isFinite else { return }
            key(name)
            TextCodec.appendDecimal(value, to: &out)
        }
        if includeClass {
            key("class")
            let tpv: StaticString = "\"TPV\""
            out.append(contentsOf: UnsafeBufferPointer(start: tpv.utf8Start, count: tpv.utf8CodeUnitCount))
        }
        if let time = fix.time {
            key("time")
            out.append(UInt8(ascii: "\""))
            TextCodec.appendISO8601(time, fraction: .milliseconds, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        key("mode")
        TextCodec.appendInteger(fix.mode.rawValue, to: &out)
        if fix.status != .unknown {
            key("status")
            TextCodec.appendInteger(fix.status.rawValue, to: &out)
        }
        number("lat", fix.coordinate?.latitude)
        number("lon", fix.coordinate?.longitude)
        number("altMSL", fix.altitudeMSL)
        number("altHAE", fix.ellipsoidHeight)
        number("geoidSep", fix.geoidSeparation)
        number("eph", fix.eph)
        number("epx", fix.epx)
        number("epy", fix.epy)
        number("epv", fix.epv)
        number("speed", fix.speed)
        number("track", fix.track)
        number("hdop", fix.hdop)
        number("vdop", fix.vdop)
        number("pdop", fix.pdop)
        number("dgpsAge", fix.correctionAge)
        if let n = fix.correctionStation {
            key("dgpsSta")
            TextCodec.appendInteger(n, to: &out)
        }
        if let n = fix.satellitesUsed {
            key("satellites")
            TextCodec.appendInteger(n, to: &out)
        }
        number("horizontalAccuracy", fix.horizontalAccuracy)
        if let source = fix.accuracySource {
            key("accuracySource")
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: source.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
        }
        number("verticalAccuracy", fix.verticalAccuracy)
        if let source = fix.verticalAccuracySource {
            key("verticalAccuracySource")
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: source.rawValue.utf8)
            out.append(UInt8(ascii: "\""))
        }
        if !fix.derived.isEmpty {
            key("derived")
            out.append(UInt8(ascii: "["))
            var first = true
            for (flag, name) in [(Fix.Derived.speed, #""speed""#), (.track, #""track""#), (.dop, #""dop""#)]
            where fix.derived.contains(flag) {
                if !first { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: name.utf8)
                first = false
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        if newline { out.append(UInt8(ascii: "\n")) }
    }

    /// The JSON object as a string, without a newline.
    public static func line(_ fix: Fix, includeClass: Bool = true) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        append(fix, to: &bytes, includeClass: includeClass, newline: false)
        return String(decoding: bytes, as: UTF8.self)
    }
}
