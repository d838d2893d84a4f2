/// `$BODY*hh\r\n`: an NMEA 0183 sentence around `body`, with the right checksum.
package func sentence(_ body: String, lineEnd: String = "\r\n") -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    let hex = String(sum, radix: 16, uppercase: true)
    return "$" + body + "*" + (sum < 0x10 ? "0" : "") + hex + lineEnd
}
