/// Appends little-endian fields to a byte array: the encoding side of `ByteReader`.
public struct ByteWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 32) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func write(_ value: UInt8) { bytes.append(value) }
    public mutating func write(_ value: Int8) { bytes.append(UInt8(bitPattern: value)) }

    public mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func write(_ handle: ConnectionHandle) { write(handle.rawValue) }

    public mutating func writeBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func writeUInt24(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
    }

    public mutating func write<C: Collection>(contentsOf data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
    }

    public mutating func write(contentsOf data: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: data)
    }
}
