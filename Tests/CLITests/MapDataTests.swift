import Foundation
import Testing
import TreesTestSupport

/// The data a map page carries, read from the page without a browser: a page of more trees than
/// one batch of its writing, around the antimeridian, has every tree once, its middle the short
/// way round, and legends that count them all.
@Suite struct MapDataTests {
    /// The JSON in the page's data script (its `<`, `>` and `&` escaped, as the page's own script reads it).
    static func data(ofPage html: String) throws -> [String: Any] {
        let start = try #require(html.range(of: #"<script id="trees-data" type="application/json">"#))
        let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        return try #require(try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
    }

    @Test func aPageOfManyTreesAcrossTheAntimeridian() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        // 2,600 trees in rows 3 m apart either side of 180°, on Taveuni; every third a Pear.
        var csv = "latitude,longitude,species,accuracy\n"
        let n = 2_600
        for i in 0..<n {
            let lon = 179.9995 + Double(i % 100) * 0.00001
            csv += "\(-16.8 + Double(i / 100) * 0.00003),\(lon > 180 ? lon - 360 : lon),\(i % 3 == 0 ? "Pear" : "Mango"),\(i % 2 == 0 ? "4" : "12")\n"
        }
        let file = try t.scratch.write("fiji.csv", csv)
        #expect(try t.run(["import", file]).status == 0)
        let out = t.scratch.path("map.html")
        let r = try t.run(["map", "--out", out])
        #expect(r.status == 0, "\(r)")
        let data = try Self.data(ofPage: try String(contentsOfFile: out, encoding: .utf8))
        let trees = try #require(data["trees"] as? [[String: Any]])
        #expect(trees.count == n)
        #expect(Set(trees.compactMap { $0["id"] as? String }).count == n)
        let origin = try #require(data["origin"] as? [String: Double])
        // The middle is on the antimeridian, not on the other side of the Earth.
        #expect(abs(abs(origin["lon"] ?? 0) - 180) < 0.0001, "\(origin)")
        let xs = trees.compactMap { $0["x"] as? Double }
        #expect(xs.count == n && (xs.max() ?? 0) - (xs.min() ?? 0) < 120, "the trees span about 105 m east to west")
        let legend = try #require(data["legend"] as? [String: Any])
        let species = try #require(legend["species"] as? [[String: Any]])
        #expect(species.map { $0["name"] as? String } == ["Mango", "Pear"])
        #expect(species.map { $0["count"] as? Int } == [n - (n + 2) / 3, (n + 2) / 3])
        let accuracy = try #require(legend["accuracy"] as? [[String: Any]])
        #expect(accuracy.compactMap { $0["count"] as? Int }.reduce(0, +) == n)
        #expect(accuracy.first { $0["name"] as? String == "Excellent" }?["count"] as? Int == n / 2)
        // Each tree's colour is its species' in the legend.
        let colours = Dictionary(uniqueKeysWithValues: species.compactMap { s in (s["name"] as? String).map { ($0, s["colour"] as? String) } })
        #expect(trees.allSatisfy { colours[$0["species"] as? String ?? ""] == $0["spColour"] as? String })
    }
}
