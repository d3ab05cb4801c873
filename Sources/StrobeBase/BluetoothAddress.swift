/// A 48-bit device address (BD_ADDR). Stored in the wire's little-endian order;
/// printed most significant byte first, as people and tools write it.
public struct BluetoothAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The six bytes as they appear on the wire (least significant first).
    public var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// From the six bytes in wire order, least significant first.
    public init(wire: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) { bytes = wire }

    /// From six wire-order bytes.
    public init?<C: Collection>(wireBytes: C) where C.Element == UInt8 {
        let b = Array(wireBytes)
        guard b.count == 6 else { return nil }
        bytes = (b[0], b[1], b[2], b[3], b[4], b[5])
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (most significant first); `-` also separates.
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var values: [UInt8] = []
        for part in parts {
            guard part.count == 2, let v = UInt8(part, radix: 16) else { return nil }
            values.append(v)
        }
        self.init(wireBytes: values.reversed())
    }

    /// The six bytes in wire order (least significant first), as HCI parameters carry them.
    public var wireBytes: [UInt8] { [bytes.0, bytes.1, bytes.2, bytes.3, bytes.4, bytes.5] }

    /// `AA:BB:CC:DD:EE:FF`: most significant byte first, upper-case hex.
    public var description: String {
        wireBytes.reversed().map { byte in
            let s = String(byte, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: ":")
    }

    /// Equal when all six bytes are equal.
    public static func == (a: Self, b: Self) -> Bool { a.wireBytes == b.wireBytes }
    /// Hashes the six bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(wireBytes) }
    /// Orders by numeric value: the most significant byte is compared first.
    public static func < (a: Self, b: Self) -> Bool {
        a.wireBytes.reversed().lexicographicallyPrecedes(b.wireBytes.reversed())
    }
}

extension ByteReader {
    package mutating func readAddress() -> BluetoothAddress? {
        readView(count: 6).flatMap { BluetoothAddress(wireBytes: $0) }
    }
}

extension ByteWriter {
    package mutating func write(_ address: BluetoothAddress) { write(contentsOf: address.wireBytes) }
}
