import StrobeLights
import Testing

/// The LAN codec: the LIFX documentation's own example packet, round trips, and what a hostile
/// or broken datagram gets.
@Suite struct LIFXPacketTests {
    /// "SetColor to green, to every light, over 1024 ms", as the LIFX LAN documentation builds it
    /// byte by byte (source 0, sequence 0, no acknowledgement).
    static let documentedSetColor: [UInt8] = [
        0x31, 0x00, 0x00, 0x34, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x66, 0x00, 0x00, 0x00, 0x00, 0x55, 0x55, 0xFF, 0xFF, 0xFF, 0xFF, 0xAC, 0x0D, 0x00, 0x04, 0x00, 0x00,
    ]

    @Test func theDocumentedSetColorPacket() throws {
        let packet = LIFXPacket(message: .setColor(LIFXHSBK(color: LightColor(hue: 120, saturation: 1, kelvin: 3500), brightness: 1),
                                                   durationMilliseconds: 1024), source: 0, sequence: 0)
        #expect(packet.encoded() == Self.documentedSetColor)
        let decoded = try LIFXPacket(decoding: Self.documentedSetColor)
        #expect(decoded.header.tagged && decoded.header.target == 0 && decoded.header.type == 102)
        #expect(decoded.message == packet.message)
    }

    @Test(arguments: [
        LIFXMessage.getService, .stateService(service: 1, port: 56700), .acknowledgement, .stateLabel("Key light"),
        .stateGroup(id: Array(0..<16), label: "Studio", updatedAt: 1_700_000_000_000_000_000),
        .stateLocation(id: Array(repeating: 0xAA, count: 16), label: "Set", updatedAt: 1),
        .lightState(LIFXHSBK(hue: 21845, saturation: 65535, brightness: 32768, kelvin: 3500), power: 65535, label: "Fill"),
        .setPower(level: 0, durationMilliseconds: 250), .statePower(level: 65535),
    ])
    func messagesRoundTrip(_ message: LIFXMessage) throws {
        let packet = LIFXPacket(message: message, source: 0x1234_5678, target: 0x0100_D5D3_73D0, sequence: 200, ackRequired: true)
        let decoded = try LIFXPacket(decoding: packet.encoded())
        #expect(decoded.message == message)
        #expect(decoded.header.source == 0x1234_5678 && decoded.header.sequence == 200 && decoded.header.ackRequired)
        #expect(!decoded.header.tagged)
    }

    @Test func serialsAreTheTargetsMACInOrder() {
        #expect(LIFXHeader.serial(of: 0x0100_D5D3_73D0) == "d073d3d50001")
        #expect(LIFXHeader.target(serial: "d073d3d50001") == 0x0100_D5D3_73D0)
        #expect(LIFXHeader.target(serial: "d073d3") == nil)
        #expect(LIFXHeader.target(serial: "zz73d3d50001") == nil)
    }

    @Test func brokenDatagramsGetTypedErrors() {
        let good = LIFXPacket(message: .lightState(LIFXHSBK(hue: 1, saturation: 2, brightness: 3, kelvin: 3500), power: 0, label: "x"),
                              source: 7, sequence: 1).encoded()
        #expect(throws: LightsError.malformedLIFXMessage("20 bytes, shorter than the 36-byte header")) { try LIFXPacket(decoding: Array(good.prefix(20))) }
        #expect(throws: LightsError.malformedLIFXMessage("header says 88 bytes, the datagram has 60")) { try LIFXPacket(decoding: Array(good.prefix(60))) }
        var shortened = Array(good.prefix(60))
        shortened[0] = 60
        #expect(throws: LightsError.malformedLIFXMessage("LightState payload of 24 bytes, needs 52")) { try LIFXPacket(decoding: shortened) }
        var wrongProtocol = good
        wrongProtocol[2] = 0x01
        #expect(throws: LightsError.malformedLIFXMessage("protocol 1025, not 1024")) { try LIFXPacket(decoding: wrongProtocol) }
        // All 0xFF (the emulator's invalid field values): kelvin 65535 is refused.
        var invalid = good
        for index in 36..<invalid.count { invalid[index] = 0xFF }
        #expect(throws: LightsError.malformedLIFXMessage("LightState kelvin 65535 outside 1500...9000")) { try LIFXPacket(decoding: invalid) }
        // A label that is not UTF-8 is kept, its bad bytes replaced.
        var label = good
        label[48] = 0xC3
        #expect((try? LIFXPacket(decoding: label)) != nil)
    }

    @Test func hsbkKeepsWhatWasSet() {
        let hsbk = LIFXHSBK(color: LightColor(hue: 240, saturation: 0.5, kelvin: 4000), brightness: 0.75)
        #expect(hsbk.color == LightColor(hue: 240, saturation: 0.5, kelvin: 4000))
        #expect(hsbk.level == 0.75)
        #expect(LIFXHSBK(color: LightColor(hue: -30, saturation: 3, kelvin: 100_000), brightness: -1)
            == LIFXHSBK(hue: 60074, saturation: 65535, brightness: 0, kelvin: 9000))
    }
}
