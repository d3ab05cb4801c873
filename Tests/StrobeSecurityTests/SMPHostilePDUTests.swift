import StrobeHCI
import Testing
import StrobeSecurity

/// PDUs a hostile or broken peer sends, each answered with the Pairing Failed reason the spec
/// gives, and the pairing ended without keys.
struct SMPHostilePDUTests {
    typealias Config = SMPPairing.Configuration

    static func responder() -> SMPPairing {
        SMPPairing(role: .responder, configuration: Config(), addresses: PairingHarness.addresses)
    }

    static func failedWith(_ actions: [SMPPairingAction]) -> SMPPairingFailedReason? {
        for case .send(.pairingFailed(let reason)) in actions { return reason }
        return nil
    }

    struct Hostile: CustomTestStringConvertible, Sendable {
        var name: String
        var pdu: [UInt8]
        var reason: SMPPairingFailedReason
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(name: "unknown code", pdu: [0x3F, 0x00], reason: .commandNotSupported),
        Hostile(name: "empty PDU", pdu: [], reason: .invalidParameters),
        Hostile(name: "zeroed Pairing Request", pdu: [0x01, 0, 0, 0, 0, 0, 0], reason: .invalidParameters),
        Hostile(name: "truncated Pairing Request", pdu: [0x01, 0x03, 0x00, 0x01], reason: .invalidParameters),
        Hostile(name: "reserved IO capability", pdu: [0x01, 0x09, 0x00, 0x01, 16, 0, 0], reason: .invalidParameters),
        Hostile(name: "out-of-order Pairing Confirm", pdu: [0x03] + [UInt8](repeating: 0xAB, count: 16), reason: .unspecifiedReason),
        Hostile(name: "out-of-order Pairing Random", pdu: [0x04] + [UInt8](repeating: 0xAB, count: 16), reason: .unspecifiedReason),
        Hostile(name: "keys before encryption", pdu: [0x06] + [UInt8](repeating: 0xAB, count: 16), reason: .unspecifiedReason),
        Hostile(name: "Security Request to the peripheral", pdu: [0x0B, 0x01], reason: .commandNotSupported),
    ]

    @Test(arguments: hostile)
    func answeredWithTheSpecsReason(_ h: Hostile) {
        var pairing = Self.responder()
        let actions = pairing.receive(h.pdu)
        #expect(Self.failedWith(actions) == h.reason)
        #expect(actions.contains { if case .failed = $0 { true } else { false } })
        #expect(pairing.isFinished)
        // Nothing more is answered once failed.
        #expect(pairing.receive([0x01, 0x03, 0x00, 0x01, 16, 0, 0]).isEmpty)
    }

    @Test func pairingRequestToTheCentralIsNotSupported() {
        var central = SMPPairing(role: .initiator, configuration: Config(), addresses: PairingHarness.addresses)
        #expect(Self.failedWith(central.receive([0x01, 0x03, 0x00, 0x01, 16, 0, 0])) == .commandNotSupported)
    }

    /// The responder after a Secure Connections Pairing Request, waiting for the public key.
    static func responderAwaitingPublicKey() -> SMPPairing {
        var pairing = responder()
        _ = pairing.receive([0x01, 0x03, 0x00, 0x09, 16, 0, 0])
        return pairing
    }

    @Test func offCurvePublicKeyFailsWithDHKeyCheckFailed() {
        var pairing = Self.responderAwaitingPublicKey()
        // (1, 1) is not on P-256 (CVE-2018-5383: a key with only X checked).
        let x = [UInt8](repeating: 0, count: 31) + [1], y = [UInt8](repeating: 0, count: 31) + [1]
        let actions = pairing.receive([0x0C] + x.reversed() + y.reversed())
        #expect(Self.failedWith(actions) == .dhKeyCheckFailed)
        #expect(pairing.isFinished)
    }

    @Test func ourOwnPublicKeyEchoedFailsWithDHKeyCheckFailed() {
        let keyPair = SMPKeyAgreement()
        var pairing = SMPPairing(role: .responder, configuration: Config(), addresses: PairingHarness.addresses, keyPair: keyPair)
        _ = pairing.receive([0x01, 0x03, 0x00, 0x09, 16, 0, 0])
        let own = keyPair.publicKey
        let actions = pairing.receive([0x0C] + own.x + own.y)
        #expect(Self.failedWith(actions) == .dhKeyCheckFailed)
        #expect(actions.contains(.failed(.failedLocally(.dhKeyCheckFailed, detail: "the peer's public key has our own X coordinate (a reflected key)"))))
    }

    @Test func pairingConfirmBeforeThePublicKeyIsOutOfOrder() {
        var pairing = Self.responderAwaitingPublicKey()
        #expect(Self.failedWith(pairing.receive([0x03] + [UInt8](repeating: 1, count: 16))) == .unspecifiedReason)
    }

    @Test func peerPairingFailedEndsWithItsReasonAndNoAnswer() {
        var pairing = Self.responderAwaitingPublicKey()
        #expect(pairing.receive([0x05, 0x08]) == [.failed(.failedByPeer(.unspecifiedReason))])
    }
}
