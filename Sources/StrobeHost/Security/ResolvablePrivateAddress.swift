import StrobeHCI
import StrobeSecurity

/// Resolvable private addresses (Core Specification Vol 6, Part B, 1.3.2.2): prand (its two
/// most significant bits 0b01) and hash = ah(IRK, prand), least significant 24 bits.
package enum ResolvablePrivateAddress {
    /// A random address whose two most significant bits are 0b01.
    package static func isResolvable(_ address: BluetoothAddress, type: LEAddressType) -> Bool {
        (type == .random || type == .randomIdentity) && address.bytes.5 >> 6 == 0b01
    }

    /// Whether `irk` made `address`.
    package static func resolves(_ address: BluetoothAddress, with irk: IdentityResolvingKey) -> Bool {
        let bytes = address.wireBytes
        guard let hash = try? SMPCrypto.ah(irk: irk.value, prand: Array(bytes[3..<6])) else { return false }
        return hash == Array(bytes[0..<3])
    }

    /// A new address from `irk`, with a random prand.
    package static func make(with irk: IdentityResolvingKey, random: [UInt8] = SMPRandom.bytes(3)) -> BluetoothAddress {
        var prand = Array(random.prefix(3))
        while prand.count < 3 { prand.append(0) }
        prand[2] = prand[2] & 0x3F | 0x40
        // prand of all zeros or all ones (in its 22 random bits) is not allowed: nudge it.
        if prand[0] == 0, prand[1] == 0, prand[2] == 0x40 { prand[0] = 1 }
        if prand[0] == 0xFF, prand[1] == 0xFF, prand[2] == 0x7F { prand[0] = 0xFE }
        let hash = (try? SMPCrypto.ah(irk: irk.value, prand: prand)) ?? [0, 0, 0]
        return BluetoothAddress(wireBytes: hash + prand)!
    }
}
