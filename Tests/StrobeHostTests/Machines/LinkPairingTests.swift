import StrobeHCI
import StrobeSecurity
import Testing
import StrobeHost

/// Which pairing a PDU, a caller or an answer belongs to, driven by scripted inputs: no
/// controller, no store, no clock, no tasks.
@Suite struct LinkPairingTests {
    typealias Machine = LinkPairing<Int>

    static let addresses = SMPPairing.Addresses(
        initiator: BluetoothAddress("C0:00:00:00:00:01")!, initiatorType: .random,
        responder: BluetoothAddress("D0:00:00:00:00:02")!, responderType: .public)
    /// Pairing Request: NoInputNoOutput, Secure Connections and bonding, 16-octet keys.
    static let pairingRequest: [UInt8] = [0x01, 0x03, 0x00, 0x09, 16, 0, 0]
    static let securityRequest: [UInt8] = [0x0B, 0x09]
    static let storeFull = BondStoreError.unwritable(path: "bonds.json", reason: "disk full")

    static func pairing(_ role: SMPPairing.Role) -> SMPPairing {
        SMPPairing(role: role, configuration: SMPPairing.Configuration(), addresses: addresses)
    }

    static func actions(_ step: Machine.Step) -> [Machine.Action] {
        guard case .act(let actions) = step else { return [] }
        return actions
    }

    static func sends(_ step: Machine.Step) -> [SMPPDU] {
        actions(step).compactMap { if case .pairing(.send(let pdu)) = $0 { pdu } else { nil } }
    }

    @Test func aPairingRequestGetsAPairingMadeThenStartsIt() {
        var machine = Machine(role: .peripheral)
        #expect(machine.receive(Self.pairingRequest, allowsPairing: true) == .makePairing(verifyingStore: true))
        #expect(!machine.isPairing && machine.number == 0, "nothing starts before the pairing is made")
        let step = machine.receive(Self.pairingRequest, allowsPairing: true, fresh: .success(Self.pairing(.responder)))
        guard case .pairingResponse = Self.sends(step).first else { Issue.record("no Pairing Response: \(step)"); return }
        #expect(machine.isPairing && machine.number == 1 && machine.timerRuns)
    }

    @Test func aPairingRequestIsRefusedWhenPairingIsOff() {
        var machine = Machine(role: .peripheral)
        #expect(machine.receive(Self.pairingRequest, allowsPairing: false) == .act([.pairing(.send(.pairingFailed(.pairingNotSupported)))]))
        #expect(!machine.isPairing && machine.number == 0)
    }

