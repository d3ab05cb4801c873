import StrobeHCI
import StrobeHost

extension FuzzTarget {
    /// A sequence of ACL packets into one L2CAP reassembler, at a payload bound the first byte
    /// picks: fragments, lengths that lie, PDUs that outgrow the bound.
    static let aclL2CAP = FuzzTarget(
        name: "acl-l2cap", summary: "ACL packets and L2CAP reassembly",
        run: { input in
            guard let first = input.first else { return }
            let reassembler = L2CAPReassembler(connectionHandle: ConnectionHandle(rawValue: 0x0040),
                                               maximumPayloadLength: first < 128 ? Int(first) * 8 : 1024)
            PacketSequence.forEach(UnsafeRawBufferPointer(rebasing: input[1...])) { packet in
                _ = try? ACLHeader.split(packet)
                reassembler.receive(packet) { event in
                    if case .pdu(let pdu) = event { _ = pdu.payload.count }
                }
            }
        },
        seeds: { capture in
            let acl = CaptureRecords.packets(of: capture).filter { $0.type == .acl }.map(\.bytes)
            return stride(from: 0, to: acl.count, by: 8).map { start in
                [200] + PacketSequence.encode(Array(acl[start..<min(start + 8, acl.count)]))
            }.prefix(256).map { $0 }
        })
}
