/// A Bluetooth UUID, the one UUID type of the stack: advertising data, ATT attribute types, GATT
/// services and characteristics, profiles. 16-bit and 32-bit forms are shorthands for UUIDs
/// built on the Bluetooth Base UUID 00000000-0000-1000-8000-00805F9B34FB (Core Specification
/// Vol 3, Part B, 2.5.1). Stored as the full 128-bit value, so `180A` equals
/// `0000180A-0000-1000-8000-00805F9B34FB`; a string literal spells one (`"180F"`).
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible, Codable, ExpressibleByStringLiteral {
    /// The 128-bit value, most significant bits first as the string form reads.
    public let value: UInt128

    /// The wire sizes a UUID can take.
    public enum Width: Int, Sendable, Hashable {
        /// A 16-bit alias: 2 bytes on the wire.
        case bits16 = 2
        /// A 32-bit alias: 4 bytes on the wire.
        case bits32 = 4
        /// The full UUID: 16 bytes on the wire.
        case bits128 = 16

        /// Bytes on the wire at this width: 2, 4 or 16.
        public var byteCount: Int { rawValue }
    }

    /// The Bluetooth Base UUID 00000000-0000-1000-8000-00805F9B34FB; 16- and 32-bit aliases fill
    /// its top 32 bits.
    public static let baseValue: UInt128 = 0x0000_0000_0000_1000_8000_0080_5F9B_34FB

    /// Wraps a full 128-bit value.
    public init(value: UInt128) { self.value = value }

    /// The UUID a 16-bit alias stands for: 0x180A gives 0000180A-0000-1000-8000-00805F9B34FB.
    public init(_ uuid16: UInt16) { value = Self.baseValue | UInt128(uuid16) << 96 }

    /// The UUID a 32-bit alias stands for: the alias in the top 32 bits of the Base UUID.
    public init(uuid32: UInt32) { value = Self.baseValue | UInt128(uuid32) << 96 }

    /// A literal that is not a UUID is a programming error, caught the first time it runs.
    public init(stringLiteral text: StaticString) {
        guard let uuid = BluetoothUUID(text.description) else { preconditionFailure("not a Bluetooth UUID: \(text)") }
        self = uuid
    }

    /// From `180A`, `0000180A` or `0000180A-0000-1000-8000-00805F9B34FB` (dashes optional, any case).
    public init?(_ string: String) {
        let hex = string.filter { $0 != "-" }
        guard hex.allSatisfy(\.isHexDigit) else { return nil }
        switch hex.count {
        case 4:
            guard let short = UInt16(hex, radix: 16) else { return nil }
            self.init(short)
        case 8:
            guard let short = UInt32(hex, radix: 16) else { return nil }
            self.init(uuid32: short)
        case 32:
            // Dashes, when present, must be where the canonical form puts them.
            if string.contains("-") {
                let groups = string.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
                guard groups == [8, 4, 4, 4, 12] else { return nil }
            }
            guard let high = UInt64(hex.prefix(16), radix: 16), let low = UInt64(hex.suffix(16), radix: 16) else {
                return nil
            }
            self.init(value: UInt128(high) << 64 | UInt128(low))
        default:
            return nil
        }
    }

    /// From its little-endian wire form: 2, 4 or 16 bytes.
    public init?<C: Collection>(littleEndian bytes: C) where C.Element == UInt8 {
        guard [2, 4, 16].contains(bytes.count) else { return nil }
        var number: UInt128 = 0
        for (index, byte) in bytes.enumerated() { number |= UInt128(byte) << (8 * index) }
        switch bytes.count {
        case 2: self.init(UInt16(truncatingIfNeeded: number))
        case 4: self.init(uuid32: UInt32(truncatingIfNeeded: number))
        default: self.init(value: number)
        }
    }

    /// The 32-bit alias when this UUID is built on the Base UUID.
    public var uuid32: UInt32? {
        value & ~(UInt128(UInt32.max) << 96) == Self.baseValue ? UInt32(truncatingIfNeeded: value >> 96) : nil
    }

    /// The 16-bit alias when this UUID is built on the Base UUID and fits.
    public var uuid16: UInt16? { uuid32.flatMap { UInt16(exactly: $0) } }

    /// The shortest form this UUID can be sent in.
    public var shortestWidth: Width { uuid16 != nil ? .bits16 : uuid32 != nil ? .bits32 : .bits128 }

    /// The little-endian wire form at `width`; the full 16 bytes when the UUID has no shorter alias.
    public func littleEndianBytes(width: Width? = nil) -> [UInt8] {
        var count = (width ?? shortestWidth).byteCount
        if count == 2, uuid16 == nil { count = 16 }
        if count == 4, uuid32 == nil { count = 16 }
        let number = count == 16 ? value : value >> 96
        return (0..<count).map { UInt8(truncatingIfNeeded: number >> (8 * $0)) }
    }

    /// `180A` for 16-bit aliases, `0000FEED`-style for 32-bit ones, otherwise the full form.
    public var description: String {
        if let short = uuid16 { return Self.hex(UInt128(short), digits: 4) }
        if let short = uuid32 { return Self.hex(UInt128(short), digits: 8) }
        return uuidString
    }

    /// The full form, upper case: `0000180A-0000-1000-8000-00805F9B34FB`.
    public var uuidString: String {
        let digits = Self.hex(value, digits: 32)
        var result = ""
        for (index, character) in digits.enumerated() {
            if [8, 12, 16, 20].contains(index) { result.append("-") }
            result.append(character)
        }
        return result
    }

    private static func hex(_ number: UInt128, digits: Int) -> String {
        let text = String(number, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Orders UUIDs by their 128-bit value.
    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool { lhs.value < rhs.value }

    /// Encoded as its string form, for JSON.
    /// Accepts any form `init?(_:)` does; throws `DecodingError.dataCorrupted` when the string is
    /// not a UUID.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = BluetoothUUID(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a Bluetooth UUID: \(text)")
        }
        self = uuid
    }

    /// Writes `description`: `180A` for a 16-bit alias, eight digits for a 32-bit one, otherwise the full form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
