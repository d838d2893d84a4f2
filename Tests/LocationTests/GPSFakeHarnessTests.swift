import Foundation
import Testing
import TreesTestSupport

/// The harness's own checks, which every gpsd test depends on.
@Suite struct GPSFakeHarnessTests {
    /// gpsfake is given its log once a client is connected to gpsd. The connection must be seen
    /// wherever it sits in the kernel's socket table, also past the first 4 KiB of
    /// /proc/net/tcp (27 sockets), as it is when the whole suite has many sockets open.
    @Test func aClientIsSeenBeyondTheFirstPageOfTheSocketTable() throws {
        func listener(_ port: Int) throws -> Int32 {
            let fd = Loopback.listen(port: port)
            try #require(fd >= 0)
            return fd
        }
        func connectTo(_ port: Int) throws -> Int32 {
            let fd = Loopback.connect(port: port)
            try #require(fd >= 0)
            return fd
        }
        let crowdPort = GPSFake.freePort(), servedPort = GPSFake.freePort()
        let crowd = try listener(crowdPort), served = try listener(servedPort)
        var open = [crowd, served]
        defer { open.forEach { close($0) } }
        // 60 connections (120 rows of the table) first, then the one the harness looks for.
        for _ in 0..<60 { open.append(try connectTo(crowdPort)) }
        #expect(!GPSFake.hasClient(port: servedPort))
        open.append(try connectTo(servedPort))
        #expect(GPSFake.hasClient(port: servedPort))
        let table = try #require(ProcFile.text("/proc/net/tcp"))
        #expect(table.split(separator: "\n").count > 120)
    }
}
