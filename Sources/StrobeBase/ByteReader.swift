/// Reads little-endian fields from a borrowed buffer without copying. Every read checks the
/// remaining length first and returns `nil` when the bytes run out: input never traps.
package struct ByteReader {
    package let bytes: UnsafeRawBufferPointer
    package private(set) var offset: Int = 0

    package init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    package var remaining: Int { bytes.count - offset }
    package var isAtEnd: Bool { offset >= bytes.count }

    package mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func readInt8() -> Int8? { readUInt8().map { Int8(bitPattern: $0) } }

    package mutating func readUInt16() -> UInt16? { readInteger(UInt16.self) }
    package mutating func readUInt32() -> UInt32? { readInteger(UInt32.self) }
    package mutating func readUInt64() -> UInt64? { readInteger(UInt64.self) }

    /// A 24-bit little-endian integer (class of device, some LE fields).
    package mutating func readUInt24() -> UInt32? {
        guard remaining >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    package mutating func readInteger<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        defer { offset += size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A big-endian integer (btsnoop headers, some device protocols).
    package mutating func readBigEndian<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { return nil }
        defer { offset += size }
        return T(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A view of the next `count` bytes, still borrowed from the same buffer.
    package mutating func readView(count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    /// A copy of the next `count` bytes, for what crosses the API.
    package mutating func readBytes(count: Int) -> [UInt8]? {
        readView(count: count).map { Array($0) }
    }

    /// Everything left, as a view.
    package mutating func readRest() -> UnsafeRawBufferPointer {
        readView(count: remaining)!
    }

    package mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remaining >= count else { return false }
        offset += count
        return true
    }
}
