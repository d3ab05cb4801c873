import StrobeHCI
import Testing
import StrobeSecurity

/// CVE-2020-26558: a peer that sends our own public key back, or its mirror (X, p - Y), shares
/// our X; since f4 commits to X only, it could reflect our commitments and, in Passkey Entry,
/// learn the passkey a bit per round. Every method, in both roles, ends at the public key with
/// DHKey Check Failed, before any confirm value is exchanged.
struct SMPReflectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var method: String
        var ours: SMPIOCapability
        var theirs: SMPIOCapability
        var mirrored: Bool
        var testDescription: String { "\(method), \(mirrored ? "(X, p - Y)" : "(X, Y)")" }
    }

    static let cases: [Case] = [false, true].flatMap { mirrored in
        [
            Case(method: "Just Works", ours: .noInputNoOutput, theirs: .noInputNoOutput, mirrored: mirrored),
            Case(method: "Numeric Comparison", ours: .displayYesNo, theirs: .displayYesNo, mirrored: mirrored),
            Case(method: "Passkey Entry, we type", ours: .keyboardOnly, theirs: .displayOnly, mirrored: mirrored),
            Case(method: "Passkey Entry, we show", ours: .displayOnly, theirs: .keyboardOnly, mirrored: mirrored),
        ]
    }

    /// Features from the peer: its IO capability, bonding, MITM, Secure Connections, 16 octets.
    static func features(_ code: UInt8, _ io: SMPIOCapability) -> [UInt8] {
        [code, io.rawValue, 0x00, 0x0D, 16, 0x00, 0x00]
    }

    static func reflected(_ keyPair: SMPKeyAgreement, mirrored: Bool) -> [UInt8] {
        let own = keyPair.publicKey
        return [0x0C] + own.x + (mirrored ? P256Mirror.y(own.y) : own.y)
    }

    static func expectRefused(_ actions: [SMPPairingAction], sentBefore: [[UInt8]], _ pairing: SMPPairing) {
        #expect(SMPHostilePDUTests.failedWith(actions) == .dhKeyCheckFailed)
        #expect(pairing.isFinished)
        let sent = sentBefore + actions.compactMap { if case .send(let pdu) = $0 { pdu.encoded } else { nil } }
        // No Pairing Confirm or Pairing Random ever left: no round was played.
        #expect(!sent.contains { $0.first == 0x03 || $0.first == 0x04 })
        #expect(!actions.contains { if case .completed = $0 { true } else { false } })
    }

    @Test(arguments: cases)
    func asCentral(_ c: Case) {
        let keyPair = SMPKeyAgreement()
        var pairing = SMPPairing(role: .initiator, configuration: .init(ioCapability: c.ours),
                                 addresses: PairingHarness.addresses, keyPair: keyPair)
        var sent: [[UInt8]] = []
        var actions = pairing.start() + pairing.receive(Self.features(0x02, c.theirs))
        // The user at our end types a passkey before the key arrives: the round would start.
        if actions.contains(.enterPasskey) { actions += pairing.passkeyEntered(123_456) }
        sent += actions.compactMap { if case .send(let pdu) = $0 { pdu.encoded } else { nil } }
        #expect(sent.contains { $0.first == 0x0C })
        let answer = pairing.receive(Self.reflected(keyPair, mirrored: c.mirrored))
        Self.expectRefused(answer, sentBefore: sent, pairing)
    }

    @Test(arguments: cases)
    func asPeripheral(_ c: Case) {
        // The peer knows our key here (the machine's key pair is given); a real one could only
        // guess it, since every pairing makes a new one.
        let keyPair = SMPKeyAgreement()
        var pairing = SMPPairing(role: .responder, configuration: .init(ioCapability: c.ours),
                                 addresses: PairingHarness.addresses, keyPair: keyPair)
        var actions = pairing.receive(Self.features(0x01, c.theirs))
        if actions.contains(.enterPasskey) { actions += pairing.passkeyEntered(123_456) }
        let sent = actions.compactMap { if case .send(let pdu) = $0 { pdu.encoded } else { nil } }
        let answer = pairing.receive(Self.reflected(keyPair, mirrored: c.mirrored))
        Self.expectRefused(answer, sentBefore: sent, pairing)
        // Our public key was never sent back to a peer that showed ours.
        #expect(!answer.contains { if case .send(let pdu) = $0 { pdu.code == .pairingPublicKey } else { false } })
    }
}

/// Identity Address Information is a claim: one that cannot be an identity ends the pairing with
/// Invalid Parameters; an all-zero IRK is no IRK.
struct SMPIdentityClaimTests {
    static func pair(claiming identity: IdentityAddress, irk: [UInt8] = Array(0x40..<0x50)) -> PairingHarness {
        let claimed = SMPPairing.Configuration(identity: LocalIdentity(address: identity, irk: IdentityResolvingKey(value: irk)))
        var harness = PairingHarness(initiator: .init(), responder: claimed)
        harness.run()
        return harness
    }

    static let invalid: [IdentityAddress] = [
        IdentityAddress(address: BluetoothAddress("00:00:00:00:00:00")!, isRandom: false),
        IdentityAddress(address: BluetoothAddress("FF:FF:FF:FF:FF:FF")!, isRandom: false),
        IdentityAddress(address: BluetoothAddress("00:00:00:00:00:00")!, isRandom: true),
        // Shaped like a resolvable private address (top bits 0b01) and a non-resolvable one (0b00).
        IdentityAddress(address: BluetoothAddress("5A:11:22:33:44:55")!, isRandom: true),
        IdentityAddress(address: BluetoothAddress("1A:11:22:33:44:55")!, isRandom: true),
        // Static, but its random bits all zeros or all ones.
        IdentityAddress(address: BluetoothAddress("C0:00:00:00:00:00")!, isRandom: true),
        IdentityAddress(address: BluetoothAddress("FF:FF:FF:FF:FF:FF")!, isRandom: true),
    ]

    @Test(arguments: invalid)
    func anIdentityThatCannotBeOneIsRefused(_ identity: IdentityAddress) {
        #expect(identity.invalidity != nil)
        let harness = Self.pair(claiming: identity)
        #expect(harness.results[.initiator] == nil)
        guard case .failedLocally(.invalidParameters, let detail)? = harness.failures[.initiator] else {
            Issue.record("the central took \(identity): \(String(describing: harness.failures[.initiator]))")
            return
        }
        #expect(detail.contains("\(identity.address)"))
        #expect(harness.failures[.responder] == .failedByPeer(.invalidParameters))
    }

    @Test(arguments: [
        IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true),
        IdentityAddress(address: BluetoothAddress("00:1B:DC:01:02:03")!, isRandom: false),
    ])
    func aValidIdentityIsTaken(_ identity: IdentityAddress) {
        #expect(identity.invalidity == nil)
        let harness = Self.pair(claiming: identity)
        #expect(harness.results[.initiator]?.peerIdentity == identity)
        #expect(harness.results[.initiator]?.peerIRK == IdentityResolvingKey(value: Array(0x40..<0x50)))
    }

    @Test func anAllZeroIRKIsNoIRK() {
        let identity = IdentityAddress(address: BluetoothAddress("C4:11:22:33:44:55")!, isRandom: true)
        let harness = Self.pair(claiming: identity, irk: [UInt8](repeating: 0, count: 16))
        let result = harness.results[.initiator]
        #expect(result?.peerIdentity == identity)
        #expect(result != nil && result?.peerIRK == nil)
        #expect(result?.keysExchanged.contains("peer IRK") == false)
    }
}
