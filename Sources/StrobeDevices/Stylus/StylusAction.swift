/// What a side button does, as stored in the Button Map characteristic. Codes this host does
/// not know are kept as `.unknown(code)`.
public enum StylusAction: Sendable, Hashable {
    /// 0x00 No action.
    case none
    /// 0x01 Undo.
    case undo
    /// 0x02 Redo.
    case redo
    /// 0x03 Save.
    case save
    /// 0x04 Erase.
    case erase
    /// A code that profile v1 does not define, kept as received.
    case unknown(UInt8)

    /// The action a Button Map byte stands for; `.unknown(code)` above 0x04.
    public init(code: UInt8) {
        self = switch code {
        case 0: .none
        case 1: .undo
        case 2: .redo
        case 3: .save
        case 4: .erase
        default: .unknown(code)
        }
    }

    /// The Button Map byte of the action (`.unknown` gives back its own code).
    public var code: UInt8 {
        switch self {
        case .none: 0
        case .undo: 1
        case .redo: 2
        case .save: 3
        case .erase: 4
        case .unknown(let code): code
        }
    }
}
