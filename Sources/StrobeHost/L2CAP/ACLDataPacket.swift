import StrobeHCI

/// An HCI ACL Data packet parsed in place: the header and a view of its data.
package struct ACLDataPacket {
    package let header: ACLHeader
    /// Borrowed from the buffer that was parsed.
    package let data: UnsafeRawBufferPointer

    /// Parses the payload of an H4 ACL packet (without the packet indicator). The data length
    /// in the header must match the bytes present.
    package init(parsing packet: UnsafeRawBufferPointer) throws(L2CAPError) {
        guard let header = ACLHeader(packet) else { throw .truncatedACLHeader(length: packet.count) }
        guard packet.count - ACLHeader.size == Int(header.dataTotalLength) else {
            throw .aclLengthMismatch(
                connectionHandle: header.connectionHandle, announced: Int(header.dataTotalLength),
                present: packet.count - ACLHeader.size)
        }
        self.header = header
        data = UnsafeRawBufferPointer(rebasing: packet[ACLHeader.size...])
    }

    package init(header: ACLHeader, data: UnsafeRawBufferPointer) {
        self.header = header
        self.data = data
    }
}
