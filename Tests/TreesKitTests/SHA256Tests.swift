import Testing
import TreesKit
import TreesTestSupport

@Suite struct SHA256Tests {
    /// FIPS 180-2 appendix B examples.
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("The quick brown fox jumps over the lazy dog",
         "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"),
    ])
    func standardVectors(message: String, digest: String) {
        #expect(SHA256.hex(Array(message.utf8)) == digest)
    }

    @Test func oneMillionTimesA() {
        var h = SHA256()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { chunk.withUnsafeBytes { h.update($0) } }
        #expect(h.finalizeHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding boundaries (values from sha256sum).
    @Test(arguments: [
        (55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
        (56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        (63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"),
        (64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
        (65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"),
        (119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"),
        (120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"),
    ])
    func paddingBoundaries(length: Int, digest: String) {
        #expect(SHA256.hex([UInt8](repeating: UInt8(ascii: "x"), count: length)) == digest)
    }

    /// Any chunking, through either update method, gives the same digest.
    @Test func anyChunking() {
        var generator = SplitMix64(seed: 256)
        let bytes = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = SHA256.hex(bytes)
        let verifier = ChunkingVerifier(sizes: [1, 3, 63, 64, 65, 1000])
        let a = verifier.verify(bytes) { pieces in
            var a = SHA256()
            for piece in pieces { a.update(Array(piece)) }
            #expect(a.finalize().count == 32)
            return a.finalizeHex()
        }
        let b = verifier.verify(bytes) { pieces in
            var b = SHA256()
            for piece in pieces { piece.withUnsafeBytes { b.update($0) } }
            return b.finalizeHex()
        }
        #expect(a == whole)
        #expect(b == whole)
    }

    /// Finalising does not consume the hasher: more bytes may follow.
    @Test func finalizeIsNonDestructive() {
        var h = SHA256()
        h.update(Array("ab".utf8))
        _ = h.finalize()
        h.update(Array("c".utf8))
        #expect(h.finalizeHex() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
