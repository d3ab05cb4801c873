/// The basic L2CAP header (Core Vol 3, Part A, 3.1): the information payload's length and the
/// destination channel, both little-endian.
package struct L2CAPBasicHeader: Sendable, Hashable {
    package static let length = 4

    /// Length of the information payload, excluding this header.
    package var payloadLength: UInt16
    package var channel: L2CAPChannelID

    package init(payloadLength: UInt16, channel: L2CAPChannelID) {
        self.payloadLength = payloadLength
        self.channel = channel
    }

    /// Reads the header from the start of `bytes`; `nil` when fewer than 4 bytes.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.length else { return nil }
        payloadLength = UInt16(littleEndian: bytes.loadUnaligned(as: UInt16.self))
        channel = L2CAPChannelID(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
    }

    /// Writes the 4 header bytes at `destination`.
    package func write(to destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: payloadLength.littleEndian, as: UInt16.self)
        destination.storeBytes(of: channel.rawValue.littleEndian, toByteOffset: 2, as: UInt16.self)
    }
}

/// A complete L2CAP basic-mode PDU as delivered by the reassembler: its channel and a view of its
/// information payload. The view is borrowed (from the ACL packet, or the reassembler's buffer)
/// and valid only during the call that receives it.
package struct L2CAPPDU {
    package let channel: L2CAPChannelID
    package let payload: UnsafeRawBufferPointer

    package init(channel: L2CAPChannelID, payload: UnsafeRawBufferPointer) {
        self.channel = channel
        self.payload = payload
    }
}
