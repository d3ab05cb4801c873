import StrobeHCI
import StrobeHost

extension FuzzTarget {
    /// What a GATT client receives: each PDU decoded whole and as a view, then the sequence
    /// through a client's bearer (notifications and indications to handlers, unexpected responses,
    /// Exchange MTU from the peer).
    static let attClient = FuzzTarget(
        name: "att-client", summary: "ATT PDUs as a client receives them (decoders and the bearer)",
        run: { input in
            let bearer = ATTBearer(channel: ATTChannelSink())
            let handler = ATTValueClosureHandler { value, _, _, _ in _ = value.count }
            bearer.setValueHandler(handler, forHandle: AttributeHandle(rawValue: 0x0003))
            bearer.setDefaultValueHandler(handler)
            PacketSequence.forEach(input) { pdu in
                if let first = pdu.first, let codec = ATTPDUCodecs.codec(for: first) {
                    _ = try? codec.init(pdu: pdu)
                }
                _ = try? ATTPDUView(pdu)
                bearer.receive(pdu, at: HostTime(nanoseconds: 0))
            }
            bearer.close(.local)
        },
        seeds: { capture in CaptureRecords.attRuns(of: capture) })
}

