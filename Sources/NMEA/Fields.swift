/// One comma-separated field of a sentence, as bytes (no copy, valid only while the sentence is).
struct Field {
    let base: UnsafePointer<UInt8>
    let count: Int

    var isEmpty: Bool { count == 0 }
    /// The first byte, or 0 for an empty field.
    var first: UInt8 { count > 0 ? base[0] : 0 }

    subscript(i: Int) -> UInt8 { base[i] }

    /// The field as text, for diagnostics only.
    var text: String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    func equals(bytes other: [UInt8]) -> Bool {
        guard other.count == count else { return false }
        for i in 0..<count where other[i] != base[i] { return false }
        return true
    }

    func contains(_ byte: UInt8) -> Bool {
        for i in 0..<count where base[i] == byte { return true }
        return false
    }

    /// The leading whole number of the field, as C's `atoi` reads it (`-12.5` → -12); nil
    /// without leading digits.
    func leadingInteger() -> Int? {
        var i = 0
        var negative = false
        if count > 0 && (base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+")) {
            negative = base[0] == UInt8(ascii: "-")
            i = 1
        }
        var v = 0
        var any = false
        while i < count, base[i] >= 48, base[i] <= 57, v < 1_000_000_000 {
            v = v * 10 + Int(base[i] - 48)
            any = true
            i += 1
        }
        guard any else { return nil }
        return negative ? -v : v
    }

    func equals(_ ascii: StaticString) -> Bool {
        guard ascii.utf8CodeUnitCount == count else { return false }
        let a = ascii.utf8Start
        for i in 0..<count where a[i] != base[i] { return false }
        return true
    }

    /// A decimal number: optional sign, digits, optional fraction (`-12.5`, `.5`, `7.`). Nil for anything else.
    ///
    /// Up to 18 significant digits are parsed exactly into an integer and scaled once by a power of ten,
    /// which gives the correctly rounded double for the up to 15 significant digits NMEA fields carry.
    func decimal() -> Double? {
        var i = 0
        var negative = false
        if count > 0 && (base[0] == UInt8(ascii: "-") || base[0] == UInt8(ascii: "+")) {
            negative = base[0] == UInt8(ascii: "-")
            i = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var extraIntegerDigits = 0
        var seenPoint = false
        var any = false
        while i < count {
            let c = base[i]
            if c >= 48 && c <= 57 {
                any = true
                if digits < 18 {
                    if mantissa != 0 || c != 48 { digits += 1 }
                    mantissa = mantissa &* 10 &+ UInt64(c &- 48)
                    if seenPoint { fractionDigits += 1 }
                } else if !seenPoint {
                    extraIntegerDigits += 1
                }
            } else if c == UInt8(ascii: ".") && !seenPoint {
                seenPoint = true
            } else {
                return nil
            }
            i += 1
        }
        guard any else { return nil }
        var value = Double(mantissa)
        let scale = extraIntegerDigits - fractionDigits
        if scale < 0 {
            value /= powersOfTen[min(-scale, powersOfTen.count - 1)]
        } else if scale > 0 {
            value *= powersOfTen[min(scale, powersOfTen.count - 1)]
        }
        return negative ? -value : value
    }

    /// A non-negative integer made of digits only. Nil for anything else or more than 9 digits.
    func integer() -> Int? {
        guard count > 0 && count <= 9 else { return nil }
        var v = 0
        for i in 0..<count {
            let c = base[i]
            guard c >= 48 && c <= 57 else { return nil }
            v = v * 10 + Int(c - 48)
        }
        return v
    }

    /// `hhmmss` with an optional fraction (`123519`, `123519.00`, `123519.5`) as milliseconds since midnight.
    func timeOfDay() -> Int? {
        guard count >= 6 else { return nil }
        for i in 0..<6 where base[i] < 48 || base[i] > 57 { return nil }
        let h = Int(base[0] - 48) * 10 + Int(base[1] - 48)
        let m = Int(base[2] - 48) * 10 + Int(base[3] - 48)
        let s = Int(base[4] - 48) * 10 + Int(base[5] - 48)
        guard h < 24, m < 60, s < 61 else { return nil }
        var ms = 0
        if count > 6 {
            guard base[6] == UInt8(ascii: ".") else { return nil }
            var scale = 100
            for i in 7..<count {
                let c = base[i]
                guard c >= 48 && c <= 57 else { return nil }
                ms += Int(c - 48) * scale
                scale /= 10
            }
        }
        return ((h * 60 + m) * 60 + s) * 1000 + ms
    }

    /// `ddmmyy` as (day, month, two-digit year).
    func ddmmyy() -> (day: Int, month: Int, year: Int)? {
        guard count == 6 else { return nil }
        for i in 0..<6 where base[i] < 48 || base[i] > 57 { return nil }
        let d = Int(base[0] - 48) * 10 + Int(base[1] - 48)
        let mo = Int(base[2] - 48) * 10 + Int(base[3] - 48)
        let y = Int(base[4] - 48) * 10 + Int(base[5] - 48)
        guard (1...31).contains(d), (1...12).contains(mo) else { return nil }
        return (d, mo, y)
    }

    /// NMEA `dddmm.mmmm` as degrees (unsigned); nil when not of that form or minutes ≥ 60.
    func degreesMinutes() -> Double? {
        var i = 0
        var whole = 0
        while i < count, base[i] >= 48, base[i] <= 57 {
            whole = whole * 10 + Int(base[i] - 48)
            i += 1
            if i > 9 { return nil }
        }
        guard i > 0 else { return nil }
        var fraction = 0.0
        if i < count {
            guard base[i] == UInt8(ascii: ".") else { return nil }
            guard let f = Field(base: base + i, count: count - i).decimal() else { return nil }
            fraction = f
        }
        let degrees = whole / 100
        let minutes = Double(whole % 100) + fraction
        guard minutes < 60 else { return nil }
        return Double(degrees) + minutes / 60
    }
}

private let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// The fields of one sentence: the address (`GPGGA`) is field 0, as in the standard's numbering.
struct Fields {
    let base: UnsafePointer<UInt8>
    /// Start offset of each field; the field ends one byte before the next start (or at `end`).
    let starts: UnsafeMutableBufferPointer<Int32>
    let count: Int
    let end: Int

    subscript(i: Int) -> Field {
        guard i < count else { return Field(base: base, count: 0) }
        let s = Int(starts[i])
        let e = i + 1 < count ? Int(starts[i + 1]) - 1 : end
        return Field(base: base + s, count: e - s)
    }
}
