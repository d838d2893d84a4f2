import TreesKit

/// A reusable output buffer that hands full blocks of bytes to a sink.
///
/// Writers append text here; the bytes reach the sink every 256 KiB and at `flush()`, so an
/// export of any size needs only one small buffer.
///
/// The text codec writes numbers, times and escaped text straight into the buffer's memory, and
/// an append is a capacity check and a copy: an export's writing thread spends its time making
/// text, not growing arrays. Copies of a `ByteOutput` share one buffer, so each is kept by one
/// writer and used by one thread at a time.
public struct ByteOutput {
    public typealias Sink = (UnsafeBufferPointer<UInt8>) throws -> Void

    /// Owns the buffer's memory: freed when the last copy of the output goes.
    private final class Memory {
        var start: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { start = .allocate(capacity: capacity) }
        deinit { start.deallocate() }
    }

    private let memory: Memory
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes in the buffer.
    private var used = 0
    /// Bytes handed to the sink so far.
    private var handedOver = 0
    private let sink: Sink
    private let blockSize: Int
    /// The time written last, with its text.
    var lastTime = RecentTime()

    /// Bytes handed to the sink so far plus those still buffered.
    public var byteCount: Int { handedOver + used }

    public init(blockSize: Int = 1 << 18, sink: @escaping Sink) {
        self.sink = sink
        self.blockSize = blockSize
        capacity = blockSize + 16_384
        memory = Memory(capacity: capacity)
        start = memory.start
    }

    /// Collects into a string (for tests and small documents).
    public static func collecting(into box: StringBox) -> ByteOutput {
        ByteOutput { box.bytes.append(contentsOf: $0) }
    }

    /// Room for `count` more bytes: where they go.
    @inline(__always) private mutating func room(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if used + count > capacity { grow(toHold: used + count) }
        return start + used
    }

    /// A buffer twice as large (or as large as asked), for a record larger than a block (a tree
    /// with its photos embedded).
    @inline(never) private mutating func grow(toHold count: Int) {
        let larger = max(capacity * 2, count)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: start, count: used)
        start.deallocate()
        memory.start = moved
        start = moved
        capacity = larger
    }

    /// Lets the text codec write straight into the buffer: `body` gets room for `maxCount` bytes
    /// and returns how many it wrote.
    @inline(__always) mutating func appendWritten(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        used += body(room(maxCount))
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        let count = s.utf8CodeUnitCount
        Self.copy(s.utf8Start, count: count, to: room(count))
        used += count
    }

    /// Copies `count` bytes: 8 to 32 of them (a writer's tags, most names) as words, the last
    /// word overlapping the one before, without a call to `memmove`.
    @inline(__always) static func copy(_ from: UnsafePointer<UInt8>, count: Int, to: UnsafeMutablePointer<UInt8>) {
        guard count >= 8 && count <= 32 else {
            to.initialize(from: from, count: count)
            return
        }
        let source = UnsafeRawPointer(from), target = UnsafeMutableRawPointer(to)
        var i = 0
        while i < count - 8 {
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: i, as: UInt64.self), toByteOffset: i, as: UInt64.self)
            i += 8
        }
        target.storeBytes(of: source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self), toByteOffset: count - 8, as: UInt64.self)
    }

    @inline(__always) mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { append(bytes: $0) }
    }

    @inline(__always) mutating func append(byte: UInt8) {
        room(1).initialize(to: byte)
        used += 1
    }

    @inline(__always) mutating func append(bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        Self.copy(base, count: bytes.count, to: room(bytes.count))
        used += bytes.count
    }

    mutating func append(_ byte: UInt8, repeating count: Int) {
        guard count > 0 else { return }
        room(count).initialize(repeating: byte, count: count)
        used += count
    }

    /// Passes a full block to the sink; call between records.
    @inline(__always) mutating func flushIfFull() throws {
        if used >= blockSize { try flush() }
    }

    public mutating func flush() throws {
        guard used > 0 else { return }
        try sink(UnsafeBufferPointer(start: start, count: used))
        handedOver += used
        used = 0
    }

    /// Text escaped for XML content (`TextCodec.appendXMLEscaped`); whether characters XML cannot
    /// carry were left out.
    @discardableResult
    mutating func appendXMLEscaped(_ s: String) -> Bool {
        appendXML(s, attribute: false)
    }

    /// Text escaped for an XML attribute value (`TextCodec.appendXMLAttributeEscaped`); whether
    /// characters XML cannot carry were left out.
    @discardableResult
    mutating func appendXMLAttribute(_ s: String) -> Bool {
        appendXML(s, attribute: true)
    }

    private mutating func appendXML(_ s: String, attribute: Bool) -> Bool {
        var s = s
        var dropped = false
        s.withUTF8 { t in
            appendWritten(maxCount: TextCodec.maxXMLEscapedCount(t.count)) {
                TextCodec.writeXMLEscaped(t, attribute: attribute, into: $0, dropped: &dropped)
            }
        }
        return dropped
    }

    /// The decimal digits of `value` (`TextCodec.appendInteger`).
    mutating func appendInteger(_ value: Int) {
        appendWritten(maxCount: TextCodec.maxIntegerCount) { TextCodec.writeInteger(value, into: $0) }
    }

    /// Hands the buffered bytes to a sink that cannot fail (`collecting(into:)`).
    mutating func flushToBox() {
        // A collecting sink only appends to memory: it has no error to throw.
        try? flush()
    }
}

/// A mutable byte collector used with `ByteOutput.collecting(into:)`.
public final class StringBox: @unchecked Sendable {
    public var bytes: [UInt8] = []
    public init() {}
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}

/// A time as `ByteOutput.appendISO8601` wrote it last: its seconds since 1970, its form and its
/// text (at most `TextCodec.maxISO8601Count`, 32, bytes).
struct RecentTime {
    /// NaN until a time is written: equal to no time.
    var seconds = Double.nan
    var fraction = TextCodec.Fraction.whenPresent
    private var count = 0
    private var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init() {}

    init(seconds: Double, fraction: TextCodec.Fraction, from p: UnsafePointer<UInt8>, count: Int) {
        guard count <= MemoryLayout.size(ofValue: text) else { return }
        self.seconds = seconds
        self.fraction = fraction
        self.count = count
        withUnsafeMutableBytes(of: &text) { $0.copyMemory(from: UnsafeRawBufferPointer(start: p, count: count)) }
    }

    /// Writes the text at `p`; returns its length.
    func copy(into p: UnsafeMutablePointer<UInt8>) -> Int {
        withUnsafeBytes(of: text) { UnsafeMutableRawBufferPointer(start: p, count: count).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        return count
    }
}
