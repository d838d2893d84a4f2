import Foundation
import Testing
import TreesTestSupport

/// End-to-end: `trees map` writes one offline page; headless Chromium runs its script and renders it.
@Suite(.enabled(if: Tool.sqlite3.shouldRun && Tool.chromium.shouldRun), .tags(.browser)) struct MapCommandTests {
    /// (species, variety, accuracy, east metres, north metres)
    static let rows: [(String, String?, String?, Double, Double)] = [
        ("Apple", "Gala", "3.2", 0, 0), ("Apple", "Cox", "7.5", 5, 0), ("Pear", "Conference", "12", 10, 0),
        ("Plum", nil, nil, 0, 6), ("Cherry", "Stella", "17", 5, 6), ("Apple", "Bramley", "24", 10, 6),
        ("Quince", "Vranja </script><b>&", "1.5", 5, 12),
    ]

    func populated() throws -> TreesProcess {
        let t = try TreesProcess()
        #expect(try t.run(["collection", "create", "Victoria's Orchard"]).status == 0)
        for (species, variety, accuracy, east, north) in Self.rows {
            var args = ["add", "--lat", String(51.5 + north / 111_257.0), "--lon", String(-0.12 + east / 69_407.0),
                        "--species", species, "--collection", "Victoria's Orchard"]
            if let variety { args += ["--variety", variety] }
            if let accuracy { args += ["--accuracy", accuracy] }
            #expect(try t.run(args).status == 0)
        }
        return t
    }

    /// Loads `url` in headless Chromium and returns the DOM after the page's scripts ran.
    static func dumpDOM(_ url: String, in folder: URL) throws -> String {
        try chromium(["--dump-dom", url], in: folder)
    }

    @discardableResult
    static func chromium(_ arguments: [String], in folder: URL) throws -> String {
        let binary = try Tool.chromium.require()
        let profile = folder.appendingPathComponent("chromium-\(UUID().uuidString)")
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = folder.path
        let r = try Program.run(binary, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                                         "--user-data-dir=\(profile.path)", "--window-size=1200,800"] + arguments, environment: env)
        try? FileManager.default.removeItem(at: profile)
        return r.stdout
    }

    static func matches(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            Range(m.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func labels(_ dom: String) throws -> [String] {
        try matches(#"<text[^>]*class="label[^"]*">([^<]*)</text>"#, in: dom)
            .map { $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&") }
    }

    @Test func writesAnOfflinePageWithOneMarkerPerTree() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let r = try t.run(["map"], currentDirectory: t.folder)
        #expect(r.status == 0, "\(r)")
        #expect(r.stdout == "trees_2026-05-01_100000.html\n")
        #expect(r.stderr == "")
        let page = t.folder.appendingPathComponent("trees_2026-05-01_100000.html")
        let html = try String(contentsOf: page, encoding: .utf8)
        // Nothing from the network: the only URL is the SVG namespace.
        let withoutNamespace = html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
        #expect(!withoutNamespace.contains("http://") && !withoutNamespace.contains("https://") && !withoutNamespace.contains("//cdn"))
        #expect(!html.contains("<link") && !html.contains("@import") && !html.contains("<script src"))
        #expect(!html.contains("</script><b>"), "user text cannot end the data script early")
        // A tree without an accuracy figure is of unknown class in its details as in the legend, not "No fix".
        #expect(html.contains("\"accClass\":\"Unknown\"") && !html.contains("No fix"))

        let dom = try Self.dumpDOM(page.absoluteString, in: t.folder)
        #expect(dom.contains("data-ready=\"true\""), "the page's script ran")
        #expect(dom.components(separatedBy: "<g class=\"tree\"").count - 1 == Self.rows.count)
        #expect(dom.components(separatedBy: "<circle class=\"acc\"").count - 1 == Self.rows.filter { $0.2 != nil }.count)
        #expect(try Self.labels(dom).sorted() == Self.rows.map(\.0).sorted())
        #expect(dom.contains("class=\"labels-species colour-species\""))
        // Positions: 5 m apart east, 6 m north, at one scale; north up.
        let positions = try Self.matches(#"<g class="tree" [^>]*transform="translate\(([-0-9.]+,[-0-9.]+\)"><title>[^<]*)</title>"#, in: dom)
        var byTitle: [String: [Double]] = [:]
        for match in positions {
            let parts = match.components(separatedBy: ")\"><title>")
            byTitle[parts[1]] = parts[0].split(separator: ",").compactMap { Double($0) }
        }
        #expect(byTitle.count == Self.rows.count)
        let origin = try #require(byTitle["Apple Gala"]), east = try #require(byTitle["Pear Conference"])
        let north = try #require(byTitle["Plum"])
        let scale = (east[0] - origin[0]) / 10
        #expect(scale > 1)
        #expect(abs(east[1] - origin[1]) < 0.5)
        #expect(abs((origin[1] - north[1]) / 6 - scale) < 0.1, "north is up at the same scale")

        let variety = try Self.dumpDOM(page.absoluteString + "?labels=variety&color=accuracy", in: t.folder)
        #expect(try Self.labels(variety).sorted() == Self.rows.map { $0.1 ?? "no variety" }.sorted())
        #expect(variety.contains("class=\"labels-variety colour-accuracy\""))
        #expect(variety.contains("fill=\"#d6332a\""), "the 24 m tree is drawn in the Poor colour")
    }

    /// Trees whose latest inspection found them unwell get a coloured outline, with a legend of
    /// the outlined statuses; healthy trees keep the plain marker.
    @Test func unwellTreesAreOutlinedByTheirHealth() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let list = try #require(try JSONSerialization.jsonObject(with: Data(t.run(["list", "--json"]).stdout.utf8)) as? [[String: Any]])
        func id(_ species: String, _ variety: String) throws -> String {
            try #require(list.first { $0["species"] as? String == species && $0["variety"] as? String == variety }?["id"] as? String)
        }
        let gala = try id("Apple", "Gala"), cox = try id("Apple", "Cox"), pear = try id("Pear", "Conference")
        #expect(try t.run(["care", "add", gala, "inspect", "--health", "diseased", "--date", "2026-04-01"]).status == 0)
        #expect(try t.run(["care", "add", cox, "inspect", "--health", "stressed", "--date", "2026-04-01"]).status == 0)
        #expect(try t.run(["care", "add", pear, "inspect", "--health", "diseased", "--date", "2026-03-01"]).status == 0)
        // The latest inspection counts: the pear has recovered.
        #expect(try t.run(["care", "add", pear, "inspect", "--health", "healthy", "--date", "2026-04-10"]).status == 0)
        let page = t.folder.appendingPathComponent("map.html")
        #expect(try t.run(["map", "--out", page.path]).status == 0)
        let dom = try Self.dumpDOM(page.absoluteString, in: t.folder)
        #expect(dom.contains("data-ready=\"true\""))
        #expect(dom.components(separatedBy: "class=\"dot unwell\"").count - 1 == 2)
        #expect(dom.components(separatedBy: "--outline: #c2185b").count - 1 == 1, "diseased")
        #expect(dom.components(separatedBy: "--outline: #e6a100").count - 1 == 1, "stressed")
        #expect(dom.contains("<strong>Health (outline)</strong>"))
        #expect(try Self.matches(#"<span>(stressed|diseased)</span><small>(\d+)</small>"#, in: dom) == ["stressed", "diseased"])
    }

    @Test func theLabelsChoiceIsRememberedAndPhotosAreEmbedded() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let list = try t.run(["list", "--species", "Plum"]).stdout
        let plum = try #require(list.split(separator: "\n").dropFirst().first.map { String($0.prefix(8)) })
        let jpeg = t.folder.appendingPathComponent("plum.jpg")
        try Data(TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")).write(to: jpeg)
        let heic = t.folder.appendingPathComponent("plum.heic")
        try Data(TestImages.heic(dateTimeOriginal: nil)).write(to: heic)
        #expect(try t.run(["photo", "add", plum, jpeg.path, heic.path]).status == 0)

        let out = t.folder.appendingPathComponent("orchard.html").path
        #expect(try t.run(["map", "--labels", "variety", "--out", out]).stdout == out + "\n")
        let again = t.folder.appendingPathComponent("again.html")
        #expect(try t.run(["map", "--collection", "victoria's orchard", "--out", again.path]).status == 0)
        let html = try String(contentsOf: again, encoding: .utf8)
        #expect(html.contains("<body class=\"labels-variety colour-species\">"))
        #expect(html.contains("<title>Trees — Victoria&#39;s Orchard</title>"))
        #expect(html.contains("data:image/jpeg;base64," + Data(TestImages.jpeg(dateTimeOriginal: "2025:09:14 16:05:33")).base64EncodedString()))

        let dom = try Self.dumpDOM(again.absoluteString + "?tree=\(plum)", in: t.folder)
        #expect(dom.contains("<h2>Plum</h2>"))
        #expect(dom.contains("<img alt=\"Photo ") || dom.contains("alt=\"Photo "))
        #expect(dom.contains("HEIC photo, no preview"))
        #expect(try Self.labels(dom).sorted() == Self.rows.map { $0.1 ?? "no variety" }.sorted())

        #expect(try t.run(["map", "--labels", "species", "--out", out]).status == 0)
        #expect(try t.run(["map", "--out", again.path]).status == 0)
        #expect(try String(contentsOf: again, encoding: .utf8).contains("<body class=\"labels-species colour-species\">"))
        // '-' writes the page to standard output and no file.
        let piped = try t.run(["map", "--out", "-"], currentDirectory: t.folder)
        #expect(piped.stdout.hasPrefix("<!DOCTYPE html>\n") && piped.stdout.hasSuffix("</html>\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.folder.path).filter { $0.hasPrefix("trees_") } == [])
        // The default file name follows the collection.
        #expect(try t.run(["map", "--collection", "Victoria's Orchard"], currentDirectory: t.folder).stdout
                == "victorias_orchard_2026-05-01_100000.html\n")
    }

    @Test func backgroundTilesOnlyWhenAsked() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let tileFolder = t.folder.appendingPathComponent("tiles")
        try FileManager.default.createDirectory(at: tileFolder, withIntermediateDirectories: true)
        let template = tileFolder.absoluteString + "{z}-{x}-{y}.png"
        let page = t.folder.appendingPathComponent("tiles.html")
        #expect(try t.run(["map", "--tiles", template, "--out", page.path]).status == 0)
        let dom = try Self.dumpDOM(page.absoluteString, in: t.folder)
        let tiles = try Self.matches(#"<image class="tile" href="([^"]+)""#, in: dom)
        #expect(!tiles.isEmpty)
        #expect(tiles.allSatisfy { $0.hasPrefix(tileFolder.absoluteString) && $0.hasSuffix(".png") })
        #expect(tiles.allSatisfy { $0.contains("19-") }, "trees 5 m apart call for the deepest zoom: \(tiles)")
    }

    @Test func aScreenshotShowsTheMap() throws {
        let t = try populated()
        defer { t.cleanUp() }
        let page = t.folder.appendingPathComponent("shot.html")
        #expect(try t.run(["map", "--out", page.path, "--color", "accuracy"]).status == 0)
        let png = t.folder.appendingPathComponent("shot.png")
        try Self.chromium(["--screenshot=\(png.path)", page.absoluteString], in: t.folder)
        let bytes = try [UInt8](Data(contentsOf: png))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(bytes.count > 20_000, "a blank page would compress to a few kB")
    }

    @Test(arguments: [
        (["map", "--labels", "genus"], 64, "trees: The value 'genus' is invalid for '--labels <what>'. Please provide one of 'species' and 'variety'."),
        (["map", "--tiles", "https://tile.example.org/{z}/{x}.png"], 64, "trees: --tiles 'https://tile.example.org/{z}/{x}.png' needs {z}, {x} and {y}, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png"),
        (["map", "--collection", "Nowhere"], 1, "trees: no collection named 'Nowhere'; known: Victoria's Orchard"),
        (["map", "--collection", "none", "--labels", "variety"], 1, "trees: no trees to map"),
        (["map", "--out", "/nonexistent/folder/map.html"], 73, "trees: cannot write /nonexistent/folder/map.html: the folder /nonexistent/folder does not exist"),
    ] as [([String], Int32, String)])
    func refusals(arguments: [String], status: Int32, message: String) throws {
        let t = try populated()
        defer { t.cleanUp() }
        let before = try t.dump()
        let r = try t.run(arguments, currentDirectory: t.folder)
        #expect(r.status == status, "\(r)")
        #expect(r.stderr.hasPrefix(message + "\n"), "\(r)")
        #expect(r.stdout == "")
        #expect(try t.dump() == before)
        let pages = try FileManager.default.contentsOfDirectory(atPath: t.folder.path).filter { $0.hasSuffix(".html") || $0.hasSuffix(".tmp") }
        #expect(pages == [])
    }
}
