// Writes the mdoc(7) manual pages of `trees` from the command definitions themselves.
//
// Usage: swift scripts/ManPages.swift TREES-BINARY PROSE-DIR OUTPUT-DIR DATE
//
// Reads `trees --experimental-dump-help` (swift-argument-parser's JSON description of every
// command, option and argument), writes trees(1) and one page per subcommand, named git-style
// (trees-photo-add(1)), and merges in the hand-written sections found in PROSE-DIR/NAME.mdoc.
// Pages for commands that no longer exist are removed. The output passes `mandoc -Tlint`.
import Foundation

struct Argument {
    var kind: String
    var names: [(kind: String, name: String)]
    var valueName: String?
    var abstract: String
    var discussion: String?
    var isOptional: Bool
    var isRepeating: Bool
    var defaultValue: String?
    var allValues: [String]

    init(_ o: [String: Any]) {
        kind = o["kind"] as? String ?? "option"
        names = (o["names"] as? [[String: Any]] ?? []).map { ($0["kind"] as? String ?? "long", $0["name"] as? String ?? "") }
        valueName = o["valueName"] as? String
        abstract = o["abstract"] as? String ?? ""
        discussion = o["discussion"] as? String
        isOptional = o["isOptional"] as? Bool ?? false
        isRepeating = o["isRepeating"] as? Bool ?? false
        defaultValue = o["defaultValue"] as? String
        allValues = o["allValues"] as? [String] ?? []
    }

    var isBuiltIn: Bool { kind == "flag" && names.contains { $0.name == "help" || $0.name == "version" } }

    /// `Fl -db Ar path` (or `Fl y , Fl -yes`), for the option list.
    var itemMacros: String {
        if kind == "positional" { return "Ar " + Mdoc.word(valueName ?? "value") + (isRepeating ? " ..." : "") }
        let flags = names.sorted { ($0.kind == "long" ? 1 : 0) < ($1.kind == "long" ? 1 : 0) }.map { n in
            "Fl " + (n.kind == "long" ? "-" : n.kind == "longWithSingleDash" ? "" : "") + n.name
        }.joined(separator: " , ")
        guard kind == "option" else { return flags }
        return flags + " Ar " + Mdoc.word(valueName ?? "value")
    }

    /// The synopsis form: `Op Fl -db Ar path`, `Ar id`, `Ar file ...`.
    var synopsisMacros: String {
        var preferred = names.first { $0.kind == "long" } ?? names.first
        if kind == "positional" { preferred = nil }
        var core: String
        if let p = preferred {
            core = "Fl " + (p.kind == "long" ? "-" : "") + p.name
            if kind == "option" { core += " Ar " + Mdoc.word(valueName ?? "value") }
        } else {
            core = "Ar " + Mdoc.word(valueName ?? "value")
        }
        if isRepeating { core += " ..." }
        return isOptional ? "Op " + core : core
    }
}

struct Command {
    var path: [String]
    var abstract: String
    var discussion: String
    var aliases: [String]
    var arguments: [Argument]
    var subcommands: [Command]

    init(_ o: [String: Any], parent: [String]) {
        let path = parent + [o["commandName"] as? String ?? "?"]
        self.path = path
        abstract = o["abstract"] as? String ?? ""
        discussion = o["discussion"] as? String ?? ""
        aliases = o["aliases"] as? [String] ?? []
        arguments = (o["arguments"] as? [[String: Any]] ?? [])
            .filter { $0["shouldDisplay"] as? Bool ?? true }
            .map(Argument.init)
        subcommands = (o["subcommands"] as? [[String: Any]] ?? [])
            .filter { ($0["commandName"] as? String) != "help" && ($0["shouldDisplay"] as? Bool ?? true) }
            .map { Command($0, parent: path) }
    }

    var pageName: String { path.joined(separator: "-") }
    var all: [Command] { [self] + subcommands.flatMap(\.all) }
}

