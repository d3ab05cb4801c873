import StrobeHost

/// The channel under a fuzzed bearer: takes whatever the bearer answers and drops it.
final class ATTChannelSink: ATTChannel {
    let maximumPayload = 517
    func send(_ pdu: [UInt8]) async throws {}
    func post(_ pdu: [UInt8], completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        completion?(.success(()))
    }
}

extension CaptureRecords {
    /// The ATT PDUs (CID 4) of the capture's unfragmented ACL packets, in order.
    static func attPDUs(of capture: [UInt8]) -> [[UInt8]] {
        packets(of: capture).filter { $0.type == .acl }.compactMap { packet in
            let bytes = packet.bytes
            guard bytes.count > 8, bytes[6] == 0x04, bytes[7] == 0x00 else { return nil }
            return Array(bytes[8...])
        }
    }

    /// Runs of `size` consecutive ATT PDUs, each run one input of `PacketSequence`.
    static func attRuns(of capture: [UInt8], size: Int = 8) -> [[UInt8]] {
        let pdus = attPDUs(of: capture)
        return stride(from: 0, to: pdus.count, by: size).prefix(256).map { start in
            PacketSequence.encode(Array(pdus[start..<min(start + size, pdus.count)]))
        }
    }
}
