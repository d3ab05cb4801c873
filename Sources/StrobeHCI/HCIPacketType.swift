/// The H4 packet indicator that precedes every HCI packet on a UART-style link
/// (Core Specification Vol 4, Part A, 2).
public enum HCIPacketType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// 0x01 HCI Command packet, host to controller.
    case command = 0x01
    /// 0x02 HCI ACL Data packet.
    case acl = 0x02
    /// 0x03 HCI Synchronous Data packet (SCO).
    case sco = 0x03
    /// 0x04 HCI Event packet, controller to host.
    case event = 0x04
    /// 0x05 HCI ISO Data packet.
    case iso = 0x05

    /// `command`, `acl`, `sco`, `event` or `iso`, for logs.
    public var description: String {
        switch self {
        case .command: "command"
        case .acl: "acl"
        case .sco: "sco"
        case .event: "event"
        case .iso: "iso"
        }
    }
}
