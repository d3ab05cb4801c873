import StrobeHCI

/// An attribute type as ATT carries it: a 16-bit UUID (an alias in the Bluetooth Base UUID) or a
/// full 128-bit UUID (Core Specification Vol 3, Part B, 2.5.1; Part F, 3.2.1).
///
/// Stored as the full 128-bit value; a value inside the Base UUID with a 16-bit alias always
/// takes its 16-bit form, so the two spellings of one UUID compare equal and encode as 2 bytes
/// (servers compare declaration values byte for byte, and declare 16-bit UUIDs in 2 bytes).
public struct ATTUUID: Hashable, Sendable, CustomStringConvertible {
    /// Most significant 64 bits of the 128-bit value.
    public let high: UInt64
    /// Least significant 64 bits of the 128-bit value.
    public let low: UInt64

    /// 0000xxxx-0000-1000-8000-00805F9B34FB, with the alias in bits 96...127 of `high`.
    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(_ uuid16: UInt16) {
        high = Self.baseHigh | UInt64(uuid16) << 32
        low = Self.baseLow
    }

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 16-bit alias when this UUID is one.
    public var uuid16: UInt16? {
        guard low == Self.baseLow, high & 0xFFFF_0000_FFFF_FFFF == Self.baseHigh else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// Bytes on the wire: 2 for a 16-bit alias, otherwise 16.
    public var encodedCount: Int { uuid16 == nil ? 16 : 2 }

    /// Decodes a little-endian UUID of 2 or 16 bytes; any other length is not an ATT UUID.
    public init?(littleEndian bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        switch bytes.count {
        case 2:
            guard let value = reader.readUInt16() else { return nil }
            self.init(value)
        case 16:
            guard let low = reader.readUInt64(), let high = reader.readUInt64() else { return nil }
            self.init(high: high, low: low)
        default:
            return nil
        }
    }

    public init?(littleEndian bytes: [UInt8]) {
        guard let uuid = bytes.withUnsafeBytes({ ATTUUID(littleEndian: $0) }) else { return nil }
        self = uuid
    }

    /// Parses "180F" or "0000180F-0000-1000-8000-00805F9B34FB" (any case).
    public init?(string: String) {
        let hex = string.filter { $0 != "-" }
        if hex.count == 4, string.count == 4, let value = UInt16(hex, radix: 16) {
            self.init(value)
            return
        }
        guard hex.count == 32, string.count == 36 || string.count == 32,
              let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16)
        else { return nil }
        self.init(high: high, low: low)
    }

    public func encode(into writer: inout ByteWriter) {
        if let uuid16 {
            writer.write(uuid16)
        } else {
            writer.write(low)
            writer.write(high)
        }
    }

    /// The little-endian wire form.
    public var littleEndianBytes: [UInt8] {
        var writer = ByteWriter(capacity: 16)
        encode(into: &writer)
        return writer.bytes
    }

    public var description: String {
        if let uuid16 { return Self.hex(UInt64(uuid16), digits: 4) }
        let h = Self.hex(high, digits: 16), l = Self.hex(low, digits: 16)
        return "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))"
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

extension ATTUUID {
    // GATT attribute types (Assigned Numbers, 3.5 and 3.7).
    public static let primaryService = ATTUUID(0x2800)
    public static let secondaryService = ATTUUID(0x2801)
    public static let include = ATTUUID(0x2802)
    public static let characteristic = ATTUUID(0x2803)
    public static let characteristicExtendedProperties = ATTUUID(0x2900)
    public static let characteristicUserDescription = ATTUUID(0x2901)
    public static let clientCharacteristicConfiguration = ATTUUID(0x2902)
    public static let serverCharacteristicConfiguration = ATTUUID(0x2903)
    public static let genericAccessService = ATTUUID(0x1800)
    public static let genericAttributeService = ATTUUID(0x1801)
    public static let serviceChanged = ATTUUID(0x2A05)
}
