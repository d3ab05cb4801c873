/// What a device can show and take from its user (Core Specification Vol 3, Part H, 2.3.2).
public enum SMPIOCapability: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 0x00 DisplayOnly.
    case displayOnly = 0x00
    /// 0x01 DisplayYesNo.
    case displayYesNo = 0x01
    /// 0x02 KeyboardOnly.
    case keyboardOnly = 0x02
    /// 0x03 NoInputNoOutput.
    case noInputNoOutput = 0x03
    /// 0x04 KeyboardDisplay.
    case keyboardDisplay = 0x04

    /// The specification's name, e.g. "NoInputNoOutput".
    public var description: String {
        switch self {
        case .displayOnly: "DisplayOnly"
        case .displayYesNo: "DisplayYesNo"
        case .keyboardOnly: "KeyboardOnly"
        case .noInputNoOutput: "NoInputNoOutput"
        case .keyboardDisplay: "KeyboardDisplay"
        }
    }
}