    @Test func aStoreThatCannotKeepTheBondStartsNoPairing() {
        var machine = Machine(role: .peripheral)
        #expect(machine.receive(Self.pairingRequest, allowsPairing: true, fresh: .failure(Self.storeFull))
            == .act([.storeUnusable(Self.storeFull), .pairing(.send(.pairingFailed(.unspecifiedReason)))]))
        #expect(!machine.isPairing && machine.number == 0)
    }

    @Test func aSecurityRequestToAnIdleCentralIsTheOwners() throws {
        var machine = Machine(role: .central)
        #expect(machine.receive(Self.securityRequest, allowsPairing: true) == .act([.securityRequested]))
        // A malformed one is the pairing machine's to refuse.
        #expect(machine.receive(Self.securityRequest + [0], allowsPairing: true) == .makePairing(verifyingStore: false))
        // While pairing, a Security Request goes to the pairing.
        #expect(try machine.begin(1, securityRequest: nil, fresh: Self.pairing(.initiator)) != .makePairing(verifyingStore: true))
        let step = machine.receive(Self.securityRequest, allowsPairing: true)
        guard case .act(let actions) = step else { Issue.record("not the pairing's: \(step)"); return }
        #expect(!actions.contains(.securityRequested))
    }

    @Test func anIdleCentralAsksForAPairingThenStartsIt() throws {
        var machine = Machine(role: .central)
        #expect(try machine.begin(1, securityRequest: nil, fresh: nil) == .makePairing(verifyingStore: true))
        #expect(machine.waiters.isEmpty, "not waiting before the pairing is made")
        let step = try machine.begin(1, securityRequest: nil, fresh: Self.pairing(.initiator))
        guard case .pairingRequest = Self.sends(step).first else { Issue.record("no Pairing Request: \(step)"); return }
        #expect(machine.waiters == [1] && machine.number == 1)
        // A second caller joins the pairing under way: nothing more is sent.
        #expect(try machine.begin(2, securityRequest: nil, fresh: Self.pairing(.initiator)) == .act([]))
        #expect(machine.number == 1)
        #expect(machine.ended(nil) == [1, 2] && machine.waiters.isEmpty)
    }

    @Test func anAnswerGoesOnlyToThePairingThatAsked() throws {
        var machine = Machine(role: .central)
        _ = try machine.begin(1, securityRequest: nil, fresh: Self.pairing(.initiator))
        var applied = 0
        #expect(machine.answer(for: 0) { _ in applied += 1; return [] }.isEmpty)
        #expect(applied == 0, "an answer for another pairing is dropped")
        _ = machine.answer(for: 1) { _ in applied += 1; return [] }
        #expect(applied == 1)
        // That pairing ends (Pairing Failed from the peer) and a second starts: a late answer to
        // the first is not the second's.
        _ = machine.receive([0x05, 0x08], allowsPairing: true)
        _ = machine.ended(.failedByPeer(.unspecifiedReason))
        _ = try machine.begin(2, securityRequest: nil, fresh: Self.pairing(.initiator))
        #expect(machine.number == 2)
        _ = machine.answer(for: 1) { _ in applied += 1; return [] }
        #expect(applied == 1)
        _ = machine.answer(for: 2) { _ in applied += 1; return [] }
        #expect(applied == 2)
    }

    @Test func afterAnSMPTimeoutNoSMPIsTaken() {
        var machine = Machine(role: .central)
        _ = try? machine.begin(1, securityRequest: nil, fresh: Self.pairing(.initiator))
        let expired = machine.smpTimerExpired()
        #expect(expired.contains(.failed(.timeout)))
        #expect(machine.ended(.timeout) == [1])
        #expect(machine.smpTimedOut)
        #expect(machine.receive(Self.pairingRequest, allowsPairing: true) == .act([]))
        #expect(throws: SecurityError.pairing(.notAllowed("SMP timed out on this link"))) {
            try machine.begin(2, securityRequest: nil, fresh: Self.pairing(.initiator))
        }
    }

    @Test func aPeripheralAsksTheCentralAndIsRemindedUntilItAnswers() throws {
        var machine = Machine(role: .peripheral)
        #expect(try machine.begin(1, securityRequest: [.bonding], fresh: nil) == .act([.pairing(.send(.securityRequest([.bonding])))]))
        #expect(machine.remindsCentral(encrypted: false))
        #expect(!machine.remindsCentral(encrypted: true), "an encrypted link needs no reminder")
        // The central answers by encrypting (with a bond's key: no pairing's key is offered).
        #expect(machine.longTermKeyRequested() == nil)
        #expect(!machine.remindsCentral(encrypted: false))
        // Asked again, it reminds again.
        #expect(try machine.begin(2, securityRequest: [.bonding], fresh: nil) == .act([.pairing(.send(.securityRequest([.bonding])))]))
        #expect(machine.remindsCentral(encrypted: false))
        // Or by any SMP PDU.
        _ = machine.receive(Self.pairingRequest, allowsPairing: true)
        #expect(!machine.remindsCentral(encrypted: false))
        #expect(machine.waiters == [1, 2])
    }

    @Test func aWaitForThePeersPairingTakesTheResultOnceSettled() throws {
        var machine = Machine(role: .peripheral)
        #expect(try machine.await(1) == nil && machine.waiters == [1])
        let result = SMPPairingResult(method: .justWorks, secureConnections: true, keySize: 16, securityLevel: .unauthenticated,
                                      bonded: false, longTermKey: nil, peerIRK: nil, peerIdentity: nil, peerCSRK: nil,
                                      localCSRK: nil, keysExchanged: [])
        #expect(machine.ended(nil) == [1])
        machine.settled(result)
        #expect(try machine.await(2) == result && machine.waiters.isEmpty)
    }

    @Test func encryptionChangeIsThePairingsOnlyWhileOneRuns() throws {
        var machine = Machine(role: .central)
        #expect(machine.encryptionChanged(status: .success) == nil)
        _ = try machine.begin(1, securityRequest: nil, fresh: Self.pairing(.initiator))
        // The pairing's, though it is not encrypting yet and so ignores it: not LinkEncryption's.
        #expect(machine.encryptionChanged(status: .pinOrKeyMissing) == [])
    }

    @Test func theLinksEndHandsTheWaitersOverAndEndsEverything() throws {
        var machine = Machine(role: .central)
        _ = try machine.begin(1, securityRequest: nil, fresh: Self.pairing(.initiator))
        #expect(machine.linkClosed() == [1])
        #expect(!machine.isPairing && !machine.timerRuns)
        #expect(machine.receive(Self.pairingRequest, allowsPairing: true) == .act([]))
        #expect(throws: SecurityError.pairing(.disconnected)) { try machine.begin(2, securityRequest: nil, fresh: nil) }
        #expect(throws: SecurityError.pairing(.disconnected)) { try machine.await(3) }
    }
}
