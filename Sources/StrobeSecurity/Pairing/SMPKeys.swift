import StrobeHCI

/// A Long Term Key with the EDIV and Rand that name it (both zero for LE Secure Connections).
/// Its description never shows the key.
public struct LongTermKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 16 octets, least significant first; octets past `keySize` are zero.
    public var value: [UInt8]
    /// The Encrypted Diversifier (EDIV) that, with `rand`, names an LE legacy pairing LTK in LE Long
    /// Term Key Request; 0 for LE Secure Connections.
    public var ediv: UInt16
    /// The 64-bit Random Number (Rand) that, with `ediv`, names an LE legacy pairing LTK; 0 for LE
    /// Secure Connections.
    public var rand: UInt64
    /// The negotiated encryption key size, 7 ... 16 octets.
    public var keySize: Int

    /// Creates an LTK; EDIV and Rand default to 0 (LE Secure Connections), the key size to 16 octets.
    public init(value: [UInt8], ediv: UInt16 = 0, rand: UInt64 = 0, keySize: Int = 16) {
        self.value = value
        self.ediv = ediv
        self.rand = rand
        self.keySize = keySize
    }

    /// "LTK (n octets)": the key size, never the key.
    public var description: String { "LTK (\(keySize) octets)" }

    /// Decodes `value` (32 hex digits, least significant octet first), `ediv`, `rand` and `keySize`.
    /// Throws `DecodingError.dataCorrupted` for a malformed key or a key size outside 7 ... 16.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = try HexKey.decode(c, .value)
        ediv = try c.decode(UInt16.self, forKey: .ediv)
        rand = try c.decode(UInt64.self, forKey: .rand)
        keySize = try c.decode(Int.self, forKey: .keySize)
        guard (7...16).contains(keySize) else {
            throw DecodingError.dataCorruptedError(forKey: .keySize, in: c, debugDescription: "key size \(keySize) is outside 7...16")
        }
    }

    /// Encodes the key as 32 hex digits, least significant octet first, with `ediv`, `rand` and `keySize`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(HexKey.encode(value), forKey: .value)
        try c.encode(ediv, forKey: .ediv)
        try c.encode(rand, forKey: .rand)
        try c.encode(keySize, forKey: .keySize)
    }

    private enum CodingKeys: String, CodingKey { case value, ediv, rand, keySize }
}

/// An Identity Resolving Key, 16 octets least significant first. Its description never shows it.
public struct IdentityResolvingKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 16 key octets, least significant first.
    public var value: [UInt8]
    /// Wraps 16 key octets, least significant first.
    public init(value: [UInt8]) { self.value = value }

    /// A new random IRK.
    public static func random() -> IdentityResolvingKey { IdentityResolvingKey(value: SMPRandom.bytes(16)) }

    /// An all-zero IRK is what a device without one distributes (Vol 3, Part H, 3.6.4): no key.
    public var isZero: Bool { value.allSatisfy { $0 == 0 } }

    /// Just "IRK": the key is never shown.
    public var description: String { "IRK" }

    /// Decodes 32 hex digits, least significant octet first; throws `DecodingError.dataCorrupted` otherwise.
    public init(from decoder: any Decoder) throws { value = try HexKey.decode(try decoder.singleValueContainer()) }
    /// Encodes the key as 32 hex digits, least significant octet first.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(HexKey.encode(value))
    }
}

/// A Connection Signature Resolving Key. Its description never shows it.
public struct SignatureResolvingKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 16 key octets, least significant first.
    public var value: [UInt8]
    /// Wraps 16 key octets, least significant first.
    public init(value: [UInt8]) { self.value = value }
    /// Just "CSRK": the key is never shown.
    public var description: String { "CSRK" }

    /// Decodes 32 hex digits, least significant octet first; throws `DecodingError.dataCorrupted` otherwise.
    public init(from decoder: any Decoder) throws { value = try HexKey.decode(try decoder.singleValueContainer()) }
    /// Encodes the key as 32 hex digits, least significant octet first.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(HexKey.encode(value))
    }
}

/// An identity address: a public or a static random address, with its type.
public struct IdentityAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The public or static random device address.
    public var address: BluetoothAddress
    /// Whether `address` is a static random address (else a public one).
    public var isRandom: Bool

    /// Pairs an address with its type; `invalidity` says whether it can serve as an identity.
    public init(address: BluetoothAddress, isRandom: Bool) {
        self.address = address
        self.isRandom = isRandom
    }

    /// The address type as HCI commands take it.
    public var addressType: LEAddressType { isRandom ? .random : .public }

    /// Why this cannot be anyone's identity, or `nil` when it can (Core Vol 6, Part B, 1.3): a
    /// public address is not all zeros or all ones; a static random address has its two most
    /// significant bits set and its other 46 bits neither all zeros nor all ones.
    public var invalidity: String? {
        let bytes = address.wireBytes
        if !isRandom {
            if bytes.allSatisfy({ $0 == 0 }) { return "the public address \(address) is all zeros" }
            if bytes.allSatisfy({ $0 == 0xFF }) { return "the public address \(address) is all ones" }
            return nil
        }
        guard bytes[5] >> 6 == 0b11 else {
            let kind = bytes[5] >> 6 == 0b01 ? "a resolvable private address" : "a non-resolvable private address"
            return "the random address \(address) is \(kind), not a static one"
        }
        let rest = bytes[0..<5] + [bytes[5] & 0x3F]
        if rest.allSatisfy({ $0 == 0 }) { return "the static address \(address) has all its random bits zero" }
        if rest.dropLast().allSatisfy({ $0 == 0xFF }), rest.last == 0x3F { return "the static address \(address) has all its random bits one" }
        return nil
    }

    /// The address followed by "(random)" or "(public)".
    public var description: String { "\(address) (\(isRandom ? "random" : "public"))" }

    /// Decodes `address` from its text form and `isRandom`; throws `DecodingError.dataCorrupted` when
    /// the address cannot be read.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .address)
        guard let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorruptedError(forKey: .address, in: container, debugDescription: "'\(text)' is not an address")
        }
        self.address = address
        isRandom = try container.decode(Bool.self, forKey: .isRandom)
    }

    /// Encodes `address` as its text form, and `isRandom`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address.description, forKey: .address)
        try container.encode(isRandom, forKey: .isRandom)
    }

    private enum CodingKeys: String, CodingKey { case address, isRandom }
}

/// This host's identity for key distribution: the address a peer is to remember, and the IRK
/// that resolves the private addresses made from it.
package struct LocalIdentity: Sendable, Hashable {
    package var address: IdentityAddress
    package var irk: IdentityResolvingKey

    package init(address: IdentityAddress, irk: IdentityResolvingKey) {
        self.address = address
        self.irk = irk
    }
}

/// Random octets from the system's generator.
package enum SMPRandom {
    package static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// Keys in JSON: 32 hex digits, least significant octet first (as the PDUs carry them).
enum HexKey {
    static func encode(_ value: [UInt8]) -> String {
        value.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static func parse(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count == 32 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: 32, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }

    static func decode(_ container: any SingleValueDecodingContainer) throws -> [UInt8] {
        guard let value = parse(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a key is 32 hex digits")
        }
        return value
    }

    static func decode<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> [UInt8] {
        guard let value = parse(try container.decode(String.self, forKey: key)) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "a key is 32 hex digits")
        }
        return value
    }
}
