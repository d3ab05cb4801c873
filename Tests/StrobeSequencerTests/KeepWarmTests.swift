import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeSim
import Testing

import StrobeSequencer

/// The warmer against real threads: the simulated world on the real clock, the warmer's task
/// reading on the pool while the grip's presses fire, complete and re-arm shots on other threads.
/// Timing-free: it asserts what every shot's record says, not how long anything took.
@Suite(.timeLimit(.minutes(1))) struct KeepWarmTests {
    @Test func shotsFiredWhileAWarmerReadsAllUseTheirArmedCommands() async throws {
        let clock = ContinuousClock()
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .nova2 || $0.kind == .grip }
        let presses = 8
        for index in scenario.devices.indices where scenario.devices[index].kind == .grip {
            scenario.devices[index].gripEvents = (0..<presses).map { .init(after: $0 == 0 ? 0.3 : 0.1, code: 0x02) }
        }
        let world = SimWorld(scenario: scenario, clock: clock)
        try await world.start()
        defer { world.stop() }
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock)
        let manager = NovaFlashManager(central: central, clock: clock, configuration: .init(scanBurst: .seconds(1)))
        try #require(try await manager.connect(.all).count == 1)
        let sequencer = ShutterSequencer(flashes: manager, camera: {}, policy: ShotPolicy(ackDeadline: .seconds(5)), clock: clock,
                                         keepWarm: .microseconds(200))
        var records = sequencer.records().makeAsyncIterator()
        // Armed and handled from the subscription on: the grip's first press follows it by 0.3 s,
        // which a loaded machine may take before a `follow` after the attach would run.
        await sequencer.arm()
        _ = try await Grip.attach(to: try await central.connect(name: "Grip-S1").gatt, handler: sequencer.gripEventHandler())
        var fired = 0
        for _ in 0..<presses {
            let record = try #require(await records.next())
            // A press during a slow shot is busy and fires nothing; every other shot fired the
            // FLASH armed for it.
            guard record.outcome != .busy else { continue }
            #expect(record.flashes.map(\.armed) == [true])
            fired += 1
        }
        #expect(fired > 0)
        #expect(sequencer.warmReads > 0)
        try await manager.disable()
    }
}
