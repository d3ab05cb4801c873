import StrobeHCI
import Testing
import StrobeSecurity

/// Two of Strobe's own pairing machines against each other, for every method both kinds of
/// pairing select. (Interop with another stack's Security Manager is in the interop suite.)
struct SMPPairingTests {
    static let identity = LocalIdentity(
        address: IdentityAddress(address: BluetoothAddress("C0:11:22:33:44:55")!, isRandom: true), irk: .random())

    typealias Config = SMPPairing.Configuration

    struct Case: CustomTestStringConvertible, Sendable {
        var initiator: SMPIOCapability
        var responder: SMPIOCapability
        var secureConnections: Bool
        var method: SMPPairingMethod
        var testDescription: String { "\(secureConnections ? "SC" : "legacy") \(initiator)/\(responder) -> \(method)" }
    }

    static let cases: [Case] = [
        Case(initiator: .noInputNoOutput, responder: .noInputNoOutput, secureConnections: true, method: .justWorks),
        Case(initiator: .displayYesNo, responder: .displayYesNo, secureConnections: true, method: .numericComparison),
        Case(initiator: .keyboardDisplay, responder: .displayOnly, secureConnections: true,
             method: .passkeyEntry(initiatorDisplays: false, responderDisplays: true)),
        Case(initiator: .displayOnly, responder: .keyboardOnly, secureConnections: true,
             method: .passkeyEntry(initiatorDisplays: true, responderDisplays: false)),
        Case(initiator: .keyboardOnly, responder: .keyboardOnly, secureConnections: true,
             method: .passkeyEntry(initiatorDisplays: false, responderDisplays: false)),
        Case(initiator: .noInputNoOutput, responder: .keyboardDisplay, secureConnections: false, method: .justWorks),
        Case(initiator: .displayYesNo, responder: .displayYesNo, secureConnections: false, method: .justWorks),
        Case(initiator: .keyboardOnly, responder: .displayOnly, secureConnections: false,
             method: .passkeyEntry(initiatorDisplays: false, responderDisplays: true)),
        Case(initiator: .keyboardDisplay, responder: .keyboardDisplay, secureConnections: false,
             method: .passkeyEntry(initiatorDisplays: true, responderDisplays: false)),
    ]

