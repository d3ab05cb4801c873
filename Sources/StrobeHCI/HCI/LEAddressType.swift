/// The type of a peer's device address as HCI reports it (Core Specification Vol 4, Part E,
/// 7.7.65.2 and 7.7.65.13).
public struct LEAddressType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as events carry it (0x00 ... 0x03, 0xFE or 0xFF).
    public var rawValue: UInt8
    /// Any code; one the stack does not know prints as `type-0xNN`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00 Public Device Address.
    public static let `public` = LEAddressType(rawValue: 0x00)
    /// 0x01 Random Device Address.
    public static let random = LEAddressType(rawValue: 0x01)
    /// A public identity address the controller resolved from a resolvable private address.
    public static let publicIdentity = LEAddressType(rawValue: 0x02)
    /// A static random identity address the controller resolved from a resolvable private address.
    public static let randomIdentity = LEAddressType(rawValue: 0x03)
    /// A resolvable private address the controller could not resolve (extended reports).
    public static let unresolvedRandom = LEAddressType(rawValue: 0xFE)
    /// No address was sent (extended reports of anonymous advertising).
    public static let anonymous = LEAddressType(rawValue: 0xFF)

    /// A short lower-case name for logs and JSON: `public`, `random`, `public-identity`, ...
    public var description: String {
        switch rawValue {
        case 0x00: "public"
        case 0x01: "random"
        case 0x02: "public-identity"
        case 0x03: "random-identity"
        case 0xFE: "unresolved-random"
        case 0xFF: "anonymous"
        default: "type-\(hex(rawValue))"
        }
    }

    /// The address type to use when connecting to, or filtering for, this peer: identity types
    /// fold to their base type.
    public var connectable: LEAddressType {
        switch rawValue {
        case 0x02: .public
        case 0x03: .random
        default: self
        }
    }
}

/// Which address the local controller uses in its own packets (the Own_Address_Type parameter).
public struct LEOwnAddressType: RawRepresentable, Sendable, Hashable {
    /// The Own_Address_Type code (0x00 ... 0x03).
    public var rawValue: UInt8
    /// From an Own_Address_Type code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: the controller's public device address.
    public static let `public` = LEOwnAddressType(rawValue: 0x00)
    /// 0x01: the random device address set with LE Set Random Address (for an advertising set,
    /// LE Set Advertising Set Random Address).
    public static let random = LEOwnAddressType(rawValue: 0x01)
    /// A resolvable private address from the resolving list, else the public address.
    public static let resolvableOrPublic = LEOwnAddressType(rawValue: 0x02)
    /// A resolvable private address from the resolving list, else the random address.
    public static let resolvableOrRandom = LEOwnAddressType(rawValue: 0x03)
}

/// The role of the local device in a connection.
public enum LERole: UInt8, Sendable, Hashable {
    /// 0x00 Central: the local device initiated the connection.
    case central = 0x00
    /// 0x01 Peripheral: the local device accepted the connection while advertising.
    case peripheral = 0x01
}

extension LERole: Codable {
    /// Reads `"central"` or `"peripheral"` (as bond files keep the role).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "central": self = .central
        case "peripheral": self = .peripheral
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "'\(text)' is no role (central or peripheral)"))
        }
    }

    /// Writes `"central"` or `"peripheral"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self == .central ? "central" : "peripheral")
    }
}
