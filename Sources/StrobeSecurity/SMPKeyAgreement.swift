import Crypto

/// Our P-256 key pair for LE Secure Connections and the DHKey with a peer's public key, on
/// swift-crypto. Coordinates are in the order the Pairing Public Key PDU carries them: least
/// significant octet first.
package struct SMPKeyAgreement: Sendable {
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The peer's key is not a point on P-256 (the check whose absence was CVE-2018-5383).
        case notOnCurve
        /// The peer's key has our own X coordinate: our key sent back, or its mirror (X, p - Y),
        /// which is on the curve too (CVE-2020-26558: a peer that reflects our key and our
        /// commitments learns a passkey bit by bit, since the commitments take X only).
        case ourOwnKey
        case badLength(Int)

        package var description: String {
            switch self {
            case .notOnCurve: "the peer's public key is not on the P-256 curve"
            case .ourOwnKey: "the peer's public key has our own X coordinate (a reflected key)"
            case .badLength(let count): "a P-256 public key is 64 octets, not \(count)"
            }
        }
    }

    private let privateKey: P256.KeyAgreement.PrivateKey

    package init() { privateKey = P256.KeyAgreement.PrivateKey() }

    /// A key pair from `random` (a seeded source makes a simulated world repeat); the system's
    /// generator when its octets are not a valid private key.
    package init(random: @Sendable (Int) -> [UInt8]) {
        for _ in 0..<4 {
            if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: random(32)) {
                privateKey = key
                return
            }
        }
        privateKey = P256.KeyAgreement.PrivateKey()
    }

    /// A known private key (32 octets, most significant first, as the spec's sample data gives it).
    package init(privateKey raw: [UInt8]) throws {
        privateKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: raw)
    }

    /// X then Y, each least significant octet first.
    package var publicKey: (x: [UInt8], y: [UInt8]) {
        let raw = Array(privateKey.publicKey.rawRepresentation)
        return (raw[0..<32].reversed(), raw[32..<64].reversed())
    }

    /// The DHKey (the shared point's X coordinate, least significant octet first) with the peer's
    /// key, after checking that it is a point on the curve and that its X is not ours.
    package func dhKey(peerX: [UInt8], peerY: [UInt8]) throws(Failure) -> [UInt8] {
        guard peerX.count == 32, peerY.count == 32 else { throw .badLength(peerX.count + peerY.count) }
        let own = publicKey
        // X alone: (X, Y) and (X, p - Y) are both on the curve, and f4 commits to X only.
        if peerX == own.x { throw .ourOwnKey }
        let peer: P256.KeyAgreement.PublicKey
        do {
            peer = try P256.KeyAgreement.PublicKey(rawRepresentation: peerX.reversed() + peerY.reversed())
        } catch {
            throw .notOnCurve
        }
        guard let shared = try? privateKey.sharedSecretFromKeyAgreement(with: peer) else { throw .notOnCurve }
        return shared.withUnsafeBytes { Array($0) }.reversed()
    }
}
