import Foundation

/// A TCP connection to an NTRIP caster, blocking with timeouts, used from a thread of its own.
final class NTRIPSocket {
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    struct ConnectFailure: Error { var reason: String }

    /// Connects to the first address of `host` that answers within `timeout`.
    static func connect(host: String, port: Int, timeout: Duration, stop: StopFlag) -> Result<NTRIPSocket, ConnectFailure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        if status != 0 { return .failure(ConnectFailure(reason: "cannot resolve \(host): " + String(cString: gai_strerror(status)))) }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var entry = list
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.pointee.ai_protocol)
            if fd < 0 { reason = String(cString: strerror(errno)); continue }
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            if Foundation.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return .success(NTRIPSocket(fd: fd)) }
            guard errno == EINPROGRESS else {
                reason = String(cString: strerror(errno))
                Foundation.close(fd)
                continue
            }
            let deadline = ContinuousClock.now + timeout
            var outcome: Int32 = ETIMEDOUT
            while ContinuousClock.now < deadline && !stop.isSet {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&p, 1, 250)
                if ready < 0 && errno != EINTR { outcome = errno; break }
                if ready > 0 {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    outcome = error
                    break
                }
            }
            if outcome == 0 { return .success(NTRIPSocket(fd: fd)) }
            reason = stop.isSet ? "stopped" : String(cString: strerror(outcome))
            Foundation.close(fd)
        }
        return .failure(ConnectFailure(reason: reason))
    }

    func close() { Foundation.close(fd) }

    /// Sends all of `bytes`; nil when sent, else why not.
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) -> String? {
        var offset = 0
        let deadline = ContinuousClock.now + timeout
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n > 0 { offset += n; continue }
            if n < 0 && errno != EAGAIN && errno != EINTR { return String(cString: strerror(errno)) }
            if ContinuousClock.now > deadline { return "the caster takes no more data" }
            var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            _ = poll(&p, 1, 250)
        }
        return nil
    }

    enum Read: Equatable {
        case bytes(Int)
        case timedOut
        case closed
        case failed(String)
    }

    /// Waits up to `waitMilliseconds` for bytes and reads what there is into `buffer`.
    func read(into buffer: inout [UInt8], waitMilliseconds: Int32) -> Read {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, waitMilliseconds)
        if ready < 0 { return errno == EINTR ? .timedOut : .failed(String(cString: strerror(errno))) }
        if ready == 0 { return .timedOut }
        let n = buffer.withUnsafeMutableBytes { Foundation.recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 { return .bytes(n) }
        if n == 0 { return .closed }
        if errno == EAGAIN || errno == EINTR { return .timedOut }
        return .failed(String(cString: strerror(errno)))
    }
}

/// Turns a caster's answer other than the stream asked for into the error a user reads.
enum NTRIPFailure {
    static func error(for answer: NTRIPAnswer, endpoint: NTRIPEndpoint, password: String?) -> LocationError {
        let caster = endpoint.caster
        switch answer {
        case .stream:
            return .ntripNotACaster(caster: caster, sent: "a stream where its source table was asked for")
        case .sourceTable:
            return .ntripNoMount(caster: caster, mount: endpoint.mount ?? "", answer: "it answered with its source table")
        case let .status(code, reason) where code == 401 || code == 403:
            return .ntripUnauthorized(caster: caster, mount: endpoint.mount, user: endpoint.user, hadPassword: password != nil,
                                      status: "HTTP \(code) \(reason)")
        case let .status(404, reason) where endpoint.mount != nil:
            return .ntripNoMount(caster: caster, mount: endpoint.mount ?? "", answer: "HTTP 404 \(reason)")
        case let .status(code, reason):
            return .ntripRefused(caster: caster, reason: "HTTP \(code) \(reason)")
        case let .error(line):
            if line.lowercased().contains("password") || line.lowercased().contains("auth") {
                return .ntripUnauthorized(caster: caster, mount: endpoint.mount, user: endpoint.user, hadPassword: password != nil,
                                          status: line)
            }
            return .ntripRefused(caster: caster, reason: line)
        case let .garbage(text):
            return .ntripNotACaster(caster: caster, sent: text.isEmpty ? "nothing" : "'\(text)'")
        }
    }
}
