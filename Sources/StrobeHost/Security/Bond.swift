import StrobeHCI
import StrobeSecurity

/// What pairing left to keep for a peer: its identity, the key to encrypt the next links with,
/// and the peer's IRK and CSRK. Its description names keys, never their values.
public struct Bond: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The peer's identity address (from Identity Address Information, else the address it
    /// paired with).
    public var peer: IdentityAddress
    /// This host's role on the link that paired, which decides how it uses the key: a central
    /// encrypts with `longTermKey`, a peripheral answers LE Long Term Key Request with it.
    public var role: LERole
    /// The security level a link encrypted with the bond's key has.
    public var securityLevel: SMPSecurityLevel
    /// Whether pairing used LE Secure Connections (else LE legacy pairing).
    public var secureConnections: Bool
    /// The LTK later links are encrypted with; nil when pairing left none (LE legacy pairing that
    /// distributed no LTK).
    public var longTermKey: LongTermKey?
    /// The peer's IRK, which resolves its resolvable private addresses; nil when it sent none.
    public var peerIRK: IdentityResolvingKey?
    /// The peer's CSRK, which verifies its signed writes; nil when it sent none.
    public var peerCSRK: SignatureResolvingKey?
    /// The CSRK this host distributed, which signs its writes to the peer; nil when it sent none.
    public var localCSRK: SignatureResolvingKey?
    /// The keys pairing exchanged, by name.
    public var keys: [String]
    /// The peer's GATT database, as this host's client last discovered it.
    package var peerDatabase: GATTDatabaseCache?
    /// What the peer, as a client of this host's GATT server, enabled.
    package var clientConfigurations: GATTClientConfigurations?

    /// Creates a bond; the IRK, the CSRKs and the key names default to none.
    public init(peer: IdentityAddress, role: LERole, securityLevel: SMPSecurityLevel, secureConnections: Bool,
                longTermKey: LongTermKey?, peerIRK: IdentityResolvingKey? = nil, peerCSRK: SignatureResolvingKey? = nil,
                localCSRK: SignatureResolvingKey? = nil, keys: [String] = []) {
        self.peer = peer
        self.role = role
        self.securityLevel = securityLevel
        self.secureConnections = secureConnections
        self.longTermKey = longTermKey
        self.peerIRK = peerIRK
        self.peerCSRK = peerCSRK
        self.localCSRK = localCSRK
        self.keys = keys
    }

    /// Names the peer, the role, the security level and the keys pairing exchanged, never a key's value.
    public var description: String {
        "bond with \(peer) as \(role), \(securityLevel), keys [\(keys.joined(separator: ", "))]"
    }

    /// Why this bond is weaker than `other`, or `nil` when it is not: a lower security level,
    /// LE legacy pairing where `other` has LE Secure Connections, or a shorter key.
    public func weakness(comparedWith other: Bond) -> String? {
        var reasons: [String] = []
        if securityLevel < other.securityLevel { reasons.append("\(securityLevel.name) security where the bond has \(other.securityLevel.name)") }
        if !secureConnections, other.secureConnections { reasons.append("LE legacy pairing where the bond has LE Secure Connections") }
        if longTermKey == nil, other.longTermKey != nil { reasons.append("no LTK where the bond has one") }
        if let size = longTermKey?.keySize, let stored = other.longTermKey?.keySize, size < stored {
            reasons.append("a \(size)-octet key where the bond has \(stored)")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
    }

    /// Whether `address` is this peer: its identity address, or a resolvable private address
    /// its IRK resolves.
    public func matches(_ address: BluetoothAddress, type: LEAddressType) -> Bool {
        if address == peer.address { return true }
        guard let irk = peerIRK, ResolvablePrivateAddress.isResolvable(address, type: type) else { return false }
        return ResolvablePrivateAddress.resolves(address, with: irk)
    }
}
