/// The H4 packet indicator that precedes every HCI packet on a UART-style link
/// (Core Specification Vol 4, Part A, 2).
public enum HCIPacketType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case command = 0x01
    case acl = 0x02
    case sco = 0x03
    case event = 0x04
    case iso = 0x05

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
