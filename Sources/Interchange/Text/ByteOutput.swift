import TreesKit

/// A reusable output buffer that hands full blocks of bytes to a sink.
///
/// Writers append text here; the bytes reach the sink every 64 KiB and at `flush()`, so an
/// export of any size needs only one small buffer.
public struct ByteOutput {
    public typealias Sink = ([UInt8]) throws -> Void

    private var buffer: [UInt8] = []
    private let sink: Sink
    private let blockSize: Int
    /// Bytes handed to the sink so far plus those still buffered.
    public private(set) var byteCount = 0

    public init(blockSize: Int = 1 << 18, sink: @escaping Sink) {
        self.sink = sink
        self.blockSize = blockSize
        buffer.reserveCapacity(blockSize + 4096)
    }

    /// Collects into a string (for tests and small documents).
    public static func collecting(into box: StringBox) -> ByteOutput {
        ByteOutput { box.bytes.append(contentsOf: $0) }
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        byteCount += s.utf8CodeUnitCount
    }

    @inline(__always) mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { buffer.append(contentsOf: $0); byteCount += $0.count }
    }

    @inline(__always) mutating func append(byte: UInt8) {
        buffer.append(byte)
        byteCount += 1
    }

    mutating func append(bytes: some Sequence<UInt8>) {
        let before = buffer.count
        buffer.append(contentsOf: bytes)
        byteCount += buffer.count - before
    }

    /// Passes a full block to the sink; call between records.
    @inline(__always) mutating func flushIfFull() throws {
        if buffer.count >= blockSize { try flush() }
    }

    public mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Text escaped for XML content or attribute values (`TextCodec.appendXMLEscaped`).
    mutating func appendXMLEscaped(_ s: String) {
        appendEncoded { TextCodec.appendXMLEscaped(s, to: &$0) }
    }

    /// Hands the buffered bytes to a sink that cannot fail (`collecting(into:)`).
    mutating func flushToBox() {
        guard !buffer.isEmpty else { return }
        // A collecting sink only appends to memory: it has no error to throw.
        try? sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Lets the text codec append straight into the buffer.
    @inline(__always) mutating func appendEncoded(_ body: (inout [UInt8]) -> Void) {
        let before = buffer.count
        body(&buffer)
        byteCount += buffer.count - before
    }
}

/// A mutable byte collector used with `ByteOutput.collecting(into:)`.
public final class StringBox: @unchecked Sendable {
    public var bytes: [UInt8] = []
    public init() {}
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}
