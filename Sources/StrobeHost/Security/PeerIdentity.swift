import StrobeHCI
import StrobeSecurity

/// Which identity a bond is kept under: what the peer claimed in key distribution is an
/// attacker's claim until the address it paired from backs it up.
///
/// - A peer that paired from an identity address (public, static random, or one the controller
///   resolved) is that identity: a different claimed identity is ignored, and its IRK with it,
///   so that no peer can put its keys in another device's bond (BlueZ does the same).
/// - A peer that paired from a resolvable private address is its claimed identity only when
///   the IRK it distributed resolves that address.
/// - Otherwise the bond is kept under the address it paired from.
package struct PeerIdentity: Sendable, Hashable {
    package var identity: IdentityAddress
    package var irk: IdentityResolvingKey?
    /// Why the claimed identity (and its IRK) was not taken; `nil` when it was, or none was made.
    package var ignoredClaim: String?
    /// The identity rests on the peer's own IRK resolving its private address: anyone can make
    /// such a pair, so it proves the peer holds that IRK, not that it is that identity.
    package var provedByIRK = false

    package init(identity: IdentityAddress, irk: IdentityResolvingKey?, ignoredClaim: String?, provedByIRK: Bool = false) {
        self.identity = identity
        self.irk = irk
        self.ignoredClaim = ignoredClaim
        self.provedByIRK = provedByIRK
    }
}

extension PeerIdentity {
    package init(claimed: IdentityAddress?, irk: IdentityResolvingKey?, pairedFrom address: BluetoothAddress, type: LEAddressType) {
        let connection = IdentityAddress(address: address, isRandom: type.connectable == .random)
        let fromIdentity = type == .publicIdentity || type == .randomIdentity || connection.invalidity == nil
        guard let claimed else {
            identity = connection
            self.irk = irk
            return
        }
        if fromIdentity {
            identity = connection
            if claimed == connection {
                self.irk = irk
            } else {
                ignoredClaim = "paired from the identity address \(connection) but claimed \(claimed)"
            }
            return
        }
        if let irk, ResolvablePrivateAddress.isResolvable(address, type: type), ResolvablePrivateAddress.resolves(address, with: irk) {
            identity = claimed
            self.irk = irk
            provedByIRK = true
            return
        }
        identity = connection
        ignoredClaim = "claimed \(claimed), but its IRK does not resolve \(address), the address it paired from"
    }
}
