import Foundation
import TreesKit

/// What the terminal can do: whether streams are TTYs and whether colour is wanted.
///
/// Colour is used only when standard output is a TTY, `TERM` is not `dumb`, and `NO_COLOR` is unset
/// (any value, even empty, turns colour off).
struct Terminal: Sendable {
    var stdoutIsTTY: Bool
    var stdinIsTTY: Bool
    var colour: Bool

    /// Worked out once a process: every line of human output asks it, and reading the
    /// environment each time cost a third of a command that prints a line for each of 100,000
    /// care events.
    static let current: Terminal = {
        let env = ProcessInfo.processInfo.environment
        let out = isatty(STDOUT_FILENO) == 1
        let colour = out && env["NO_COLOR"] == nil && env["TERM"] != "dumb"
        return Terminal(stdoutIsTTY: out, stdinIsTTY: isatty(STDIN_FILENO) == 1, colour: colour)
    }()

    /// Width of the terminal in columns (80 when unknown).
    static var width: Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Wraps `text` in the ANSI colour for `colour` when colour is on.
    func paint(_ text: String, _ colour: AccuracyColour) -> String {
        guard self.colour else { return text }
        return ANSI.code(for: colour) + text + ANSI.reset
    }

    func bold(_ text: String) -> String { colour ? "\u{1B}[1m" + text + ANSI.reset : text }
    func dim(_ text: String) -> String { colour ? "\u{1B}[2m" + text + ANSI.reset : text }

    /// The accuracy badge: class name and figure, e.g. `Good 6.2 m`, `Survey 2 cm`, coloured by class.
    func badge(metres: Double?, hasFix: Bool = true) -> String {
        paint(Self.badgeText(metres: metres, hasFix: hasFix), hasFix ? AccuracyClass(metres: metres).colour : .grey)
    }

    /// The badge without colour.
    static func badgeText(metres: Double?, hasFix: Bool = true) -> String {
        guard hasFix else { return "No fix" }
        guard let m = metres, m.isFinite else { return "unknown" }
        return "\(AccuracyClass(metres: m).title) \(Format.accuracy(m))"
    }
}

enum ANSI {
    static let reset = "\u{1B}[0m"
    static func code(for colour: AccuracyColour) -> String {
        switch colour {
        case .blue: "\u{1B}[34m"
        case .green: "\u{1B}[32m"
        case .yellow: "\u{1B}[33m"
        case .orange: "\u{1B}[38;5;208m"
        case .red: "\u{1B}[31m"
        case .grey: "\u{1B}[90m"
        }
    }

    /// Removes ANSI escape sequences (for measuring visible width).
    static func strip(_ text: String) -> String {
        var out = ""
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape {
                if (0x40...0x7E).contains(scalar.value) && scalar != "[" { inEscape = false }
                continue
            }
            if scalar == "\u{1B}" { inEscape = true; continue }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}

/// Number and date formatting for people, locale-independent.
enum Format {
    /// A number as the text codec writes it: `20`, `7.5`.
    static func number(_ value: Double) -> String { TextCodec.decimal(value) ?? "—" }

    /// Metres with one decimal below 100 m, whole metres above: `6.2 m`, `140 m`.
    ///
    /// When one decimal would round a value up onto a class threshold (9.98 → 10.0), two decimals are
    /// shown instead, so the figure never contradicts its class.
    static func metres(_ m: Double) -> String {
        guard m < 100 else { return String(format: "%.0f m", m) }
        let one = (m * 10).rounded() / 10
        if [5.0, 10, 15, 20].contains(one), m < one { return String(format: "%.2f m", m) }
        return String(format: "%.1f m", m)
    }

    static func degrees(_ d: Double) -> String { String(format: "%.7f", d) }

    /// A date in the local time zone (honours `TZ`): `2026-05-01 14:03`.
    static func date(_ date: Date) -> String { local("yyyy-MM-dd HH:mm", date) }

    static func dateTime(_ date: Date) -> String { local("yyyy-MM-dd HH:mm:ss ZZZZZ", date) }

    /// `yyyy-MM-dd_HHmmss` in the local time zone, for file names.
    static func fileStamp(_ date: Date) -> String { local("yyyy-MM-dd_HHmmss", date) }

    /// The name an output gets in a folder: `{prefix}_{yyyy-MM-dd_HHmmss}.{ext}`, the prefix being
    /// the collection's name as a slug, or `trees`.
    static func generatedName(_ collection: String?, at date: Date, extension ext: String) -> String {
        let slug = collection.map(TextTools.slug) ?? ""
        return "\(slug.isEmpty ? "trees" : slug)_\(fileStamp(date)).\(ext)"
    }

    /// `HH:mm:ss` in the local time zone.
    static func clock(_ date: Date) -> String { local("HH:mm:ss", date) }

