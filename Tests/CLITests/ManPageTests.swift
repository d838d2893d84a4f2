import Foundation
import Testing
import TreesTestSupport

/// The committed manual pages and completions agree with the commands the binary defines.
///
/// When one of these fails after a command changed, run `scripts/generate-man` and commit.
@Suite struct ManPageTests {
    static let manFolder = Repository.url("man")

    struct Command {
        var path: [String]
        var abstract: String
        var arguments: [[String: Any]]
        var page: String { path.joined(separator: "-") }
    }

    /// Every command and subcommand, from the binary's own description of itself.
    static func commands(_ t: TreesProcess) throws -> [Command] {
        let r = try t.run(["--experimental-dump-help"])
        let dump = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        var result: [Command] = []
        func walk(_ o: [String: Any], _ parent: [String]) {
            guard let name = o["commandName"] as? String, name != "help" else { return }
            let path = parent + [name]
            result.append(Command(path: path, abstract: o["abstract"] as? String ?? "",
                                  arguments: (o["arguments"] as? [[String: Any]] ?? []).filter { $0["shouldDisplay"] as? Bool ?? true }))
            for s in o["subcommands"] as? [[String: Any]] ?? [] { walk(s, path) }
        }
        walk(try #require(dump["command"] as? [String: Any]), [])
        return result
    }

    static func page(_ name: String) throws -> String {
        try String(contentsOf: manFolder.appendingPathComponent(name + ".1"), encoding: .utf8)
    }

    @Test func everyCommandHasAPageWithEveryOption() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let commands = try Self.commands(t)
        #expect(commands.count > 10)
        for c in commands {
            guard let text = try? Self.page(c.page) else {
                Issue.record("man/\(c.page).1 is missing; run scripts/generate-man")
                continue
            }
            let nd = text.split(separator: "\n").first { $0.hasPrefix(".Nd ") }.map { String($0.dropFirst(4)).replacingOccurrences(of: "\\&", with: "") }
            var abstract = c.abstract
            while abstract.hasSuffix(".") { abstract.removeLast() }
            #expect(nd == abstract, "man/\(c.page).1 describes '\(c.path.joined(separator: " "))' differently; run scripts/generate-man")
            for a in c.arguments {
                let names = (a["names"] as? [[String: Any]] ?? []).compactMap { n -> String? in
                    guard let name = n["name"] as? String else { return nil }
                    return (n["kind"] as? String) == "long" ? "Fl -" + name : "Fl " + name
                }
                if a["kind"] as? String == "positional" {
                    let value = a["valueName"] as? String ?? ""
                    #expect(text.contains("Ar " + value), "man/\(c.page).1 lacks the argument <\(value)>; run scripts/generate-man")
                } else if c.path.count > 1 && names.contains(where: { $0 == "Fl -help" || $0 == "Fl -version" }) {
                    continue
                } else {
                    for name in names {
                        #expect(text.contains(name), "man/\(c.page).1 lacks the option \(name.dropFirst(3)); run scripts/generate-man")
                    }
                    if a["kind"] as? String == "option", let value = a["valueName"] as? String {
                        #expect(text.contains("Ar " + value), "man/\(c.page).1 lacks <\(value)>")
                    }
                }
            }
        }
    }

