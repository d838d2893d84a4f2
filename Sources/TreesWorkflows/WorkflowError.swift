import Interchange
import TreesStore

/// Why a workflow stopped, each with the one line a user reads and what kind of failure it is.
public enum WorkflowError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kinds of failure, which a front end maps onto its own outcomes (exit statuses).
    public enum Kind: Sendable, Equatable {
        /// An input that is missing, a folder, or cannot be opened.
        case noInput
        /// An input whose content is malformed or is not what the workflow reads.
        case data
        /// Reading or writing failed (disk full, device gone).
        case io
        /// The workflow declined (a possible duplicate the user did not confirm).
        case refused
        /// Whatever the store's own error says (see `StoreError`).
        case store
        /// Whatever the photo's own error says (see `PhotoError`).
        case photo
    }

    case noSuchFile(String)
    case isAFolder(String)
    case cannotOpen(String)
    case cannotRead(file: String, reason: String)
    case undetectableFormat(file: String)
    /// An NMEA log given to a workflow that reads trees.
    case positionsNotTrees(file: String, path: String)
    /// A malformed file, refused at `line` (when known) with `reason`.
    case malformed(file: String, line: Int?, reason: String)
    /// A photo file could not be written into the store's photo folder.
    case photo(PhotoError)
    /// A tree of the same species within the accuracy circle, not confirmed as a separate tree.
    case possibleDuplicate(CaptureSaver.Duplicate)
    /// The store refused or failed; `nothingStored` when a whole import was rolled back for it.
    case store(StoreError, nothingStored: Bool)

    public var kind: Kind {
        switch self {
        case .noSuchFile, .isAFolder, .cannotOpen: .noInput
        case .undetectableFormat, .positionsNotTrees, .malformed: .data
        case .cannotRead: .io
        case .possibleDuplicate: .refused
        case .photo: .photo
        case .store: .store
        }
    }

    public var description: String {
        switch self {
        case .noSuchFile(let path): "\(path): no such file"
        case .isAFolder(let path): "\(path) is a folder, not a file"
        case .cannotOpen(let path): "\(path): cannot be read"
        case .cannotRead(let file, let reason): "\(file): \(reason)"
        case .undetectableFormat(let file): "\(file): cannot tell the format from the name or content; use --format gpx|json|csv"
        case .positionsNotTrees(let file, let path):
            "\(file) is an NMEA log: it holds positions, not trees; use 'trees capture --source replay:\(path)'"
        case .malformed(let file, let line, let reason): line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)"
        case .photo(let e): e.description
        case .possibleDuplicate(let d): d.message
        case .store(let e, let nothingStored): nothingStored ? "\(e.description); nothing was imported" : e.description
        }
    }
}
