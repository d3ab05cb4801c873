import StrobeHCI
import StrobeHost

extension FuzzTarget {
    /// One LE signalling channel PDU (CID 5) and, for a Connection Parameter Update Request, its
    /// parameters and the range check the stack answers with.
    static let leSignaling = FuzzTarget(
        name: "le-signaling", summary: "L2CAP LE signalling commands",
        run: { input in
            guard let packet = try? LESignalingPacket(parsing: input) else { return }
            if packet.code == LESignalingCode.connectionParameterUpdateRequest.rawValue,
               let request = try? ConnectionParameterUpdateRequest(data: packet.data) {
                _ = request.isAcceptable
                _ = request.parameters
            }
        },
        seeds: { capture in
            // The signalling PDUs of the capture's unfragmented ACL packets (CID 5).
            let acl = CaptureRecords.packets(of: capture).filter { $0.type == .acl }.map(\.bytes)
            let signaling = acl.compactMap { packet -> [UInt8]? in
                guard packet.count > 8, packet[6] == 0x05, packet[7] == 0x00 else { return nil }
                return Array(packet[8...])
            }
            let update: [UInt8] = [0x12, 0x01, 0x08, 0x00, 0x06, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00]
            return CaptureRecords.distinct(signaling + [update])
        })
}
