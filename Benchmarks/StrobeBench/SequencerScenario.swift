import Foundation
import Histogram
import Strobe
import StrobeLights
import StrobeSequencer
import StrobeSim
import Synchronization

/// `sequencer`: a shot's host-side latency, from the trigger's bytes reaching the host to the
/// FLASH command's bytes handed to the transport, on the simulated world (a grip, or a HID
/// shutter remote, and a Nova V2, each on its own stack across the virtual air; the air's pacing
/// lies outside the measured window and does not count). Allocations are counted over the same window, process-wide and
/// on the trigger's thread alone. With modelling lights, the standard world's LEDnet light goes
/// down for each shot and back after it, on the same controller: the window is the same.
enum SequencerScenario {
    /// What fires the shots.
    enum Trigger: String, Sendable { case grip, remote }

    /// Stamps the two ends of the window at the transport: a received trigger notification (the
    /// grip's full press, `shutterButtonDown`, code 0x02; or the remote's consumer report with
    /// Volume Up down, one byte 0x01), and a sent ATT Write Request carrying a V2 FLASH command.
    final class Window: HCITransport, Sendable {
        let inner: any HCITransport
        let trigger: Trigger
        let opened = Atomic<UInt64>(0)
        let samples = Mutex<[(latency: UInt64, allocations: (process: Int, thread: Int, sameThread: Bool)?)]>([])
        init(_ inner: any HCITransport, trigger: Trigger) {
            self.inner = inner
            self.trigger = trigger
        }

        /// [handle u16][length u16][L2CAP length u16][CID u16][0x1B][handle u16][value...]
        func isTrigger(_ payload: UnsafeRawBufferPointer) -> Bool {
            guard payload.count >= 12, payload[6] == 0x04, payload[8] == 0x1B else { return false }
            switch trigger {
            case .grip: return payload.count == 14 && payload[13] == 0x02  // [seq u16][code]
            case .remote: return payload.count == 12 && payload[11] == 0x01  // the consumer report, Volume Up down
            }
        }
        var name: String { inner.name }
        func close() { inner.close() }

        func start(_ sink: any HCIPacketSink) throws(TransportError) { try inner.start(Stamp(window: self, downstream: sink)) }

        func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
            // [0x02][handle u16][length u16][L2CAP length u16][CID u16][0x12][handle u16][value...]
            if h4Packet.count >= 13, h4Packet[0] == 0x02, h4Packet[7] == 0x04, h4Packet[9] == 0x12, h4Packet[12] == 0x02 {
                let now = nowNanoseconds()
                let allocations = Allocations.available ? Allocations.endWithThread() : nil
                let start = opened.exchange(0, ordering: .acquiringAndReleasing)
                if start != 0 { samples.withLock { $0.append((now - start, allocations)) } }
            }
            try inner.send(h4Packet)
        }

