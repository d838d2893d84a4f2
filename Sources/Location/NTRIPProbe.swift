/// What a caster's bytes become, for checks from outside the module (the fuzz target): the answer
/// read from its status line and headers, the body unframed, and the source table read, each fed
/// in pieces of a given size. Reading the same bytes in other pieces must give the same outcome.
public enum NTRIPProbe {
    /// The outcome of reading one answer: its kind, the body it carried (unframed), and how the
    /// body ended. Equatable, so outcomes of different piecings can be compared.
    public struct Outcome: Equatable, Sendable {
        /// `stream`, `source table`, `status 401 …`, `error …` or `garbage …`.
        public var answer: String
        /// The body's data bytes, framing removed, as far as they were read.
        public var body: [UInt8]
        /// The chunked framing's complaint, if the body broke it.
        public var bodyFailure: String?
        /// The last chunk of a chunked body arrived.
        public var finished: Bool
        /// For a source table, what it reads as.
        public var table: NTRIPSourceTable?
    }

    /// Reads `bytes` as a caster's whole answer, handed over `step` bytes at a time (the
    /// connection then closes).
    public static func read(_ bytes: [UInt8], step: Int) -> Outcome {
        var reader = NTRIPAnswerReader()
        var decided: (answer: NTRIPAnswer, rest: [UInt8])?
        var i = 0
        let step = max(1, step)
        while i < bytes.count, decided == nil {
            let end = min(bytes.count, i + step)
            decided = reader.feed(bytes[i..<end])
            i = end
        }
        let answer = decided?.answer ?? reader.finish()
        var outcome = Outcome(answer: describe(answer), body: [], bodyFailure: nil, finished: false, table: nil)
        let framing: NTRIPBody.Framing
        switch answer {
        case .stream(let f), .sourceTable(let f): framing = f
        default: return outcome
        }
        var body = NTRIPBody(framing)
        var pending = decided?.rest ?? []
        pending.append(contentsOf: bytes[i...])
        var j = 0
        do {
            while j < pending.count {
                let end = min(pending.count, j + step)
                try body.decode(pending[j..<end], into: &outcome.body)
                j = end
            }
        } catch {
            outcome.bodyFailure = "\(error)"
        }
        outcome.finished = body.isFinished
        if case .sourceTable = answer {
            outcome.table = NTRIPSourceTable(parsing: String(decoding: outcome.body, as: UTF8.self))
        }
        return outcome
    }

    private static func describe(_ answer: NTRIPAnswer) -> String {
        switch answer {
        case .stream(let f): "stream \(f)"
        case .sourceTable(let f): "source table \(f)"
        case .status(let code, let reason): "status \(code) \(reason)"
        case .error(let text): "error \(text)"
        case .garbage(let text): "garbage \(text)"
        }
    }
}
