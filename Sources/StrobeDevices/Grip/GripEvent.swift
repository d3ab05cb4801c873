/// One control action on the grip, by its event code. Codes this host does not know decode to
/// `.unknown(code)` rather than failing, so newer grips keep working.
public enum GripEvent: Sendable, Hashable {
    /// 0x01 The shutter button pressed half way (focus).
    case shutterButtonHalfDown
    /// 0x02 The shutter button pressed fully (take the photo).
    case shutterButtonDown
    /// 0x03 The shutter button released.
    case shutterButtonReleased
    /// 0x10 The dial turned one step clockwise.
    case dialButtonCW
    /// 0x11 The dial turned one step counter-clockwise.
    case dialButtonCCW
    /// 0x12 The dial's button pressed.
    case dialButtonPress
    /// 0x13 The dial's button held down (long press).
    case dialButtonLongPress
    /// 0x20 The Fn button pressed.
    case fnButtonPress
    /// 0x21 The Fn button held down (long press).
    case fnButtonLongPress
    /// 0x30 The zoom lever held to the left.
    case zoomLeverHoldLeft
    /// 0x31 The zoom lever held to the right.
    case zoomLeverHoldRight
    /// 0x32 The zoom lever moved to the left.
    case zoomLeverLeft
    /// 0x33 The zoom lever moved to the right.
    case zoomLeverRight
    /// 0x34 The zoom lever back in its neutral position.
    case zoomLeverNeutral
    /// A code that profile v1 does not define, kept as received.
    case unknown(UInt8)

    /// The event an Events record's code byte stands for; `.unknown(code)` for an undefined code.
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

    /// The code byte of the event in an Events record (`.unknown` gives back its own code).
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
