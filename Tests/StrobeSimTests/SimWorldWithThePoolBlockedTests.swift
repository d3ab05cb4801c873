import StrobeBase
import StrobeHCI
import StrobeTestSupport
import Testing

import StrobeSim

/// The simulated world on the real clock runs on threads of its own, as the hardware it stands
/// for does (the air and its controllers on one, each device's host on its own): with every
/// thread of the app's pool held, a host's controller still answers a command and a device's
/// advertising still reaches a scan.
@Suite(.timeLimit(.minutes(1))) struct SimWorldWithThePoolBlockedTests {
    /// Keeps the events that reach it, as a host stack's reader would take them.
    final class EventRecorder: HCIPacketSink {
        let events = Lock<[[UInt8]]>([])
        func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
            if type == .event { events.withLock { $0.append(Array(payload)) } }
        }
        func transportDidFinishBatch() {}
        func transportDidClose(_ error: TransportError?) {}

        func received(_ matching: ([UInt8]) -> Bool) -> Bool { events.withLock { $0.contains(where: matching) } }
    }

    @Test func aDeviceAdvertisesAndTheControllerAnswersWithThePoolBlocked() async throws {
        let world = SimWorld(scenario: SimScenario(devices: [SimulatedDeviceDescription(kind: .test, name: "Strobe-Test", rssi: -61)]),
                             clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let controller = world.makeHostController()
        let sink = EventRecorder()
        try controller.start(sink)
        defer { controller.close() }
        @Sendable func send(_ packet: [UInt8]) throws { try packet.withUnsafeBytes { try controller.send($0) } }

        let seen = try await withThePoolBlocked { () -> (reset: Bool, report: Bool) in
            do {
                // HCI Reset, then a passive scan: LE Set Scan Parameters and LE Set Scan Enable.
                try send([0x01, 0x03, 0x0C, 0x00])
                let reset = waitOnThisThread(for: .seconds(10)) {
                    sink.received { $0.count >= 6 && $0[0] == 0x0E && $0[3] == 0x03 && $0[4] == 0x0C }
                } != nil
                try send([0x01, 0x0B, 0x20, 0x07, 0x00, 0x10, 0x00, 0x10, 0x00, 0x00, 0x00])
                try send([0x01, 0x0C, 0x20, 0x02, 0x01, 0x00])
                // An LE Advertising Report.
                let report = waitOnThisThread(for: .seconds(10)) { sink.received { $0.count >= 3 && $0[0] == 0x3E && $0[2] == 0x02 } } != nil
                return (reset, report)
            } catch {
                return (false, false)
            }
        }
        #expect(seen.poolWasBlocked)
        #expect(seen.value.reset, "no Command Complete for HCI Reset while the pool was held")
        #expect(seen.value.report, "no advertising report while the pool was held")
    }
}
