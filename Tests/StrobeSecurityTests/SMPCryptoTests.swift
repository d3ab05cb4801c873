import StrobeSecurity
import Testing

/// The toolbox against the sample data of the Core Specification (Vol 3, Part H, Appendix D;
/// the P-256 sample data of Vol 2, Part G, 7.1.2) and RFC 4493's AES-CMAC vectors. The spec writes
/// values most significant octet first; the functions take them as SMP PDUs carry them, so the
/// spec's hex is turned round (`wire`).
@Suite struct SMPCryptoTests {
    /// The spec's hex (spaces allowed), in wire order: least significant octet first.
    static func wire(_ hex: String) -> [UInt8] { spec(hex).reversed() }

    /// The spec's hex as written.
    static func spec(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    static let u = "20b003d2 f297be2c 5e2c83a7 e9f9a5b9 eff49111 acf4fddb cc030148 0e359de6"
    static let v = "55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"
    static let n1 = "d5cb8454 d177733e ffffb2ec 712baeab"
    static let n2 = "a6e8e7cc 25a75f6e 216583f7 ff3dc4cf"
    static let dhKey = "ec0234a3 57c8ad05 341010a6 0a397d9b 99796b13 b4f866f1 868d34f3 73bfa698"
    static let a1 = "00561237 37bfce"
    static let a2 = "00a71370 2dcfc1"

    @Test func aesCMACMatchesRFC4493() throws {
        let key = Self.spec("2b7e1516 28aed2a6 abf71588 09cf4f3c")
        let message = Self.spec("""
            6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51
            30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710
            """)
        #expect(try SMPCrypto.aesCMAC(key: key, []) == Self.spec("bb1d6929 e9593728 7fa37d12 9b756746"))
        #expect(try SMPCrypto.aesCMAC(key: key, Array(message[0..<16])) == Self.spec("070a16b4 6b4d4144 f79bdd9d d04a287c"))
        #expect(try SMPCrypto.aesCMAC(key: key, Array(message[0..<40])) == Self.spec("dfa66747 de9ae630 30ca3261 1497c827"))
        #expect(try SMPCrypto.aesCMAC(key: key, message) == Self.spec("51f0bebf 7e3b9d92 fc497417 79363cfe"))
    }

    @Test func c1AndS1() throws {
        let k = [UInt8](repeating: 0, count: 16)
        let confirm = try SMPCrypto.c1(k, r: Self.wire("5783D52156AD6F0E6388274EC6702EE0"), preq: Self.wire("07071000000101"),
                                       pres: Self.wire("05000800000302"), iat: 1, rat: 0,
                                       ia: Self.wire("A1A2A3A4A5A6"), ra: Self.wire("B1B2B3B4B5B6"))
        #expect(confirm == Self.wire("1e1e3fef878988ead2a74dc5bef13b86"))
        let stk = try SMPCrypto.s1(k, r1: Self.wire("000F0E0D0C0B0A091122334455667788"), r2: Self.wire("010203040506070899AABBCCDDEEFF00"))
        #expect(stk == Self.wire("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    @Test func f4F5F6AndG2() throws {
        #expect(try SMPCrypto.f4(u: Self.wire(Self.u), v: Self.wire(Self.v), x: Self.wire(Self.n1), z: 0)
            == Self.wire("f2c916f1 07a9bd1c f1eda1be a974872d"))
        let (macKey, ltk) = try SMPCrypto.f5(w: Self.wire(Self.dhKey), n1: Self.wire(Self.n1), n2: Self.wire(Self.n2),
                                             a1: Self.wire(Self.a1), a2: Self.wire(Self.a2))
        #expect(macKey == Self.wire("2965f176 a1084a02 fd3f6a20 ce636e20"))
        #expect(ltk == Self.wire("69867911 69d7cd23 980522b5 94750a38"))
        #expect(try SMPCrypto.f6(w: macKey, n1: Self.wire(Self.n1), n2: Self.wire(Self.n2), r: Self.wire("12a3343b b453bb54 08da42d2 0c2d0fc8"),
                                 ioCap: Self.wire("010102"), a1: Self.wire(Self.a1), a2: Self.wire(Self.a2))
            == Self.wire("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
        #expect(try SMPCrypto.g2(u: Self.wire(Self.u), v: Self.wire(Self.v), x: Self.wire(Self.n1), y: Self.wire(Self.n2)) == 0x2F9E_D5BA)
    }

