import Testing
import Foundation
import TreesKit

@Suite struct AccuracyClassTests {
    @Test(arguments: [
        (0.0, AccuracyClass.survey), (0.0999, .survey), (0.1, .excellent), (4.99, .excellent), (5.0, .good), (9.99, .good), (10.0, .acceptable),
        (14.99, .acceptable), (15.0, .marginal), (19.99, .marginal), (20.0, .poor), (250, .poor),
    ])
    func thresholdsBelongToTheWorseClass(metres: Double, expected: AccuracyClass) {
        #expect(AccuracyClass(metres: metres) == expected)
    }

    @Test func missingOrNonsenseIsUnknown() {
        #expect(AccuracyClass(metres: nil) == .unknown)
        #expect(AccuracyClass(metres: .nan) == .unknown)
        #expect(AccuracyClass(metres: -1) == .unknown)
        #expect(AccuracyClass.unknown.colour == .grey)
    }

    @Test func equalSigmasGiveTheTwoDimensional95PercentRadius() {
        let r = AccuracyModel.radius95(sigmaLatitude: 1, sigmaLongitude: 1)
        #expect(abs(r - 2.4477) < 1e-4)
        #expect(AccuracyModel.radius95(hdop: 1.2, differential: false) == 1.2 * 19)
        #expect(AccuracyModel.radius95(hdop: 2, differential: true) == 9.5)
    }

    @Test func slugs() {
        #expect(TextTools.slug("Victoria's Orchard") == "victorias_orchard")
        #expect(TextTools.slug("  Nördliche Wiese – 2 ") == "nordliche_wiese_2")
        #expect(TextTools.slug("***") == "")
    }

    @Test func geodesyRoundTrips() {
        let origin = Coordinate(latitude: 51.5, longitude: -0.12)
        let p = Geodesy.coordinate(east: 30, north: -40, from: origin)
        let back = Geodesy.offset(of: p, from: origin)
        #expect(abs(back.east - 30) < 1e-6 && abs(back.north + 40) < 1e-6)
        #expect(abs(Geodesy.distance(origin, p) - 50) < 0.2)
    }
}

@Suite struct RandomIDTests {
    @Test func randomIDsAreVersionFourAndDistinct() {
        let ids = (0..<1000).map { _ in UUID.random() }
        #expect(Set(ids).count == 1000)
        for id in ids {
            let text = id.uuidString
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
        }
    }

    @Test func textFormRoundTripsInBothCasesAndRefusesAnythingElse() {
        func parse(_ s: String) -> UUID? { Array(s.utf8).withUnsafeBufferPointer { UUID(text: $0) } }
        func write(_ id: UUID, uppercase: Bool) -> String {
            var bytes = [UInt8](repeating: 0, count: 36)
            bytes.withUnsafeMutableBufferPointer { id.writeText(into: $0.baseAddress!, uppercase: uppercase) }
            return String(decoding: bytes, as: UTF8.self)
        }
        for id in (0..<200).map({ _ in UUID.random() }) {
            #expect(write(id, uppercase: true) == id.uuidString)
            #expect(write(id, uppercase: false) == id.uuidString.lowercased())
            #expect(parse(id.uuidString) == id)
            #expect(parse(id.uuidString.lowercased()) == id)
        }
        let good = "0f0e0d0c-0b0a-4908-8706-050403020100"
        #expect(parse(good)?.uuidString == "0F0E0D0C-0B0A-4908-8706-050403020100")
        for bad in [
            "", "0f0e0d0c-0b0a-4908-8706-05040302010", "0f0e0d0c-0b0a-4908-8706-0504030201000",
            "0f0e0d0c0b0a-4908-8706-050403020100-", "0f0e0d0c-0b0a-4908-8706-05040302010g",
            "0f0e0d0c-0b0a-4908-8706 050403020100", " f0e0d0c-0b0a-4908-8706-050403020100",
            "0f0e0d0c-0b0a-4908-8706-0504030201é",
        ] {
            #expect(parse(bad) == nil, "\(bad)")
        }
    }
}
