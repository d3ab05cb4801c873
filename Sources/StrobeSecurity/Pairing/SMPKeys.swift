import StrobeHCI

/// A Long Term Key with the EDIV and Rand that name it (both zero for LE Secure Connections).
/// Its description never shows the key.
public struct LongTermKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 16 octets, least significant first; octets past `keySize` are zero.
    public var value: [UInt8]
    public var ediv: UInt16
    public var rand: UInt64
    /// The negotiated encryption key size, 7 ... 16 octets.
    public var keySize: Int

    public init(value: [UInt8], ediv: UInt16 = 0, rand: UInt64 = 0, keySize: Int = 16) {
        self.value = value
        self.ediv = ediv
        self.rand = rand
        self.keySize = keySize
    }

    public var description: String { "LTK (\(keySize) octets)" }
}

/// An Identity Resolving Key, 16 octets least significant first. Its description never shows it.
public struct IdentityResolvingKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public var value: [UInt8]
    public init(value: [UInt8]) { self.value = value }

    /// A new random IRK.
    public static func random() -> IdentityResolvingKey { IdentityResolvingKey(value: SMPRandom.bytes(16)) }

    public var description: String { "IRK" }
}

/// A Connection Signature Resolving Key. Its description never shows it.
public struct SignatureResolvingKey: Sendable, Hashable, Codable, CustomStringConvertible {
    public var value: [UInt8]
    public init(value: [UInt8]) { self.value = value }
    public var description: String { "CSRK" }
}

/// An identity address: a public or a static random address, with its type.
public struct IdentityAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var isRandom: Bool

    public init(address: BluetoothAddress, isRandom: Bool) {
        self.address = address
        self.isRandom = isRandom
    }

    /// The address type as HCI commands take it.
    public var addressType: LEAddressType { isRandom ? .random : .public }

    public var description: String { "\(address) (\(isRandom ? "random" : "public"))" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .address)
        guard let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorruptedError(forKey: .address, in: container, debugDescription: "'\(text)' is not an address")
        }
        self.address = address
        isRandom = try container.decode(Bool.self, forKey: .isRandom)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address.description, forKey: .address)
        try container.encode(isRandom, forKey: .isRandom)
    }

    private enum CodingKeys: String, CodingKey { case address, isRandom }
}

/// This host's identity for key distribution: the address a peer is to remember, and the IRK
/// that resolves the private addresses made from it.
public struct LocalIdentity: Sendable, Hashable {
    public var address: IdentityAddress
    public var irk: IdentityResolvingKey

    public init(address: IdentityAddress, irk: IdentityResolvingKey) {
        self.address = address
        self.irk = irk
    }
}

/// Random octets from the system's generator.
public enum SMPRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
