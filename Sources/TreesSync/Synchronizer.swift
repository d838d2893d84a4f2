import Foundation
import TreesKit
import TreesStore

/// What one sync did (or, with `dryRun`, would do).
public struct SyncReport: Sendable, Equatable {
    public var remote: String
    public var dryRun: Bool
    /// Local changes sent: trees, collections, photos, care events and schedules, deletions.
    public var pushed = Counts()
    /// Changes of others merged into the store.
    public var pulled = Counts()
    /// Photo files uploaded and downloaded (by content hash, only when missing on the other side).
    public var photoFilesUploaded = 0
    public var photoFilesDownloaded = 0
    /// Values that lost to a later version (or to a deletion), kept in the trees' history.
    public var conflicts: [SyncConflict] = []

    public struct Counts: Sendable, Equatable {
        public var trees = 0, collections = 0, photos = 0, careEvents = 0, careSchedules = 0, deletions = 0
        public var total: Int { trees + collections + photos + careEvents + careSchedules + deletions }
    }
}

/// Progress of a sync, for a progress line.
public struct SyncProgress: Sendable {
    public enum Phase: String, Sendable { case push, pull }
    public var phase: Phase
    /// Items done so far in this phase.
    public var done: Int
    /// Items to do in this phase, when known.
    public var total: Int?
}

/// Brings a store and a PostgreSQL/PostGIS server to the same inventory: pushes what changed
/// locally since the last sync, then pulls what others pushed, page by page.
///
/// Each page is one server transaction and one store transaction, and the store records how far
/// it got in the same transaction as the page, so a sync cut at any point carries on where it
/// stopped; pushing a page twice changes nothing. Pulls read the change feed by (transaction id,
/// sequence) and only below the oldest transaction still running on the server, so a push that
/// commits after a later-numbered one is never skipped.
public struct Synchronizer {
    public var pageSize: Int
    public var progress: (@Sendable (SyncProgress) -> Void)?

    public init(pageSize: Int = 2000, progress: (@Sendable (SyncProgress) -> Void)? = nil) {
        self.pageSize = pageSize
        self.progress = progress
    }

    /// Creates or upgrades the server's schema.
    public static func initServer(_ target: RemoteTarget) throws(SyncError) -> (from: Int, to: Int) {
        let connection = try PostgresConnection(target: target)
        return try ServerSchema.migrate(connection)
    }

    /// Syncs `store` with its remote `remoteName`.
    public func sync(_ store: TreeStore, remote remoteName: String, dryRun: Bool = false) throws(SyncError) -> SyncReport {
        let remote = try storeCall { () throws -> SyncRemote in
            guard let r = try store.read({ try $0.remote(named: remoteName) }) else {
                throw StoreError.unknownRemote(remoteName, known: try store.read { try $0.remotes().map(\.name) })
            }
            return r
        }
        let target = try RemoteTarget(stored: remote.target)
        let connection = try PostgresConnection(target: target)
        try ServerSchema.check(connection)
        let device = try storeCall { try store.read { try $0.syncState() } }.deviceId
        var report = SyncReport(remote: remote.name, dryRun: dryRun)
        if dryRun {
            let local = try storeCall { try store.read { r in try r.changeCount(after: remote.pushedSeq) } }
            report.pushed.trees = local
            let waiting = try connection.execute("""
                SELECT count(*) FROM change WHERE (xid, seq) > ($1::xid8, $2::bigint) AND device <> $3
                """, [remote.pulledXid, String(remote.pulledSeq), device])
            report.pulled.trees = Int(waiting[0, 0] ?? "0") ?? 0
            return report
        }
        try push(store, remote: remote, device: device, connection: connection, report: &report)
        try PhotoTransfer.upload(store, connection: connection, report: &report)
        try pull(store, remote: remote.name, device: device, connection: connection, report: &report)
        try PhotoTransfer.download(store, connection: connection, report: &report)
        try storeCall { try store.write { try $0.markSynced(remote: remote.name) } }
        return report
    }

    // MARK: Push

