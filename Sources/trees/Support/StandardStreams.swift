import Foundation
import TreesKit
import TreesStore
import TreesWorkflows

/// Writes command output to standard output, unbuffered.
///
/// Output that cannot be written (a full disk, a closed device) ends the command: the reason goes
/// to standard error and the exit status is 74. (A closed pipe ends it by SIGPIPE, as for any tool
/// in a pipeline.)
enum Output {
    /// A line of human output: control characters in it (from stored or imported text) are
    /// escaped, colour sequences and tabs kept.
    static func line(_ text: String = "") { human(text + "\n") }

    /// Human output: control characters escaped; line feeds, tabs and (when colour is on) colour
    /// sequences kept.
    static func human(_ text: String) {
        self.text(TerminalText.escapedKeepingLayout(text, keepingColour: Terminal.current.colour))
    }

    /// Text written as it is (machine formats, the live view's own terminal control).
    static func text(_ text: String) {
        var t = text
        t.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    static func json(_ value: JSON) {
        var bytes = value.bytes()
        bytes.append(0x0A)
        bytes.withUnsafeBytes { write($0) }
    }

    static func write(_ bytes: UnsafeRawBufferPointer) {
        guard let code = writeAll(STDOUT_FILENO, bytes) else { return }
        StandardError.write("trees: cannot write standard output: \(String(cString: strerror(code)))\n")
        exit(ExitStatus.ioError.rawValue)
    }
}

/// Writes to standard error, unbuffered; a failure is ignored (there is nowhere left to report it).
enum StandardError {
    static func write(_ text: String) {
        var t = text
        t.withUTF8 { _ = writeAll(STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}
