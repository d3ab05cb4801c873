/// Appends little-endian fields to a byte array: the encoding side of `ByteReader`.
package struct ByteWriter {
    package private(set) var bytes: [UInt8]

    package init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package mutating func write(_ value: UInt8) { bytes.append(value) }
    package mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    package mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func writeBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func writeUInt24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }

    package mutating func write<C: Collection>(contentsOf data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
    }

    package mutating func write(contentsOf data: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: data)
    }
}
