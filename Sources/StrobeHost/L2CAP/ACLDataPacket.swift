import StrobeHCI

/// The 4-byte header of an HCI ACL Data packet (Core Vol 4, Part E, 5.4.2): a 12-bit connection
/// handle, the packet boundary and broadcast flags, and the length of the data that follows.
public struct ACLDataHeader: Sendable, Hashable {
    public static let length = 4
    /// Handles above this are reserved (Core Vol 4, Part E, 5.4.2).
    public static let maximumConnectionHandle: UInt16 = 0x0EFF

    public var connectionHandle: UInt16
    public var packetBoundary: ACLPacketBoundary
    /// Broadcast_Flag: 0b00 (point-to-point) is the only value used on LE.
    public var broadcastFlag: UInt8
    public var dataTotalLength: UInt16

    public init(connectionHandle: UInt16, packetBoundary: ACLPacketBoundary, broadcastFlag: UInt8 = 0, dataTotalLength: UInt16) {
        self.connectionHandle = connectionHandle & 0x0FFF
        self.packetBoundary = packetBoundary
        self.broadcastFlag = broadcastFlag & 0b11
        self.dataTotalLength = dataTotalLength
    }

    /// Reads the header's fields; `nil` when fewer than 4 bytes remain.
    public init?(reading reader: inout ByteReader) {
        guard let word = reader.readUInt16(), let length = reader.readUInt16() else { return nil }
        let boundary = ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: (word >> 12) & 0b11))
        self.init(
            connectionHandle: word & 0x0FFF, packetBoundary: boundary,
            broadcastFlag: UInt8(truncatingIfNeeded: word >> 14), dataTotalLength: length)
    }

    /// The first two bytes' value: handle, then PB flag at bit 12, BC flag at bit 14.
    public var handleAndFlags: UInt16 {
        connectionHandle & 0x0FFF | UInt16(packetBoundary.rawValue) << 12 | UInt16(broadcastFlag & 0b11) << 14
    }

    /// Writes the 4 header bytes at `destination`.
    public func write(to destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: handleAndFlags.littleEndian, as: UInt16.self)
        destination.storeBytes(of: dataTotalLength.littleEndian, toByteOffset: 2, as: UInt16.self)
    }
}

/// An HCI ACL Data packet parsed in place: the header and a view of its data.
public struct ACLDataPacket {
    public let header: ACLDataHeader
    /// Borrowed from the buffer that was parsed.
    public let data: UnsafeRawBufferPointer

    /// Parses the payload of an H4 ACL packet (without the packet indicator). The data length
    /// in the header must match the bytes present.
    public init(parsing packet: UnsafeRawBufferPointer) throws(L2CAPError) {
        var reader = ByteReader(packet)
        guard let header = ACLDataHeader(reading: &reader) else {
            throw .truncatedACLHeader(length: packet.count)
        }
        guard reader.remaining == Int(header.dataTotalLength) else {
            throw .aclLengthMismatch(
                connectionHandle: header.connectionHandle, announced: Int(header.dataTotalLength), present: reader.remaining)
        }
        self.header = header
        self.data = reader.readRest()
    }

    public init(header: ACLDataHeader, data: UnsafeRawBufferPointer) {
        self.header = header
        self.data = data
    }
}
