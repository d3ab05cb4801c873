/// The Button Map characteristic (read, write): `[side1 action u8][side2 action u8]`.
public struct StylusButtonMap: Sendable, Hashable {
    /// The value's size: 2 bytes.
    public static let length = 2
    /// Both buttons do nothing.
    public static let unassigned = StylusButtonMap(side1: .none, side2: .none)

    /// The action of side button 1 (the value's first byte).
    public var side1: StylusAction
    /// The action of side button 2 (the value's second byte).
    public var side2: StylusAction

    /// A map giving side button 1 the action `side1` and side button 2 the action `side2`.
    public init(side1: StylusAction, side2: StylusAction) {
        self.side1 = side1
        self.side2 = side2
    }

    /// The action of `button`. Setting it changes this value only: `Stylus.writeButtonMap(_:)` sends
    /// a map to the pen.
    public subscript(button: StylusSideButton) -> StylusAction {
        get { button == .side1 ? side1 : side2 }
        set { if button == .side1 { side1 = newValue } else { side2 = newValue } }
    }

    /// The 2-byte characteristic value `[side1 code][side2 code]`.
    public func encoded() -> [UInt8] { [side1.code, side2.code] }

    /// Exactly two bytes; unknown action codes decode to `.unknown`.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(StylusError) {
        guard bytes.count == Self.length else { throw .malformedButtonMap(length: bytes.count) }
        side1 = StylusAction(code: bytes[0])
        side2 = StylusAction(code: bytes[1])
    }

    /// Decodes the characteristic value held in an array: exactly two bytes, else
    /// `StylusError.malformedButtonMap`; unknown action codes decode to `.unknown`.
    public init(decoding bytes: [UInt8]) throws(StylusError) {
        self = try decoding(bytes) { (raw) throws(StylusError) in try StylusButtonMap(decoding: raw) }
    }

    /// Actions in the map this host does not know.
    public var unknownActionCount: Int {
        [side1, side2].count { if case .unknown = $0 { true } else { false } }
    }
}
