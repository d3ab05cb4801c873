import StrobeHCI
import StrobeDevices

extension FuzzTarget {
    /// The device kits' codecs on a value from the air; the first byte picks the codec: Nova V1
    /// frames and V2 messages, Nova responses of either model, grip event records, stylus batches.
    static let deviceCodecs = FuzzTarget(
        name: "device-codecs", summary: "Nova frames and responses, grip records, stylus batches",
        run: { input in
            guard let selector = input.first else { return }
            let value = UnsafeRawBufferPointer(rebasing: input[1...])
            switch selector % 6 {
            case 0: _ = try? NovaV1Frame(decoding: value)
            case 1: _ = try? NovaV2Message(decoding: value)
            case 2: _ = try? NovaResponse(decoding: value, model: .v1)
            case 3: _ = try? NovaResponse(decoding: value, model: .v2)
            case 4:
                var decoder = GripEventDecoder()
                _ = try? decoder.decode(value) { _ in }
            default:
                // Twice: the second batch meets the first's sequence and stroke state.
                var decoder = StylusSampleDecoder()
                _ = try? decoder.decode(value, receivedAt: HostTime(nanoseconds: 1_000)) { _ in }
                _ = try? decoder.decode(value, receivedAt: HostTime(nanoseconds: 2_000_000)) { _ in }
            }
        },
        seeds: { capture in
            // Every value written or notified in the capture, under each selector.
            let values = CaptureRecords.attPDUs(of: capture).compactMap { pdu -> [UInt8]? in
                guard pdu.count > 3, [0x12, 0x1B, 0x1D, 0x52].contains(pdu[0]) else { return nil }
                return Array(pdu[3...])
            }
            return CaptureRecords.distinct(values, limit: 64).flatMap { value in (0..<6).map { [UInt8($0)] + value } }
        })
}
