/// The `buttons` byte of a stylus sample. Bits this profile does not define are kept as received.
public struct StylusButtons: OptionSet, Sendable, Hashable {
    /// The byte as received: bit 0 tip contact, bit 1 side button 1, bit 2 side button 2, bit 3
    /// hovering; bits 4-7 are not defined by profile v1.
    public let rawValue: UInt8

    /// The buttons of a sample's `buttons` byte, undefined bits included.
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The tip touches the surface.
    @inlinable public static var tipContact: StylusButtons { StylusButtons(rawValue: 1 << 0) }
    /// Bit 1: side button 1 is held.
    @inlinable public static var sideButton1: StylusButtons { StylusButtons(rawValue: 1 << 1) }
    /// Bit 2: side button 2 is held.
    @inlinable public static var sideButton2: StylusButtons { StylusButtons(rawValue: 1 << 2) }
    /// The tip is near the surface without touching it.
    @inlinable public static var hovering: StylusButtons { StylusButtons(rawValue: 1 << 3) }
}

/// The two side buttons, as named by the button map.
public enum StylusSideButton: Sendable, Hashable, CaseIterable {
    /// Side button 1: bit 1 of the `buttons` byte and the Button Map's first byte.
    case side1
    /// Side button 2: bit 2 of the `buttons` byte and the Button Map's second byte.
    case side2

    /// Its bit in `StylusButtons`.
    public var button: StylusButtons { self == .side1 ? .sideButton1 : .sideButton2 }
}
