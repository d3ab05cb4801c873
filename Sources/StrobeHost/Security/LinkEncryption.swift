import StrobeHCI
import StrobeSecurity

/// A link's encryption outside a pairing, as a machine without I/O or clock: a central
/// encrypting with a bond's key (LE Enable Encryption, Core Vol 4, Part E, 7.8.24), a peripheral
/// answering LE Long Term Key Request (7.7.65.5) with the pairing's key or a bond's, Encryption
/// Change (7.7.8) and the failure of the commands that start encryption. It keeps the link's
/// security level and the bond whose key the peer proved it holds. Inputs from the owner
/// (`LinkSecurity`), actions out: the commands to send, the caller's outcome, the level to
/// announce.
package struct LinkEncryption<Token: Equatable & Sendable>: Sendable {
    package enum Action: Equatable, Sendable {
        /// LE Enable Encryption with this key for the wait `Token`; its failure goes to
        /// `encryptionCommandFailed`.
        case sendEnableEncryption(LongTermKey, for: Token)
        /// LE Long Term Key Request Reply with this key; refused, its status goes to
        /// `encryptionChanged` (the owner's Encryption Change path).
        case replyWithKey(LongTermKey)
        /// LE Long Term Key Request Negative Reply.
        case replyWithoutKey
        /// The caller waiting for encryption hears how it ended.
        case finish(Token, Result<SMPSecurityLevel, Failure>)
        /// The link became encrypted at this level (or plain again: `.none`).
        case announce(SMPSecurityLevel)
    }

    package enum Failure: Error, Equatable, Sendable {
        /// Encryption Change (or the command that starts encryption) carried this status.
        case failed(HCIStatus)
        /// A later `encrypt` took the wait over.
        case superseded
        /// The command that starts encryption failed without an answer (the controller closed
        /// or fell silent).
        case command(HCIError)
        /// The link went down.
        case disconnected
    }

    /// A bond's key, and what encrypting with it proves.
    package struct BondKey: Equatable, Sendable {
        package var key: LongTermKey
        package var level: SMPSecurityLevel
        package var identity: IdentityAddress

        package init(key: LongTermKey, level: SMPSecurityLevel, identity: IdentityAddress) {
            self.key = key
            self.level = level
            self.identity = identity
        }
    }

    package private(set) var level = SMPSecurityLevel.none
    /// The bond whose key encrypts the link now, or that the pairing which encrypted it stored.
    package private(set) var provenBond: IdentityAddress?
    /// The bond whose key is being used, until Encryption Change says whether it worked.
    private var pending: BondKey?
    private var waiting: Token?
    private var closed = false

    package init() {}

    /// Central: encrypt with `bond`'s key; `token` hears the outcome. A wait already under way
    /// is superseded.
    package mutating func encrypt(_ token: Token, with bond: BondKey) -> [Action] {
        guard !closed else { return [.finish(token, .failure(.disconnected))] }
        var actions: [Action] = waiting.map { [.finish($0, .failure(.superseded))] } ?? []
        waiting = token
        pending = bond
        actions.append(.sendEnableEncryption(bond.key, for: token))
        return actions
    }

    /// Peripheral: the central asks for the key EDIV and Rand name. The pairing's key while one
    /// encrypts the link (EDIV and Rand zero), else the bond's when they name it, else none.
    package mutating func longTermKeyRequested(ediv: UInt16, rand: UInt64, pairingKey: LongTermKey?, bond: BondKey?) -> [Action] {
        if let pairingKey, ediv == 0, rand == 0 { return [.replyWithKey(pairingKey)] }
        guard let bond, bond.key.ediv == ediv, bond.key.rand == rand else { return [.replyWithoutKey] }
        pending = bond
        return [.replyWithKey(bond.key)]
    }

    /// Encryption Change (or Encryption Key Refresh Complete) outside a pairing.
    package mutating func encryptionChanged(status: HCIStatus, enabled: Bool) -> [Action] {
        var actions: [Action] = []
        let token = waiting
        waiting = nil
        guard status.isSuccess, enabled else {
            pending = nil
            // Encryption turned off: the link is plain again.
            if status.isSuccess, level != .none {
                level = .none
                provenBond = nil
                actions.append(.announce(.none))
            }
            if let token { actions.append(.finish(token, .failure(.failed(status)))) }
            return actions
        }
        if let pending {
            level = pending.level
            provenBond = pending.identity
        }
        pending = nil
        // Announced before the caller hears of it, as a pairing's end is: what the link keeps
        // with the bond once encrypted is under way by the time encrypt() returns.
        actions.append(.announce(level))
        if let token { actions.append(.finish(token, .success(level))) }
        return actions
    }

    /// LE Enable Encryption sent for the wait `token` failed: that wait ends (a later one is none
    /// of its business), with the controller's status when it refused the command, else with the
    /// command's error (the controller closed or fell silent).
    package mutating func encryptionCommandFailed(_ error: HCIError, for token: Token) -> [Action] {
        guard waiting == token else { return [] }
        waiting = nil
        pending = nil
        if case .commandFailed(_, let status) = error { return [.finish(token, .failure(.failed(status)))] }
        return [.finish(token, .failure(.command(error)))]
    }

    /// A pairing's keys encrypt the link now: it proves no bond until one is stored.
    package mutating func pairingEncrypted() {
        provenBond = nil
    }

    /// The pairing is over and its result taken, at `level`.
    package mutating func paired(level: SMPSecurityLevel) {
        self.level = level
    }

    /// The pairing's bond is stored under `identity`: the peer has proved it is that bond's.
    package mutating func bondStored(_ identity: IdentityAddress) {
        provenBond = identity
    }

    /// The link is down: the caller waiting hears it, and nothing more starts.
    package mutating func linkClosed() -> [Action] {
        closed = true
        pending = nil
        defer { waiting = nil }
        return waiting.map { [.finish($0, .failure(.disconnected))] } ?? []
    }
}
