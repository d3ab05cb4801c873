/// The `buttons` byte of a stylus sample. Bits this profile does not define are kept as received.
public struct StylusButtons: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The tip touches the surface.
    @inlinable public static var tipContact: StylusButtons { StylusButtons(rawValue: 1 << 0) }
    @inlinable public static var sideButton1: StylusButtons { StylusButtons(rawValue: 1 << 1) }
    @inlinable public static var sideButton2: StylusButtons { StylusButtons(rawValue: 1 << 2) }
    /// The tip is near the surface without touching it.
    @inlinable public static var hovering: StylusButtons { StylusButtons(rawValue: 1 << 3) }
}

/// The two side buttons, as named by the button map.
public enum StylusSideButton: Sendable, Hashable, CaseIterable {
    case side1
    case side2

    /// Its bit in `StylusButtons`.
    public var button: StylusButtons { self == .side1 ? .sideButton1 : .sideButton2 }
}