    @Test func h6H7AndAh() throws {
        let key = Self.wire("ec0234a3 57c8ad05 341010a6 0a397d9b")
        #expect(try SMPCrypto.h6(w: key, keyID: Self.spec("6c656272")) == Self.wire("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
        #expect(try SMPCrypto.h7(salt: Self.spec("00000000 00000000 00000000 746D7031"), w: key) == Self.wire("fb173597 c6a3c0ec d2998c2a 75a57011"))
        #expect(try SMPCrypto.ah(irk: key, prand: Self.wire("708194")) == Self.wire("0dfbaa"))
    }

    @Test func wrongLengthsAreTypedErrors() {
        #expect(throws: SMPCrypto.Failure.badLength("X", expected: 16, got: 15)) {
            try SMPCrypto.f4(u: Self.wire(Self.u), v: Self.wire(Self.v), x: [UInt8](repeating: 0, count: 15), z: 0)
        }
        #expect(throws: SMPCrypto.Failure.badLength("prand", expected: 3, got: 4)) { try SMPCrypto.ah(irk: [UInt8](repeating: 0, count: 16), prand: [1, 2, 3, 4]) }
    }

    /// Vol 2, Part G, 7.1.2: two private keys, their public keys, one DHKey.
    @Test func p256SampleData() throws {
        let a = try SMPKeyAgreement(privateKey: Self.spec("3f49f6d4 a3c55f38 74c9b3e3 d2103f50 4aff607b eb40b799 5899b8a6 cd3c1abd"))
        let b = try SMPKeyAgreement(privateKey: Self.spec("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"))
        #expect(a.publicKey.x == Self.wire(Self.u))
        #expect(a.publicKey.y == Self.wire("dc809c49 652aeb6d 63329abf 5a52155c 766345c2 8fed3024 741c8ed0 1589d28b"))
        #expect(b.publicKey.x == Self.wire("1ea1f0f0 1faf1d96 09592284 f19e4c00 47b58afd 8615a69f 559077b2 2faaa190"))
        #expect(try a.dhKey(peerX: b.publicKey.x, peerY: b.publicKey.y) == Self.wire(Self.dhKey))
        #expect(try b.dhKey(peerX: a.publicKey.x, peerY: a.publicKey.y) == Self.wire(Self.dhKey))
    }

    /// CVE-2018-5383 (a key off the curve) and CVE-2020-26558 (our own key reflected, or its
    /// mirror (X, p - Y), which is on the curve too).
    @Test func hostilePublicKeysAreRefused() throws {
        let ours = SMPKeyAgreement()
        let other = SMPKeyAgreement()
        var offCurve = other.publicKey.y
        offCurve[0] ^= 1
        #expect(throws: SMPKeyAgreement.Failure.notOnCurve) { try ours.dhKey(peerX: other.publicKey.x, peerY: offCurve) }
        // The mirror is a valid point: another host would take it; ours refuses it for its X.
        let mirror = P256Mirror.y(ours.publicKey.y)
        #expect(mirror != ours.publicKey.y)
        _ = try other.dhKey(peerX: ours.publicKey.x, peerY: mirror)
        #expect(throws: SMPKeyAgreement.Failure.ourOwnKey) { try ours.dhKey(peerX: ours.publicKey.x, peerY: mirror) }
        #expect(throws: SMPKeyAgreement.Failure.notOnCurve) {
            try ours.dhKey(peerX: [UInt8](repeating: 0, count: 32), peerY: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: SMPKeyAgreement.Failure.ourOwnKey) { try ours.dhKey(peerX: ours.publicKey.x, peerY: ours.publicKey.y) }
        #expect(throws: SMPKeyAgreement.Failure.badLength(63)) { try ours.dhKey(peerX: Array(ours.publicKey.x.dropLast()), peerY: ours.publicKey.y) }
    }
}

/// p - Y on P-256, in SMP's octet order (least significant first): the mirror of a point.
enum P256Mirror {
    /// The field prime, least significant octet first.
    static let prime: [UInt8] = Array([
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    ].reversed())

    static func y(_ y: [UInt8]) -> [UInt8] {
        var borrow = 0
        return (0..<32).map { i in
            var difference = Int(prime[i]) - Int(y[i]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            return UInt8(difference)
        }
    }
}
