import Foundation
import TreesKit

/// Reads an NMEA 0183 byte stream and reports one ``Fix`` per receiver epoch.
///
/// Feed it bytes in chunks of any size (a whole file, a socket read, one byte at a time: the
/// fixes are the same), then call ``finish(emit:)`` to report the last epoch. The reader does no
/// I/O and reads no clock; fix times come from the receiver.
///
/// What it copes with: LF or CRLF line ends, `#` comment lines, binary junk or NUL bytes between
/// sentences, `$$` doubled starts, a `$` inside a sentence (a packet collision: the cut sentence
/// is dropped and the new one read, as gpsd does), over-long lines, bad or missing checksums,
/// proprietary (`$P…`), AIS (`!…`) and unknown sentences, and known sentences with malformed
/// fields. Each such line is skipped and counted in ``statistics`` with its line number; none of
/// them stops the reader.
///
/// Sentences used: GGA, RMC, GLL, GNS, GSA, GST, GBS, VTG, ZDA and GSV from any talker
/// (GP, GN, GL, GA, GB, BD, GQ, QZ, GI, …), and the proprietary Garmin `$PGRMZ` (altitude) and
/// `$PGRME` (errors), SiRF `$PSRFEPE` (errors) and Magellan `$PMGNST` (mode). Every other
/// sentence is counted as skipped but still takes part in finding where a receiver's cycle ends,
/// as it does in gpsd. How sentences merge into fixes, the way gpsd merges them: see
/// `EpochAssembler`.
public struct NMEAFixReader: Sendable {
    /// Longest sentence accepted, in bytes from `$` to the checksum (the standard says 82 with CRLF;
    /// real receivers send longer GSA and GSV sentences).
    public static let maximumSentenceLength = 164
    /// Bytes kept of a line without a newline before the rest of it is dropped as junk.
    static let maximumCarry = 4096

    public internal(set) var statistics = NMEAStatistics()
    var assembler = EpochAssembler()
    /// Bytes of an unfinished line from the previous chunk.
    var carry: [UInt8] = []
    /// Bytes dropped from the unfinished line because it grew past `maximumCarry`.
    var carryDropped = 0
    /// Century for two-digit RMC years; ZDA's four-digit year updates it.
    var century = 2000

    public init() {
        carry.reserveCapacity(Self.maximumSentenceLength + 2)
    }

    /// A reader that times fixes as gpsd does for a stream it reads now: a receiver time before
    /// 2017 is moved ahead by 1024 weeks (gpsd's guard against the GPS week rollover), unless the
    /// log says when it was recorded (`# Date: yyyy-mm-dd`). For agreeing with gpsd (`--jsonl`)
    /// and for live receivers; a recording of before 2017 read this way is moved 19.6 years ahead.
    ///
    /// `asGpsd` reads three more things as gpsd does, for agreeing with it (`--jsonl`) only:
    /// - the date the last RMC or ZDA gave holds for every time of day that follows (a GGA-only
    ///   receiver's fixes after midnight are timed a day early until a sentence with a date
    ///   comes); otherwise the date rolls over midnight;
    /// - the stream's last cycle, once reported, is emitted as it stood at that report (what came
    ///   after it, before the stream ended, gpsd never reports); otherwise as it stands at the end;
    /// - a cycle gpsd never reports gives no fix (a 1 Hz instrument's GLL between the cycles of a
    ///   5 Hz GPS whose cycles end with its GGA, say); otherwise it is a fix like any other.
    public init(correctingWeekRollover: Bool, asGpsd: Bool = false) {
        self.init()
        assembler.weekRollover.enabled = correctingWeekRollover
        assembler.asGpsd = asGpsd
    }

