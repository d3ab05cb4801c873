import StrobeHCI

/// What was wrong with ACL data or an L2CAP PDU, in its own words. Receive-side errors are
/// counted by the reassembler, which drops what it must and carries on; none of them traps.
package enum L2CAPError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: ACL framing

    /// The ACL packet is shorter than its 4-byte header.
    case truncatedACLHeader(length: Int)
    /// The header's Data_Total_Length differs from the bytes that follow it.
    case aclLengthMismatch(connectionHandle: ConnectionHandle, announced: Int, present: Int)
    /// PB flag 0b11 (complete PDU) is not used on an LE-U link.
    case invalidPacketBoundary(connectionHandle: ConnectionHandle, flag: UInt8)
    /// LE-U carries point-to-point data only (BC flag 0b00).
    case broadcastNotSupported(connectionHandle: ConnectionHandle, flag: UInt8)
    /// The packet was routed to the reassembler of another connection.
    case wrongConnection(expected: ConnectionHandle, received: ConnectionHandle)

    // MARK: Reassembly (lengths are information payload bytes unless said otherwise)

    /// A continuing fragment arrived with no PDU in progress; it was dropped.
    case continuationWithoutStart(connectionHandle: ConnectionHandle, length: Int)
    /// A start fragment arrived while a PDU was in progress: the old one (of which `received` of
    /// `expected` PDU bytes had arrived; `nil` when its header was incomplete) was dropped.
    case startWhilePending(connectionHandle: ConnectionHandle, received: Int, expected: Int?)
    /// Fragments carried more bytes than the basic header announced; the PDU was dropped.
    case fragmentExceedsPDU(connectionHandle: ConnectionHandle, announced: Int, received: Int)
    /// The basic header announced a payload longer than this connection accepts; the PDU and
    /// its continuations are dropped. `channel`: the CID, when the fragment carried it.
    case pduTooLong(connectionHandle: ConnectionHandle, channel: L2CAPChannelID?, announced: Int, maximum: Int)

    // MARK: Fragmentation (sending)

    /// Connection handles above 0x0EFF are reserved.
    case invalidConnectionHandle(ConnectionHandle)
    /// An ACL fragment must carry 1 to 65535 bytes.
    case invalidFragmentLength(Int)
    /// A PDU's payload must fit the 16-bit length of the basic header.
    case payloadTooLong(length: Int, maximum: Int)
    /// The buffer given for a fragment cannot hold it.
    case bufferTooSmall(needed: Int, available: Int)
    /// There is no fragment with that index for this PDU.
    case fragmentIndexOutOfRange(index: Int, count: Int)

    /// A one-line explanation for logs, naming the connection handle and the lengths involved.
    package var description: String {
        switch self {
        case .truncatedACLHeader(let length):
            return "ACL packet of \(length) bytes is shorter than its 4-byte header"
        case .aclLengthMismatch(let handle, let announced, let present):
            return "ACL packet on connection \(handle.description) announces \(announced) data bytes but carries \(present)"
        case .invalidPacketBoundary(let handle, let flag):
            return "ACL packet on connection \(handle.description) has packet boundary flag 0b\(String(flag, radix: 2)), not valid on LE-U"
        case .broadcastNotSupported(let handle, let flag):
            return "ACL packet on connection \(handle.description) has broadcast flag 0b\(String(flag, radix: 2)); LE-U is point-to-point"
        case .wrongConnection(let expected, let received):
            return "ACL packet for connection \(received.description) reached the reassembler of \(expected.description)"
        case .continuationWithoutStart(let handle, let length):
            return "continuing fragment of \(length) bytes on connection \(handle.description) with no L2CAP PDU in progress"
        case .startWhilePending(let handle, let received, let expected):
            let of = expected.map { " of \($0)" } ?? ""
            return "new L2CAP PDU on connection \(handle.description) before the previous one was complete (\(received)\(of) bytes); the previous one was dropped"
        case .fragmentExceedsPDU(let handle, let announced, let received):
            return "L2CAP PDU on connection \(handle.description) announces \(announced) payload bytes but its fragments carry \(received)"
        case .pduTooLong(let handle, let channel, let announced, let maximum):
            let on = channel.map { " \($0)" } ?? ""
            return "L2CAP PDU on connection \(handle.description)\(on) announces \(announced) payload bytes, more than the \(maximum) accepted"
        case .invalidConnectionHandle(let handle):
            return "connection handle \(handle.description) is reserved (valid: 0x0000...0x0EFF)"
        case .invalidFragmentLength(let length):
            return "ACL fragment length \(length) is outside 1...65535"
        case .payloadTooLong(let length, let maximum):
            return "L2CAP payload of \(length) bytes is longer than \(maximum)"
        case .bufferTooSmall(let needed, let available):
            return "buffer of \(available) bytes cannot hold a fragment of \(needed)"
        case .fragmentIndexOutOfRange(let index, let count):
            return "fragment \(index) requested of a PDU that has \(count)"
        }
    }
}

/// `0x002A`-style rendering of a 16-bit value for messages.
func l2capHex(_ value: UInt16) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
