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
