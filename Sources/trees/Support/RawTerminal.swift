import Foundation
import TreesWorkflows

/// Puts the terminal into raw keyboard mode and always puts it back: on `restore()`, at exit, and on
/// SIGINT/SIGTERM/SIGHUP (then the process exits with 128 + the signal).
///
/// Raw mode here means no echo, no line buffering and no signal keys (Ctrl-C arrives as byte 3 so the
/// caller can leave cleanly); output processing stays on so "\n" still starts a new line.
final class RawTerminal: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var isRaw = false

    init() {
        TerminalState.saveOnce()
    }

    func enterRaw() {
        lock.lock(); defer { lock.unlock() }
        guard !isRaw, var t = TerminalState.original else { return }
        t.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        t.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutablePointer(to: &t.c_cc) { cc in
            cc.withMemoryRebound(to: cc_t.self, capacity: Int(NCCS)) { p in
                p[Int(VMIN)] = 1
                p[Int(VTIME)] = 0
            }
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &t)
        TerminalState.write("\u{1B}[?25l")
        isRaw = true
    }

    /// Back to the terminal's original mode, cursor shown, attributes reset.
    func restore() {
        lock.lock(); defer { lock.unlock() }
        TerminalState.restore()
        isRaw = false
    }
}

/// The terminal's original settings, kept in globals so a C signal handler can restore them.
enum TerminalState {
    nonisolated(unsafe) static var original: termios?
    nonisolated(unsafe) private static var installed = false

    static func saveOnce() {
        guard !installed else { return }
        installed = true
        var t = termios()
        if tcgetattr(STDIN_FILENO, &t) == 0 { original = t }
        atexit { TerminalState.restore() }
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { s in
                TerminalState.restore()
                _exit(128 + s)
            }
        }
    }

    static func restore() {
        if var t = original { tcsetattr(STDIN_FILENO, TCSANOW, &t) }
        write("\u{1B}[0m\u{1B}[?25h")
    }

    /// Async-signal-safe write to standard output.
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(STDOUT_FILENO, &bytes, bytes.count)
    }
}

/// Reads key presses from standard input on its own thread; can be paused while a prompt reads lines.
final class KeyReader: @unchecked Sendable {
    private let lock = NSLock()
    private var paused = false
    private var stopped = false

    func start(_ handler: @escaping @Sendable (InteractiveCapturePolicy.Key) -> Void) {
        let thread = Thread { [self] in
            var byte: UInt8 = 0
            while true {
                lock.lock()
                if stopped { lock.unlock(); return }
                if paused { lock.unlock(); usleep(50_000); continue }
                var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                let ready = poll(&fds, 1, 100)
                var key: InteractiveCapturePolicy.Key?
                if ready > 0 {
                    let n = read(STDIN_FILENO, &byte, 1)
                    if n == 1 {
                        switch byte {
                        case 10, 13: key = .capture
                        case UInt8(ascii: "a"), UInt8(ascii: "A"): key = .average
                        case UInt8(ascii: "q"), UInt8(ascii: "Q"): key = .quit
                        case 3, 4: key = .interrupt
                        default: key = .other
                        }
                    } else if n == 0 {
                        key = .interrupt
                        stopped = true
                    }
                }
                lock.unlock()
                if let key { handler(key) }
            }
        }
        thread.start()
    }

    /// Stops reading (waits until the reader is between reads).
    func pause() { lock.lock(); paused = true; lock.unlock() }
    func resume() { lock.lock(); paused = false; lock.unlock() }
    func stop() { lock.lock(); stopped = true; lock.unlock() }
}

/// Redraws a block of lines in place.
struct LiveScreen {
    private var drawnLines = 0

    mutating func draw(_ lines: [String]) {
        var out = ""
        if drawnLines > 0 { out += "\u{1B}[\(drawnLines)F" }
        for line in lines { out += "\u{1B}[2K" + line + "\n" }
        if lines.count < drawnLines {
            for _ in lines.count..<drawnLines { out += "\u{1B}[2K\n" }
            out += "\u{1B}[\(drawnLines - lines.count)F"
        }
        drawnLines = lines.count
        TerminalState.write(out)
    }

    /// Leaves the block on screen; the next draw starts below it.
    mutating func detach() { drawnLines = 0 }
}

/// A sparkline of values (lower is drawn lower): ▁▂▃▄▅▆▇█.
enum Sparkline {
    static func render(_ values: [Double], width: Int) -> String {
        guard !values.isEmpty else { return "" }
        let bars = Array("▁▂▃▄▅▆▇█")
        var buckets: [Double] = []
        let n = min(width, values.count)
        for i in 0..<n {
            let lo = i * values.count / n, hi = max(lo + 1, (i + 1) * values.count / n)
            let slice = values[lo..<hi]
            buckets.append(slice.reduce(0, +) / Double(slice.count))
        }
        let minV = buckets.min() ?? 0, maxV = buckets.max() ?? 0
        let span = maxV - minV
        return String(buckets.map { v in
            span < 1e-9 ? bars[3] : bars[min(7, Int((v - minV) / span * 7.999))]
        })
    }
}
