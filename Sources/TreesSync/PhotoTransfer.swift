import Foundation
import TreesKit
import TreesStore

/// Photo files move by content hash, in chunks of 1 MiB, and only when the other side lacks them:
/// memory stays at one chunk whatever the size of the photo.
enum PhotoTransfer {
    static let chunkSize = 1 << 20

    static func upload(_ store: TreeStore, connection: PostgresConnection, report: inout SyncReport) throws(SyncError) {
        let files = try storeCall { try store.read { try $0.photoFiles() } }
        guard !files.isEmpty else { return }
        let known = try connection.execute("SELECT sha256 FROM photo_file WHERE sha256 = ANY($1::text[])", ["{" + files.map(\.sha256).joined(separator: ",") + "}"])
        let present = Set((0..<known.count).compactMap { known[$0, 0] })
        let library = store.photoLibrary
        for file in files where !present.contains(file.sha256) {
            let path = library.folder + "/" + file.sha256 + "." + file.format
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            defer { try? handle.close() }
            try connection.transaction { () throws(SyncError) in
                try connection.execute("DELETE FROM photo_chunk WHERE sha256 = $1", [file.sha256])
                var n = 0, total = 0
                while true {
                    let data: Data
                    do { data = try handle.read(upToCount: chunkSize) ?? Data() } catch { throw .store("cannot read \(path): \(error.localizedDescription)") }
                    if data.isEmpty { break }
                    try connection.execute("INSERT INTO photo_chunk (sha256, n, bytes) VALUES ($1, $2::integer, $3::bytea)",
                                           [file.sha256, String(n), "\\x" + hex(data)])
                    n += 1
                    total += data.count
                }
                try connection.execute("INSERT INTO photo_file (sha256, byte_count) VALUES ($1, $2::bigint) ON CONFLICT DO NOTHING", [file.sha256, String(total)])
            }
            report.photoFilesUploaded += 1
        }
    }

    static func download(_ store: TreeStore, connection: PostgresConnection, report: inout SyncReport) throws(SyncError) {
        let files = try storeCall { try store.read { try $0.photoFiles() } }
        let library = store.photoLibrary
        let fm = FileManager.default
        for file in files {
            let path = library.folder + "/" + file.sha256 + "." + file.format
            if fm.fileExists(atPath: path) { continue }
            let count = try connection.execute("SELECT count(*) FROM photo_chunk c JOIN photo_file f USING (sha256) WHERE sha256 = $1", [file.sha256])
            let chunks = Int(count[0, 0] ?? "0") ?? 0
            guard chunks > 0 else { continue }
            try? fm.createDirectory(atPath: library.folder, withIntermediateDirectories: true)
            let temporary = library.folder + "/.download-" + file.sha256
            guard fm.createFile(atPath: temporary, contents: nil), let out = FileHandle(forWritingAtPath: temporary) else {
                throw .store("cannot write \(temporary)")
            }
            var digest = SHA256()
            do {
                for n in 0..<chunks {
                    let row = try connection.execute("SELECT bytes FROM photo_chunk WHERE sha256 = $1 AND n = $2::integer", [file.sha256, String(n)])
                    guard let text = row[0, 0], let bytes = unhex(text) else { throw SyncError.protocolError("photo \(file.sha256) chunk \(n) is unreadable") }
                    digest.update(bytes)
                    try out.write(contentsOf: bytes)
                }
                try out.close()
            } catch {
                try? out.close()
                try? fm.removeItem(atPath: temporary)
                if let e = error as? SyncError { throw e }
                throw .store("cannot write \(temporary): \(error.localizedDescription)")
            }
            guard digest.finalizeHex() == file.sha256 else {
                try? fm.removeItem(atPath: temporary)
                throw .protocolError("photo \(file.sha256) arrived with other content")
            }
            if rename(temporary, path) != 0 { throw .store("cannot move \(temporary) to \(path)") }
            report.photoFilesDownloaded += 1
        }
    }

    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: data.count * 2)
        var i = 0
        for b in data {
            out[i] = digits[Int(b >> 4)]; out[i + 1] = digits[Int(b & 15)]
            i += 2
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of PostgreSQL's hex output of a bytea (`\x0a1b…`).
    static func unhex(_ text: String) -> [UInt8]? {
        let u = Array(text.utf8)
        guard u.count >= 2, u[0] == 0x5C, u[1] == 0x78, u.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity((u.count - 2) / 2)
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            case 0x41...0x46: c - 0x41 + 10
            default: nil
            }
        }
        var i = 2
        while i < u.count {
            guard let hi = v(u[i]), let lo = v(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }
}
