/// The AuthReq field of Pairing Request, Pairing Response and Security Request (Core
/// Specification Vol 3, Part H, 3.5.1). Reserved bits are dropped on parsing.
package struct SMPAuthenticationRequirements: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bonding_Flags = 01: keys are to be stored.
    package static let bonding = Self(rawValue: 0x01)
    package static let mitm = Self(rawValue: 0x04)
    package static let secureConnections = Self(rawValue: 0x08)
    package static let keypress = Self(rawValue: 0x10)
    package static let ct2 = Self(rawValue: 0x20)

    /// The bits the spec defines.
    package static let defined: Self = [.bonding, .mitm, .secureConnections, .keypress, .ct2]
}
