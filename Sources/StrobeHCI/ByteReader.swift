/// Reads little-endian fields from a borrowed buffer without copying. Every read checks the
/// remaining length first and returns `nil` when the bytes run out: input never traps.
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    public private(set) var offset: Int = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    public var remaining: Int { bytes.count - offset }
    public var isAtEnd: Bool { offset >= bytes.count }

    public mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func readInt8() -> Int8? { readUInt8().map { Int8(bitPattern: $0) } }

    public mutating func readUInt16() -> UInt16? { readInteger(UInt16.self) }
    public mutating func readUInt32() -> UInt32? { readInteger(UInt32.self) }
    public mutating func readUInt64() -> UInt64? { readInteger(UInt64.self) }

    /// A 24-bit little-endian integer (class of device, some LE fields).
    public mutating func readUInt24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    public mutating func readInteger<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        defer { offset += size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A big-endian integer (btsnoop headers, some device protocols).
    public mutating func readBigEndian<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        defer { offset += size }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A view of the next `count` bytes, still borrowed from the same buffer.
    public mutating func readView(count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// A copy of the next `count` bytes, for what crosses the API.
    public mutating func readBytes(count: Int) -> [UInt8]? {
        readView(count: count).map { Array($0) }
    }

    /// Everything left, as a view.
    public mutating func readRest() -> UnsafeRawBufferPointer {
        readView(count: remaining)!
    }

    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        offset += count
        return true
    }
}