    /// Formats in the local time zone with one of the patterns above (`yyyy`, `MM`, `dd`, `HH`,
    /// `mm`, `ss`, `ZZZZZ` and literal separators), in the proleptic Gregorian calendar: a stored
    /// date shows as the same calendar day as its ISO 8601 text, even before 1582 where
    /// Foundation's formatters switch to the Julian calendar.
    static func local(_ pattern: StaticString, _ date: Date) -> String {
        let offset = zone.secondsFromGMT(for: date)
        guard let f = UTCFields(date.addingTimeInterval(TimeInterval(offset))) else { return "?" }
        // Written as bytes, a run of one pattern letter at a time: a listing formats a date a row.
        var out: [UInt8] = []
        out.reserveCapacity(26)
        func two(_ v: Int) {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v / 10 % 10))
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10))
        }
        pattern.withUTF8Buffer { p in
            var i = 0
            while i < p.count {
                let c = p[i]
                var run = 1
                while i + run < p.count, p[i + run] == c { run += 1 }
                switch c {
                case UInt8(ascii: "y"):
                    if f.year < 0 { out.append(UInt8(ascii: "-")) }
                    let digits = Array(String(abs(f.year)).utf8)
                    out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - digits.count)))
                    out.append(contentsOf: digits)
                case UInt8(ascii: "M"): two(f.month)
                case UInt8(ascii: "d"): two(f.day)
                case UInt8(ascii: "H"): two(f.hour)
                case UInt8(ascii: "m"): two(f.minute)
                case UInt8(ascii: "s"): two(f.second)
                case UInt8(ascii: "Z"):
                    if offset == 0 {
                        out.append(UInt8(ascii: "Z"))
                    } else {
                        let m = abs(offset) / 60
                        out.append(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
                        two(m / 60)
                        out.append(UInt8(ascii: ":"))
                        two(m % 60)
                    }
                default: out.append(contentsOf: p[i..<(i + run)])
                }
                i += run
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let zone = TimeZone.current
}

/// A plain text table with columns sized to their widest cell; ANSI colour is ignored when measuring.
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []

    func render(terminal: Terminal) -> String {
        // Each cell's visible width once; a plain ASCII cell (most of a large listing) is its bytes.
        let cellWidths = rows.map { $0.map(Self.visibleWidth) }
        var widths = headers.map(\.count)
        for row in cellWidths {
            for (i, w) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], w) }
        }
        // Built as bytes: appending to a String cell by cell is most of the time of a long listing.
        var out: [UInt8] = []
        out.reserveCapacity((widths.reduce(0, +) + 2 * widths.count + 1) * rows.count + 256)
        Self.appendHeader(headers, widths: widths, terminal: terminal, to: &out)
        for (row, w) in zip(rows, cellWidths) {
            Self.appendRow(row, widths: widths, to: &out) { $0 < w.count ? w[$0] : 0 }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// One line of cells two spaces apart, each but the last padded to its column's width
    /// (`cellWidth` gives a cell's visible width).
    static func appendRow(_ cells: [String], widths: [Int], to out: inout [UInt8], cellWidth: (Int) -> Int) {
        for (i, cell) in cells.enumerated() {
            if i > 0 { out.append(0x20); out.append(0x20) }
            var cell = cell
            cell.withUTF8 { out.append(contentsOf: $0) }
            if i < cells.count - 1, i < widths.count {
                let pad = widths[i] - cellWidth(i)
                if pad > 0 { out.append(contentsOf: repeatElement(0x20, count: pad)) }
            }
        }
        out.append(0x0A)
    }

    /// The header line, in bold: each name but the last padded to its column's width.
    static func appendHeader(_ headers: [String], widths: [Int], terminal: Terminal, to out: inout [UInt8]) {
        let head = headers.enumerated().map { i, h in
            i < headers.count - 1 ? h + String(repeating: " ", count: max(0, widths[i] - h.count)) : h
        }
        out.append(contentsOf: terminal.bold(head.joined(separator: "  ")).utf8)
        out.append(0x0A)
    }

    /// The width a cell takes on screen: its characters, colour codes left out.
    static func visibleWidth(_ cell: String) -> Int {
        var ascii = true
        for b in cell.utf8 where b >= 0x80 || b == 0x1B { ascii = false; break }
        return ascii ? cell.utf8.count : ANSI.strip(cell).count
    }
}

/// A text table laid out as `TextTable` lays it out, written a row at a time, for listings too long
/// to hold (a million trees): a first pass over the rows measures its columns (`measure`), a
/// second writes them (`write`) as they come, so memory stays that of one row and a line.
struct StreamedTable {
    private(set) var headers: [String]
    private(set) var widths: [Int]
    /// Rows measured.
    private(set) var count = 0
    private var out: [UInt8] = []
    private let terminal: Terminal

    init(headers: [String], terminal: Terminal) {
        self.headers = headers
        widths = headers.map(\.count)
        self.terminal = terminal
    }

    /// Widens the columns to `cells` (the last column is never padded, so it is not measured).
    mutating func measure(_ cells: [String]) {
        for (i, cell) in cells.enumerated() where i < widths.count - 1 {
            let w = TextTable.visibleWidth(cell)
            if w > widths[i] { widths[i] = w }
        }
        count += 1
    }

    /// Leaves out the column at `index` (one no row has anything in), before writing.
    mutating func remove(column index: Int) {
        headers.remove(at: index)
        widths.remove(at: index)
    }

    /// Writes the header line, once, after measuring.
    mutating func writeHeader() {
        TextTable.appendHeader(headers, widths: widths, terminal: terminal, to: &out)
    }

    /// Writes a row measured before (with the same columns left out).
    mutating func write(_ cells: [String]) {
        TextTable.appendRow(cells, widths: widths, to: &out) { TextTable.visibleWidth(cells[$0]) }
        if out.count >= 1 << 16 { flush() }
    }

    /// Writes out what is waiting; after the last row.
    mutating func flush() {
        guard !out.isEmpty else { return }
        Output.human(String(decoding: out, as: UTF8.self))
        out.removeAll(keepingCapacity: true)
    }
}

/// Asks a yes/no question on the terminal; only called when standard input is a TTY.
enum Confirm {
    static func ask(_ question: String) -> Bool {
        StandardError.write("\(question) [y/N] ")
        guard let answer = readLine() else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