/// mdoc(7) text helpers.
enum Mdoc {
    static let abbreviations = ["e.g.", "i.e.", "etc.", "vs."]

    /// Escapes free text for a text line; a leading dot or apostrophe would start a request.
    static func text(_ s: String) -> String {
        var t = ascii(s.replacingOccurrences(of: "\\", with: "\\e"))
        for a in abbreviations { t = t.replacingOccurrences(of: a + " ", with: a + "\\& ") }
        if t.hasPrefix(".") || t.hasPrefix("'") { t = "\\&" + t }
        return t
    }

    /// Non-ASCII characters as mandoc escapes (`\(em`, `\[u00E9]`), so line lengths are counted as mandoc counts them.
    static func ascii(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case _ where scalar.isASCII: out.unicodeScalars.append(scalar)
            case "\u{2014}": out += "\\(em"
            case "\u{2013}": out += "\\(en"
            case "\u{2026}": out += "..."
            default: out += String(format: "\\[u%04X]", scalar.value)
            }
        }
        return out
    }

    /// Escapes one word used as a macro argument, so it is never parsed as a macro or delimiter.
    static func word(_ s: String) -> String {
        let t = s.replacingOccurrences(of: "\\", with: "\\e")
        if t.count <= 3, t.first?.isUppercase == true { return "\\&" + t }
        if t.count == 1, ".,:;()[]?!|".contains(t) { return "\\&" + t }
        return t
    }

    /// Free text as a macro line's arguments (for `.Nd`).
    static func macroText(_ s: String) -> String {
        var t = s
        while t.hasSuffix(".") { t.removeLast() }
        return t.split(separator: " ").map { word(String($0)) }.joined(separator: " ")
    }

    /// Splits prose into sentences (one per line, as mdoc wants) and wraps them at 78 bytes.
    static func paragraph(_ s: String) -> [String] {
        var lines: [String] = []
        for sentence in sentences(s.replacingOccurrences(of: "\n", with: " ")) {
            var line = ""
            for w in sentence.split(separator: " ") {
                let word = String(w)
                if line.isEmpty {
                    line = word
                } else if text(line + " " + word).utf8.count > 78 {
                    lines.append(line)
                    line = word
                } else {
                    line += " " + word
                }
            }
            if !line.isEmpty { lines.append(line) }
        }
        return lines.map(text)
    }

    static func sentences(_ s: String) -> [String] {
        var result: [String] = []
        var current = ""
        let chars = Array(s)
        var i = 0
        while i < chars.count {
            current.append(chars[i])
            if ".!?".contains(chars[i]), i + 1 < chars.count, chars[i + 1] == " " {
                let lastWord = current.split(separator: " ").last.map(String.init) ?? ""
                if !abbreviations.contains(lastWord) {
                    result.append(current.trimmingCharacters(in: .whitespaces))
                    current = ""
                    i += 1
                }
            }
            i += 1
        }
        let rest = current.trimmingCharacters(in: .whitespaces)
        if !rest.isEmpty { result.append(rest) }
        return result
    }

    /// Paragraphs separated by blank lines, joined with `.Pp`.
    static func paragraphs(_ s: String) -> [String] {
        s.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            .map(paragraph).reduce(into: [String]()) { out, lines in
                if !out.isEmpty { out.append(".Pp") }
                out += lines
            }
    }
}

/// Hand-written sections for a page: `.Sh NAME` blocks from PROSE-DIR/PAGE.mdoc.
func prose(_ page: String, in folder: String) -> [(title: String, body: [String])] {
    guard let text = try? String(contentsOfFile: folder + "/" + page + ".mdoc", encoding: .utf8) else { return [] }
    var sections: [(String, [String])] = []
    for line in text.components(separatedBy: "\n") {
        if line.hasPrefix(".\\\"") { continue }
        if line.hasPrefix(".Sh ") {
            sections.append((String(line.dropFirst(4)).replacingOccurrences(of: "\"", with: ""), []))
        } else if !sections.isEmpty {
            sections[sections.count - 1].1.append(line)
        }
    }
    return sections.map { (title: $0.0, body: Array($0.1.reversed().drop { $0.isEmpty }.reversed())) }
}