        final class Stamp: HCIPacketSink {
            let window: Window
            let downstream: any HCIPacketSink
            init(window: Window, downstream: any HCIPacketSink) {
                self.window = window
                self.downstream = downstream
            }
            func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
                if type == .acl, window.isTrigger(payload) {
                    // Counting starts first, so that setting it up is not timed.
                    if Allocations.available { Allocations.beginWithThread() }
                    window.opened.store(nowNanoseconds(), ordering: .releasing)
                }
                downstream.transportDidReceive(type, payload: payload, at: time)
            }
            func transportDidFinishBatch() { downstream.transportDidFinishBatch() }
            func transportDidClose(_ error: TransportError?) { downstream.transportDidClose(error) }
        }
    }

    static func run(shots: Int, modellingLights: Bool = false, trigger: Trigger = .grip) async throws -> BenchReport {
        var scenario = SimScenario.standard
        let triggerKind: SimulatedDeviceDescription.Kind = trigger == .grip ? .grip : .remote
        scenario.devices = scenario.devices.filter { $0.kind == .nova2 || $0.kind == triggerKind || (modellingLights && $0.kind == .lednet) }
        // Ten presses to warm up, then one per shot: the grip's 80 ms apart (a shot takes two
        // connection events), the remote's 120 ms (its release follows each press by 80 ms).
        for index in scenario.devices.indices where scenario.devices[index].kind == .grip {
            scenario.devices[index].gripEvents = (0..<(shots + 10)).map { .init(after: $0 == 0 ? 0.3 : 0.08, code: 0x02) }
        }
        for index in scenario.devices.indices where scenario.devices[index].kind == .remote {
            scenario.devices[index].triggerPresses = (0..<(shots + 10)).map { 0.3 + Double($0) * 0.12 }
        }
        let world = SimWorld(scenario: scenario, clock: ContinuousClock())
        try await world.start()
        defer { world.stop() }
        let transport = Window(world.makeHostController(), trigger: trigger)
        let host = try await BluetoothHost(transport: transport)
        defer { host.close() }
        let central = host.central
        let manager = NovaFlashManager(central: central, clock: ContinuousClock(), configuration: .init(scanBurst: .seconds(1)))
        guard try await !manager.connect(.all).isEmpty else { throw BumbleProcess.Failure(description: "the simulated Nova did not connect") }
        var lights: ModellingLights?
        if modellingLights {
            let client = Client(backend: LEDnetBackend(central: central, configuration: .init(scanDuration: .milliseconds(500))))
            try await client.fetch()
            guard client.lights.count == 1 else { throw BumbleProcess.Failure(description: "the simulated light did not connect") }
            lights = ModellingLights(target: client.allLightTarget(), deadline: .seconds(1))
        }
        let sequencer = ShutterSequencer(flashes: manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(1)), clock: ContinuousClock(),
                                         modellingLights: lights)
        var records = sequencer.records().makeAsyncIterator()
        switch trigger {
        case .grip:
            await sequencer.arm()
            _ = try await Grip.attach(to: try await central.connect(name: "Grip-S1").gatt, handler: sequencer.gripEventHandler())
        // Pairs first (the remote's reports need an encrypted link), outside the measured window.
        case .remote:
            await sequencer.arm()
            _ = try await ShutterRemote.attach(to: try await central.connect(name: "AB Shutter3"), handler: sequencer.remoteEventHandler())
        }

        var outcomes: [String: Int] = [:]
        var lightsRestored = 0
        for _ in 0..<(shots + 10) {
            guard let record = await records.next() else { break }
            outcomes[record.outcome.rawValue, default: 0] += 1
            if record.modellingLights?.restored != nil, record.modellingLights?.failure == nil { lightsRestored += 1 }
        }
        try await manager.disable()
        var latency = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        let samples = transport.samples.withLock { Array($0.dropFirst(10)) }
        for sample in samples { latency.record(sample.latency) }
        let allocations = samples.compactMap(\.allocations)
        let process = allocations.map(\.process).sorted()
        let thread = allocations.map(\.thread).sorted()
        return BenchReport(
            scenario: modellingLights ? "sequencer-modelling-lights" : trigger == .remote ? "sequencer-remote" : "sequencer",
            figures: [
                "shots": Double(samples.count),
                "triggerToCommandP50": Double(latency.valueAtPercentile(50)),
                "triggerToCommandP99": Double(latency.valueAtPercentile(99)),
                "triggerToCommandMax": Double(latency.max),
                "allocationsPerTriggerMedian": process.isEmpty ? nil : Double(process[process.count / 2]),
                "allocationsPerTriggerMax": process.last.map(Double.init),
                "allocationsOnTriggerThreadMedian": thread.isEmpty ? nil : Double(thread[thread.count / 2]),
                "allocationsOnTriggerThreadMax": thread.last.map(Double.init),
                "commandsFromTriggerThread": allocations.isEmpty ? nil : Double(allocations.filter(\.sameThread).count),
                "captured": Double(outcomes["captured"] ?? 0),
                "shotsWithLightsDownAndBack": modellingLights ? Double(lightsRestored) : nil,
            ],
            units: ["triggerToCommandP50": "ns", "triggerToCommandP99": "ns", "triggerToCommandMax": "ns"],
            notes: ["trigger = the \(trigger == .grip ? "grip's full-press notification" : "remote's Volume Up report") handed up by the transport; command = the FLASH write's ACL packet handed to the transport",
                    "allocationsPerTrigger* count the whole process in that window (the simulated devices' work included); allocationsOnTriggerThread* the thread that read the trigger alone",
                    "commandsFromTriggerThread: shots whose FLASH left from the thread that read the trigger (the armed path)"])
    }
}
