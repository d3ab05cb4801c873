import StrobeHCI
import StrobeSecurity

/// The address this host uses on the air when it advertises and connects.
public enum OwnAddress: Sendable, Hashable {
    /// The controller's public address.
    case `public`
    /// A static random address (its two most significant bits 0b11), the identity of devices
    /// without a public address.
    case staticRandom(BluetoothAddress)
    /// Resolvable private addresses made from the host's IRK (kept in the bond store), a new one
    /// once `rotation` has passed; bonded peers resolve them to the public identity.
    case resolvablePrivate(rotation: Duration)

    var ownAddressType: LEOwnAddressType {
        if case .public = self { return .public }
        return .random
    }
}

/// The address in use on a link, as SMP hashes it, and the identity address pairing
/// distributes.
struct OwnAddressInUse: Sendable, Hashable {
    var address: BluetoothAddress
    var type: LEAddressType
    var identity: IdentityAddress
}
