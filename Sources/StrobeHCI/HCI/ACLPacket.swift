/// The Packet_Boundary_Flag of an ACL data packet (Core Specification Vol 4, Part E, 5.4.2).
public struct ACLPacketBoundary: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x03 }

    /// First fragment of a PDU, host to controller on LE (0b00).
    public static let firstNonFlushable = ACLPacketBoundary(rawValue: 0b00)
    /// A continuation fragment (0b01).
    public static let continuing = ACLPacketBoundary(rawValue: 0b01)
    /// First fragment of a PDU, controller to host on LE (0b10).
    public static let firstFlushable = ACLPacketBoundary(rawValue: 0b10)
    /// A complete, automatically flushable PDU; not used on LE (0b11).
    public static let completeFlushable = ACLPacketBoundary(rawValue: 0b11)

    /// Whether this fragment starts an L2CAP PDU.
    public static let allCases: [ACLPacketBoundary] = [.firstNonFlushable, .continuing, .firstFlushable, .completeFlushable]

    public var isStart: Bool { self != .continuing }

    public var description: String {
        switch rawValue {
        case 0b00: "first (non-flushable)"
        case 0b01: "continuing"
        case 0b10: "first (flushable)"
        default: "complete"
        }
    }
}

/// The four-byte ACL data header, decoded in place.
public struct ACLHeader: Sendable, Hashable {
    public var connectionHandle: UInt16
    public var boundary: ACLPacketBoundary
    /// Broadcast_Flag; always 0 on LE.
    public var broadcast: UInt8
    public var dataTotalLength: UInt16

    public static let size = 4

    public init(connectionHandle: UInt16, boundary: ACLPacketBoundary, broadcast: UInt8 = 0, dataTotalLength: UInt16) {
        self.connectionHandle = connectionHandle & 0x0FFF
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.dataTotalLength = dataTotalLength
    }

    /// Splits an ACL packet (no H4 type byte) into header and payload; the payload must be
    /// exactly as long as the header says.
    public static func split(_ packet: UnsafeRawBufferPointer) throws(HCIError) -> (ACLHeader, UnsafeRawBufferPointer) {
        var r = HCIFieldReader(packet, packet: "ACL data packet")
        let handleAndFlags = try r.u16("Handle")
        let length = try r.u16("Data_Total_Length")
        guard r.remaining == Int(length) else {
            throw r.malformed("Data_Total_Length is \(length) but \(r.remaining) bytes follow")
        }
        let header = ACLHeader(
            connectionHandle: handleAndFlags & 0x0FFF,
            boundary: ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: handleAndFlags >> 12)),
            broadcast: UInt8(truncatingIfNeeded: handleAndFlags >> 14),
            dataTotalLength: length)
        return (header, r.rest())
    }

    /// Writes the header into `buffer` at `offset`, little-endian.
    func store(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let handleAndFlags = connectionHandle | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14
        buffer.storeBytes(of: handleAndFlags.littleEndian, toByteOffset: offset, as: UInt16.self)
        buffer.storeBytes(of: dataTotalLength.littleEndian, toByteOffset: offset + 2, as: UInt16.self)
    }
}

/// Where the controller driver delivers received ACL data: the L2CAP layer implements it.
/// Called on the transport's reader thread, one call per ACL packet, in arrival order.
public protocol HCIACLHandler: AnyObject, Sendable {
    /// `payload` is the packet's data after the ACL header, valid only during the call.
    func controllerDidReceiveACL(handle: UInt16, boundary: ACLPacketBoundary, payload: UnsafeRawBufferPointer, at time: HostTime)
}
