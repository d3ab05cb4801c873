/// The basic L2CAP header (Core Vol 3, Part A, 3.1): the information payload's length and the
/// destination channel, both little-endian.
public struct L2CAPBasicHeader: Sendable, Hashable {
    public static let length = 4

    /// Length of the information payload, excluding this header.
    public var payloadLength: UInt16
    public var channel: L2CAPChannelID

    public init(payloadLength: UInt16, channel: L2CAPChannelID) {
        self.payloadLength = payloadLength
        self.channel = channel
    }

    /// Reads the header from the start of `bytes`; `nil` when fewer than 4 bytes.
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= Self.length else { return nil }
        payloadLength = UInt16(littleEndian: bytes.loadUnaligned(as: UInt16.self))
        channel = L2CAPChannelID(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
    }

    /// Writes the 4 header bytes at `destination`.
    public func write(to destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: payloadLength.littleEndian, as: UInt16.self)
        destination.storeBytes(of: channel.rawValue.littleEndian, toByteOffset: 2, as: UInt16.self)
    }
}

/// A complete L2CAP basic-mode PDU as delivered by the reassembler: its channel and a view of its
/// information payload. The view is borrowed (from the ACL packet, or the reassembler's buffer)
/// and valid only during the call that receives it.
public struct L2CAPPDU {
    public let channel: L2CAPChannelID
    public let payload: UnsafeRawBufferPointer

    public init(channel: L2CAPChannelID, payload: UnsafeRawBufferPointer) {
        self.channel = channel
        self.payload = payload
    }
}
