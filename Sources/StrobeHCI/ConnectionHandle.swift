/// A Connection_Handle (Core Specification Vol 4, Part E, 5.4.2): 12 bits that name one ACL
/// link from LE Connection Complete until Disconnection Complete. A type of its own, so that it
/// is never mistaken for an attribute handle or a length.
public struct ConnectionHandle: RawRepresentable, Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The handle's 12 bits (0x0000 ... 0x0FFF); the upper four bits are always clear.
    public let rawValue: UInt16

    /// Handles above this are reserved.
    public static let maximum: UInt16 = 0x0EFF

    /// Keeps the low 12 bits, as the ACL header does.
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue & 0x0FFF }
    /// Keeps the low 12 bits, as the ACL header does.
    @inlinable public init(_ rawValue: UInt16) { self.init(rawValue: rawValue) }
    /// A handle written as a number literal (low 12 bits kept).
    @inlinable public init(integerLiteral value: UInt16) { self.init(rawValue: value) }

    /// Whether the value is one a controller may assign (0x0000...0x0EFF).
    public var isValid: Bool { rawValue <= Self.maximum }

    /// Orders by numeric value.
    public static func < (lhs: ConnectionHandle, rhs: ConnectionHandle) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The handle in hex, such as `0x0040`.
    public var description: String { hex(rawValue) }
}

extension ByteWriter {
    package mutating func write(_ handle: ConnectionHandle) { write(handle.rawValue) }
}
