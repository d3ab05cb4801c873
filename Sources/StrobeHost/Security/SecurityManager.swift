import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization

/// The host's Security Manager settings, shared by every link: how to pair, where bonds are
/// kept and who answers the user's part. Each link runs its own pairing (`LinkSecurity`).
public final class SecurityManager: Sendable {
    /// How this host pairs: whether at all, bonding, LE Secure Connections, the key size, how long
    /// encryption may take, and what a central does when a request is refused for security.
    public struct Configuration: Sendable, Hashable {
        /// Answer Pairing Requests and pair on Security Requests (false: Pairing Not Supported).
        public var allowsPairing: Bool
        /// Ask peers to bond; keys are stored when both ask and a store is set.
        public var bonding: Bool
        /// Offer LE Secure Connections; false pairs with LE legacy pairing only.
        public var secureConnections: Bool
        /// The smallest encryption key accepted, 7 ... 16 octets.
        public var minimumKeySize: UInt8
        /// How long LE Enable Encryption may take before `encrypt()` gives up.
        public var encryptionTimeout: Duration
        /// What a GATT request refused for Insufficient Authentication or Encryption makes the
        /// central do before it sends the request again (once).
        public var onInsufficientSecurity: InsufficientSecurityPolicy

        /// Defaults: pairing allowed, bonding, LE Secure Connections, 16-octet keys only, a 10 s
        /// encryption timeout and `.encryptOrPair`.
        public init(allowsPairing: Bool = true, bonding: Bool = true, secureConnections: Bool = true,
                    minimumKeySize: UInt8 = 16, encryptionTimeout: Duration = .seconds(10),
                    onInsufficientSecurity: InsufficientSecurityPolicy = .encryptOrPair) {
            self.onInsufficientSecurity = onInsufficientSecurity
            self.allowsPairing = allowsPairing
            self.bonding = bonding
            self.secureConnections = secureConnections
            self.minimumKeySize = minimumKeySize
            self.encryptionTimeout = encryptionTimeout
        }
    }

    /// Where bonds are kept; nil keeps none, so keys last only as long as the link.
    public let store: (any BondStore)?
    /// Random octets for pairing (nonces, keys, the P-256 key pair): the system's generator
    /// unless a simulated world gives a seeded one to repeat itself.
    let random: @Sendable (Int) -> [UInt8]
    private let settings: Lock<(configuration: Configuration, delegate: (any PairingDelegate)?)>

    /// Settings for every link: `configuration`, a `store` for bonds (none by default) and a
    /// `delegate` for the user's part (none: Just Works only, every peer accepted).
    public convenience init(configuration: Configuration = Configuration(), store: (any BondStore)? = nil,
                            delegate: (any PairingDelegate)? = nil) {
        self.init(configuration: configuration, store: store, delegate: delegate, random: SMPRandom.bytes)
    }

    package init(configuration: Configuration = Configuration(), store: (any BondStore)? = nil, delegate: (any PairingDelegate)? = nil,
                 random: @escaping @Sendable (Int) -> [UInt8]) {
        self.store = store
        self.random = random
        settings = Lock((configuration, delegate))
    }

    /// The settings in force; a change applies to pairings and encryptions started after it.
    public var configuration: Configuration {
        get { settings.withLock { $0.configuration } }
        set { settings.withLock { $0.configuration = newValue } }
    }

    /// Who answers the user's part of pairing; nil pairs Just Works only (NoInputNoOutput) and
    /// accepts every peer.
    public var delegate: (any PairingDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }

    /// The pairing machine's settings for a link; `identity` is this host's identity address.
    /// With `verifyingStore` (a pairing about to start), throws when the bond store cannot be
    /// read and written, so that no pairing starts whose bond could not be kept.
    func pairingConfiguration(identity: IdentityAddress, verifyingStore: Bool) throws(BondStoreError) -> SMPPairing.Configuration {
        let (configuration, delegate) = settings.withLock { ($0.configuration, $0.delegate) }
        if verifyingStore, configuration.bonding { try store?.verify() }
        let irk = configuration.bonding ? try store?.localIRK() : nil
        return SMPPairing.Configuration(
            ioCapability: delegate?.ioCapability ?? .noInputNoOutput, bonding: configuration.bonding,
            secureConnections: configuration.secureConnections, minimumKeySize: configuration.minimumKeySize,
            identity: irk.map { LocalIdentity(address: identity, irk: $0) }, asksToAccept: delegate != nil,
            confirmsJustWorks: delegate?.confirmsJustWorks ?? false)
    }

