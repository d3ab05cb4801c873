import StrobeHCI

/// An attribute handle (Core Specification Vol 3, Part F, 3.2.2): 0x0001...0xFFFF names one
/// attribute on a server; 0x0000 is reserved. A type of its own, so that it is never mistaken
/// for a connection handle, an offset or a length.
public struct AttributeHandle: RawRepresentable, Hashable, Comparable, Strideable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible, Codable
{
    /// The 16-bit handle as sent in ATT PDUs.
    public let rawValue: UInt16

    /// Wraps any 16-bit value, 0x0000 included.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Wraps any 16-bit value, 0x0000 included; the same as `init(rawValue:)`.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    /// Lets a literal such as `0x0012` stand for a handle.
    public init(integerLiteral value: UInt16) { rawValue = value }

    /// 0x0000: not a handle (a server answers Invalid Handle).
    public static let reserved = AttributeHandle(0x0000)
    /// 0x0001: the lowest valid handle, where full-range discovery starts.
    public static let first = AttributeHandle(0x0001)
    /// 0xFFFF: the highest handle, where full-range discovery ends.
    public static let last = AttributeHandle(0xFFFF)

    /// Orders handles by their 16-bit value, as they are laid out on the server.
    public static func < (lhs: AttributeHandle, rhs: AttributeHandle) -> Bool { lhs.rawValue < rhs.rawValue }

    /// How many handles `other` lies above this one (negative when below).
    public func distance(to other: AttributeHandle) -> Int { Int(other.rawValue) - Int(rawValue) }
    /// Clamps to the handle range instead of trapping.
    public func advanced(by n: Int) -> AttributeHandle {
        AttributeHandle(UInt16(clamping: Int(rawValue) + n))
    }

    /// `0x0012`.
    public var description: String {
        let digits = String(rawValue, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// Decodes a handle stored as a bare 16-bit number.
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(UInt16.self) }
    /// Encodes the handle as a bare 16-bit number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ByteWriter {
    public mutating func write(_ handle: AttributeHandle) { write(handle.rawValue) }
}

extension ByteReader {
    public mutating func readAttributeHandle() -> AttributeHandle? { readUInt16().map(AttributeHandle.init(rawValue:)) }
}
