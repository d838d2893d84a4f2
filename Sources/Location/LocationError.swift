/// Why a location source could not start or had to stop.
public enum LocationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// gpsd could not be reached when the source started.
    case gpsdUnreachable(address: String, reason: String)
    /// gpsd's client library cannot be opened (not installed): no retrying helps.
    case libgpsUnavailable(reason: String)
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
    /// A recorded track (or standard input, `-`) holds no NMEA sentence with a good checksum.
    case noNMEAInTrack(path: String)
    /// An `ntrip://` URL that cannot be used; the text shown never holds a password.
    case badNTRIPURL(String, reason: String)
    /// The file named by `NTRIP_PASSWORD_FILE` could not be read.
    case ntripPasswordUnreadable(path: String, reason: String)
    /// No TCP connection to the NTRIP caster (`HOST:PORT`).
    case ntripUnreachable(caster: String, reason: String)
    /// The caster refused the credentials (HTTP 401) or asked for some (`status` as it said it).
    case ntripUnauthorized(caster: String, mount: String?, user: String?, hadPassword: Bool, status: String)
    /// The caster has no such mount point: it answered with its source table, or 404.
    case ntripNoMount(caster: String, mount: String, answer: String)
    /// The caster refused the request for another reason (an HTTP status, an `ERROR` line).
    case ntripRefused(caster: String, reason: String)
    /// What answered is not an NTRIP caster (`sent` is what it sent, printable).
    case ntripNotACaster(caster: String, sent: String)
    /// The caster sent nothing for `seconds`.
    case ntripSilent(caster: String, seconds: Int)
    /// The connection to the caster ended.
    case ntripLost(caster: String, reason: String)

    public var description: String {
        switch self {
        case let .gpsdUnreachable(address, reason):
            "cannot connect to gpsd at \(address): \(reason). Is gpsd running? "
                + "Check with `systemctl status gpsd`, wait for it with --wait, or pick another source with --source "
                + "(serial:/dev/ttyACM0, replay:FILE, - for NMEA on stdin)."
        case let .libgpsUnavailable(reason):
            "gpsd's client library (libgps) cannot be loaded: \(reason). Install it (Debian: libgps28), "
                + "or pick another source with --source (serial:/dev/ttyACM0, replay:FILE, - for NMEA on stdin)."
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
        case let .noNMEAInTrack(path):
            path == "-" ? "no NMEA sentences found on standard input; pipe a receiver's output or a recorded track into it"
                : "no NMEA sentences found in \(path)"
        case let .badNTRIPURL(text, reason):
            "invalid NTRIP caster '\(text)': \(reason). Expected ntrip://[USER@]HOST[:PORT]/MOUNT[?version=1|2]."
        case let .ntripPasswordUnreadable(path, reason):
            "cannot read the NTRIP password from \(path) (NTRIP_PASSWORD_FILE): \(reason)."
        case let .ntripUnreachable(caster, reason):
            "cannot connect to the NTRIP caster \(caster): \(reason). Check the host and port (2101 unless given) and the network."
        case let .ntripUnauthorized(caster, mount, user, hadPassword, status):
            "the NTRIP caster \(caster) refused access" + (mount.map { " to \($0)" } ?? "") + " (\(status)): "
                + (user == nil
                    ? "it needs a user name in the URL (ntrip://USER@\(caster)/MOUNT) and a password in NTRIP_PASSWORD or a file named by NTRIP_PASSWORD_FILE."
                    : hadPassword
                        ? "check the user name '\(user ?? "")' and the password in NTRIP_PASSWORD or NTRIP_PASSWORD_FILE."
                        : "no password was given; set NTRIP_PASSWORD or name a file holding it with NTRIP_PASSWORD_FILE.")
        case let .ntripNoMount(caster, mount, answer):
            "the NTRIP caster \(caster) has no mount point '\(mount)' (\(answer)); "
                + "list its mount points with `trees ntrip list ntrip://\(caster)`."
        case let .ntripRefused(caster, reason):
            "the NTRIP caster \(caster) refused the request: \(reason)."
        case let .ntripNotACaster(caster, sent):
            "\(caster) did not answer as an NTRIP caster (it sent \(sent)); check the host and port."
        case let .ntripSilent(caster, seconds):
            "the NTRIP caster \(caster) sent nothing for \(seconds) s."
        case let .ntripLost(caster, reason):
            "the connection to the NTRIP caster \(caster) ended: \(reason)."
        }
    }
}
