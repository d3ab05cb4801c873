/// One LE physical layer, as events report it (Core Specification Vol 4, Part E, 7.7.65.12).
public struct LEPHY: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let le1M = LEPHY(rawValue: 0x01)
    public static let le2M = LEPHY(rawValue: 0x02)
    public static let leCoded = LEPHY(rawValue: 0x03)

    public var description: String {
        switch rawValue {
        case 0x01: "LE 1M"
        case 0x02: "LE 2M"
        case 0x03: "LE Coded"
        case 0x00: "none"
        default: "PHY \(hex(rawValue))"
        }
    }
}

/// A set of LE PHYs, as commands take it (the TX_PHYS / RX_PHYS / Initiating_PHYs bitmaps).
public struct LEPHYs: OptionSet, Sendable, Hashable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let le1M = LEPHYs(rawValue: 1 << 0)
    public static let le2M = LEPHYs(rawValue: 1 << 1)
    public static let leCoded = LEPHYs(rawValue: 1 << 2)
}
