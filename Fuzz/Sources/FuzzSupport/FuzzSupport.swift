// What every fuzz target shares: libFuzzer's driver, and feeding bytes to a reader in pieces.

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Hands the process over to libFuzzer, which calls `callback` for every input. The package
/// manager links an executable's entry point as `<Target>_main`; each target's `Main.swift`
/// defines that symbol and calls this.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

/// The input as an array (libFuzzer may pass a null pointer for an empty input).
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Feeds `bytes` to `body` in pieces of `step` bytes, then calls `finish`; the outcome, or the
/// error of type `E` (any other error is a finding and stops the run).
public func inPieces<T, E: Error>(_ bytes: [UInt8], step: Int, as _: E.Type,
                                  _ body: (ArraySlice<UInt8>) throws -> Void, finish: () throws -> T) -> Result<T, E> {
    try! inPieces(bytes, step: step, as: E.self, passing: Never.self, body, finish: finish)
}

/// The same, but an error of type `P` is thrown on as it is (a reading to run again, say).
public func inPieces<T, E: Error, P: Error>(_ bytes: [UInt8], step: Int, as _: E.Type, passing _: P.Type,
                                            _ body: (ArraySlice<UInt8>) throws -> Void, finish: () throws -> T) throws -> Result<T, E> {
    do {
        var i = 0
        while i < bytes.count {
            let end = min(bytes.count, i + max(1, step))
            try body(bytes[i..<end])
            i = end
        }
        return .success(try finish())
    } catch let e as E {
        return .failure(e)
    } catch let p as P {
        throw p
    } catch {
        fatalError("an error of an unexpected type: \(error)")
    }
}

/// Stops the run unless an input read whole and read in pieces had the same outcome: the same
/// `what` (events, trees), or the same error.
public func requireSameOutcome<T: Equatable, E: Error & Equatable>(_ whole: Result<T, E>, _ pieces: Result<T, E>, _ what: String) {
    switch (whole, pieces) {
    case (.success(let a), .success(let b)): precondition(a == b, "chunking changed the \(what)")
    case (.failure(let a), .failure(let b)): precondition(a == b, "chunking changed the error: \(a) / \(b)")
    default: preconditionFailure("chunking changed the outcome")
    }
}