    @Test(arguments: cases)
    func pairsAndAgreesOnKeys(_ c: Case) throws {
        var harness = PairingHarness(
            initiator: Config(ioCapability: c.initiator, secureConnections: c.secureConnections, identity: Self.identity),
            responder: Config(ioCapability: c.responder, secureConnections: c.secureConnections))
        harness.typedPasskey = c.method == .passkeyEntry(initiatorDisplays: false, responderDisplays: false)
            ? [.initiator: 424_242, .responder: 424_242] : [:]
        harness.run()
        #expect(harness.failures.isEmpty)
        let central = try #require(harness.results[.initiator])
        let peripheral = try #require(harness.results[.responder])
        #expect(central.method == c.method)
        #expect(central.secureConnections == c.secureConnections)
        #expect(central.securityLevel == peripheral.securityLevel)
        #expect(central.securityLevel == SMPSecurityLevel.of(
            authenticated: c.method != .justWorks, secureConnections: c.secureConnections, keySize: 16))
        #expect(central.bonded && peripheral.bonded)
        // The key the central will encrypt with is the one the peripheral will answer with.
        #expect(central.longTermKey != nil)
        #expect(central.longTermKey == peripheral.longTermKey)
        // The central's identity reached the peripheral; the peripheral distributed no IRK.
        #expect(peripheral.peerIdentity == Self.identity.address)
        #expect(peripheral.peerIRK == Self.identity.irk)
        #expect(central.peerIRK == nil)
        #expect(central.peerCSRK == peripheral.localCSRK && central.peerCSRK != nil)
        if c.method == .numericComparison {
            #expect(harness.comparedNumbers[.initiator] == harness.comparedNumbers[.responder])
        }
    }

    @Test func keySizeBelowTheMinimumFailsWithEncryptionKeySize() {
        var responder = SMPPairing(role: .responder, configuration: Config(minimumKeySize: 16), addresses: PairingHarness.addresses)
        let actions = responder.receive([0x01, 0x03, 0x00, 0x0D, 10, 0x07, 0x07])
        let sent = actions.compactMap { if case .send(let pdu) = $0 { pdu.encoded } else { nil } }
        #expect(sent == [[0x02, 0x03, 0x00, 0x09, 16, 0x07, 0x05], [0x05, SMPPairingFailedReason.encryptionKeySize.rawValue]])
        #expect(responder.isFinished)
    }

    @Test func wrongPasskeyFailsOnBothSidesWithoutKeys() {
        for sc in [true, false] {
            var harness = PairingHarness(
                initiator: Config(ioCapability: .keyboardOnly, secureConnections: sc),
                responder: Config(ioCapability: .displayOnly, secureConnections: sc))
            harness.typedPasskey = [.initiator: 111_111]
            harness.run()
            #expect(harness.results.isEmpty)
            #expect(harness.failures[.initiator] != nil && harness.failures[.responder] != nil)
            #expect([harness.failures[.initiator], harness.failures[.responder]].contains(.failedByPeer(.confirmValueFailed)))
        }
    }

    @Test func rejectedNumberFailsWithNumericComparisonFailed() {
        var harness = PairingHarness(initiator: Config(ioCapability: .displayYesNo), responder: Config(ioCapability: .displayYesNo))
        harness.confirms[.responder] = false
        harness.run()
        #expect(harness.results.isEmpty)
        #expect(harness.failures[.responder] == .failedLocally(.numericComparisonFailed, detail: "the user did not confirm the number"))
        #expect(harness.failures[.initiator] == .failedByPeer(.numericComparisonFailed))
    }

    @Test func justWorksWaitsForTheUserWhereTheyAreAsked() {
        var harness = PairingHarness(initiator: Config(confirmsJustWorks: true), responder: Config(confirmsJustWorks: true))
        harness.run()
        #expect(harness.justWorksAsked == [.initiator, .responder])
        #expect(harness.results[.initiator]?.method == .justWorks && harness.results[.responder] != nil)
        // Not asked: Just Works goes through without a question.
        var silent = PairingHarness(initiator: Config(), responder: Config(confirmsJustWorks: true))
        silent.run()
        #expect(silent.justWorksAsked == [.responder])
        #expect(silent.results.count == 2)
    }

    @Test(arguments: [PairingHarness.Side.initiator, .responder])
    func refusedJustWorksFailsWithNumericComparisonFailed(refusing side: PairingHarness.Side) {
        var harness = PairingHarness(initiator: Config(confirmsJustWorks: true), responder: Config(confirmsJustWorks: true))
        harness.confirms[side] = false
        harness.run()
        let other: PairingHarness.Side = side == .initiator ? .responder : .initiator
        #expect(harness.results.isEmpty)
        #expect(harness.failures[side] == .failedLocally(.numericComparisonFailed, detail: "the user did not agree to pair"))
        #expect(harness.failures[other] == .failedByPeer(.numericComparisonFailed))
    }

    @Test func encryptionFailureEndsPairingWithoutKeys() {
        var initiator = SMPPairing(role: .initiator, configuration: Config(), addresses: PairingHarness.addresses)
        var responder = SMPPairing(role: .responder, configuration: Config(), addresses: PairingHarness.addresses)
        var toResponder = initiator.start()
        var key: LongTermKey?
        while !toResponder.isEmpty {
            var toInitiator: [SMPPairingAction] = []
            for case .send(let pdu) in toResponder { toInitiator += responder.receive(pdu.encoded) }
            toResponder = []
            for case .send(let pdu) in toInitiator { toResponder += initiator.receive(pdu.encoded) }
            for case .startEncryption(let k) in toResponder { key = k }
        }
        #expect(key != nil && responder.keyForEncryption == key)
        #expect(initiator.encryptionChanged(status: 0x06) == [.failed(.encryptionFailed(status: 0x06))])
        #expect(initiator.isFinished)
    }

    @Test func timeoutEndsPairingSilently() {
        var initiator = SMPPairing(role: .initiator, configuration: Config(), addresses: PairingHarness.addresses)
        _ = initiator.start()
        #expect(initiator.timedOut() == [.failed(.timeout)])
        #expect(initiator.receive([0x02, 0x03, 0x00, 0x09, 16, 0x07, 0x07]).isEmpty)
    }
}