    /// The bond for a peer seen at `address` (by identity, or resolved with its IRK); nil also
    /// when the store cannot be read: `store?.bond(for:type:)` throws why.
    public func bond(for address: BluetoothAddress, type: LEAddressType) -> Bond? {
        try? store?.bond(for: address, type: type)
    }

    /// Changes what is kept with the bond for `peer` beside its keys (the peer's GATT database,
    /// its subscriptions): read, changed and saved only if no one changed it meanwhile, else
    /// tried again. Returns false when there is no such bond, no store, or others kept changing it.
    @discardableResult
    func updateBond(for peer: IdentityAddress, _ change: (inout Bond) -> Void) throws(BondStoreError) -> Bool {
        guard let store else { return false }
        for _ in 0..<5 {
            guard let stored = try store.bonds().first(where: { $0.peer == peer }) else { return false }
            var changed = stored
            change(&changed)
            var bond = stored
            bond.peerDatabase = changed.peerDatabase
            bond.clientConfigurations = changed.clientConfigurations
            guard bond != stored else { return true }
            if try store.save(bond, replacing: stored) { return true }
        }
        return false
    }
}

/// What a central does when the server refuses a request for want of security.
public enum InsufficientSecurityPolicy: Sendable, Hashable {
    /// Encrypt with the bond when there is one, else pair (when pairing is allowed); then retry.
    case encryptOrPair
    /// Encrypt with the bond only; without one the error stands.
    case encryptOnly
    /// Leave it to the caller: the error stands.
    case fail
}

/// Why a link could not be secured.
public enum SecurityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Pairing failed: Pairing Failed from either side, the 30 s SMP timeout, a disconnect, or a refusal.
    case pairing(SMPPairingError)
    /// LE Enable Encryption ended with this status; PIN or Key Missing (0x06) means the peer no
    /// longer has the bond (some controllers say Authentication Failure, 0x05).
    case encryptionFailed(address: BluetoothAddress, status: HCIStatus)
    /// No Encryption Change came within `after` (`Configuration.encryptionTimeout`) of LE Enable Encryption.
    case encryptionTimeout(address: BluetoothAddress, after: Duration)
    /// `encrypt()` with no bond for the peer.
    case noBond(address: BluetoothAddress)
    /// The level asked for was not reached (for example Just Works where MITM was needed).
    case insufficientLevel(reached: SMPSecurityLevel, required: SMPSecurityLevel)
    /// `pair()` was called with `Configuration.allowsPairing` false.
    case pairingNotAllowed
    /// Pairing succeeded, but its bond could not be stored.
    case bondNotStored(BondStoreError)
    /// The bond store cannot be used, so pairing was not started.
    case bondStore(BondStoreError)
    /// Pairing succeeded with a bond that may not replace the one stored for the peer (weaker,
    /// or claimed with another IRK), and the delegate did not agree: the stored bond is kept and
    /// the link ended.
    case bondReplacementRefused(peer: IdentityAddress, reason: String)

    /// A message naming the peer and what failed; for PIN or Key Missing it advises pairing again.
    public var description: String {
        switch self {
        case .pairing(let error): "\(error)"
        case .encryptionFailed(let address, let status):
            switch status {
            case .pinOrKeyMissing:
                "encrypting the link to \(address) failed: the peer has no key for this bond (\(status)); pair again"
            case .authenticationFailure:
                "encrypting the link to \(address) failed: the peer refused the key (\(status)); if it lost the bond, pair again"
            default:
                "encrypting the link to \(address) failed: \(status)"
            }
        case .encryptionTimeout(let address, let after): "the link to \(address) was not encrypted within \(after)"
        case .noBond(let address): "there is no bond with \(address)"
        case .insufficientLevel(let reached, let required): "the link reached \(reached) security, \(required) is required"
        case .pairingNotAllowed: "pairing is turned off"
        case .bondNotStored(let error): "paired, but the bond was not stored: \(error)"
        case .bondStore(let error): "not pairing: \(error)"
        case .bondReplacementRefused(let peer, let reason):
            "paired, but the new keys may not replace the stored bond with \(peer) (\(reason)); the stored bond is kept and the link ended"
        }
    }
}
