import Foundation
import Testing
import TreesTestSupport

/// The map page is safe with any text a store holds: hostile species, varieties, rootstocks, notes
/// and collection names (markup, comment openers, quotes, backslashes, line separators, control
/// characters, noncharacters, emoji) neither stop the page's script nor run as markup (a store holds
/// no NUL: every reader and write refuses it). Headless
/// Chromium loads each page and reports what it drew; the text must come back exactly.
@Suite(.enabled(if: Tool.chromium.shouldRun), .tags(.browser)) struct MapEscapingTests {
    /// A tree as it was stored, and as the page must show it.
    struct Planted {
        var species: String
        var variety: String?
        var rootstock: String?
        var notes: String?
        var collection: String?
    }

    static let comment = "<!--<script> O'Brien"
    static let markup = "</script><img src=x onerror=\"window.pwned=4\"> \"North\" \\ 🍒"

    /// Trees added on the command line (no NUL there), each species distinct.
    static let added: [Planted] = [
        Planted(species: "<!--<script>", variety: "<!--", rootstock: "<script>", notes: "<!--<script>", collection: comment),
        Planted(species: "</script><script>window.pwned = 1</script>", variety: "</SCRIPT >", rootstock: "</style>",
                notes: "</script><!--", collection: markup),
        Planted(species: "<img src=x onerror=\"window.pwned=2\">", variety: "<svg onload=window.pwned=3>",
                rootstock: "<b>M9</b>", notes: "<iframe src=\"javascript:window.pwned=5\"></iframe>", collection: comment),
        Planted(species: "\"double\" 'single' `back`", variety: "\\ backslash \\\" \\u003c \\n", rootstock: "'; window.pwned=6; '",
                notes: "\"}]}</script>{\"trees\":[", collection: nil),
        Planted(species: "line\u{2028}separator", variety: "paragraph\u{2029}separator", rootstock: nil,
                notes: "both\u{2028}\u{2029}in notes", collection: markup),
        Planted(species: "🍎 Äpfel 🌳", variety: "👩🏽‍🌾 Reine des Reinettes", rootstock: "MM106 🪵", notes: "日本のリンゴ 🇯🇵",
                collection: nil),
        Planted(species: "]]> <![CDATA[ &amp; &lt; &#60;", variety: "${window.pwned=7} {{x}}", rootstock: "&",
                notes: "&nbsp;&#x3C;script&#x3E;", collection: comment),
    ]

    /// Trees imported from collection JSON, for text a command line cannot carry.
    static let imported: [Planted] = [
        Planted(species: "SOH\u{1}here", variety: "C0 \u{1}\u{1F}", rootstock: "DEL \u{7F} C1 \u{85}\u{9F}",
                notes: "CR\r LF\n CRLF\r\n tab\t end", collection: nil),
        Planted(species: "noncharacters " + character(0xFDD0) + character(0xFFFE) + character(0x1FFFF), variety: nil, rootstock: nil,
                notes: "<!--<script>\u{1}\u{0B}</script>", collection: nil),
    ]

    static var all: [Planted] { added + imported }

    /// A character Swift literals refuse to spell (a noncharacter).
    static func character(_ value: UInt32) -> String { String(Unicode.Scalar(value)!) }

    /// A store holding every hostile tree, a few metres apart.
    func planted() throws -> TreesProcess {
        let t = try TreesProcess()
        for name in [Self.comment, Self.markup] {
            let r = try t.run(["collection", "create", name])
            #expect(r.status == 0, "\(r)")
        }
        for (i, p) in Self.added.enumerated() {
            var args = ["add", "--lat", String(51.5 + Double(i) * 5 / 111_257), "--lon", "-0.12", "--species", p.species]
            args += ["--collection", p.collection ?? "none"]
            if let v = p.variety { args += ["--variety", v] }
            if let r = p.rootstock { args += ["--rootstock", r] }
            if let n = p.notes { args += ["--notes", n] }
            let r = try t.run(args)
            #expect(r.status == 0, "\(p.species): \(r)")
        }
        let trees: [[String: Any]] = Self.imported.enumerated().map { i, p in
            var tree: [String: Any] = [
                "id": UUID().uuidString, "latitude": 51.5 + Double(i) * 5 / 111_257, "longitude": -0.11993,
                "species": p.species, "createdAt": "2026-04-01T10:00:00Z", "updatedAt": "2026-04-01T10:00:00Z",
            ]
            tree["variety"] = p.variety
            tree["rootstock"] = p.rootstock
            tree["notes"] = p.notes
            return tree
        }
        let file = t.folder.appendingPathComponent("hostile.json")
        try JSONSerialization.data(withJSONObject: ["collections": [], "trees": trees]).write(to: file)
        let r = try t.run(["import", file.path])
        #expect(r.status == 0 && r.stdout.hasPrefix("Imported \(Self.imported.count) trees"), "\(r)")
        return t
    }

    /// Strings (or nil for JSON null) from a JavaScript array.
    static func strings(_ value: Any?) -> [String?] {
        (value as? [Any] ?? []).map { $0 as? String }
    }

    /// The page's script ran, drew one marker and one label per tree, and no hostile markup became
    /// an element or ran.
    static func expectIntact(_ browser: Browser, trees: [Planted]) throws {
        #expect(try browser.evaluate("document.body.getAttribute('data-ready')") as? String == "true", "the page's script ran")
        #expect(try browser.evaluate("document.querySelectorAll('g.tree').length") as? Int == trees.count)
        #expect(try browser.evaluate("document.querySelectorAll('g.tree text').length") as? Int == trees.count)
        #expect(try browser.evaluate("document.getElementById('count').textContent") as? String == "\(trees.count) trees")
        #expect(try browser.evaluate("typeof window.pwned") as? String == "undefined")
        #expect(try browser.evaluate("document.scripts.length") as? Int == 2)
        #expect(try browser.evaluate("document.querySelectorAll('img, iframe, b, style:not(head style), [onerror], [onload]').length") as? Int == 0)
    }

    @Test func everyTreeIsDrawnAndItsTextShownAsText() async throws {
        let t = try planted()
        defer { t.cleanUp() }
        let page = t.folder.appendingPathComponent("hostile.html")
        let r = try t.run(["map", "--out", page.path])
        #expect(r.status == 0, "\(r)")

        // The data script holds nothing the HTML parser could read as markup.
        let html = try String(contentsOf: page, encoding: .utf8)
        let opening = "<script id=\"trees-data\" type=\"application/json\">"
        let start = try #require(html.range(of: opening)).upperBound
        let end = try #require(html.range(of: "</script>", range: start..<html.endIndex)).lowerBound
        let data = html[start..<end]
        for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}", "\u{0}", "\u{7F}", "\u{85}", Self.character(0xFDD0), Self.character(0xFFFE)] {
            #expect(!data.contains(forbidden), "the embedded data holds \(forbidden.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(html.components(separatedBy: "<script").count == 3)
        #expect(html.components(separatedBy: "</script>").count == 3)

        let browser = try await Browser(url: page.absoluteString, folder: t.folder)
        defer { browser.close() }
        let trees = Self.all
        try Self.expectIntact(browser, trees: trees)

        // The data reaches the script exactly.
        let rows = try browser.evaluate("""
            JSON.parse(document.getElementById('trees-data').textContent).trees
              .map(t => [t.species, t.variety, t.rootstock, t.notes, t.collection])
            """) as? [Any] ?? []
        var seen: [String: [String?]] = [:]
        for row in rows.map(Self.strings) { if let species = row.first ?? nil { seen[species] = Array(row.dropFirst()) } }
        #expect(seen.count == trees.count)
        for p in trees {
            #expect(seen[p.species] == [p.variety, p.rootstock, p.notes, p.collection], "\(p.species.debugDescription)")
        }

        // Labels, marker titles and the legend show the text as text.
        let labels = Self.strings(try browser.evaluate("Array.from(document.querySelectorAll('g.tree text')).map(e => e.textContent)"))
        #expect(labels.compactMap { $0 }.sorted() == trees.map(\.species).sorted())
        let titles = Self.strings(try browser.evaluate("Array.from(document.querySelectorAll('g.tree > title')).map(e => e.textContent)"))
        #expect(titles.compactMap { $0 }.sorted() == trees.map { $0.species + ($0.variety.map { " " + $0 } ?? "") }.sorted())
        let legend = Self.strings(try browser.evaluate("Array.from(document.querySelectorAll('#legend span')).map(e => e.textContent)"))
        #expect(legend.compactMap { $0 }.sorted() == trees.map(\.species).sorted())
        try browser.evaluate("treesMap.setLabels('variety')")
        let varieties = Self.strings(try browser.evaluate("Array.from(document.querySelectorAll('g.tree text')).map(e => e.textContent)"))
        #expect(varieties.compactMap { $0 }.sorted() == trees.map { $0.variety ?? "no variety" }.sorted())

        // Each tree's details: heading and rows exactly as stored.
        for i in trees.indices {
            let shown = try browser.evaluate("""
                (() => {
                  treesMap.select(\(i));
                  const d = document.getElementById('details');
                  const rows = {};
                  d.querySelectorAll('dt').forEach(dt => { rows[dt.textContent] = dt.nextElementSibling.textContent; });
                  return [d.querySelector('h2').textContent, rows.variety, rows.rootstock, rows.notes, rows.collection];
                })()
                """)
            let values = Self.strings(shown)
            let p = try #require(trees.first { values.first == $0.species + ($0.variety.map { " — " + $0 } ?? "") },
                                 "details of tree \(i): \(values)")
            #expect(Array(values.dropFirst()) == [p.variety, p.rootstock, p.notes, p.collection], "\(p.species.debugDescription)")
        }
        try Self.expectIntact(browser, trees: trees)
    }

    /// A hostile collection name is the page's title, escaped in the HTML and set as text by the script.
    @Test(arguments: [comment, markup])
    func aCollectionNameIsTheTitleAsText(name: String) async throws {
        let t = try planted()
        defer { t.cleanUp() }
        let page = t.folder.appendingPathComponent("collection.html")
        let r = try t.run(["map", "--collection", name, "--out", page.path])
        #expect(r.status == 0, "\(r)")
        let html = try String(contentsOf: page, encoding: .utf8)
        let escaped = name.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "'", with: "&#39;")
        #expect(html.contains("<title>Trees — \(escaped)</title>"))

        let browser = try await Browser(url: page.absoluteString, folder: t.folder)
        defer { browser.close() }
        let trees = Self.added.filter { $0.collection == name }
        try Self.expectIntact(browser, trees: trees)
        #expect(try browser.evaluate("document.title") as? String == "Trees — \(name)")
        #expect(try browser.evaluate("document.getElementById('title').textContent") as? String == "Trees — \(name)")
        try browser.evaluate("treesMap.select(0)")
        let collection = try browser.evaluate("""
            Array.from(document.querySelectorAll('#details dt')).find(dt => dt.textContent === 'collection').nextElementSibling.textContent
            """) as? String
        #expect(collection == name)
    }
}
