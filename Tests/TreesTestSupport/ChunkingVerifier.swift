import Testing

/// Feeds an incremental reader its input in many ways and checks that every way reads the same.
///
/// A reader that keeps state between pieces must not care where one piece ends and the next
/// begins. The verifier gives the reader the whole input at once, byte by byte, in pieces of fixed
/// sizes and in random splits from a seeded generator (the same on every run), and records an
/// issue for every way whose result, or error, differs from reading the input whole. Modelled on
/// swift-nio's `ByteToMessageDecoderVerifier`.
///
///     let fixes = try ChunkingVerifier.standard.verify(log) { pieces in
///         var reader = NMEAFixReader()
///         var fixes: [Fix] = []
///         for piece in pieces { reader.feed(Array(piece)) { fixes.append($0) } }
///         reader.finish { fixes.append($0) }
///         return fixes
///     }
package struct ChunkingVerifier: Sendable {
    /// One way of cutting the input into pieces.
    package enum Chunking: Hashable, Sendable, CustomStringConvertible {
        /// The whole input as one piece.
        case whole
        /// Pieces of `size` bytes, the last one shorter; 1 is byte by byte.
        case pieces(size: Int)
        /// Pieces of 1 to `maximum` bytes, their sizes drawn from `SplitMix64(seed:)`.
        case random(seed: UInt64, maximum: Int)

        /// The pieces of `input`, in order; none for an empty input.
        package func split(_ input: [UInt8]) -> [ArraySlice<UInt8>] {
            var pieces: [ArraySlice<UInt8>] = []
            var generator = SplitMix64(seed: 0)
            if case .random(let seed, _) = self { generator = SplitMix64(seed: seed) }
            var start = 0
            while start < input.count {
                let size = switch self {
                case .whole: input.count
                case .pieces(let size): max(1, size)
                case .random(_, let maximum): Int.random(in: 1...max(1, maximum), using: &generator)
                }
                let end = min(input.count, start + size)
                pieces.append(input[start..<end])
                start = end
            }
            return pieces
        }

        package var description: String {
            switch self {
            case .whole: "whole"
            case .pieces(size: 1): "byte by byte"
            case .pieces(let size): "pieces of \(size) bytes"
            case .random(let seed, let maximum): "random pieces of 1 to \(maximum) bytes (seed \(seed))"
            }
        }
    }

    package let chunkings: [Chunking]

    /// Whole, byte by byte, pieces of 3, 82 and 4096 bytes, and random splits into pieces of up to
    /// 16 and up to 512 bytes.
    package static let standard = ChunkingVerifier(sizes: [1, 3, 82, 4096])

    package init(_ chunkings: [Chunking]) { self.chunkings = chunkings }

    /// Whole, pieces of each of `sizes`, and `randomSplits` random splits, half of them into small
    /// pieces (up to 16 bytes) and half into larger ones (up to 512).
    package init(sizes: [Int], randomSplits: Int = 2) {
        self.init([.whole] + sizes.map { .pieces(size: $0) }
            + (0..<randomSplits).map { .random(seed: UInt64($0 + 1), maximum: $0.isMultiple(of: 2) ? 16 : 512) })
    }

    /// Reads `input` every way; returns what reading it whole gives, or throws the error it throws.
    ///
    /// `read` gets the pieces in order and reads them with a fresh reader, finishing it at the end.
    @discardableResult
    package func verify<Output: Equatable>(
        _ input: [UInt8], sourceLocation: SourceLocation = #_sourceLocation,
        _ read: ([ArraySlice<UInt8>]) throws -> Output
    ) rethrows -> Output {
        let wholePieces = Chunking.whole.split(input)
        let expected = Outcome { try read(wholePieces) }
        for chunking in chunkings where chunking != .whole {
            let outcome = Outcome { try read(chunking.split(input)) }
            if !outcome.isSame(as: expected) {
                Issue.record("read \(chunking), \(outcome.difference(from: expected))", sourceLocation: sourceLocation)
            }
        }
        if case .read(let output) = expected { return output }
        return try read(wholePieces)
    }

    /// `verify` for text, read as its UTF-8 bytes.
    @discardableResult
    package func verify<Output: Equatable>(
        _ text: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ read: ([ArraySlice<UInt8>]) throws -> Output
    ) rethrows -> Output {
        try verify(Array(text.utf8), sourceLocation: sourceLocation, read)
    }
}

/// What one way of reading gave.
private enum Outcome<Output: Equatable>: CustomStringConvertible {
    case read(Output)
    case failed(any Error)

    init(_ body: () throws -> Output) {
        do { self = .read(try body()) } catch { self = .failed(error) }
    }

    /// The same result, or the same error: equal where the error type says what equal is, else of
    /// the same type and described alike.
    func isSame(as other: Outcome) -> Bool {
        switch (self, other) {
        case let (.read(a), .read(b)):
            return a == b
        case let (.failed(a), .failed(b)):
            if let a = (a as Any) as? any Equatable { return Self.equal(a, b) }
            return type(of: a) == type(of: b) && "\(a)" == "\(b)"
        default:
            return false
        }
    }

    private static func equal<E: Equatable>(_ a: E, _ b: any Error) -> Bool { (b as? E) == a }

    var description: String {
        switch self {
        case .read(let output): "\(output)"
        case .failed(let error): "error \(String(reflecting: error))"
        }
    }

    /// Where this outcome's description first departs from `expected`'s, with some context.
    func difference(from expected: Outcome) -> String {
        let (got, wanted) = (Array(description), Array(expected.description))
        let same = zip(got, wanted).prefix { $0 == $1 }.count
        let start = max(0, same - 120)
        func excerpt(_ text: [Character]) -> String {
            (start > 0 ? "…" : "") + String(text[start..<min(text.count, same + 240)]) + (text.count > same + 240 ? "…" : "")
        }
        return "differs from reading it whole at character \(same):\n  got:  \(excerpt(got))\n  whole: \(excerpt(wanted))"
    }
}
