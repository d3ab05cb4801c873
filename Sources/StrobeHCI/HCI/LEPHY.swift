/// One LE physical layer, as events report it (Core Specification Vol 4, Part E, 7.7.65.12).
public struct LEPHY: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The PHY code as events carry it; 0x00 means none.
    public var rawValue: UInt8
    /// From an event's PHY code.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 LE 1M: 1 Msym/s uncoded, the PHY every LE controller supports.
    public static let le1M = LEPHY(rawValue: 0x01)
    /// 0x02 LE 2M: 2 Msym/s uncoded.
    public static let le2M = LEPHY(rawValue: 0x02)
    /// 0x03 LE Coded: 1 Msym/s with S=2 or S=8 coding, for longer range.
    public static let leCoded = LEPHY(rawValue: 0x03)

    /// `LE 1M`, `LE 2M`, `LE Coded`, `none` for 0x00, or `PHY 0xNN` for another code.
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
    /// The bitmap: bit 0 LE 1M, bit 1 LE 2M, bit 2 LE Coded.
    public var rawValue: UInt8
    /// From a PHY bitmap as commands carry it.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0 (0x01): LE 1M.
    public static let le1M = LEPHYs(rawValue: 1 << 0)
    /// Bit 1 (0x02): LE 2M.
    public static let le2M = LEPHYs(rawValue: 1 << 1)
    /// Bit 2 (0x04): LE Coded.
    public static let leCoded = LEPHYs(rawValue: 1 << 2)
}