    public mutating func feed(_ bytes: [UInt8], emit: (Fix) -> Void) {
        bytes.withUnsafeBytes { feed($0, emit: emit) }
    }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer, emit: (Fix) -> Void) {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let n = bytes.count
        var pos = 0
        while pos < n {
            guard let hit = memchr(base + pos, 0x0A, n - pos) else {
                appendCarry(base + pos, n - pos, emit: emit)
                return
            }
            let end = base.distance(to: UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)))
            if carry.isEmpty && carryDropped == 0 && end - pos <= Self.maximumCarry {
                processLine(base + pos, end - pos, emit: emit)
            } else {
                appendCarry(base + pos, end - pos, emit: emit)
                takeCarryLine(emit: emit)
            }
            pos = end + 1
        }
    }

    /// Reports the last epoch (and a last line without a newline). Call once at the end of the stream.
    public mutating func finish(emit: (Fix) -> Void) {
        if !carry.isEmpty || carryDropped > 0 { takeCarryLine(emit: emit) }
        assembler.finish(emit: emit, statistics: &statistics)
    }

    // MARK: lines

    /// Adds bytes to the unfinished line. They are taken in steps that stop where the carry first
    /// grows past `maximumCarry`, so what is split off or dropped is the same however the bytes
    /// arrive (whole, byte by byte, or in any pieces).
    private mutating func appendCarry(_ p: UnsafePointer<UInt8>, _ count: Int, emit: (Fix) -> Void) {
        var taken = 0
        while taken < count {
            let step = min(count - taken, Self.maximumCarry + 1 - min(carry.count, Self.maximumCarry))
            carry.append(contentsOf: UnsafeBufferPointer(start: p + taken, count: step))
            taken += step
            limitCarry(emit: emit)
        }
    }

    private mutating func limitCarry(emit: (Fix) -> Void) {
        // A CR that is the carry's last byte may be the first half of a CRLF: it is not cut at.
        if carry.count > Self.maximumCarry, let lastCR = carry.dropLast().lastIndex(of: 0x0D) {
            // Lines ended by CR alone: read the lines so far.
            var part = carry
            carry = []
            part.withUnsafeBufferPointer { b in
                if let base = b.baseAddress { processLine(base, lastCR + 1, emit: emit, countsAsLine: false) }
            }
            part.removeFirst(lastCR + 1)
            carry = part
        }
        if carry.count > Self.maximumCarry {
            // Keep the tail, which may hold the start of a sentence; the rest is junk.
            let keep = Self.maximumSentenceLength + 2
            carryDropped += carry.count - keep
            carry.removeFirst(carry.count - keep)
        }
    }

    private mutating func takeCarryLine(emit: (Fix) -> Void) {
        var line = carry
        carry = []
        let dropped = carryDropped
        carryDropped = 0
        line.withUnsafeBufferPointer { b in
            if let p = b.baseAddress {
                processLine(p, b.count, emit: emit, droppedBefore: dropped)
            } else if dropped > 0 {
                processLine(nil, 0, emit: emit, droppedBefore: dropped)
            }
        }
        line.removeAll(keepingCapacity: true)
        carry = line
    }

    /// One line without its LF. A CR inside it ends a line too (files with CR alone as the line
    /// end), and a CR at its end is the CR of a CRLF; `countsAsLine` false: the bytes end with a
    /// CR and the line after it goes on in bytes still to come.
    mutating func processLine(_ p: UnsafePointer<UInt8>?, _ count: Int, emit: (Fix) -> Void, droppedBefore: Int = 0,
                              countsAsLine: Bool = true) {
        guard let p, count > 0 else {
            statistics.lines += 1
            if droppedBefore > 0 {
                statistics.skip(.overlong, line: statistics.lines, detail: "\(droppedBefore)+ bytes without a line break")
            }
            return
        }
        var start = 0
        var dropped = droppedBefore
        while start < count {
            let rest = count - start
            let cr = memchr(p + start, 0x0D, rest).map { p.distance(to: UnsafePointer($0.assumingMemoryBound(to: UInt8.self))) }
            let end = cr ?? count
            // The part after the last CR is a line of its own unless it is empty (CRLF) or goes on later.
            if cr != nil || countsAsLine && end > start {
                statistics.lines += 1
                processText(p + start, end - start, line: statistics.lines, droppedBefore: dropped, emit: emit)
                dropped = 0
            }
            start = end + 1
        }
    }

    /// The text of one line, without its line end.
    private mutating func processText(_ p: UnsafePointer<UInt8>, _ count: Int, line lineNumber: Int, droppedBefore: Int,
                                      emit: (Fix) -> Void) {
        if droppedBefore > 0 {
            statistics.skip(.overlong, line: lineNumber, detail: "\(droppedBefore)+ bytes without a line break")
        }
        var n = count
        while n > 0 && p[n - 1] == 0x20 { n -= 1 }
        if n == 0 { return }
        if p[0] == UInt8(ascii: "#") && droppedBefore == 0 {
            statistics.comments += 1
            recordingDate(UnsafeBufferPointer(start: p, count: n))
            return
        }
        // Split into sentences: each starts at `$` or `!` and runs to the next start, CR or line end.
        var i = 0
        var junkStart = 0
        while i < n {
            let c = p[i]
            if c == UInt8(ascii: "$") || c == UInt8(ascii: "!") {
                if i > junkStart { reportJunk(p + junkStart, i - junkStart, line: lineNumber) }
                var j = i + 1
                while j < n {
                    let d = p[j]
                    if d == UInt8(ascii: "$") || d == UInt8(ascii: "!") || d == 0x0D || d == 0x0A { break }
                    j += 1
                }
                if j == i + 1 && j < n && p[j] == UInt8(ascii: "$") {
                    // `$$GPGGA…`: a doubled start, not a sentence of its own.
                    i = j
                    junkStart = j
                    continue
                }
                let cut = j < n && (p[j] == UInt8(ascii: "$") || p[j] == UInt8(ascii: "!"))
                processSentence(p + i, j - i, cut: cut, line: lineNumber, emit: emit)
                i = j
                if i < n && p[i] == 0x0D { i += 1 }
                junkStart = i
            } else {
                i += 1
            }
        }
        if n > junkStart { reportJunk(p + junkStart, n - junkStart, line: lineNumber) }
    }

    private mutating func reportJunk(_ p: UnsafePointer<UInt8>, _ count: Int, line: Int) {
        var printable = true
        var blank = true
        for k in 0..<count {
            let c = p[k]
            if c < 0x20 || c > 0x7E {
                if c != 0x09 && c != 0x0D { printable = false }
            } else if c != 0x20 {
                blank = false
            }
        }
        if printable && blank { return }
        if printable {
            statistics.skip(.garbage, line: line, detail: Self.excerpt(p, count))
        } else {
            statistics.skip(.binaryData, line: line, detail: "\(count) bytes")
        }
    }

    static func excerpt(_ p: UnsafePointer<UInt8>, _ count: Int) -> String {
        var s = ""
        for k in 0..<min(count, 40) {
            let c = p[k]
            s.unicodeScalars.append(c >= 0x20 && c < 0x7F ? Unicode.Scalar(c) : "?")
        }
        return count > 40 ? s + "…" : s
    }

    // MARK: sentences

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: c - 48
        case 65...70: c - 55
        case 97...102: c - 87
        default: nil
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
    static func hexByte(_ v: UInt8) -> String {
        String(decoding: [hexDigits[Int(v >> 4)], hexDigits[Int(v & 15)]], as: UTF8.self)
    }

    /// One sentence from its `$` or `!` to its end (checksum included, no line end).
    ///
    /// One pass over the bytes checks for binary data, computes the checksum and finds the
    /// field boundaries; nothing is copied.
    mutating func processSentence(_ p: UnsafePointer<UInt8>, _ count: Int, cut: Bool, line: Int, emit: (Fix) -> Void) {
        if count > Self.maximumSentenceLength {
            statistics.skip(.overlong, line: line, detail: "\(count) bytes: " + Self.excerpt(p, count))
            return
        }
        // Checksum: `*` and two hex digits at the end.
        let star = count >= 4 && p[count - 3] == UInt8(ascii: "*") ? count - 3 : -1
        let end = star > 0 ? star : count
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: Self.maximumSentenceLength + 1) { starts in
            var sum: UInt8 = 0
            var outside = false
            var fields = 1
            var anyStar = false
            starts[0] = 0
            for k in 1..<max(end, 1) {
                let c = p[k]
                sum ^= c
                // Outside printable ASCII (0x20…0x7E): one unsigned comparison.
                if c &- 0x20 > 0x5E { outside = true }
                if c == UInt8(ascii: ",") {
                    starts[fields] = Int32(k)
                    fields += 1
                } else if c == UInt8(ascii: "*") {
                    anyStar = true
                }
            }
            if end < count {
                for k in end..<count where p[k] &- 0x20 > 0x5E { outside = true }
            }
            if outside {
                statistics.skip(.binaryData, line: line, detail: Self.excerpt(p, count))
                return
            }
            guard star > 0, let hi = Self.hex(p[count - 2]), let lo = Self.hex(p[count - 1]) else {
                if cut {
                    statistics.skip(.collision, line: line, detail: Self.excerpt(p, count))
                } else if anyStar || star > 0 {
                    statistics.skip(.badChecksum, line: line, detail: "unreadable checksum: " + Self.excerpt(p, count))
                } else {
                    statistics.skip(.missingChecksum, line: line, detail: Self.excerpt(p, count))
                }
                return
            }
            let expected = hi << 4 | lo
            guard sum == expected else {
                if cut {
                    statistics.skip(.collision, line: line, detail: Self.excerpt(p, count))
                } else {
                    statistics.skip(.badChecksum, line: line,
                                    detail: "expected \(Self.hexByte(sum)), found \(Self.hexByte(expected)): " + Self.excerpt(p, count))
                }
                return
            }
            statistics.sentences += 1
            if p[0] == UInt8(ascii: "!") {
                statistics.skip(.ais, line: line, detail: Self.excerpt(p, min(count, 7)))
                return
            }
            // Address: talker (2 letters) + type (3 letters); `$P…` is proprietary.
            let body = p + 1
            let bodyCount = star - 1
            let addressLength = fields > 1 ? Int(starts[1]) - 1 : bodyCount
            let f = Fields(base: body, starts: starts, count: fields, end: bodyCount)
            if addressLength > 0 && body[0] == UInt8(ascii: "P") {
                if decodeProprietary(address: body, addressLength, f, line: line, emit: emit) { return }
                // gpsd matches a standard type on the last three letters of any five-letter
                // address, so Quectel's $PQGSA and $PQGSV are its GSA and GSV (talker PQ).
                if addressLength == 5, Self.otherSentences[SentenceTag(body, 5)] == nil,
                   let kind = SentenceType(rawValue: UInt32(body[2]) << 16 | UInt32(body[3]) << 8 | UInt32(body[4])) {
                    decode(kind, f, line: line, emit: emit)
                    return
                }
                statistics.skip(.proprietary, line: line, detail: Self.excerpt(body, addressLength))
                passOther(address: body, addressLength, f, proprietary: true, emit: emit)
                return
            }
            guard addressLength == 5, (0..<5).allSatisfy({ body[$0] >= 65 && body[$0] <= 90 }) else {
                statistics.skip(.nonstandard, line: line, detail: Self.excerpt(body, addressLength))
                passOther(address: body, addressLength, f, proprietary: true, emit: emit)
                return
            }
            let type = UInt32(body[2]) << 16 | UInt32(body[3]) << 8 | UInt32(body[4])
            guard let kind = SentenceType(rawValue: type) else {
                statistics.skip(.unknownSentence, line: line, detail: Self.excerpt(body, addressLength))
                passOther(address: body, addressLength, f, proprietary: false, emit: emit)
                return
            }
            decode(kind, f, line: line, emit: emit)
        }
    }
}

