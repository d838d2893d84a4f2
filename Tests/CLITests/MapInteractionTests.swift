import Foundation
import Testing
import TreesTestSupport

/// The map page driven like a user drives it: real wheel, drag and click events sent to headless
/// Chromium through its DevTools protocol, and the page's state read back.
@Suite(.enabled(if: Tool.chromium.shouldRun), .tags(.browser)) struct MapInteractionTests {
    @Test func wheelZoomsAroundThePointerDragPansClickShowsDetailsAndLabelsSwitch() async throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        for (species, variety, lat, lon) in [("Apple", "Gala", "51.5", "-0.12"), ("Pear", "Conference", "51.50005", "-0.12"),
                                             ("Plum", "Victoria", "51.5", "-0.11990")] {
            #expect(try t.run(["add", "--lat", lat, "--lon", lon, "--species", species, "--variety", variety, "--accuracy", "4"]).status == 0)
        }
        let page = t.folder.appendingPathComponent("map.html")
        #expect(try t.run(["map", "--out", page.path]).status == 0)

        let browser = try await Browser(url: page.absoluteString, folder: t.folder)
        defer { browser.close() }
        func view() async throws -> (s: Double, tx: Double, ty: Double) {
            let v = try browser.evaluate("[treesMap.view.s, treesMap.view.tx, treesMap.view.ty]") as? [Double] ?? []
            try #require(v.count == 3)
            return (v[0], v[1], v[2])
        }

        // Wheel up at (700, 400): zooms in, and the point under the pointer stays put.
        let before = try await view()
        try browser.mouse("mouseWheel", x: 700, y: 400, extra: ["deltaX": 0, "deltaY": -400])
        try browser.settle()
        let zoomed = try await view()
        #expect(zoomed.s > before.s * 1.5)
        #expect(abs((700 - zoomed.tx) / zoomed.s - (700 - before.tx) / before.s) < 0.01)
        #expect(abs((400 - zoomed.ty) / zoomed.s - (400 - before.ty) / before.s) < 0.01)

        // Drag from empty ground (below the middle of the window): the map follows the pointer.
        let size = try #require(try browser.evaluate("[innerWidth, innerHeight]") as? [Double])
        let (x0, y0) = (size[0] * 0.55, size[1] * 0.85)
        #expect(try browser.evaluate("document.elementFromPoint(\(x0), \(y0)).closest('svg').id") as? String == "map")
        try browser.mouse("mousePressed", x: x0, y: y0, extra: ["button": "left", "buttons": 1, "clickCount": 1])
        try browser.mouse("mouseMoved", x: x0 + 50, y: y0 - 20, extra: ["button": "left", "buttons": 1])
        try browser.mouse("mouseMoved", x: x0 + 110, y: y0 - 40, extra: ["button": "left", "buttons": 1])
        try browser.mouse("mouseReleased", x: x0 + 110, y: y0 - 40, extra: ["button": "left", "buttons": 0, "clickCount": 1])
        try browser.settle()
        let panned = try await view()
        #expect(abs(panned.tx - zoomed.tx - 110) < 0.5)
        #expect(abs(panned.ty - zoomed.ty + 40) < 0.5)
        #expect(panned.s == zoomed.s)

        // Click the pear: its details open.
        try browser.evaluate("treesMap.fit()")
        try browser.settle()
        let pear = try #require(try browser.centre(of: "g.tree[data-id] title", matching: "Pear Conference"))
        try browser.click(x: pear.0, y: pear.1)
        #expect(try browser.evaluate("document.getElementById('details').hidden") as? Bool == false)
        #expect(try browser.evaluate("document.querySelector('#details h2').textContent") as? String == "Pear — Conference")

        // The Variety button switches every label.
        let button = try #require(try browser.centre(of: "button[data-labels]", matching: "Variety"))
        try browser.click(x: button.0, y: button.1)
        let labels = try browser.evaluate("Array.from(document.querySelectorAll('g.tree text')).map(e => e.textContent).sort()") as? [String]
        #expect(labels == ["Conference", "Gala", "Victoria"])
        #expect(try browser.evaluate("document.body.classList.contains('labels-variety') && !document.body.classList.contains('labels-species')") as? Bool == true)
    }
}

