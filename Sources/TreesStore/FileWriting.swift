import Foundation

/// Writes all of `bytes` to `fd`, retrying after interruptions and short writes; the `errno`
/// of a failure, nil on success.
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard var p = bytes.baseAddress else { return nil }
    var left = bytes.count
    while left > 0 {
        let n = Foundation.write(fd, p, left)
        if n < 0 {
            if errno == EINTR { continue }
            return errno
        }
        p += n
        left -= n
    }
    return nil
}

/// Asks the kernel to start writing a range of `fd` to disk now, without waiting for it
/// (`sync_file_range(2)` with `SYNC_FILE_RANGE_WRITE`; a length of 0 means to the end of the file).
/// A hint: nothing happens where the C library lacks the call, and a failure is left for the sync
/// that makes the file durable to report.
package func startWriteback(_ fd: Int32, offset: Int64 = 0, length: Int64 = 0) {
    _ = syncFileRange?(fd, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */)
}

/// `sync_file_range(2)`, which the Glibc module does not declare; nil where the C library lacks it.
private let syncFileRange: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int64, Int64, UInt32) -> Int32).self)
}()

/// Hands a file's dirty pages to the kernel's writeback at a steady pace while a long write to it
/// goes on, from a thread of its own, so that the sync that makes the file durable at the end
/// waits only for the pages written last.
///
/// SQLite writes a store made unseen straight into its file as pages leave its cache, and the
/// kernel, left to itself, holds them in memory until that sync: for a million imported trees
/// (480 MB) the sync alone took 0.4 s, a tenth of the import, with the disk idle before it.
final class BackgroundWriteback: @unchecked Sendable {
    private let fd: Int32
    private let interval: TimeInterval
    private let condition = NSCondition()
    private var stopped = false
    private var finished = false
    /// Writeback requests made so far (guarded by `condition`).
    private var requests = 0

    /// Starts handing the file at `path` to writeback every `interval` seconds; nil when it cannot
    /// be opened (then nothing is done early and the final sync does it all).
    init?(path: String, every interval: TimeInterval = 0.25) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        self.interval = interval
        let thread = Thread { [self] in run() }
        thread.name = "trees.writeback"
        thread.start()
    }

    private func run() {
        condition.lock()
        while !stopped {
            if condition.wait(until: Date(timeIntervalSinceNow: interval)) || stopped { continue }
            condition.unlock()
            startWriteback(fd)
            condition.lock()
            requests += 1
        }
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The number of requests made so far, read under the lock.
    var requestCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return requests
    }

    /// Stops the thread, waits for it to end and closes the file. Call it once.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        close(fd)
    }
}
