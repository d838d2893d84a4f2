import Location
import Testing

@Suite struct SourceSpecTests {
    @Test(arguments: [
        ("gpsd://localhost:2947", LocationSourceSpec.gpsd(host: "localhost", port: 2947, device: nil)),
        ("gpsd://", .gpsd(host: "localhost", port: 2947, device: nil)),
        ("gpsd://gps.local", .gpsd(host: "gps.local", port: 2947, device: nil)),
        ("gpsd://127.0.0.1:40001/dev/ttyACM0", .gpsd(host: "127.0.0.1", port: 40001, device: "/dev/ttyACM0")),
        ("gpsd://[::1]:2948", .gpsd(host: "::1", port: 2948, device: nil)),
        ("serial:/dev/ttyACM0", .serial(path: "/dev/ttyACM0", baud: nil)),
        ("serial:/dev/ttyUSB1?baud=9600", .serial(path: "/dev/ttyUSB1", baud: 9600)),
        ("replay:SampleTracks/orchard-walk.nmea", .replay(path: "SampleTracks/orchard-walk.nmea", speed: .factor(1))),
        ("replay:/tmp/a.nmea?speed=max", .replay(path: "/tmp/a.nmea", speed: .max)),
        ("replay:/tmp/a.nmea?speed=20", .replay(path: "/tmp/a.nmea", speed: .factor(20))),
        ("-", .stdin),
    ])
    func parses(text: String, expected: LocationSourceSpec) throws {
        #expect(try LocationSourceSpec(parsing: text) == expected)
    }

    @Test(arguments: [
        ("gpsd://localhost:99999", "the port '99999' is not a number from 1 to 65535"),
        ("gpsd://localhost:abc", "the port 'abc' is not a number from 1 to 65535"),
        ("gpsd:localhost", "gpsd sources start with gpsd://"),
        ("serial:ttyACM0", "the device path must be absolute, e.g. serial:/dev/ttyACM0"),
        ("serial:/dev/ttyACM0?baud=1234", "baud '1234' is not one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800"),
        ("serial:/dev/ttyACM0?speed=4800", "unknown option 'speed'; only baud=N is known"),
        ("replay:a.nmea?speed=0", "speed '0' is not a positive number or max"),
        ("replay:", "no file named, e.g. replay:SampleTracks/orchard-walk.nmea"),
        ("/dev/ttyACM0", "a device needs the serial: prefix (serial:/dev/ttyACM0) or gpsd"),
        ("track.nmea", "a recorded file needs the replay: prefix (replay:track.nmea)"),
        ("bluetooth:gps", "unknown kind of source"),
    ])
    func refusesWithAReason(text: String, reason: String) {
        #expect(throws: LocationError.badSourceURI(text, reason: reason)) { try LocationSourceSpec(parsing: text) }
    }

    @Test func describesItselfAsAURIThatParsesBack() throws {
        for text in ["gpsd://localhost:2947", "gpsd://[::1]:2948/dev/ttyS0", "serial:/dev/ttyACM0?baud=9600",
                     "replay:x.nmea?speed=max", "replay:x.nmea", "-"] {
            let spec = try LocationSourceSpec(parsing: text)
            #expect(spec.description == text)
            #expect(try LocationSourceSpec(parsing: spec.description) == spec)
        }
        #expect(LocationSourceSpec.default.description == "gpsd://localhost:2947")
        #expect(LocationSourceSpec.default.makeSource().description == "gpsd://localhost:2947")
        #expect(try LocationSourceSpec(parsing: "replay:x.nmea").makeSource().description == "replay:x.nmea")
    }

    @Test func errorMessagesListTheForms() {
        let e = LocationError.badSourceURI("foo", reason: "unknown kind of source")
        #expect(e.description == "invalid source 'foo': unknown kind of source. Expected gpsd://HOST[:PORT][/DEVICE], serial:/dev/PATH[?baud=N], replay:FILE[?speed=N|max] or - for NMEA on standard input.")
    }
}
