/// The AuthReq field of Pairing Request, Pairing Response and Security Request (Core
/// Specification Vol 3, Part H, 3.5.1). Reserved bits are dropped on parsing.
public struct SMPAuthenticationRequirements: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bonding_Flags = 01: keys are to be stored.
    public static let bonding = Self(rawValue: 0x01)
    public static let mitm = Self(rawValue: 0x04)
    public static let secureConnections = Self(rawValue: 0x08)
    public static let keypress = Self(rawValue: 0x10)
    public static let ct2 = Self(rawValue: 0x20)

    /// The bits the spec defines.
    public static let defined: Self = [.bonding, .mitm, .secureConnections, .keypress, .ct2]
}
