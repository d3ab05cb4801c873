/// A `ByteReader` that throws `HCIError.malformed` naming the packet and the field that was
/// short, so that decoders state their layout once and never trap.
package struct HCIFieldReader {
    package var reader: ByteReader
    /// The packet's spec name, such as `LE Advertising Report`.
    package let packet: String
    /// Which group of a list is being read: an error names its field `Data[1]`. Kept as a
    /// number, formatted only for an error, so that reading allocates nothing.
    package var element: Int?

    package init(_ bytes: UnsafeRawBufferPointer, packet: String) {
        reader = ByteReader(bytes)
        self.packet = packet
    }

    package var remaining: Int { reader.remaining }

    package func malformed(_ detail: String) -> HCIError {
        .malformed(packet: packet, detail: detail)
    }

    /// `field` as an error names it: with the group's index inside a list.
    package func named(_ field: String) -> String {
        element.map { "\(field)[\($0)]" } ?? field
    }

    private func short(_ field: String, _ size: Int) -> HCIError {
        malformed("\(named(field)) needs \(size) byte\(size == 1 ? "" : "s"), \(reader.remaining) left")
    }

    package mutating func u8(_ field: String) throws(HCIError) -> UInt8 {
        guard let v = reader.readUInt8() else { throw short(field, 1) }
        return v
    }

    package mutating func i8(_ field: String) throws(HCIError) -> Int8 {
        guard let v = reader.readInt8() else { throw short(field, 1) }
        return v
    }

    package mutating func u16(_ field: String) throws(HCIError) -> UInt16 {
        guard let v = reader.readUInt16() else { throw short(field, 2) }
        return v
    }

    /// A Connection_Handle field: its low 12 bits (the rest are reserved, or flags in ACL).
    package mutating func connectionHandle(_ field: String = "Connection_Handle") throws(HCIError) -> ConnectionHandle {
        ConnectionHandle(rawValue: try u16(field))
    }

    package mutating func u64(_ field: String) throws(HCIError) -> UInt64 {
        guard let v = reader.readUInt64() else { throw short(field, 8) }
        return v
    }

    package mutating func address(_ field: String) throws(HCIError) -> BluetoothAddress {
        guard let v = reader.readAddress() else { throw short(field, 6) }
        return v
    }

    package mutating func view(_ field: String, count: Int) throws(HCIError) -> UnsafeRawBufferPointer {
        guard let v = reader.readView(count: count) else { throw short(field, count) }
        return v
    }

    package mutating func bytes(_ field: String, count: Int) throws(HCIError) -> [UInt8] {
        Array(try view(field, count: count))
    }

    /// The rest of the packet, as a view.
    package mutating func rest() -> UnsafeRawBufferPointer { reader.readRest() }
}
