import StrobeHCI
import StrobeSecurity

/// What becomes of a successful pairing's keys, as a machine without I/O: the bond is made under
/// the identity the peer proved (`PeerIdentity`), looked up against the stored one, and saved,
/// unless it is weaker than the stored bond or a private address claims it with an IRK other than
/// the stored bond's: then the app's delegate decides. A refused bond leaves nothing of the
/// pairing in use and ends the link. Its owner (`LinkSecurity`) does the store's I/O and asks the
/// delegate, off the link's threads, and feeds the outcomes back.
package struct BondSettlement: Sendable {
    package enum Action: Equatable, Sendable {
        /// The pairing ended with this outcome: its level and result are the link's now.
        case finish(Result<SMPPairingResult, SecurityError>)
        /// The peer's claimed identity was not taken (logged), for this reason.
        case identityClaimIgnored(String)
        /// Look up the stored bond with this identity address; the answer goes to `found`.
        case lookUp(BluetoothAddress)
        /// Ask the app whether `bond` may replace `existing`; the answer goes to `answered`.
        case askToReplace(existing: Bond, with: Bond, reason: String)
        /// Save `bond` if the stored one is still `replacing`, then remove any bond kept under
        /// `removingBondFor` (the connection address the identity takes over from); the outcome
        /// goes to `saved`.
        case save(Bond, replacing: Bond?, removingBondFor: BluetoothAddress?)
        /// The bond the peer proved is stored under this identity.
        case stored(IdentityAddress)
        /// Nothing of the pairing is kept: its waiters fail with this error and the link is ended
        /// (Authentication Failure).
        case refuse(SecurityError)
    }

    let result: SMPPairingResult
    /// The connection address the pairing ran from.
    let peer: BluetoothAddress
    package private(set) var bond: Bond?
    private var provedByIRK = false
    private var ignoredClaim: String?
    private var existing: Bond?
    /// Why the app is asked before the bond replaces the stored one.
    private var concerns = ""

    /// A pairing that succeeded from `peer`, as `role`.
    package init(_ result: SMPPairingResult, peer: BluetoothAddress, peerType: LEAddressType, role: LERole) {
        self.result = result
        self.peer = peer
        guard result.bonded else { return }
        let checked = PeerIdentity(claimed: result.peerIdentity, irk: result.peerIRK, pairedFrom: peer, type: peerType)
        provedByIRK = checked.provedByIRK
        bond = Bond(
            peer: checked.identity, role: role, securityLevel: result.securityLevel,
            secureConnections: result.secureConnections, longTermKey: result.longTermKey, peerIRK: checked.irk,
            peerCSRK: result.peerCSRK, localCSRK: result.localCSRK,
            keys: checked.ignoredClaim == nil
                ? result.keysExchanged : result.keysExchanged.filter { $0 != "peer IRK" && $0 != "peer identity address" })
        ignoredClaim = checked.ignoredClaim
    }

    /// Starts: a pairing without a bond, or with no store to keep one, ends at once.
    package func start(storing: Bool) -> [Action] {
        guard let bond, storing else { return [.finish(.success(result))] }
        return (ignoredClaim.map { [.identityClaimIgnored($0)] } ?? []) + [.lookUp(bond.peer.address)]
    }

    /// The stored bond with the identity's address (nil: none), or the store's failure.
    package mutating func found(_ stored: Result<Bond?, BondStoreError>) -> [Action] {
        guard let bond else { return [] }
        let existing: Bond?
        switch stored {
        case .failure(let error): return [.finish(.failure(.bondNotStored(error)))]
        case .success(let bond): existing = bond
        }
        self.existing = existing
        var concerns: [String] = []
        if let existing {
            if let weakness = bond.weakness(comparedWith: existing) { concerns.append(weakness) }
            if provedByIRK, let stored = existing.peerIRK, stored != bond.peerIRK {
                concerns.append("an IRK other than the stored bond's, from a private address")
            }
        }
        guard let existing, !concerns.isEmpty else { return [save(bond)] }
        self.concerns = concerns.joined(separator: "; ")
        return [.askToReplace(existing: existing, with: bond, reason: self.concerns)]
    }

    /// The app's answer (nil: no delegate, which is no).
    package func answered(_ yes: Bool?) -> [Action] {
        guard let bond, let existing else { return [] }
        guard yes ?? false else { return [.refuse(.bondReplacementRefused(peer: existing.peer, reason: concerns))] }
        return [save(bond)]
    }

    /// The save's outcome: false when the stored bond was no longer the one looked up (another
    /// link or process changed it meanwhile).
    package func saved(_ outcome: Result<Bool, BondStoreError>) -> [Action] {
        guard let bond else { return [] }
        switch outcome {
        case .failure(let error):
            return [.finish(.failure(.bondNotStored(error)))]
        case .success(false):
            return [.refuse(.bondReplacementRefused(peer: bond.peer, reason: "the stored bond changed while pairing"))]
        case .success(true):
            return [.stored(bond.peer), .finish(.success(result))]
        }
    }

    private func save(_ bond: Bond) -> Action {
        // A bond under the connection address gives way to the identity's.
        .save(bond, replacing: existing, removingBondFor: bond.peer.address != peer ? peer : nil)
    }
}
