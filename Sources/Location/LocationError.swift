/// Why a location source could not start or had to stop.
public enum LocationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// gpsd could not be reached when the source started.
    case gpsdUnreachable(address: String, reason: String)
    /// gpsd refused the watch request or answered with an error.
    case gpsdRefused(address: String, reason: String)
    /// A `--source` value that is not a source URI.
    case badSourceURI(String, reason: String)
    /// A serial device that could not be opened or configured.
    case serialUnavailable(path: String, reason: String)
    /// No baud rate gave valid NMEA from a serial device.
    case noNMEA(path: String, triedBauds: [Int])
    /// Standard input could not be read.
    case stdinUnreadable(reason: String)
    /// A recorded track could not be opened (missing, unreadable, a directory).
    case cannotOpenTrack(path: String, reason: String)
    /// Reading a recorded track failed part way.
    case cannotReadTrack(path: String, reason: String)
    /// A recorded track holds no NMEA sentence with a good checksum.
    case noNMEAInTrack(path: String)

    public var description: String {
        switch self {
        case let .gpsdUnreachable(address, reason):
            "cannot connect to gpsd at \(address): \(reason). Is gpsd running? "
                + "Check with `systemctl status gpsd`, wait for it with --wait, or pick another source with --source "
                + "(serial:/dev/ttyACM0, replay:FILE, - for NMEA on stdin)."
        case let .gpsdRefused(address, reason):
            "gpsd at \(address) refused the request: \(reason)."
        case let .badSourceURI(text, reason):
            "invalid source '\(text)': \(reason). Expected gpsd://HOST[:PORT][/DEVICE], serial:/dev/PATH[?baud=N], "
                + "replay:FILE[?speed=N|max] or - for NMEA on standard input."
        case let .serialUnavailable(path, reason):
            "cannot use serial device \(path): \(reason). Check that the receiver is plugged in and that you may read it "
                + "(group dialout), and that gpsd is not holding it."
        case let .noNMEA(path, bauds):
            "no valid NMEA from \(path) at \(bauds.map(String.init).joined(separator: ", ")) baud. "
                + "Give the speed with ?baud=N, or check that the device sends NMEA."
        case let .stdinUnreadable(reason):
            "cannot read NMEA from standard input: \(reason)."
        case let .cannotOpenTrack(path, reason): "cannot open \(path): \(reason)"
        case let .cannotReadTrack(path, reason): "cannot read \(path): \(reason)"
        case let .noNMEAInTrack(path): "no NMEA sentences found in \(path)"
        }
    }
}
