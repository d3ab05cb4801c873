/// What a side button does, as stored in the Button Map characteristic. Codes this host does
/// not know are kept as `.unknown(code)`.
public enum StylusAction: Sendable, Hashable {
    case none
    case undo
    case redo
    case save
    case erase
    case unknown(UInt8)

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
