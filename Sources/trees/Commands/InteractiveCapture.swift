import Foundation
import TreesKit
import TreesStore

/// The interactive capture on a terminal: live view and gate, prompts, Save / Re-capture / Discard.
struct InteractiveCapture {
    let command: CaptureCommand
    let store: TreeStore
    let existing: Tree?

    func run() async throws {
        throw CLIError("interactive capture is not available yet; use --auto", status: .usage)
    }
}
