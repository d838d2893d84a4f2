import GIS
import Interchange
import TreesStore

/// Why a workflow stopped, each with the one line a user reads and what kind of failure it is.
public enum WorkflowError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The kinds of failure, which a front end maps onto its own outcomes (exit statuses).
    public enum Kind: Sendable, Equatable {
        /// An input that is missing, a folder, or cannot be opened.
        case noInput
        /// A value given to the workflow that it cannot use (an empty destination).
        case usage
        /// An output file or folder that cannot be created.
        case cannotCreate
        /// An input whose content is malformed or is not what the workflow reads.
        case data
        /// Reading or writing failed (disk full, device gone).
        case io
        /// The workflow declined (a possible duplicate the user did not confirm).
        case refused
        /// Whatever the store's own error says (see `StoreError`).
        case store
        /// Whatever the photo's own error says (see `PhotoProblem`).
        case photo
        /// A library the workflow needs cannot be loaded (PROJ).
        case unavailable
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
    /// An empty name where an output file, a folder or `-` was expected.
    case emptyDestination
    /// An output file that cannot be created (`reason` says why).
    case cannotCreate(path: String, reason: String)
    /// Writing an output failed (disk full, device gone).
    case cannotWrite(path: String, reason: String)
    /// A photo file a row names is not in the store's photo folder.
    case photoMissing(path: String, tree: String)
    /// The Tree Tracker app needs an accuracy for every tree; `count` trees have none (`examples` name some).
    case accuracyMissing(count: Int, examples: [String])
    /// A photo file could not be written into the store's photo folder.
    case photo(PhotoProblem)
    /// A tree of the same species within the accuracy circle, not confirmed as a separate tree.
    case possibleDuplicate(CaptureSaver.Duplicate)
    /// The store refused or failed; `nothingStored` when a whole import was rolled back for it.
    case store(StoreError, nothingStored: Bool)
    /// An import from standard input into a new store lost the race to another process that made
    /// the store meanwhile; what it read cannot be read again.
    case storeMadeMeanwhile(store: String, file: String)
    /// A format that is a file, not a stream, asked for on standard output (`what`: "a GeoPackage").
    case notAStream(format: String, reading: Bool = false)
    /// An option given for a format it does not apply to (`--crs` with a GPX file).
    case optionNotForFormat(option: String, format: String, applies: String)
    /// A GeoPackage or a coordinate reference system could not be used.
    case gis(GISError)

    public var kind: Kind {
        switch self {
        case .noSuchFile, .isAFolder, .cannotOpen: .noInput
        case .undetectableFormat, .positionsNotTrees, .malformed: .data
        case .emptyDestination: .usage
        case .cannotCreate: .cannotCreate
        case .cannotRead, .cannotWrite: .io
        case .photoMissing: .noInput
        case .accuracyMissing: .refused
        case .possibleDuplicate, .storeMadeMeanwhile: .refused
        case .photo: .photo
        case .store: .store
        case .notAStream, .optionNotForFormat: .usage
        case .gis(let e):
            switch e {
            case .unknownCRS: .usage
            case .cannotTransform, .notAGeoPackage, .noPointLayer, .badRow, .badLayer: .data
            case .sqlite, .scratch: .io
            case .projUnavailable: .unavailable
            }
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
        case .emptyDestination: "an output needs a file, a folder or - for standard output"
        case .cannotCreate(let path, let reason), .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .photoMissing(let path, let tree): "photo \(path) of tree \(tree) is missing"
        case .accuracyMissing(let count, let examples):
            "\(count) tree\(count == 1 ? " has" : "s have") no accuracy, which the Tree Tracker app needs: "
                + examples.joined(separator: ", ") + (count > examples.count ? ", …" : "")
        case .possibleDuplicate(let d): d.message
        case .store(let e, let nothingStored): nothingStored ? "\(e.description); nothing was imported" : e.description
        case .storeMadeMeanwhile(let store, let file):
            "another process made the store \(store) while \(file) was being imported into a new one; nothing was imported: import it again"
        case .notAStream(let format, let reading):
            reading ? "\(format) is a database file and cannot be read from standard input; name the file"
                : "\(format) is a database file and cannot be written to standard output; give --out a file or a folder"
        case .gis(let e): e.description
        case .optionNotForFormat(let option, let format, let applies): "\(option) does not apply to \(format) files, only to \(applies)"
        }
    }
}
