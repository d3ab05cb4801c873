/// An L2CAP channel identifier (Core Vol 3, Part A, 2.1). On an LE-U link the fixed channels
/// below carry ATT, LE signalling and SMP; 0x0040...0x007F are dynamically allocated.
public struct L2CAPChannelID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The 16-bit CID as carried in the L2CAP basic header.
    public var rawValue: UInt16

    /// Wraps any 16-bit CID.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Wraps any 16-bit CID; the same as `init(rawValue:)`.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// Attribute Protocol.
    public static let att = L2CAPChannelID(0x0004)
    /// LE L2CAP Signaling channel.
    public static let leSignaling = L2CAPChannelID(0x0005)
    /// Security Manager Protocol.
    public static let smp = L2CAPChannelID(0x0006)

    /// Dynamically allocated on LE-U (credit-based channels).
    public var isDynamicLE: Bool { (0x0040...0x007F).contains(rawValue) }

    /// `ATT (0x0004)`, `LE signaling (0x0005)`, `SMP (0x0006)`, otherwise e.g. `CID 0x0040`.
    public var description: String {
        let hex = l2capHex(rawValue)
        switch self {
        case .att: return "ATT (\(hex))"
        case .leSignaling: return "LE signaling (\(hex))"
        case .smp: return "SMP (\(hex))"
        default: return "CID \(hex)"
        }
    }
}
