import Strobe

/// The host's receive path for one LE connection, from H4 bytes to an ATT value handler:
/// H4 deframing, ACL header, L2CAP reassembly, ATT bearer routing. The same units the stack
/// runs behind a transport's reader thread, driven here from memory.
final class ReceivePath {
    private var deframer = H4Deframer()
    private let reassembler: L2CAPReassembler
    private let bearer: ATTBearer
    private(set) var malformed = 0

    init(connectionHandle: UInt16, handler: any ATTValueHandler) {
        reassembler = L2CAPReassembler(connectionHandle: connectionHandle, maximumPayloadLength: 1024)
        bearer = ATTBearer(channel: SilentChannel())
        bearer.setDefaultValueHandler(handler)
    }

    /// Feeds one chunk as read from a transport.
    func feed(_ chunk: UnsafeRawBufferPointer, at time: HostTime) throws {
        let reassembler = self.reassembler
        let bearer = self.bearer
        var malformed = 0
        try deframer.feed(chunk) { type, payload in
            guard type == .acl else { return }
            guard let (header, data) = try? ACLHeader.split(payload) else {
                malformed += 1
                return
            }
            let packet = ACLDataPacket(
                header: ACLDataHeader(connectionHandle: header.connectionHandle, packetBoundary: header.boundary,
                                      dataTotalLength: header.dataTotalLength),
                data: data)
            reassembler.receive(packet) { event in
                switch event {
                case .pdu(let pdu) where pdu.channel == .att: bearer.receive(pdu.payload, at: time)
                case .pdu: break
                case .error: malformed += 1
                }
            }
        }
        self.malformed += malformed
    }
}

/// An ATT channel for a bearer that only receives (notifications need no answer).
private final class SilentChannel: ATTChannel {
    let maximumPayload = 517
    func send(_ pdu: [UInt8]) async throws {}
}