    @Test func everyPageBelongsToACommand() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let pages = Set(try Self.commands(t).map { $0.page + ".1" })
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.manFolder.path).filter { $0.hasSuffix(".1") }
        #expect(Set(files) == pages, "run scripts/generate-man")
    }

    @Test func trees1DocumentsSourcesAccuracyEnvironmentAndExitStatus() throws {
        let text = try Self.page("trees")
        for needle in ["gpsd://", "serial:", "replay:", "?baud=", "?speed=", "Excellent", "Acceptable", "Marginal", "Poor",
                       "95% confidence", ".It Ev TREES_DB", ".It Ev XDG_DATA_HOME", ".It Ev NO_COLOR", ".It Ev TREES_NOW",
                       ".Sh FILES", ".Sh EXAMPLES"] {
            #expect(text.contains(needle), "trees.1 lacks \(needle)")
        }
        // The exit statuses are those the code defines, as the README lists them.
        let readme = try String(contentsOf: Repository.url("README.md"), encoding: .utf8)
        let statuses = try NSRegularExpression(pattern: #"^\| (\d+) \|"#, options: .anchorsMatchLines)
            .matches(in: readme, range: NSRange(readme.startIndex..., in: readme))
            .compactMap { Range($0.range(at: 1), in: readme).map { String(readme[$0]) } }
        #expect(statuses.count >= 9)
        let exitSection = try #require(text.components(separatedBy: ".Sh \"EXIT STATUS\"").last?.components(separatedBy: ".Sh ").first)
        for status in statuses { #expect(exitSection.contains(".It \(status)\n"), "trees.1 lacks exit status \(status)") }
    }

    @Test(.enabled(if: Tool.mandoc.shouldRun)) func mandocLintReportsNothing() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.manFolder.path).filter { $0.hasSuffix(".1") }.sorted()
        #expect(!files.isEmpty)
        let lint = try Program.run("/usr/bin/mandoc", ["-Tlint", "--"] + files, currentDirectory: Self.manFolder)
        #expect(lint.stdout + lint.stderr == "")
        #expect(lint.status == 0)
    }

    @Test(arguments: [("bash", "trees.bash"), ("zsh", "_trees"), ("fish", "trees.fish")])
    func completionsAreCurrent(shell: String, file: String) throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let generated = try t.run(["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let committed = try String(contentsOf: Repository.url("completions/\(file)"), encoding: .utf8)
        #expect(committed == generated.stdout, "completions/\(file) is out of date; run scripts/generate-man")
        #expect(committed.contains("photo") && committed.contains("stats") && committed.contains("map"))
    }

    /// `make install` puts the binary, every page and the completions under PREFIX; `man` finds the page; `make uninstall` removes them.
    @Test func installAndUninstall() throws {
        let t = try TreesProcess()
        defer { t.cleanUp() }
        let prefix = t.folder.appendingPathComponent("prefix with space").path
        func make(_ target: String) throws -> ProgramOutput {
            try Program.run("/usr/bin/make", ["-s", target, "PREFIX=\(prefix)", "BIN=\(TreesProcess.executable.path)"],
                            currentDirectory: Repository.root)
        }
        let installed = try make("install")
        #expect(installed.status == 0, "\(installed)")
        let fm = FileManager.default
        #expect(fm.isExecutableFile(atPath: prefix + "/bin/trees"))
        let pages = try fm.contentsOfDirectory(atPath: Self.manFolder.path).filter { $0.hasSuffix(".1") }
        for page in pages { #expect(fm.fileExists(atPath: prefix + "/share/man/man1/" + page)) }
        for file in ["bash-completion/completions/trees", "zsh/site-functions/_trees", "fish/vendor_completions.d/trees.fish"] {
            #expect(fm.fileExists(atPath: prefix + "/share/" + file))
        }
        let version = try t.run(["--version"])
        #expect(try Program.run(prefix + "/bin/trees", ["--version"]).stdout == version.stdout)

        var env = ProcessInfo.processInfo.environment
        env["MANPAGER"] = "cat"; env["PAGER"] = "cat"; env["MANWIDTH"] = "80"; env["LANG"] = "C.UTF-8"
        let man = try Program.run("/usr/bin/man", ["-M", prefix + "/share/man", "trees-photo-add"], environment: env)
        #expect(man.status == 0)
        #expect(man.stdout.contains("Attach photo files to a tree"), "\(man.stdout)")

        let removed = try make("uninstall")
        #expect(removed.status == 0, "\(removed)")
        let left = fm.enumerator(atPath: prefix)?.allObjects.compactMap { $0 as? String }
            .filter { (try? fm.attributesOfItem(atPath: prefix + "/" + $0)[.type] as? FileAttributeType) != .typeDirectory } ?? []
        #expect(left == [])
    }
}
