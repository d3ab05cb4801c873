import StrobeHCI
import StrobeHost

/// An HCI ACL packet (H4 payload) built by hand, so tests can lie in any field.
func aclPacket(
    handle: ConnectionHandle, boundary: UInt8, broadcast: UInt8 = 0, data: [UInt8], announcedLength: Int? = nil
) -> [UInt8] {
    let word = handle.rawValue & 0x0FFF | UInt16(boundary & 0b11) << 12 | UInt16(broadcast & 0b11) << 14
    let length = UInt16(truncatingIfNeeded: announcedLength ?? data.count)
    return [UInt8(word & 0xFF), UInt8(word >> 8), UInt8(length & 0xFF), UInt8(length >> 8)] + data
}

/// A basic-mode PDU: length, CID, payload (the length field may lie).
func l2capPDU(channel: UInt16, payload: [UInt8], announcedLength: Int? = nil) -> [UInt8] {
    let length = UInt16(truncatingIfNeeded: announcedLength ?? payload.count)
    return [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8)] + payload
}

/// Deterministic payload bytes.
func l2capPattern(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ seed &* 7 &+ ($0 >> 8)) }
}

/// What a reassembler reported, copied out of the borrowed views.
struct L2CAPReceived: Equatable {
    struct PDU: Equatable {
        var channel: L2CAPChannelID
        var payload: [UInt8]
    }

    var pdus: [PDU] = []
    var errors: [L2CAPError] = []
    /// Payload base addresses as delivered, to tell in-place views from buffered ones.
    var addresses: [UnsafeRawPointer?] = []

    static func == (lhs: L2CAPReceived, rhs: L2CAPReceived) -> Bool { lhs.pdus == rhs.pdus && lhs.errors == rhs.errors }
}

extension L2CAPReassembler {
    /// Feeds one packet and records its events into `received`.
    func feed(_ packet: [UInt8], into received: inout L2CAPReceived) {
        packet.withUnsafeBytes { bytes in
            receive(bytes) { event in
                switch event {
                case .pdu(let pdu):
                    received.pdus.append(.init(channel: pdu.channel, payload: Array(pdu.payload)))
                    received.addresses.append(pdu.payload.baseAddress)
                case .error(let error):
                    received.errors.append(error)
                }
            }
        }
    }

    /// Feeds packets in order and returns everything they produced.
    func feedAll(_ packets: [[UInt8]]) -> L2CAPReceived {
        var received = L2CAPReceived()
        for packet in packets { feed(packet, into: &received) }
        return received
    }
}

/// Splits `bytes` into chunks of `size` (the last may be shorter; one empty chunk for no bytes).
func l2capChunks(_ bytes: [UInt8], size: Int) -> [[UInt8]] {
    guard !bytes.isEmpty else { return [[]] }
    return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
}

/// A PDU as ACL packets: a start fragment (PB 0b10, as controllers send) then continuations.
func aclFragmentsByHand(handle: ConnectionHandle, pdu: [UInt8], size: Int, start: UInt8 = 0b10) -> [[UInt8]] {
    l2capChunks(pdu, size: size).enumerated().map { index, chunk in
        aclPacket(handle: handle, boundary: index == 0 ? start : 0b01, data: chunk)
    }
}
