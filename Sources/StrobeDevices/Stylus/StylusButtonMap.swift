/// The Button Map characteristic (read, write): `[side1 action u8][side2 action u8]`.
public struct StylusButtonMap: Sendable, Hashable {
    public static let length = 2
    /// Both buttons do nothing.
    public static let unassigned = StylusButtonMap(side1: .none, side2: .none)

    public var side1: StylusAction
    public var side2: StylusAction

    public init(side1: StylusAction, side2: StylusAction) {
        self.side1 = side1
        self.side2 = side2
    }

    public subscript(button: StylusSideButton) -> StylusAction {
        get { button == .side1 ? side1 : side2 }
        set { if button == .side1 { side1 = newValue } else { side2 = newValue } }
    }

    public func encoded() -> [UInt8] { [side1.code, side2.code] }

    /// Exactly two bytes; unknown action codes decode to `.unknown`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(StylusButtonMapError) {
        guard bytes.count == Self.length else { throw .unexpectedLength(bytes.count) }
        side1 = StylusAction(code: bytes[0])
        side2 = StylusAction(code: bytes[1])
    }

    public init(decoding bytes: [UInt8]) throws(StylusButtonMapError) {
        self = try decoding(bytes) { (raw) throws(StylusButtonMapError) in try StylusButtonMap(decoding: raw) }
    }

    /// Actions in the map this host does not know.
    public var unknownActionCount: Int {
        [side1, side2].count { if case .unknown = $0 { true } else { false } }
    }
}

public enum StylusButtonMapError: Error, Sendable, Hashable, CustomStringConvertible {
    case unexpectedLength(Int)

    public var description: String {
        switch self {
        case .unexpectedLength(let length): "stylus button map must be 2 bytes, got \(length)"
        }
    }
}
