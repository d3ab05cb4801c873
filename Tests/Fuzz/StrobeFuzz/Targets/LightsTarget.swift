import StrobeLights

extension FuzzTarget {
    /// The lights' codecs on bytes from the network or the air; the first byte picks: a LIFX
    /// LAN datagram (re-encoded when it decodes), a LEDnet state notification, a LEDnet command
    /// (what a simulated light reads), a selector's text.
    static let lights = FuzzTarget(
        name: "lights", summary: "LIFX LAN datagrams, LEDnet states and commands, light selectors",
        run: { input in
            guard let selector = input.first else { return }
            let value = Array(input[1...])
            switch selector % 4 {
            case 0:
                if let packet = try? LIFXPacket(decoding: value) { _ = packet.encoded() }
            case 1: _ = try? LEDnetState(decoding: value)
            case 2: _ = LEDnetCommand(bytes: value)
            default: _ = try? LightSelector(String(decoding: value, as: UTF8.self))
            }
        },
        seeds: { capture in
            // LEDnet values from the capture, and one datagram of each LIFX message the backend uses.
            let values = CaptureRecords.attPDUs(of: capture).compactMap { pdu -> [UInt8]? in
                guard pdu.count > 3, [0x1B, 0x52].contains(pdu[0]) else { return nil }
                return Array(pdu[3...])
            }
            let hsbk = LIFXHSBK(hue: 21845, saturation: 65535, brightness: 32768, kelvin: 3500)
            let datagrams: [LIFXMessage] = [
                .getService, .stateService(service: 1, port: 56700), .acknowledgement, .stateLabel("Key"),
                .stateGroup(id: Array(0..<16), label: "Studio", updatedAt: 1), .stateLocation(id: Array(0..<16), label: "Set", updatedAt: 1),
                .lightState(hsbk, power: 65535, label: "Key"), .setColor(hsbk, durationMilliseconds: 500),
                .setPower(level: 0, durationMilliseconds: 0), .statePower(level: 65535),
            ]
            return CaptureRecords.distinct(values, limit: 32).flatMap { [[1] + $0, [2] + $0] }
                + datagrams.map { [0] + LIFXPacket(message: $0, source: 2, target: 0x0100_D5D3_73D0, sequence: 9).encoded() }
                + ["all", "id:d073d5000001", "group_id:1c8de82b", "label:Key light", "scene_id:0b1e"].map { [3] + Array($0.utf8) }
        })
}
