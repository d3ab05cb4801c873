import StrobeHCI

/// An attribute handle (Core Specification Vol 3, Part F, 3.2.2): 0x0001...0xFFFF names one
/// attribute on a server; 0x0000 is reserved. A type of its own, so that it is never mistaken
/// for a connection handle, an offset or a length.
public struct AttributeHandle: RawRepresentable, Hashable, Comparable, Strideable, Sendable, ExpressibleByIntegerLiteral,
    CustomStringConvertible, Codable
{
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt16) { rawValue = value }

    /// 0x0000: not a handle (a server answers Invalid Handle).
    public static let reserved = AttributeHandle(0x0000)
    public static let first = AttributeHandle(0x0001)
    public static let last = AttributeHandle(0xFFFF)

    public static func < (lhs: AttributeHandle, rhs: AttributeHandle) -> Bool { lhs.rawValue < rhs.rawValue }

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

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(UInt16.self) }
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
