import Foundation
import Testing
import TreesKit

@Suite struct FixJSONTests {
    @Test func writesGpsdKeysInOrderAndOmitsMissingOnes() {
        let fix = Fix(
            time: Date(timeIntervalSince1970: 1_742_033_700.25), mode: .threeD, status: .dgps,
            coordinate: Coordinate(latitude: 48.1173, longitude: -11.516666666666667), altitudeMSL: 545.4,
            geoidSeparation: 46.9, ellipsoidHeight: 592.3, satellitesUsed: 8, hdop: 0.9, vdop: 1.3, pdop: 1.6,
            speed: 1.25, track: 84.4, eph: 4.275, epv: 7.475, horizontalAccuracy: 3.2,
            accuracySource: .gst)
        #expect(FixJSON.line(fix) == #"{"class":"TPV","time":"2025-03-15T10:15:00.250Z","mode":3,"status":2,"lat":48.1173,"lon":-11.516666666666667,"altMSL":545.4,"altHAE":592.3,"geoidSep":46.9,"eph":4.275,"epv":7.475,"speed":1.25,"track":84.4,"hdop":0.9,"vdop":1.3,"pdop":1.6,"satellites":8,"horizontalAccuracy":3.2,"accuracySource":"gst"}"#)
        #expect(FixJSON.line(Fix(mode: .noFix), includeClass: false) == #"{"mode":1}"#)
    }

    @Test func numbersReadBackExactly() throws {
        for v in [0.1, 1e-7, 123456.789, -87.643939667, 5e20, 2.0, -0.5] {
            let fix = Fix(mode: .twoD, coordinate: Coordinate(latitude: v, longitude: 0))
            let data = Data(FixJSON.line(fix).utf8)
            let obj = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect((obj["lat"] as? NSNumber)?.doubleValue == v)
        }
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"), (951_782_400.0, "2000-02-29T00:00:00.000Z"),
        (4_102_444_799.999, "2099-12-31T23:59:59.999Z"), (-1.5, "1969-12-31T23:59:58.500Z"),
    ])
    func timestamps(seconds: Double, text: String) {
        var out: [UInt8] = []
        TextCodec.appendISO8601(Date(timeIntervalSince1970: seconds), fraction: .milliseconds, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == text)
    }

    @Test func nonFiniteValuesAreLeftOut() {
        let fix = Fix(mode: .twoD, coordinate: Coordinate(latitude: 1, longitude: 2), eph: .nan, epv: .infinity)
        #expect(FixJSON.line(fix, includeClass: false) == #"{"mode":2,"lat":1,"lon":2}"#)
    }
}
