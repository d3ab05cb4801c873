/// The `buttons` byte of a stylus sample. Bits this profile does not define are kept as received.
public struct StylusButtons: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The tip touches the surface.
    public static let tipContact = StylusButtons(rawValue: 1 << 0)
    public static let sideButton1 = StylusButtons(rawValue: 1 << 1)
    public static let sideButton2 = StylusButtons(rawValue: 1 << 2)
    /// The tip is near the surface without touching it.
    public static let hovering = StylusButtons(rawValue: 1 << 3)
}

/// The two side buttons, as named by the button map.
public enum StylusSideButton: Sendable, Hashable, CaseIterable {
    case side1
    case side2

    /// Its bit in `StylusButtons`.
    public var button: StylusButtons { self == .side1 ? .sideButton1 : .sideButton2 }
}
