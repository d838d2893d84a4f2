/// A C library opened the first time a command needs it, not linked (libpq, PROJ, libgps: see the
/// CPQ, CPROJ and CGPS modules): its table of functions, or why it cannot be opened.
public enum LoadedLibrary {
    public struct Unavailable: Error, Sendable { public var why: String }

    /// Runs a module's loader (`trees_pq_load` and the like: the table, or nil with the reason set)
    /// and keeps its answer; call it once, from a `static let`.
    public static func load<Functions>(
        _ loader: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> UnsafePointer<Functions>?
    ) -> Result<Functions, Unavailable> {
        var why: UnsafePointer<CChar>?
        guard let functions = loader(&why) else { return .failure(Unavailable(why: why.map { String(cString: $0) } ?? "unknown error")) }
        return .success(functions.pointee)
    }
}
