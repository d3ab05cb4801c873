import StrobeHCI
import StrobeSecurity

/// Which pairing an SMP PDU, a caller or a user's answer belongs to on one link, as a machine
/// without I/O or clock. It starts a pairing (`SMPPairing`) for a PDU that opens one, or for a
/// caller, and refuses one the configuration or the bond store forbids; it sends a peripheral's
/// Security Request and hands a central's to its owner; it takes an answer from the user only for
/// the pairing that asked; after an SMP timeout it takes no more SMP on the link (Core Vol 3,
/// Part H, 3.4). The pairing's own messages are `SMPPairing`'s; making one (its P-256 key, the
/// store's local IRK) is the owner's (`LinkSecurity`), asked for with `makePairing`.
package struct LinkPairing<Token: Sendable>: Sendable {
    package enum Action: Equatable, Sendable {
        /// Carry out the pairing machine's action.
        case pairing(SMPPairingAction)
        /// Central: the peripheral sent a Security Request while no pairing runs; the owner
        /// encrypts with the peer's bond, else pairs.
        case securityRequested
        /// A pairing was refused because the bond store cannot keep its bond (logged).
        case storeUnusable(BondStoreError)
    }

    /// What the owner does next.
    package enum Step: Equatable, Sendable {
        /// Make a pairing (`verifyingStore`: check the store can keep a bond first) and feed the
        /// same input again with it.
        case makePairing(verifyingStore: Bool)
        case act([Action])
    }

    let role: LERole
    private(set) var pairing: SMPPairing?
    /// Counts the pairings on this link: an answer goes to the pairing that asked, never a later one.
    package private(set) var number = 0
    /// Waiting for the pairing under way (or the next) to end.
    package private(set) var waiters: [Token] = []
    private(set) var lastResult: SMPPairingResult?
    /// After an SMP timeout no more SMP is sent or taken on the link.
    package private(set) var smpTimedOut = false
    private(set) var closed = false
    /// Peripheral: a Security Request went out and the central has sent no SMP PDU since, nor
    /// encrypted the link.
    private(set) var awaitingCentral = false

    package init(role: LERole) {
        self.role = role
    }

    package var isPairing: Bool { pairing?.isActive == true }

    /// The SMP timer runs while a pairing is under way or awaited.
    package var timerRuns: Bool { isPairing || !waiters.isEmpty }

    /// An SMP PDU from CID 6. `fresh` is the pairing made after `makePairing` (or the store's
    /// failure to make one).
    package mutating func receive(_ pdu: [UInt8], allowsPairing: Bool, fresh: Result<SMPPairing, BondStoreError>? = nil) -> Step {
        guard !smpTimedOut, !closed else { return .act([]) }
        awaitingCentral = false
        if !isPairing {
            let code = pdu.first.flatMap(SMPCommandCode.init(rawValue:))
            if role == .central, code == .securityRequest, pdu.count == 2 { return .act([.securityRequested]) }
            let starts = code == .pairingRequest
            guard allowsPairing || !starts else { return .act([.pairing(.send(.pairingFailed(.pairingNotSupported)))]) }
            switch fresh {
            case nil:
                return .makePairing(verifyingStore: starts)
            case .failure(let error):
                // A store that cannot keep a bond starts no pairing.
                return .act([.storeUnusable(error), .pairing(.send(.pairingFailed(.unspecifiedReason)))])
            case .success(let made):
                pairing = made
                number += 1
            }
        }
        guard var pairing else { return .act([]) }
        let actions = pairing.receive(pdu)
        self.pairing = pairing
        return .act(actions.map(Action.pairing))
    }

    /// A caller pairs (`token` hears the end): the central starts with `fresh`; the peripheral
    /// sends a Security Request with `securityRequest` and waits for the central. Joins a
    /// pairing already under way.
    package mutating func begin(_ token: Token, securityRequest: SMPAuthenticationRequirements?,
                        fresh: SMPPairing?) throws(SecurityError) -> Step {
        guard !closed else { throw .pairing(.disconnected) }
        guard !smpTimedOut else { throw .pairing(.notAllowed("SMP timed out on this link")) }
        if isPairing {
            waiters.append(token)
            return .act([])
        }
        if role == .peripheral {
            waiters.append(token)
            guard let securityRequest else { return .act([]) }
            awaitingCentral = true
            return .act([.pairing(.send(.securityRequest(securityRequest)))])
        }
        guard var pairing = fresh else { return .makePairing(verifyingStore: true) }
        waiters.append(token)
        let actions = pairing.start()
        self.pairing = pairing
        number += 1
        return .act(actions.map(Action.pairing))
    }

    /// Waits for the pairing the peer runs: nil once `token` waits; the result when one is done.
    package mutating func await(_ token: Token) throws(SecurityError) -> SMPPairingResult? {
        if let lastResult { return lastResult }
        guard !closed else { throw .pairing(.disconnected) }
        waiters.append(token)
        return nil
    }

    /// The user's answer for pairing `number`: applied only if that pairing is still the one
    /// under way.
    package mutating func answer(for number: Int, _ apply: (inout SMPPairing) -> [SMPPairingAction]) -> [SMPPairingAction] {
        guard number == self.number, var pairing else { return [] }
        let actions = apply(&pairing)
        self.pairing = pairing
        return actions
    }

    /// Encryption Change while a pairing is under way is the pairing's; nil when none is.
    package mutating func encryptionChanged(status: HCIStatus) -> [SMPPairingAction]? {
        guard var pairing, pairing.isActive else { return nil }
        let actions = pairing.encryptionChanged(status: status.rawValue)
        self.pairing = pairing
        return actions
    }

    /// LE Long Term Key Request: the central answers a Security Request by encrypting. The
    /// pairing's key when it is the one encrypting the link.
    package mutating func longTermKeyRequested() -> LongTermKey? {
        awaitingCentral = false
        return pairing?.keyForEncryption
    }

    /// The SMP timer ran out.
    package mutating func smpTimerExpired() -> [SMPPairingAction] {
        guard var pairing else { return [] }
        let actions = pairing.timedOut()
        self.pairing = pairing
        return actions
    }

    /// The pairing reported its end (`error` nil: success): the waiters are handed over now, so
    /// that a pairing started meanwhile keeps its own.
    package mutating func ended(_ error: SMPPairingError?) -> [Token] {
        if error == .timeout { smpTimedOut = true }
        defer { waiters = [] }
        return waiters
    }

    /// The pairing's result is the link's (also when its bond was not stored).
    package mutating func settled(_ result: SMPPairingResult) {
        lastResult = result
    }

    /// Peripheral: whether to send the Security Request again now.
    package func remindsCentral(encrypted: Bool) -> Bool {
        awaitingCentral && !closed && !smpTimedOut && !encrypted && !waiters.isEmpty
    }

    /// The link is down: nothing of the pairing is kept, and the waiters are handed over.
    package mutating func linkClosed() -> [Token] {
        closed = true
        pairing = nil
        defer { waiters = [] }
        return waiters
    }
}
