/// One control action on the grip, by its event code. Codes this host does not know decode to
/// `.unknown(code)` rather than failing, so newer grips keep working.
public enum GripEvent: Sendable, Hashable {
    case shutterButtonHalfDown
    case shutterButtonDown
    case shutterButtonReleased
    case dialButtonCW
    case dialButtonCCW
    case dialButtonPress
    case dialButtonLongPress
    case fnButtonPress
    case fnButtonLongPress
    case zoomLeverHoldLeft
    case zoomLeverHoldRight
    case zoomLeverLeft
    case zoomLeverRight
    case zoomLeverNeutral
    case unknown(UInt8)

    public init(code: UInt8) {
        self = switch code {
        case 0x01: .shutterButtonHalfDown
        case 0x02: .shutterButtonDown
        case 0x03: .shutterButtonReleased
        case 0x10: .dialButtonCW
        case 0x11: .dialButtonCCW
        case 0x12: .dialButtonPress
        case 0x13: .dialButtonLongPress
        case 0x20: .fnButtonPress
        case 0x21: .fnButtonLongPress
        case 0x30: .zoomLeverHoldLeft
        case 0x31: .zoomLeverHoldRight
        case 0x32: .zoomLeverLeft
        case 0x33: .zoomLeverRight
        case 0x34: .zoomLeverNeutral
        default: .unknown(code)
        }
    }

    public var code: UInt8 {
        switch self {
        case .shutterButtonHalfDown: 0x01
        case .shutterButtonDown: 0x02
        case .shutterButtonReleased: 0x03
        case .dialButtonCW: 0x10
        case .dialButtonCCW: 0x11
        case .dialButtonPress: 0x12
        case .dialButtonLongPress: 0x13
        case .fnButtonPress: 0x20
        case .fnButtonLongPress: 0x21
        case .zoomLeverHoldLeft: 0x30
        case .zoomLeverHoldRight: 0x31
        case .zoomLeverLeft: 0x32
        case .zoomLeverRight: 0x33
        case .zoomLeverNeutral: 0x34
        case .unknown(let code): code
        }
    }

    /// The fourteen events of profile v1.
    public static let known: [GripEvent] = [
        .shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased,
        .dialButtonCW, .dialButtonCCW, .dialButtonPress, .dialButtonLongPress,
        .fnButtonPress, .fnButtonLongPress,
        .zoomLeverHoldLeft, .zoomLeverHoldRight, .zoomLeverLeft, .zoomLeverRight, .zoomLeverNeutral,
    ]
}