/// The conventional section order; unknown (custom) sections go before ENVIRONMENT.
let order = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS"]
let tail = ["ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "DIAGNOSTICS", "SEE ALSO", "STANDARDS", "HISTORY", "AUTHORS", "CAVEATS", "BUGS"]

func page(for c: Command, root: Command, date: String, proseFolder: String) -> String {
    let name = c.pageName
    var sections: [(title: String, body: [String])] = []
    sections.append(("NAME", [".Nm " + name, ".Nd " + Mdoc.macroText(c.abstract)]))

    var synopsis: [String] = []
    let options = c.arguments.filter { !$0.isBuiltIn }
    if c.subcommands.isEmpty || !options.isEmpty {
        if !c.subcommands.isEmpty { synopsis.append(".Nm " + c.path.joined(separator: " ") + " Ar subcommand") }
        if c.subcommands.isEmpty {
            synopsis.append(".Nm " + c.path.joined(separator: " "))
            synopsis += options.map { "." + $0.synopsisMacros }
        }
    } else {
        for s in c.subcommands {
            synopsis.append(".Nm " + s.path.joined(separator: " "))
            synopsis += s.arguments.filter { !$0.isBuiltIn && $0.kind == "positional" }.map { "." + $0.synopsisMacros }
            synopsis.append(".Op Ar options")
        }
    }
    if c.path.count == 1 {
        synopsis = [".Nm", ".Ar command", ".Op Ar options", ".Nm", ".Fl -version", ".Nm", ".Op Ar command", ".Fl -help"]
    }
    sections.append(("SYNOPSIS", synopsis))

    var description = Mdoc.paragraph(c.abstract)
    if !c.discussion.isEmpty { description += [".Pp"] + Mdoc.paragraphs(c.discussion) }
    if !c.aliases.isEmpty {
        description += [".Pp", "Also available as " + c.aliases.map { "\\(lq" + (c.path.dropLast() + [$0]).joined(separator: " ") + "\\(rq" }.joined(separator: ", ") + "."]
    }
    // Hand-written sections: a DESCRIPTION adds to the generated introduction, others stand alone.
    var handWritten = prose(name, in: proseFolder)
    if let i = handWritten.firstIndex(where: { $0.title == "DESCRIPTION" }) {
        description += [".Pp"] + handWritten[i].body
        handWritten.remove(at: i)
    }
    let listed = c.arguments.filter { c.path.count == 1 || !$0.isBuiltIn }
    if !listed.isEmpty {
        description += [".Pp", "The arguments and options are as follows:", ".Bl -tag -width Ds"]
        for a in listed {
            description.append(".It " + a.itemMacros)
            var help = a.abstract
            if !a.allValues.isEmpty && !help.contains(a.allValues[0]) { help += " One of: " + a.allValues.joined(separator: ", ") + "." }
            if let d = a.defaultValue { help += (help.hasSuffix(".") ? "" : ".") + " The default is " + d + "." }
            if a.isRepeating && a.kind == "option" && !help.contains("repeat") { help += " May be given more than once." }
            description += Mdoc.paragraph(help)
            if let d = a.discussion, !d.isEmpty { description += Mdoc.paragraph(d) }
        }
        description.append(".El")
    }
    if c.path.count > 1 && c.arguments.contains(where: \.isBuiltIn) {
        description += [".Pp", "Like every command, it takes", ".Fl h , Fl -help", "to print a summary of its options."]
    }
    sections.append(("DESCRIPTION", description))

    if !c.subcommands.isEmpty {
        var list = [".Bl -tag -width Ds"]
        for s in c.subcommands {
            list.append(".It Cm " + (s.path.last ?? ""))
            list += Mdoc.paragraph(s.abstract)
            list.append("See")
            list.append(".Xr \(s.pageName) 1 .")
        }
        list.append(".El")
        sections.append(("COMMANDS", list))
    }

    for p in handWritten {
        if let i = sections.firstIndex(where: { $0.title == p.title }) {
            sections[i].body += [".Pp"] + p.body
        } else {
            sections.append(p)
        }
    }
    if !sections.contains(where: { $0.title == "EXIT STATUS" }) {
        sections.append(("EXIT STATUS", ["The exit status is 0 on success, and as listed in", ".Xr trees 1", "otherwise."]))
    }
    var seeAlso = [String]()
    var related = [root.pageName] + (c.path.count > 2 ? [c.path.dropLast().joined(separator: "-")] : []) + c.subcommands.map(\.pageName)
    if c.path.count == 1 { related = c.subcommands.map(\.pageName) }
    related = related.filter { $0 != name }.sorted()
    for (i, r) in related.enumerated() { seeAlso.append(".Xr \(r) 1" + (i < related.count - 1 ? " ," : "")) }
    if let i = sections.firstIndex(where: { $0.title == "SEE ALSO" }) {
        sections[i].body = seeAlso.enumerated().map { $0.offset == seeAlso.count - 1 ? $0.element + " ," : $0.element } + sections[i].body
    } else if !seeAlso.isEmpty {
        sections.append(("SEE ALSO", seeAlso))
    }

    func rank(_ title: String) -> Int {
        if let i = order.firstIndex(of: title) { return i }
        if let i = tail.firstIndex(of: title) { return 100 + i }
        return 50
    }
    let sorted = sections.enumerated().sorted { (rank($0.element.title), $0.offset) < (rank($1.element.title), $1.offset) }.map(\.element)

    var out = [
        ".\\\" Generated by scripts/generate-man from the command definitions and man/prose/\(name).mdoc; do not edit.",
        ".Dd " + date,
        ".Dt " + name.uppercased() + " 1",
        ".Os",
    ]
    for s in sorted {
        out.append(".Sh " + (s.title.contains(" ") ? "\"\(s.title)\"" : s.title))
        out += s.body
    }
    return out.joined(separator: "\n") + "\n"
}

let args = CommandLine.arguments
guard args.count == 5 else {
    FileHandle.standardError.write(Data("usage: ManPages.swift TREES-BINARY PROSE-DIR OUTPUT-DIR DATE\n".utf8))
    exit(64)
}
let process = Process()
process.executableURL = URL(fileURLWithPath: args[1])
process.arguments = ["--experimental-dump-help"]
let pipe = Pipe()
process.standardOutput = pipe
try process.run()
let json = pipe.fileHandleForReading.readDataToEndOfFile()
process.waitUntilExit()
guard let dump = try JSONSerialization.jsonObject(with: json) as? [String: Any], let top = dump["command"] as? [String: Any] else {
    FileHandle.standardError.write(Data("cannot read the command definitions from \(args[1])\n".utf8))
    exit(65)
}
let root = Command(top, parent: [])
let outputFolder = args[3]
try FileManager.default.createDirectory(atPath: outputFolder, withIntermediateDirectories: true)
var written: Set<String> = []
for c in root.all {
    let file = c.pageName + ".1"
    try page(for: c, root: root, date: args[4], proseFolder: args[2]).write(toFile: outputFolder + "/" + file, atomically: true, encoding: .utf8)
    written.insert(file)
}
for stale in try FileManager.default.contentsOfDirectory(atPath: outputFolder)
where stale.hasPrefix("trees") && stale.hasSuffix(".1") && !written.contains(stale) {
    try FileManager.default.removeItem(atPath: outputFolder + "/" + stale)
}
print("wrote \(written.count) pages to \(outputFolder)")
