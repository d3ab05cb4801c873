/// The datalink field of a btsnoop header: how each record's bytes are framed.
public enum BtsnoopDatalink: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// Un-encapsulated HCI (H1): no indicator byte; the flags say command/event or data.
    case h1 = 1001
    /// HCI UART (H4): each record starts with the H4 packet indicator.
    case h4 = 1002
    /// Linux monitor (`btmon -w`): flags hold (adapter index << 16) | monitor opcode.
    case linuxMonitor = 2001

    /// A readable name for the datalink, such as `HCI UART (H4)`.
    public var name: String { Self.name(of: rawValue) }

    /// The number and its name, such as `1002 (HCI UART (H4))`.
    public var description: String { "\(rawValue) (\(name))" }

    /// A readable name for any datalink number, including the ones this reader does not decode.
    public static func name(of number: UInt32) -> String {
        switch number {
        case 1001: "HCI un-encapsulated (H1)"
        case 1002: "HCI UART (H4)"
        case 1003: "HCI BCSP"
        case 1004: "HCI three-wire UART (H5)"
        case 2001: "Linux monitor"
        case 2002: "BlueZ simulator"
        default: "unknown"
        }
    }
}