    private func push(_ store: TreeStore, remote: SyncRemote, device: String, connection: PostgresConnection, report: inout SyncReport) throws(SyncError) {
        // The sequence number and the clock are read together: every version stamped up to
        // `through` is at most `clock`, and every later one is greater.
        let (state, waiting) = try storeCall { try store.read { r in (try r.syncState(), try r.changeCount(after: remote.pushedSeq)) } }
        let through = state.seq
        guard waiting > 0 else { return }
        var done = 0
        let collections = try storeCall { try store.read { try $0.changedCollections(after: remote.pushedSeq, through: through) } }
        if !collections.isEmpty {
            try retrying { () throws(SyncError) in
                try connection.transaction { () throws(SyncError) in
                    for c in collections { try ServerWriter.pushCollection(c, device: device, connection) }
                }
            }
            report.pushed.collections += collections.count
            done += collections.count
        }
        /// Sends one kind of change page by page, each page one server transaction (retried when it
        /// loses a race); values it reports lost go into the store's history. Returns how many were sent.
        func inPages<Item, Cursor>(_ read: (StoreReader, Cursor?) throws -> [Item], after cursor: (Item) -> Cursor,
                                   _ send: ([Item]) throws(SyncError) -> [SyncConflict]) throws(SyncError) -> Int {
            var position: Cursor?
            var sent = 0
            while true {
                let c = position
                let page = try storeCall { try store.read { try read($0, c) } }
                guard let last = page.last else { return sent }
                let conflicts = try retrying { () throws(SyncError) -> [SyncConflict] in
                    try connection.transaction { () throws(SyncError) -> [SyncConflict] in try send(page) }
                }
                if !conflicts.isEmpty { report.conflicts += try storeCall { try store.write { try $0.recordConflicts(conflicts) } } }
                sent += page.count
                done += page.count
                progress?(SyncProgress(phase: .push, done: done, total: waiting))
                position = cursor(last)
            }
        }
        let pushed = remote.pushedSeq
        report.pushed.trees += try inPages({ r, c in
            try r.changedTrees(after: pushed, pushedClock: remote.pushedClock, resuming: c, through: through, limit: pageSize)
        }, after: { ($0.seq, $0.row.id) }) { (page) throws(SyncError) in try ServerWriter.pushTrees(page.map(\.row), device: device, connection) }
        // Care events, photos, schedules and deletions follow the same way, so memory stays flat
        // however long the care log or the list of deletions. Events go before photos, so that a
        // photo taken for one finds it on every laptop that pulls them.
        report.pushed.careEvents += try inPages({ r, c in
            try r.changedCareEvents(after: pushed, resuming: c, through: through, limit: pageSize)
        }, after: { ($0.seq, $0.row.id) }) { (page) throws(SyncError) in
            try ServerWriter.pushCareEvents(page.map(\.row), device: device, connection)
            return []
        }
        report.pushed.photos += try inPages({ r, c in
            try r.changedPhotos(after: pushed, resuming: c, through: through, limit: pageSize)
        }, after: { ($0.seq, $0.row.id) }) { (page) throws(SyncError) in
            for p in page { try ServerWriter.pushPhoto(p.row, device: device, connection) }
            return []
        }
        report.pushed.careSchedules += try inPages({ r, c in
            try r.changedCareSchedules(after: pushed, resuming: c, through: through, limit: pageSize)
        }, after: { ($0.seq, $0.row.targetId, $0.row.kind) }) { (page) throws(SyncError) in
            try ServerWriter.pushCareSchedules(page.map(\.row), device: device, connection)
            return []
        }
        report.pushed.deletions += try inPages({ r, c in
            try r.tombstones(after: pushed, resuming: c, through: through, limit: pageSize)
        }, after: { ($0.seq, $0.tombstone.kind.rawValue, $0.tombstone.id) }) { (page) throws(SyncError) in
            try ServerWriter.pushTombstones(page.map(\.tombstone), device: device, connection)
        }
        try storeCall { try store.write { try $0.setPushed(remote: remote.name, seq: through, clock: state.clock) } }
    }

    // MARK: Pull

    private func pull(_ store: TreeStore, remote: String, device: String, connection: PostgresConnection, report: inout SyncReport) throws(SyncError) {
        guard let start = try storeCall({ try store.read { try $0.remote(named: remote) } }) else { return }
        var cursor = (xid: start.pulledXid, seq: start.pulledSeq)
        var done = 0
        while true {
            // Only transactions below the oldest one still running: every change they made is
            // committed (or never will be), so nothing can later appear behind the cursor.
            // The horizon is read first, as a value the planner can use; an older horizon is only
            // more careful. Ordered by the xid8 column itself (its text would put 999 after 1000).
            let horizon = try connection.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text")[0, 0] ?? "0"
            let changes = try connection.execute("""
                SELECT c.xid::text AS xid_text, c.seq, c.kind, c.entity_id::text, c.device FROM change c
                WHERE (c.xid, c.seq) > ($1::xid8, $2::bigint) AND c.xid < $4::xid8
                ORDER BY c.xid, c.seq LIMIT $3
                """, [cursor.xid, String(cursor.seq), String(pageSize), horizon])
            guard changes.count > 0 else { break }
            var ids: [String: Set<String>] = [:]
            for i in 0..<changes.count where changes[i, 4] != device {
                if let kind = changes[i, 2], let id = changes[i, 3] { ids[kind, default: []].insert(id) }
            }
            let next = (xid: changes[changes.count - 1, 0] ?? cursor.xid, seq: Int64(changes[changes.count - 1, 1] ?? "") ?? cursor.seq)
            if ids.isEmpty {
                try storeCall { try store.write { try $0.setPulled(remote: remote, cursor: next) } }
            } else {
                let page = try ServerReader.page(ids, connection)
                let applied = try storeCall { try store.write { try $0.applyPulled(page, remote: remote, cursor: next) } }
                report.pulled.trees += applied.trees
                report.pulled.collections += applied.collections
                report.pulled.photos += applied.photos
                report.pulled.careEvents += applied.careEvents
                report.pulled.careSchedules += applied.careSchedules
                report.pulled.deletions += applied.deletions
                report.conflicts += applied.conflicts
            }
            done += changes.count
            progress?(SyncProgress(phase: .pull, done: done, total: nil))
            cursor = next
            if changes.count < pageSize { break }
        }
    }

    /// Retries a page that lost a deadlock or a serialization race with another laptop's push.
    private func retrying<T>(_ body: () throws(SyncError) -> T) throws(SyncError) -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch .server(let state, let message) where (state == "40P01" || state == "40001") && attempt < 8 {
                attempt += 1
                _ = message
            }
        }
    }
}

/// Runs a store call, turning its error into `SyncError.store`.
func storeCall<T>(_ body: () throws -> T) throws(SyncError) -> T {
    do { return try body() } catch let e as SyncError { throw e } catch { throw .store(String(describing: error)) }
}
