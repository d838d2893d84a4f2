import Foundation

/// Where a remote lives: a `postgres://` URL without a password, or a libpq service name.
///
/// A URL that carries a password (`postgres://user:secret@host/db`, `?password=`, or a client
/// key's passphrase in `?sslpassword=`) is refused, not stripped: the password has already been
/// typed on a command line, and keeping the rest would hide that it was ignored. Passwords come
/// from `PGPASSWORD`, `~/.pgpass` or a service file. Messages about what was typed never repeat
/// it, since it may hold a password.
public enum RemoteTarget: Sendable, Equatable {
    case url(String)
    case service(String)

    /// Parses what the user typed.
    public init(parsing text: String) throws(SyncError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        if lower.hasPrefix("postgres://") || lower.hasPrefix("postgresql://") {
            guard let parts = URLComponents(string: trimmed), parts.host != nil || parts.path.count > 1 || parts.query != nil else {
                throw .badRemote("the URL is malformed")
            }
            let secrets = Set(["password", "sslpassword"])
            if parts.password != nil || (parts.queryItems ?? []).contains(where: { secrets.contains($0.name.lowercased()) }) {
                throw .badRemote("the URL carries a password; remove it and give it through PGPASSWORD, ~/.pgpass or a service file")
            }
            self = .url(trimmed)
        } else if !trimmed.isEmpty, trimmed.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_.-".unicodeScalars.contains($0)) }) {
            self = .service(trimmed)
        } else if trimmed.contains("=") {
            throw .badRemote("key=value connection strings are not taken; give a postgres:// URL (no password) or a service name")
        } else {
            throw .badRemote("the remote is neither a postgres:// URL nor a service name (letters, digits, '_', '.', '-')")
        }
    }

    /// What is stored and shown: the URL, or `service=NAME`.
    public var display: String {
        switch self {
        case .url(let u): return u
        case .service(let s): return "service=\(s)"
        }
    }

    /// The stored text, read back by `init(stored:)`.
    public var stored: String { display }

    public init(stored: String) throws(SyncError) {
        if stored.hasPrefix("service=") { self = .service(String(stored.dropFirst("service=".count))) } else { try self.init(parsing: stored) }
    }
}
