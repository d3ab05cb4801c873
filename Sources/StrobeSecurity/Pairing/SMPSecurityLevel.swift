/// What protects a link (LE security mode 1, Core Specification Vol 3, Part C, 10.2.1).
public enum SMPSecurityLevel: Int, Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Level 1: no encryption.
    case none = 1
    /// Level 2: encrypted with a key from unauthenticated pairing (Just Works).
    case unauthenticated = 2
    /// Level 3: encrypted with a key from authenticated pairing.
    case authenticated = 3
    /// Level 4: authenticated LE Secure Connections pairing with a 128-bit key.
    case secureConnections = 4

    /// Orders the levels from `none` (1) to `secureConnections` (4).
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// A short lower-case name: "none", "unauthenticated", "authenticated" or "secure-connections".
    public var name: String {
        switch self {
        case .none: "none"
        case .unauthenticated: "unauthenticated"
        case .authenticated: "authenticated"
        case .secureConnections: "secure-connections"
        }
    }

    /// The same as `name`.
    public var description: String { name }

    /// The level a key of this kind gives.
    public static func of(authenticated: Bool, secureConnections: Bool, keySize: Int) -> SMPSecurityLevel {
        guard authenticated else { return .unauthenticated }
        return secureConnections && keySize == 16 ? .secureConnections : .authenticated
    }
}
