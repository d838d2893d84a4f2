import Foundation

/// What can go wrong talking to a sync server.
public enum SyncError: Error, Equatable, CustomStringConvertible {
    /// The server could not be reached or refused the login.
    case connection(target: String, reason: String)
    /// The connection broke mid-way; what was committed stays, the next sync carries on.
    case connectionLost(target: String, reason: String)
    /// The server refused a statement (SQLSTATE and message).
    case server(sqlState: String, message: String)
    /// PostGIS is not installed on the server.
    case postgisMissing(String)
    /// The server's schema is newer than this `trees` knows, or was never initialised.
    case serverSchema(String)
    /// A remote given on the command line is not acceptable.
    case badRemote(String)
    /// No remote by that name.
    case unknownRemote(String, known: [String])
    /// A remote by that name exists already.
    case duplicateRemote(String)
    /// Something the server sent could not be read.
    case protocolError(String)
    /// The local store failed.
    case store(String)

    public var description: String {
        switch self {
        case .connection(let target, let reason): return "cannot connect to \(target): \(reason)"
        case .connectionLost(let target, let reason): return "the connection to \(target) was lost: \(reason); run sync again to carry on"
        case .server(let state, let message): return state.isEmpty ? "the server said: \(message)" : "the server said: \(message) (SQLSTATE \(state))"
        case .postgisMissing(let reason):
            return "PostGIS is not available on the server (\(reason)); install it there (Debian: apt-get install postgresql-15-postgis-3)"
        case .serverSchema(let reason): return reason
        case .badRemote(let reason): return "bad remote: \(reason)"
        case .unknownRemote(let name, let known):
            return "no remote named '\(name)'" + (known.isEmpty ? "; add one with 'trees remote add NAME URL'" : "; known: \(known.joined(separator: ", "))")
        case .duplicateRemote(let name): return "a remote named '\(name)' exists already; remove it first with 'trees remote rm \(name)'"
        case .protocolError(let reason): return "unexpected answer from the server: \(reason)"
        case .store(let reason): return reason
        }
    }
}
