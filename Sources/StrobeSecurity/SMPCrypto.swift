import Crypto
import CryptoExtras

/// The Security Manager's cryptographic toolbox (Core Specification Vol 3, Part H, 2.2): e, c1
/// and s1 for LE legacy pairing, AES-CMAC and f4, f5, f6, g2, h6, h7 for LE Secure Connections,
/// ah for resolvable private addresses. AES and AES-CMAC come from swift-crypto.
///
/// Every value is taken and returned in the order SMP PDUs carry it: least significant octet
/// first. The spec writes its functions most significant octet first; each function turns its
/// inputs round, computes as the spec writes it, and turns the result back.
package enum SMPCrypto {
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// A key, random number or address of the wrong length.
        case badLength(String, expected: Int, got: Int)
        case aes(String)

        package var description: String {
            switch self {
            case .badLength(let name, let expected, let got): "SMP crypto: \(name) is \(got) octets, not \(expected)"
            case .aes(let reason): "SMP crypto: AES failed: \(reason)"
            }
        }
    }

    // MARK: The spec's primitives, most significant octet first

    /// AES-128 of one block, most significant octet first.
    static func aes128(key: [UInt8], _ block: [UInt8]) throws(Failure) -> [UInt8] {
        var output = block
        do {
            try AES.permute(&output, key: SymmetricKey(data: key))
        } catch {
            throw .aes("\(error)")
        }
        return output
    }

    /// AES-CMAC (RFC 4493), most significant octet first.
    package static func aesCMAC(key: [UInt8], _ message: [UInt8]) throws(Failure) -> [UInt8] {
        try check("key", key, 16)
        do {
            var cmac = try AES.CMAC(key: SymmetricKey(data: key))
            cmac.update(data: message)
            return Array(cmac.finalize())
        } catch {
            throw .aes("\(error)")
        }
    }

    // MARK: Legacy pairing

    /// e(key, plaintext), the security function.
    package static func e(_ key: [UInt8], _ plaintext: [UInt8]) throws(Failure) -> [UInt8] {
        try check("key", key, 16)
        try check("plaintext", plaintext, 16)
        return try aes128(key: key.reversed(), plaintext.reversed()).reversed()
    }

    /// c1, the confirm value of LE legacy pairing. `preq` and `pres` are the Pairing Request and
    /// Response PDUs (7 octets, code first); `iat`/`rat` the initiator's and responder's address
    /// types (0 public, 1 random); `ia`/`ra` their addresses.
    package static func c1(_ k: [UInt8], r: [UInt8], preq: [UInt8], pres: [UInt8], iat: UInt8, rat: UInt8,
                          ia: [UInt8], ra: [UInt8]) throws(Failure) -> [UInt8] {
        try check("r", r, 16)
        try check("preq", preq, 7)
        try check("pres", pres, 7)
        try check("ia", ia, 6)
        try check("ra", ra, 6)
        let p1 = [iat & 1, rat & 1] + preq + pres
        let p2 = ra + ia + [0, 0, 0, 0]
        return try e(k, xor(try e(k, xor(r, p1)), p2))
    }

    /// s1, the short-term key of LE legacy pairing.
    package static func s1(_ k: [UInt8], r1: [UInt8], r2: [UInt8]) throws(Failure) -> [UInt8] {
        try check("r1", r1, 16)
        try check("r2", r2, 16)
        return try e(k, Array(r2[0..<8]) + Array(r1[0..<8]))
    }

    // MARK: LE Secure Connections

    /// f4(U, V, X, Z): the confirm value. `u` and `v` are public key X coordinates (32 octets).
    package static func f4(u: [UInt8], v: [UInt8], x: [UInt8], z: UInt8) throws(Failure) -> [UInt8] {
        try check("U", u, 32)
        try check("V", v, 32)
        try check("X", x, 16)
        return try aesCMAC(key: x.reversed(), u.reversed() + v.reversed() + [z]).reversed()
    }

    /// f5(W, N1, N2, A1, A2): the MacKey and the LTK from the DHKey `w`. Addresses are 7 octets:
    /// the address, then its type (0 public, 1 random).
    package static func f5(w: [UInt8], n1: [UInt8], n2: [UInt8], a1: [UInt8], a2: [UInt8]) throws(Failure)
        -> (macKey: [UInt8], ltk: [UInt8]) {
        try check("W", w, 32)
        try check("N1", n1, 16)
        try check("N2", n2, 16)
        try check("A1", a1, 7)
        try check("A2", a2, 7)
        let salt: [UInt8] = [0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38, 0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE]
        let t = try aesCMAC(key: salt, w.reversed())
        let keyID: [UInt8] = [0x62, 0x74, 0x6C, 0x65] // "btle"
        let rest = keyID + n1.reversed() + n2.reversed() + a1.reversed() + a2.reversed() + [0x01, 0x00]
        return (try aesCMAC(key: t, [0x00] + rest).reversed(), try aesCMAC(key: t, [0x01] + rest).reversed())
    }

    /// f6(W, N1, N2, R, IOcap, A1, A2): the DHKey check value. `ioCap` is 3 octets (AuthReq,
    /// OOB data flag, IO capability, least significant first).
    package static func f6(w: [UInt8], n1: [UInt8], n2: [UInt8], r: [UInt8], ioCap: [UInt8], a1: [UInt8], a2: [UInt8]) throws(Failure) -> [UInt8] {
        try check("W", w, 16)
        try check("N1", n1, 16)
        try check("N2", n2, 16)
        try check("R", r, 16)
        try check("IOcap", ioCap, 3)
        try check("A1", a1, 7)
        try check("A2", a2, 7)
        let message = n1.reversed() + n2.reversed() + r.reversed() + ioCap.reversed() + a1.reversed() + a2.reversed()
        return try aesCMAC(key: w.reversed(), message).reversed()
    }

    /// g2(U, V, X, Y): the six-digit number both sides show for Numeric Comparison is this
    /// modulo 1,000,000.
    package static func g2(u: [UInt8], v: [UInt8], x: [UInt8], y: [UInt8]) throws(Failure) -> UInt32 {
        try check("U", u, 32)
        try check("V", v, 32)
        try check("X", x, 16)
        try check("Y", y, 16)
        let mac = try aesCMAC(key: x.reversed(), u.reversed() + v.reversed() + y.reversed())
        return mac[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// h6(W, keyID): link key conversion. `keyID` is 4 octets as the spec writes it ("lebr", "tmp1").
    package static func h6(w: [UInt8], keyID: [UInt8]) throws(Failure) -> [UInt8] {
        try check("W", w, 16)
        try check("keyID", keyID, 4)
        return try aesCMAC(key: w.reversed(), keyID).reversed()
    }

    /// h7(SALT, W): link key conversion with a salt (16 octets as the spec writes it).
    package static func h7(salt: [UInt8], w: [UInt8]) throws(Failure) -> [UInt8] {
        try check("SALT", salt, 16)
        try check("W", w, 16)
        return try aesCMAC(key: salt, w.reversed()).reversed()
    }

    // MARK: Privacy

    /// ah(k, r): the hash of a resolvable private address, from the IRK `k` and the 3-octet prand.
    package static func ah(irk: [UInt8], prand: [UInt8]) throws(Failure) -> [UInt8] {
        try check("prand", prand, 3)
        return Array(try e(irk, prand + [UInt8](repeating: 0, count: 13)).prefix(3))
    }

    // MARK: Helpers

    private static func check(_ name: String, _ value: [UInt8], _ count: Int) throws(Failure) {
        guard value.count == count else { throw .badLength(name, expected: count, got: value.count) }
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }
}
