import Foundation
import Testing

import Strobe

/// Sessions recorded with `strobe --btsnoop` against the simulated devices (Captures/sim_*),
/// decoded again from the capture alone: the same events the live runs printed.
@Suite struct SimCaptureReplayTests {
    static let captures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Captures")

    /// The notifications of a capture (controller to host), in order.
    static func notifications(_ name: String) throws -> [CaptureATTPDU] {
        let decoder = try CaptureATTDecoder(path: captures.appendingPathComponent(name).path)
        var found: [CaptureATTPDU] = []
        while let pdu = try decoder.next() {
            if pdu.opcode == 0x1B, pdu.direction == .controllerToHost { found.append(pdu) }
        }
        return found
    }

    @Test func gripSessionReplaysToTheScriptedEvents() throws {
        var decoder = GripEventDecoder()
        var events: [GripEvent] = []
        for pdu in try Self.notifications("sim_grip-events.btsnoop") {
            _ = try (pdu.value ?? []).withUnsafeBytes { bytes in
                try decoder.decode(bytes) { events.append($0.event) }
            }
        }
        // What `strobe grip events` printed live: the standard world's grip script.
        #expect(events == [.shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased])
        #expect(decoder.counters.lostRecords == 0)
    }

    @Test func stylusSessionReplaysToOneStrokeOf1000Samples() throws {
        var decoder = StylusSampleDecoder()
        var pressures: [UInt16] = []
        for pdu in try Self.notifications("sim_stylus-stroke.btsnoop") {
            _ = try (pdu.value ?? []).withUnsafeBytes { bytes in
                try decoder.decode(bytes, receivedAt: HostTime(nanoseconds: 0)) { event in
                    if case .sample(let sample, _) = event { pressures.append(sample.rawPressure) }
                }
            }
        }
        // 125 batches of 8: pressure rising 16 per sample with the tip down, then a last batch lifted.
        #expect(pressures.count == 1000)
        #expect(Array(pressures.prefix(992)) == (0..<992).map { UInt16(min($0 * 16, 4095)) })
        #expect(pressures.suffix(8).allSatisfy { $0 == 0 })
        #expect(decoder.counters.lostBatches == 0)
    }

    @Test(arguments: [("sim_nova1-fire.btsnoop", NovaModel.v1), ("sim_nova2-fire.btsnoop", .v2)])
    func novaSessionReplaysToTwoAcks(name: String, model: NovaModel) throws {
        let acks = try Self.notifications(name).map { pdu in
            try (pdu.value ?? []).withUnsafeBytes { try NovaResponse(decoding: $0, model: model) }
        }
        // `strobe flash fire`: the flash command (request 0), then OFF (request 1).
        #expect(acks == [.ack(requestID: 0), .ack(requestID: 1)])
    }
}
