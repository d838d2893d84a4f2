import Foundation
import Location
import TreesStore
import TreesSync
import TreesWorkflows

/// Exit statuses of `trees`, documented in trees(1).
enum ExitStatus: Int32 {
    case success = 0
    /// Something named on the command line does not exist or is ambiguous; a refused operation.
    case failure = 1
    /// `trees capture --auto`: no acceptable fix before the timeout or the end of the source.
    case noAcceptableFix = 3
    /// A bad option value or a missing confirmation.
    case usage = 64
    /// An input file whose content is malformed.
    case dataError = 65
    /// An input file that is missing or unreadable.
    case noInput = 66
    /// The location source (gpsd, a device) cannot be reached.
    case unavailable = 69
    /// The database or an output file cannot be created.
    case cannotCreate = 73
    /// Reading or writing failed (disk full, device gone).
    case ioError = 74
    /// The store stayed locked by another process for longer than a command waits: try again.
    case busy = 75
    /// Ended by SIGHUP (128 + 1).
    case hangUp = 129
    /// Interrupted by Ctrl-C or SIGINT (128 + 2).
    case interrupted = 130
    /// Ended by SIGTERM (128 + 15).
    case terminated = 143
}

/// An error the command line reports as one line on standard error, with an exit status.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var status: ExitStatus

    init(_ message: String, status: ExitStatus = .failure) {
        self.message = message
        self.status = status
    }

    var description: String { message }

    /// Maps errors from the libraries onto messages and exit statuses.
    static func from(_ error: any Error) -> CLIError {
        switch error {
        case let e as CLIError: return e
        case let e as WorkflowError:
            switch e.kind {
            case .noInput: return CLIError(e.description, status: .noInput)
            case .usage:
                if case .emptyDestination = e { return CLIError("--out needs a file, a folder or - for standard output", status: .usage) }
                return CLIError(e.description, status: .usage)
            case .cannotCreate: return CLIError(e.description, status: .cannotCreate)
            case .data: return CLIError(e.description, status: .dataError)
            case .io: return CLIError(e.description, status: .ioError)
            case .unavailable: return CLIError(e.description, status: .unavailable)
            case .refused:
                switch e {
                case .possibleDuplicate: return CLIError(e.description + "; pass --allow-duplicate to save anyway")
                case .accuracyMissing: return CLIError(e.description + "; give one with --unknown-accuracy M or set it with 'trees edit'")
                default: return CLIError(e.description)
                }
            case .photo:
                guard case .photo(let p) = e else { return CLIError(e.description) }
                return PhotoErrors.cliError(p)
            case .store:
                guard case .store(let s, let nothingStored) = e else { return CLIError(e.description) }
                return nothingStored ? CLIError(e.description, status: .ioError) : from(s)
            }
        case let e as LocationError:
            switch e {
            case .gpsdUnreachable, .gpsdRefused, .libgpsUnavailable, .serialUnavailable, .noNMEA: return CLIError(e.description, status: .unavailable)
            case .badSourceURI: return CLIError(e.description, status: .usage)
            case .stdinUnreadable, .cannotReadTrack: return CLIError(e.description, status: .ioError)
            case .cannotOpenTrack: return CLIError(e.description, status: .noInput)
            case .noNMEAInTrack: return CLIError(e.description, status: .dataError)
            case .badNTRIPURL: return CLIError(e.description, status: .usage)
            case .ntripPasswordUnreadable: return CLIError(e.description, status: .noInput)
            case .ntripUnreachable, .ntripSilent, .ntripLost: return CLIError(e.description, status: .unavailable)
            case .ntripUnauthorized, .ntripNoMount, .ntripRefused, .ntripNotACaster: return CLIError(e.description, status: .failure)
            }
        case let e as SyncError:
            switch e {
            case .connection, .connectionLost, .postgisMissing: return CLIError(e.description, status: .unavailable)
            case .badRemote: return CLIError(e.description, status: .usage)
            case .server, .protocolError, .serverSchema: return CLIError(e.description, status: .failure)
            case .unknownRemote, .duplicateRemote, .store: return CLIError(e.description, status: .failure)
            }
        case let e as StoreError:
            if case .photo(let p) = e { return PhotoErrors.cliError(p) }
            switch e {
            case .cannotCreate, .notATreesDatabase, .newerSchema: return CLIError(e.description, status: .cannotCreate)
            case .invalidID, .invalidCollectionName: return CLIError(e.description, status: .usage)
            case .storage: return CLIError(e.description, status: .ioError)
            case .damagedRow, .unstorable, .damagedFile: return CLIError(e.description, status: .dataError)
            case .busy: return CLIError(e.description, status: .busy)
            default: return CLIError(e.description, status: .failure)
            }
        default:
            return CLIError(String(describing: error), status: .failure)
        }
    }
}

extension AsyncThrowingStream where Failure == any Error, Element: Sendable {
    /// The same elements; an error that ends the stream passes through `transform` first.
    func mappingErrors(_ transform: @escaping @Sendable (any Error) -> any Error) -> AsyncThrowingStream<Element, any Error> {
        let base = self
        return AsyncThrowingStream { out in
            let task = Task {
                do {
                    for try await element in base { out.yield(element) }
                    out.finish()
                } catch {
                    out.finish(throwing: transform(error))
                }
            }
            out.onTermination = { _ in task.cancel() }
        }
    }
}
