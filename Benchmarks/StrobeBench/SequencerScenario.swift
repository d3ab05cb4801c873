import Foundation
import Histogram
import Strobe
import Synchronization

/// `sequencer`: a shot's host-side latency, from the trigger to the FLASH command's bytes handed
/// to the transport, on the simulated world (a Nova V2 on its own stack across the virtual air;
/// the air's pacing comes after the measured point and does not count).
enum SequencerScenario {
    /// Timestamps each H4 ACL packet carrying an ATT Write Request whose value starts with the
    /// V2 FLASH command byte, as the host hands it to the transport.
    final class CommandTimes: HCITransport, Sendable {
        let inner: any HCITransport
        let times = Mutex<[UInt64]>([])
        init(_ inner: any HCITransport) { self.inner = inner }
        var name: String { inner.name }
        func start(_ sink: any HCIPacketSink) throws { try inner.start(sink) }
        func close() { inner.close() }
        func send(_ h4Packet: UnsafeRawBufferPointer) throws {
            // [0x02][handle u16][length u16][L2CAP length u16][CID u16][0x12][handle u16][value...]
            if h4Packet.count >= 13, h4Packet[0] == 0x02, h4Packet[7] == 0x04, h4Packet[9] == 0x12, h4Packet[12] == 0x02 {
                let now = nowNanoseconds()
                times.withLock { $0.append(now) }
            }
            try inner.send(h4Packet)
        }
    }

    static func run(shots: Int) async throws -> BenchReport {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .nova2 }
        let world = SimWorld(scenario: scenario, clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let transport = CommandTimes(world.makeHostController())
        let controller = HCIController(transport: transport)
        try await controller.open()
        defer { controller.close() }
        let manager = NovaFlashManager(central: Central(controller: controller), clock: ContinuousClock(),
                                       configuration: .init(scanBurst: .seconds(1)))
        guard try await !manager.connect(.all).isEmpty else { throw BumbleProcess.Failure(description: "the simulated Nova did not connect") }
        let sequencer = ShutterSequencer(flashes: manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(1)), clock: ContinuousClock())

        var latency = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        var allocations = 0
        var outcomes: [String: Int] = [:]
        for shot in 0..<(shots + 10) {
            let trigger = nowNanoseconds()
            var record: ShotRecord?
            // The whole shot (begin, ack, capture, off) is inside the count; the first ten warm up.
            let counted = await countAsync { record = await sequencer.shoot(triggeredAt: HostTime(nanoseconds: trigger)) }
            guard shot >= 10, let record else { continue }
            outcomes[record.outcome.rawValue, default: 0] += 1
            allocations += counted ?? 0
            if let written = transport.times.withLock({ $0.last }), written >= trigger { latency.record(written - trigger) }
        }
        await manager.disable()
        return BenchReport(
            scenario: "sequencer",
            figures: [
                "shots": Double(shots),
                "triggerToCommandP50": Double(latency.valueAtPercentile(50)),
                "triggerToCommandP99": Double(latency.valueAtPercentile(99)),
                "triggerToCommandMax": Double(latency.max),
                "allocationsPerShot": Allocations.available ? Double(allocations) / Double(shots) : nil,
                "captured": Double(outcomes["captured"] ?? 0),
            ],
            units: ["triggerToCommandP50": "ns", "triggerToCommandP99": "ns", "triggerToCommandMax": "ns"],
            notes: ["trigger = the call to shoot(triggeredAt:); command = the FLASH write's ACL packet handed to the transport",
                    "allocations are counted over the whole shot (begin, ack, capture, off), not only the trigger-to-command path"])
    }

    /// Allocations made while `body` runs, for async work.
    private static func countAsync(_ body: () async -> Void) async -> Int? {
        guard Allocations.available else {
            await body()
            return nil
        }
        Allocations.begin()
        await body()
        return Allocations.end()
    }
}