/// The sentence types the reader decodes, keyed by their three letters.
enum SentenceType: UInt32 {
    case gga = 0x474741, rmc = 0x524D43, gll = 0x474C4C, gns = 0x474E53, gsa = 0x475341
    case gst = 0x475354, gbs = 0x474253, vtg = 0x565447, zda = 0x5A4441, gsv = 0x475356

    var name: String {
        switch self {
        case .gga: "GGA"
        case .rmc: "RMC"
        case .gll: "GLL"
        case .gns: "GNS"
        case .gsa: "GSA"
        case .gst: "GST"
        case .gbs: "GBS"
        case .vtg: "VTG"
        case .zda: "ZDA"
        case .gsv: "GSV"
        }
    }

    var tag: SentenceTag {
        let v = rawValue
        return SentenceTag(id: UInt64(v) | 3 << 60)
    }

    /// Fields gpsd requires before it decodes the sentence, the address included.
    var minimumFields: Int {
        switch self {
        case .gga, .gns: 13
        case .rmc, .gst: 8
        case .gll, .gbs: 7
        case .gsa: 18
        case .vtg: 5
        case .zda, .gsv: 4
        }
    }
}

extension NMEAFixReader {
    /// A `# Date: yyyy-mm-dd` comment, as gpsd reads it: the log was recorded that year, which
    /// gives the century of two-digit years, and its times are taken as they come.
    mutating func recordingDate(_ line: UnsafeBufferPointer<UInt8>) {
        let prefix = "# Date: ".utf8
        guard line.starts(with: prefix) else { return }
        assembler.weekRollover.dated = true
        var year = 0
        var digits = 0
        for b in line.dropFirst(prefix.count).drop(while: { $0 == 0x20 || $0 == 0x09 }) {
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"), digits < 5 else { break }
            year = year * 10 + Int(b - UInt8(ascii: "0"))
            digits += 1
        }
        guard digits > 0, (1968...2200).contains(year) else { return }
        century = year - year % 100
        assembler.weekRollover.leapSeconds = 18
    }
}
