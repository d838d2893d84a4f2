import Foundation
import NMEA
import Testing
import TreesKit
import TreesTestSupport

@Suite struct BadInputTests {
    static let gga = sentence("GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")

    @Test func badAndMissingChecksumsAreSkippedWithTheirLine() {
        let bad = "$GPGGA,101501.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,*00\r\n"
        let missing = "$GPGGA,101502.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,\r\n"
        let r = readFixes(Self.gga + bad + missing)
        #expect(r.fixes.count == 1)
        #expect(r.statistics.badChecksum == 1)
        #expect(r.statistics.missingChecksum == 1)
        #expect(r.statistics.diagnostics.map(\.line) == [2, 3])
        #expect(r.statistics.diagnostics[0].reason == .badChecksum)
        #expect(r.statistics.diagnostics[0].detail.hasPrefix("expected "))
    }

    @Test func commentsBlankLinesAndJunkBetweenSentences() {
        let junk: [UInt8] = [0x00, 0xFF, 0xB5, 0x62, 0x01, 0x07, 0x00, 0x0D, 0x0A]
        var bytes = Array("# a comment\n\n".utf8)
        bytes += junk + Array(Self.gga.utf8) + [0, 0, 0] + Array("\n".utf8) + Array(sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A").utf8)
        let r = readFixes(bytes)
        #expect(r.fixes.count == 1)
        #expect(r.fixes.first?.time == utc(2025, 3, 15, 10, 15, 0))
        #expect(r.statistics.comments == 1)
        #expect(r.statistics.skippedByReason[.binaryData] == 2)
        #expect(r.statistics.lines == 6)
    }

    /// Lines ended by LF, CRLF or CR alone are counted alike and skipped lines keep their numbers,
    /// however the bytes arrive (a log of CR-only lines is longer than the reader's line buffer).
    @Test(arguments: ["\n", "\r\n", "\r"])
    func everyLineEndCountsLinesAlike(lineEnd: String) {
        var text = ""
        for second in 0..<60 {
            let time = String(format: "1015%02d.00", second)
            text += sentence("GPGGA,\(time),4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,", lineEnd: lineEnd)
            text += sentence("GPRMC,\(time),A,4807.0380,N,01131.3240,E,0.0,,150325,,,A", lineEnd: lineEnd)
            if second == 30 { text += "junk here" + lineEnd + lineEnd }
        }
        text += "$GPGGA,bad*00" + lineEnd
        for chunking in [ChunkingVerifier.Chunking.whole, .pieces(size: 1), .random(seed: 7, maximum: 700)] {
            let r = readFixes(chunking.split(Array(text.utf8)))
            #expect(r.fixes.count == 60, "\(chunking)")
            #expect(r.statistics.lines == 123, "\(chunking)")
            #expect(r.statistics.diagnostics.map(\.line) == [63, 123], "\(chunking)")
            #expect(r.statistics.diagnostics.first?.detail == "junk here", "\(chunking)")
            #expect(r.statistics.skipped == 2, "\(chunking)")
        }
    }

    @Test func doubledDollarIsRead() {
        let r = readFixes("$" + Self.gga)
        #expect(r.fixes.count == 1)
        #expect(r.statistics.skipped == 0)
    }

    @Test func aDollarInsideASentenceStartsANewOne() {
        // As in triton400.log: a GGA cut short by a GLL on the same line.
        let text = "$GPGGA,030130" + sentence("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A")
        let r = readFixes(text)
        #expect(r.statistics.skippedByReason[.collision] == 1)
        #expect(r.statistics.sentences == 1)
        #expect(r.fixes.count == 1)
    }

    @Test func overlongSentencesAndLinesAreSkipped() {
        let long = sentence("GPGGA," + String(repeating: "1", count: 200))
        let endless = String(repeating: "x", count: 10_000) + "\n"
        // The same however the bytes arrive: whole, byte by byte, in pieces of 100 or 4096, at random.
        let r = ChunkingVerifier(sizes: [1, 100, 4096]).verify(long + endless + Self.gga) { readFixes($0) }
        #expect(r.fixes.count == 1)
        #expect(r.statistics.skippedByReason[.overlong] == 2)
    }

    @Test func proprietaryAISUnknownAndNonstandardAreCounted() {
        let text = sentence("PGRMM,WGS 84") + "!AIVDM,1,1,,B,13aGhtw0R<OJf=6LgQ?Ad1FF05`L,0*24\r\n"
            + sentence("IIMWV,57.5,R,13.0,N,A") + sentence("SkyTraq,1,2") + Self.gga
        let r = readFixes(text)
        #expect(r.fixes.count == 1)
        #expect(r.statistics.proprietary == 1)
        #expect(r.statistics.ais == 1)
        #expect(r.statistics.unknown == 2)
        #expect(r.statistics.skippedByReason[.nonstandard] == 1)
    }

    @Test(arguments: [
        "GPGGA,101500.00,9100.0000,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,101500.00,4807.0380,N,18100.0000,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,101500.00,4807.0380,X,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,1015xx.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,251500.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,",
        "GPGGA,101500.00,4807.0380,N,01131.3240,E,1,eight,0.9,545.4,M,46.9,M,,",
        "GPGGA,101500.00,4807.0380,N,01131.3240,E,1,08,0.9,high,M,46.9,M,,",
        "GPRMC,101500.00,A,4807.0380,N,01131.3240,E,fast,,150325,,,A",
        "GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,321325,,,A",
        "GPGSA,A,3,04,05",
        "PSTI,030,101500.000,A,4404.1295800,N,12118.8685453,W,high,3.00,4.00,0.03,150325,R,1.2,4.2",
        "PSTI,030,101500.000,A,4404.1295800,N,12118.8685453,W,1102.537,3.00,4.00,0.03,150325,R",
        "PGRMF,290,293895,160305,093802,13,5213.1439,N,02100.6511,E,A,2,fast,226,2,1",
        "PGRMV,east,0.0,0.0",
    ])
    func malformedFieldsSkipTheWholeSentence(body: String) {
        let r = readFixes(sentence(body))
        #expect(r.fixes.isEmpty)
        #expect(r.statistics.malformed == 1)
        #expect(r.statistics.diagnostics.first?.line == 1)
    }

    @Test func anRMCWithoutItsVariationFieldsIsStillAFix() throws {
        // A chart plotter's RMC with the variation and its direction left out, the FAA mode in
        // their place: gpsd reads no variation without a direction and reports the fix; so does
        // the reader. With the direction there, a variation that is not a number is malformed.
        let shifted = readFixes(sentence("GPRMC,191332.000,A,3503.6882,N,07658.1856,W,3.75,175.45,120816,A"))
        let f = try #require(shifted.fixes.first)
        #expect(f.hasPosition)
        #expect(f.time == utc(2016, 8, 12, 19, 13, 32))
        #expect(shifted.statistics.malformed == 0)
        let bad = readFixes(sentence("GPRMC,191332.000,A,3503.6882,N,07658.1856,W,3.75,175.45,120816,A,W"))
        #expect(bad.statistics.malformed == 1)
    }

    @Test func timeGoingBackwardsIsReportedAndCounted() {
        let text = sentence("GPRMC,101502.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
            + sentence("GPRMC,101501.00,A,4807.0380,N,01131.3240,E,0.0,,150325,,,A")
        let r = readFixes(text)
        #expect(r.fixes.map(\.time) == [utc(2025, 3, 15, 10, 15, 2), utc(2025, 3, 15, 10, 15, 1)])
        #expect(r.statistics.timeRegressions == 1)
    }

    @Test func midnightRollsTheDateOver() {
        let text = sentence("GPRMC,235959.00,A,4807.0380,N,01131.3240,E,0.0,,311224,,,A")
            + sentence("GPGGA,000000.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
            + sentence("GPGGA,000001.00,4807.0380,N,01131.3240,E,1,08,0.9,545.4,M,46.9,M,,")
        let r = readFixes(text)
        #expect(r.fixes.map(\.time) == [utc(2024, 12, 31, 23, 59, 59), utc(2025, 1, 1, 0, 0, 0), utc(2025, 1, 1, 0, 0, 1)])
    }

    @Test func twoDigitYearsFollowGpsd() {
        let r = readFixes(sentence("GPRMC,101500.00,A,4807.0380,N,01131.3240,E,0.0,,150399,,,A"))
        #expect(r.fixes.first?.time == utc(1999, 3, 15, 10, 15, 0))
    }

    @Test func noNMEAAtAllGivesNothing() {
        let r = readFixes(Array("hello\nworld\n".utf8) + [0, 1, 2, 3])
        #expect(r.fixes.isEmpty)
        #expect(r.statistics.sentences == 0)
        #expect(r.statistics.skippedByReason[.garbage] == 2)
    }

    @Test func diagnosticsAreCappedButCounted() {
        let bad = "$GPGGA,1*00\n"
        let r = readFixes(String(repeating: bad, count: NMEAStatistics.diagnosticLimit + 5))
        #expect(r.statistics.diagnostics.count == NMEAStatistics.diagnosticLimit)
        #expect(r.statistics.diagnosticsDropped == 5)
        #expect(r.statistics.badChecksum == NMEAStatistics.diagnosticLimit + 5)
    }

    @Test func randomBytesAndMangledSentencesNeverCrashAndChunkingDoesNotMatter() {
        var rng = SplitMix64(seed: 7)
        let pieces = Array(sampleTrack.utf8)
        var bytes: [UInt8] = []
        for _ in 0..<3000 {
            switch rng.next() % 4 {
            case 0:
                for _ in 0..<Int(rng.next() % 40) { bytes.append(UInt8(truncatingIfNeeded: rng.next())) }
            case 1:
                // A slice of real sentences, possibly cut anywhere.
                let a = Int(rng.next() % UInt64(pieces.count))
                let b = min(pieces.count, a + Int(rng.next() % 200))
                bytes += pieces[a..<b]
            case 2:
                var slice = Array(pieces[0..<min(pieces.count, 300)])
                for _ in 0..<3 { slice[Int(rng.next() % UInt64(slice.count))] = UInt8(truncatingIfNeeded: rng.next()) }
                bytes += slice
            default:
                bytes += Array("$GPGGA,,,,,,,,,,,,,,*56\n$,*\n$$$$*00\n$GPGSA,A,3,,,,,,,,,,,,,,,,,,,,,,,,,,,,,1,2,3*00\n".utf8)
            }
        }
        let whole = ChunkingVerifier(sizes: [17]).verify(bytes) { readFixes($0) }
        #expect(whole.statistics.lines > 0)
    }
}
