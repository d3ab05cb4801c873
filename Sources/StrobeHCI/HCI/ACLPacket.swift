/// The Packet_Boundary_Flag of an ACL data packet (Core Specification Vol 4, Part E, 5.4.2).
package struct ACLPacketBoundary: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    package var rawValue: UInt8
    @inlinable package init(rawValue: UInt8) { self.rawValue = rawValue & 0x03 }

    // Inlinable values rather than stored globals: the receive path of every packet compares
    // with them, across modules, and a global would cost a call each time.

    /// First fragment of a PDU, host to controller on LE (0b00).
    @inlinable package static var firstNonFlushable: ACLPacketBoundary { ACLPacketBoundary(rawValue: 0b00) }
    /// A continuation fragment (0b01).
    @inlinable package static var continuing: ACLPacketBoundary { ACLPacketBoundary(rawValue: 0b01) }
    /// First fragment of a PDU, controller to host on LE (0b10).
    @inlinable package static var firstFlushable: ACLPacketBoundary { ACLPacketBoundary(rawValue: 0b10) }
    /// A complete, automatically flushable PDU; not used on LE (0b11).
    @inlinable package static var completeFlushable: ACLPacketBoundary { ACLPacketBoundary(rawValue: 0b11) }

    package static let allCases: [ACLPacketBoundary] = [.firstNonFlushable, .continuing, .firstFlushable, .completeFlushable]

    /// Whether this fragment starts an L2CAP PDU.
    @inlinable package var isStart: Bool { rawValue != 0b01 }

    package var description: String {
        switch rawValue {
        case 0b00: "first (non-flushable)"
        case 0b01: "continuing"
        case 0b10: "first (flushable)"
        default: "complete"
        }
    }
}

/// The four-byte header of an HCI ACL Data packet (Core Specification Vol 4, Part E, 5.4.2):
/// the connection handle in 12 bits, the packet boundary and broadcast flags, and the length of
/// the data that follows. Decoded in place.
package struct ACLHeader: Sendable, Hashable {
    package var connectionHandle: ConnectionHandle
    package var boundary: ACLPacketBoundary
    /// Broadcast_Flag; always 0b00 (point-to-point) on LE.
    package var broadcast: UInt8
    package var dataTotalLength: UInt16

    @inlinable package static var size: Int { 4 }

    @inlinable
    package init(connectionHandle: ConnectionHandle, boundary: ACLPacketBoundary, broadcast: UInt8 = 0, dataTotalLength: UInt16) {
        self.connectionHandle = connectionHandle
        self.boundary = boundary
        self.broadcast = broadcast & 0x03
        self.dataTotalLength = dataTotalLength
    }

    /// The header at the start of `packet`, or `nil` when fewer than 4 bytes are there.
    @inlinable
    package init?(_ packet: UnsafeRawBufferPointer) {
        guard packet.count >= Self.size else { return nil }
        let word = UInt16(littleEndian: packet.loadUnaligned(as: UInt16.self))
        self.init(connectionHandle: ConnectionHandle(rawValue: word),
                  boundary: ACLPacketBoundary(rawValue: UInt8(truncatingIfNeeded: word >> 12)),
                  broadcast: UInt8(truncatingIfNeeded: word >> 14),
                  dataTotalLength: UInt16(littleEndian: packet.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
    }

    /// Splits an ACL packet (no H4 type byte) into header and payload; the payload must be
    /// exactly as long as the header says.
    package static func split(_ packet: UnsafeRawBufferPointer) throws(HCIError) -> (ACLHeader, UnsafeRawBufferPointer) {
        guard let header = ACLHeader(packet) else {
            throw .malformed(packet: "ACL data packet", detail: "header needs 4 bytes, \(packet.count) present")
        }
        guard packet.count - size == Int(header.dataTotalLength) else {
            throw .malformed(packet: "ACL data packet",
                             detail: "Data_Total_Length is \(header.dataTotalLength) but \(packet.count - size) bytes follow")
        }
        return (header, UnsafeRawBufferPointer(rebasing: packet[size...]))
    }

    /// The first two bytes' value: handle, then the PB flag at bit 12, the BC flag at bit 14.
    package var handleAndFlags: UInt16 {
        connectionHandle.rawValue | UInt16(boundary.rawValue) << 12 | UInt16(broadcast) << 14
    }

    /// Writes the 4 header bytes at `destination`, little-endian.
    package func write(to destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: handleAndFlags.littleEndian, as: UInt16.self)
        destination.storeBytes(of: dataTotalLength.littleEndian, toByteOffset: 2, as: UInt16.self)
    }
}

/// Where the controller driver delivers the ACL data of one connection: its L2CAP link.
/// Called on the transport's reader thread, one call per ACL packet, in arrival order.
package protocol HCIACLHandler: AnyObject, Sendable {
    /// `payload` is the packet's data after the header, exactly `header.dataTotalLength` bytes,
    /// valid only during the call. `context` is this handler's `receiveContext`.
    func controllerDidReceiveACL(_ header: ACLHeader, payload: UnsafeRawBufferPointer, at time: HostTime,
                                 context: UnsafeMutableRawPointer?)

    /// The state each of its packets starts with (a link's reassembly), or nil. The route keeps
    /// its address beside the handler's and hands it back with every packet, so that the reader
    /// fetches both at once instead of one after the other: with many links both are cold, and
    /// the second fetch in a row cost about 2 ns a notification at 256 links (medians of
    /// `strobe-bench scale`). Read each time the routes change; it must not change, and must stay
    /// valid, for the handler's life.
    var receiveContext: UnsafeMutableRawPointer? { get }

    /// The ACL packets of one transport read (or one packet, for transports that do not report
    /// reads) have been delivered: a handler that deferred waking its consumers wakes them now.
    func controllerDidFinishBatch()

    /// The data bytes still to come of the PDU this link has begun (0 when none, or while its
    /// length is not known). Asked on the reader thread, after a batch.
    var bytesToCompletePDU: Int { get }
}

extension HCIACLHandler {
    package func controllerDidFinishBatch() {}
    package var bytesToCompletePDU: Int { 0 }
    package var receiveContext: UnsafeMutableRawPointer? { nil }
}
