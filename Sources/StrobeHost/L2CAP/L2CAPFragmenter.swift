import StrobeHCI

/// Splits an outgoing L2CAP basic-mode PDU (basic header + payload) into HCI ACL packets no
/// longer than the controller's LE ACL data length (LE Read Buffer Size): a start fragment, then
/// continuing fragments (Core Vol 3, Part A, 7.2.1).
///
/// Fragments are written one at a time, by index, into a buffer the caller provides, so the
/// sender can wait for a controller buffer before each one and put each on the transport with a
/// single write. Nothing is allocated. The stack's one segmenter: the link's sender and packets
/// prepared ahead of a trigger both use it.
package struct L2CAPFragmenter: Sendable, Hashable {
    /// The most the basic header's 16-bit length can announce.
    package static let maximumPayloadLength = Int(UInt16.max)

    package let connectionHandle: ConnectionHandle
    /// LE_ACL_Data_Packet_Length: the most data bytes one ACL packet carries.
    package let maximumFragmentLength: Int
    /// PB flag of start fragments. An LE host sends 0b00 (first non-automatically-flushable).
    package let startBoundary: ACLPacketBoundary

    package init(
        connectionHandle: ConnectionHandle, maximumFragmentLength: Int, startBoundary: ACLPacketBoundary = .firstNonFlushable
    ) throws(L2CAPError) {
        guard connectionHandle.isValid else {
            throw .invalidConnectionHandle(connectionHandle)
        }
        guard (1...Int(UInt16.max)).contains(maximumFragmentLength) else {
            throw .invalidFragmentLength(maximumFragmentLength)
        }
        guard startBoundary == .firstNonFlushable || startBoundary == .firstFlushable else {
            throw .invalidPacketBoundary(connectionHandle: connectionHandle, flag: startBoundary.rawValue)
        }
        self.connectionHandle = connectionHandle
        self.maximumFragmentLength = maximumFragmentLength
        self.startBoundary = startBoundary
    }

    /// Bytes a buffer needs to hold any fragment: the ACL header, the data, and the H4 packet
    /// indicator in front when asked for.
    package func packetCapacity(h4Indicator: Bool = false) -> Int {
        (h4Indicator ? 1 : 0) + ACLHeader.size + maximumFragmentLength
    }

    /// How many ACL packets a PDU with this much payload takes.
    package func fragmentCount(payloadLength: Int) -> Int {
        let pduLength = L2CAPBasicHeader.length + max(payloadLength, 0)
        return (pduLength + maximumFragmentLength - 1) / maximumFragmentLength
    }

    /// Writes ACL packet `index` of the PDU that carries `payload` on `channel` into the start of
    /// `buffer`, preceded by the H4 ACL packet indicator when `h4Indicator` is set, and returns
    /// how many bytes it wrote. Packet 0 carries the basic header.
    package func writeFragment(
        _ index: Int,
        channel: L2CAPChannelID,
        payload: UnsafeRawBufferPointer,
        into buffer: UnsafeMutableRawBufferPointer,
        h4Indicator: Bool = false
    ) throws(L2CAPError) -> Int {
        guard payload.count <= Self.maximumPayloadLength else {
            throw .payloadTooLong(length: payload.count, maximum: Self.maximumPayloadLength)
        }
        let count = fragmentCount(payloadLength: payload.count)
        guard (0..<count).contains(index) else { throw .fragmentIndexOutOfRange(index: index, count: count) }

        let pduLength = L2CAPBasicHeader.length + payload.count
        let start = index * maximumFragmentLength
        let end = min(start + maximumFragmentLength, pduLength)
        let prefix = h4Indicator ? 1 : 0
        let needed = prefix + ACLHeader.size + (end - start)
        guard buffer.count >= needed, let base = buffer.baseAddress else {
            throw .bufferTooSmall(needed: needed, available: buffer.count)
        }

        if h4Indicator { base.storeBytes(of: HCIPacketType.acl.rawValue, as: UInt8.self) }
        ACLHeader(
            connectionHandle: connectionHandle,
            boundary: index == 0 ? startBoundary : .continuing,
            dataTotalLength: UInt16(end - start)
        ).write(to: base + prefix)

        var out = base + prefix + ACLHeader.size
        // The part of the basic header (PDU bytes 0..<4) that falls in this fragment.
        if start < L2CAPBasicHeader.length {
            let header = UInt32(payload.count) | UInt32(channel.rawValue) << 16
            for position in start..<min(end, L2CAPBasicHeader.length) {
                out.storeBytes(of: UInt8(truncatingIfNeeded: header >> (8 * position)), as: UInt8.self)
                out += 1
            }
        }
        // The part of the payload that falls in this fragment.
        let payloadStart = max(start, L2CAPBasicHeader.length) - L2CAPBasicHeader.length
        let payloadEnd = end - L2CAPBasicHeader.length
        if payloadEnd > payloadStart, let source = payload.baseAddress {
            out.copyMemory(from: source + payloadStart, byteCount: payloadEnd - payloadStart)
        }
        return needed
    }
}