/// Headless Chromium with a DevTools connection to its one page, over `--remote-debugging-pipe`
/// (commands on the browser's descriptor 3, replies on 4, each message ending in a NUL byte).
/// Lets one headless Chromium run at a time: several starting together beside the rest of the
/// suite on a busy 2-core machine took longer than any deadline to show their pages.
actor BrowserGate {
    static let shared = BrowserGate()
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else { busy = true; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}

final class Browser {
    let process = Process()
    let profile: URL
    let commands = Pipe(), replies = Pipe()
    var buffer = Data()
    var nextID = 1
    /// The page's DevTools session, once attached.
    var session: String?

    /// True while this browser holds `BrowserGate`.
    private var holdsGate = false

    init(url: String, folder: URL) async throws {
        let binary = try Tool.chromium.require()
        profile = folder.appendingPathComponent("chromium-\(UUID().uuidString)")
        await BrowserGate.shared.enter()
        holdsGate = true
        let arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                         "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "--window-size=1200,800", url]
        // The shell moves our pipes onto descriptors 3 and 4, where Chromium expects them.
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null", binary] + arguments
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = folder.path
        process.environment = env
        process.standardInput = commands
        process.standardOutput = replies
        process.standardError = FileHandle.nullDevice
        try process.run()
        var target: String?
        // Generous deadlines: a loaded machine can take many seconds to start a browser.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let targets = try send("Target.getTargets", [:])["targetInfos"] as? [[String: Any]] ?? []
            target = targets.first { $0["type"] as? String == "page" && ($0["url"] as? String ?? "").hasPrefix("file:") }?["targetId"] as? String
            if target != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        if target == nil {
            let targets = try send("Target.getTargets", [:])["targetInfos"] as? [[String: Any]] ?? []
            target = targets.first { $0["type"] as? String == "page" && ($0["url"] as? String ?? "").hasPrefix("file:") }?["targetId"] as? String
        }
        let attached = try send("Target.attachToTarget", ["targetId": try #require(target, "chromium shows no page"), "flatten": true])
        session = attached["sessionId"] as? String
        func ready() throws -> Bool { try evaluate("document.body && document.body.getAttribute('data-ready')") as? String == "true" }
        var isReady = false
        while !isReady && Date() < deadline {
            isReady = try ready()
            if !isReady { try await Task.sleep(for: .milliseconds(50)) }
        }
        // A busy machine may resume this test only after the deadline: the page decides, not the clock.
        guard try isReady || ready() else {
            Issue.record("the page never became ready")
            return
        }
        // A headless window may still be given its size after the page is ready (a late resize
        // moves the view); wait until the layout holds still across a few frames. Counted in the
        // page's frames, not against the deadline: a busy machine makes each frame later, not fewer.
        let layout = "JSON.stringify([innerWidth, innerHeight, document.getElementById('map').getBoundingClientRect()])"
        var last = try evaluate(layout) as? String, steady = 0, frames = 0
        while steady < 3 && frames < 300 {
            try settle()
            frames += 1
            let now = try evaluate(layout) as? String
            steady = now == last ? steady + 1 : 0
            last = now
        }
        if steady < 3 { Issue.record("the page's layout never held still") }
    }

    deinit { close() }

    func close() {
        if holdsGate {
            holdsGate = false
            Task { await BrowserGate.shared.leave() }
        }
        guard process.isRunning else { return }
        try? commands.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: profile)
    }

    /// Sends a DevTools command and returns its result, skipping events that arrive meanwhile.
    @discardableResult
    func send(_ method: String, _ params: [String: Any]) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var command: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { command["sessionId"] = session }
        commands.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: command) + Data([0]))
        while true {
            while buffer.firstIndex(of: 0) == nil {
                let more = replies.fileHandleForReading.availableData
                try #require(!more.isEmpty, "chromium closed the DevTools pipe")
                buffer.append(more)
            }
            let end = try #require(buffer.firstIndex(of: 0))
            let message = buffer[buffer.startIndex..<end]
            buffer = Data(buffer[(end + 1)...])
            guard let object = try JSONSerialization.jsonObject(with: message) as? [String: Any], object["id"] as? Int == id else { continue }
            if let error = object["error"] { Issue.record("DevTools \(method) failed: \(error)") }
            return object["result"] as? [String: Any] ?? [:]
        }
    }

    /// Evaluates JavaScript in the page and returns its value.
    @discardableResult
    func evaluate(_ expression: String) throws -> Any? {
        let result = try send("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        return (result["result"] as? [String: Any])?["value"]
    }

    func mouse(_ type: String, x: Double, y: Double, extra: [String: Any] = [:]) throws {
        try send("Input.dispatchMouseEvent", ["type": type, "x": x, "y": y].merging(extra) { $1 })
    }

    func click(x: Double, y: Double) throws {
        try mouse("mouseMoved", x: x, y: y)
        try mouse("mousePressed", x: x, y: y, extra: ["button": "left", "buttons": 1, "clickCount": 1])
        try mouse("mouseReleased", x: x, y: y, extra: ["button": "left", "buttons": 0, "clickCount": 1])
        try settle()
    }

    /// Waits for the page's next two animation frames, so a requested redraw has happened.
    func settle() throws {
        try send("Runtime.evaluate", [
            "expression": "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
            "awaitPromise": true, "returnByValue": true,
        ])
    }

    /// The centre of the element matching `selector` whose text is `text` (for a `title`, its marker's dot).
    func centre(of selector: String, matching text: String) throws -> (Double, Double)? {
        func literal(_ s: String) throws -> String {
            let array = String(decoding: try JSONSerialization.data(withJSONObject: [s]), as: UTF8.self)
            return String(array.dropFirst().dropLast())
        }
        let script = """
            (() => {
              const e = Array.from(document.querySelectorAll(\(try literal(selector)))).find(e => e.textContent === \(try literal(text)));
              if (!e) return null;
              const target = e.tagName === 'title' ? e.parentNode.querySelector('.dot') : e;
              const r = target.getBoundingClientRect();
              return [r.x + r.width / 2, r.y + r.height / 2];
            })()
            """
        guard let point = try evaluate(script) as? [Double], point.count == 2 else { return nil }
        return (point[0], point[1])
    }
}
