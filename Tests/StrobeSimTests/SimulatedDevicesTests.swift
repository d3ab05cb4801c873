import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization
import Testing

import StrobeSim

/// The whole stack (central) against the simulated devices, each on its own virtual controller
/// and its own copy of Strobe's peripheral stack, across the virtual air (in real time: the
/// connection interval is 7.5-15 ms).
@Suite(.timeLimit(.minutes(1))) struct SimulatedDevicesTests {
    struct Host {
        let world: SimWorld
        let virtual: VirtualController
        let controller: HCIController
        let central: Central
    }

    static func host(_ scenario: SimScenario = .standard, clock: VirtualClock) async throws -> Host {
        let world = SimWorld(scenario: scenario, clock: clock)
        try await world.start()
        let virtual = world.makeHostController()
        let controller = HCIController(transport: virtual, clock: clock)
        try await controller.open()
        return Host(world: world, virtual: virtual, controller: controller, central: Central(controller: controller, clock: clock))
    }

    @Test func scanFindsEveryDeviceWithItsRSSI() async throws {
        try await VirtualTimeDriver.run(Self.scanFindsEveryDeviceWithItsRSSI)
    }

    static func scanFindsEveryDeviceWithItsRSSI(_ clock: VirtualClock) async throws {
        let host = try await Self.host(clock: clock)
        let scanner = LEScanner(controller: host.controller)
        let updates = scanner.updates()
        try await scanner.start()
        var byName: [String: Int?] = [:]
        for await device in updates {
            if let name = device.name { byName[name] = device.rssi }
            if byName.count == 7 { break }
        }
        try await scanner.stop()
        #expect(byName == ["Nova": -57, "Nova2": -48, "Grip-S1": -60, "Pen-S1": -52, "Strobe-Test": -70, "LEDBLE-Key": -62,
                           "AB Shutter3": -58])
        host.controller.close()
        host.world.stop()
    }

    @Test func connectDiscoverReadWriteAndSubscribe() async throws {
        try await VirtualTimeDriver.run(Self.connectDiscoverReadWriteAndSubscribe)
    }

    static func connectDiscoverReadWriteAndSubscribe(_ clock: VirtualClock) async throws {
        let host = try await Self.host(clock: clock)
        let connection = try await host.central.connect(name: "Strobe-Test")
        let services = try await connection.gatt.discoverPrimaryServices(uuid: SimulatedTestDevice.service)
        let characteristics = try await connection.gatt.discoverCharacteristics(of: try #require(services.first))
        func handle(_ uuid: BluetoothUUID) throws -> GATTCharacteristic { try #require(characteristics.first { $0.uuid == uuid }) }
        #expect(try await connection.gatt.readLong(handle: try handle(SimulatedTestDevice.long).valueHandle) == (0..<300).map { UInt8($0 % 256) })
        try await connection.gatt.write([0xAB], handle: try handle(SimulatedTestDevice.control).valueHandle)
        let ring = NotificationRing(capacity: 256)
        try await connection.gatt.subscribe(try handle(SimulatedTestDevice.counter), to: .notification, handler: ring)
        var counts: [UInt32] = []
        for await notification in ring.notifications() {
            counts.append(notification.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            if counts.count == 100 { break }
        }
        #expect(counts == (0..<100).map { UInt32($0) })
        try await connection.disconnect()
        let device = try #require(host.world.devices.first { $0.description.name == "Strobe-Test" })
        #expect(device.log.contains("write ab"))
        host.controller.close()
        host.world.stop()
    }

    @Test func novaV2AcksLightsAndReportsItsState() async throws {
        try await VirtualTimeDriver.run(Self.novaV2AcksLightsAndReportsItsState)
    }

    static func novaV2AcksLightsAndReportsItsState(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .nova2 }
        scenario.devices[0].triggerPresses = [0.05]
        let host = try await Self.host(scenario, clock: clock)
        // Real time on a machine that may be loaded: an ack deadline no healthy link misses.
        let manager = NovaFlashManager(central: host.central, clock: clock,
                                       configuration: .init(scanBurst: .seconds(1), ackTimeout: .seconds(10)))
        let flash = try #require(try await manager.connect(.closest).first).flash
        #expect(flash.model == .v2)
        var events = flash.events().makeAsyncIterator()
        // A safety timeout no test run outlasts (real time, a loaded machine): the OFF ends it.
        let ack = try await flash.beginFlash(NovaFlashSettings(warm: 255, cool: 255, timeout: .seconds(30)))
        #expect(ack.roundTrip > .zero)
        #expect(flash.isLit)
        try await flash.endFlash()
        #expect(try await flash.readCounters().values.first == 1)
        #expect(try await flash.batteryLevel().percent == 80)
        // The scripted press of the flash's own button, 50 ms after subscription.
        var presses: [Bool] = []
        while presses.count < 2, let event = await events.next() {
            if case .trigger(let pressed, _) = event { presses.append(pressed) }
        }
        #expect(presses == [true, false])
        let device = try #require(host.world.devices.first)
        #expect(device.log.contains("light warm 255 cool 255"))
        #expect(device.log.contains("light off (off)"))
        try await manager.disable()
        host.controller.close()
        host.world.stop()
    }

    @Test func novaV1SafetyTimeoutTurnsTheLightOff() async throws {
        try await VirtualTimeDriver.run(Self.novaV1SafetyTimeoutTurnsTheLightOff)
    }

    static func novaV1SafetyTimeoutTurnsTheLightOff(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .nova1 }
        let host = try await Self.host(scenario, clock: clock)
        let manager = NovaFlashManager(central: host.central, clock: clock,
                                       configuration: .init(scanBurst: .seconds(1), ackTimeout: .seconds(10)))
        let flash = try #require(try await manager.connect(.closest).first).flash
        var changes = flash.events().makeAsyncIterator()
        try await flash.beginFlash(NovaFlashSettings(warm: 10, cool: 20, timeoutMilliseconds: 50))
        // The host's own tracking clears `isLit` when the flash's safety timeout passes.
        while let event = await changes.next() {
            if event == .light(isLit: false) { break }
        }
        #expect(!flash.isLit)
        let device = try #require(host.world.devices.first)
        #expect(device.log.contains("light off (safety timeout)"))
        try await manager.disable()
        host.controller.close()
        host.world.stop()
    }

    @Test func gripSendsItsScriptedEvents() async throws {
        try await VirtualTimeDriver.run(Self.gripSendsItsScriptedEvents)
    }

    static func gripSendsItsScriptedEvents(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .grip }
        let host = try await Self.host(scenario, clock: clock)
        let connection = try await host.central.connect(name: "Grip-S1")
        let received = Lock<[GripEvent]>([])
        let (done, finish) = AsyncStream.makeStream(of: Void.self)
        let grip = try await Grip.attach(to: connection.gatt) { occurrence in
            if received.withLock({ $0.append(occurrence.event); return $0.count }) == 3 { finish.yield() }
        }
        #expect(grip.firmware == FirmwareVersion(major: 1, minor: 4, patch: 0))
        var iterator = done.makeAsyncIterator()
        _ = await iterator.next()
        #expect(received.withLock { $0 } == [.shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased])
        #expect(grip.counters.lostRecords == 0)
        host.controller.close()
        host.world.stop()
    }

    @Test func gripWithOldFirmwareIsRefusedNamingBothVersions() async throws {
        try await VirtualTimeDriver.run(Self.gripWithOldFirmwareIsRefusedNamingBothVersions)
    }

    static func gripWithOldFirmwareIsRefusedNamingBothVersions(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .grip }
        scenario.devices[0].firmware = "1.1.9"
        let host = try await Self.host(scenario, clock: clock)
        let connection = try await host.central.connect(name: "Grip-S1")
        await #expect(throws: GripError.firmwareTooOld(found: FirmwareVersion(major: 1, minor: 1, patch: 9),
                                                       minimum: FirmwareVersion(major: 1, minor: 2, patch: 0))) {
            _ = try await Grip.attach(to: connection.gatt)
        }
        host.controller.close()
        host.world.stop()
    }

    @Test func stylusStrokeArrivesInBatchesWithPhases() async throws {
        try await VirtualTimeDriver.run(Self.stylusStrokeArrivesInBatchesWithPhases)
    }

    /// The same stroke over the pen's LE credit-based channel: every batch, one per SDU, and no
    /// notification.
    @Test func stylusStrokeArrivesOverTheChannel() async throws {
        try await VirtualTimeDriver.run { try await Self.stylusStrokeArrivesInBatchesWithPhases($0, overChannel: true) }
    }

    static func stylusStrokeArrivesInBatchesWithPhases(_ clock: VirtualClock) async throws {
        try await stylusStrokeArrivesInBatchesWithPhases(clock, overChannel: false)
    }

    static func stylusStrokeArrivesInBatchesWithPhases(_ clock: VirtualClock, overChannel: Bool) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .stylus }
        scenario.devices[0].count = 20
        let host = try await Self.host(scenario, clock: clock)
        let connection = try await host.central.connect(name: "Pen-S1")
        let stylus = overChannel ? try await Stylus.attachOverChannel(to: connection) : try await Stylus.attach(to: connection.gatt)
        #expect((stylus.channel?.psm) == (overChannel ? 0x0085 : nil))
        #expect(stylus.penIdentifier == "PEN-0001")
        #expect(stylus.buttonMap == StylusButtonMap(side1: .undo, side2: .erase))
        var phases: [StylusStrokePhase] = []
        // A drawing app pulls once per frame (60 Hz) until the stroke ended: 20 batches of 8 samples.
        var drawingSeen = false
        while !phases.contains(.ended) {
            try await clock.sleep(for: .milliseconds(16))
            stylus.drain { event in
                if case .sample(_, let phase, _) = event { phases.append(phase) }
            }
            if !phases.contains(.ended), phases.contains(.began) { drawingSeen = drawingSeen || stylus.isDrawing }
        }
        #expect(drawingSeen, "isDrawing while the tip was down")
        #expect(!stylus.isDrawing, "and not after the stroke ended")
        #expect(phases.first == .began)
        #expect(phases.filter { $0 == .began }.count == 1)
        #expect(phases.count == 160, "20 batches of 8 samples")
        #expect(stylus.counters.batches == 20 && stylus.counters.lostBatches == 0)
        let notified = host.world.devices[0].peripheralConnections.first?.server?.counters.notificationsSent
        #expect(notified == (overChannel ? 0 : 20))
        host.controller.close()
        host.world.stop()
    }

    @Test func lossIsRetransmittedAndLatencyDelaysButNothingIsLost() async throws {
        try await VirtualTimeDriver.run(Self.lossIsRetransmittedAndLatencyDelaysButNothingIsLost)
    }

    static func lossIsRetransmittedAndLatencyDelaysButNothingIsLost(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .test }
        scenario.loss = 0.3
        scenario.latencyMilliseconds = 5
        scenario.jitterMilliseconds = 3
        let host = try await Self.host(scenario, clock: clock)
        let connection = try await host.central.connect(name: "Strobe-Test", scanTimeout: .seconds(5))
        let services = try await connection.gatt.discoverPrimaryServices(uuid: SimulatedTestDevice.service)
        let service = try #require(services.first)
        let counter = try #require(try await connection.gatt.discoverCharacteristics(of: service, uuid: SimulatedTestDevice.counter).first)
        let ring = NotificationRing(capacity: 256)
        try await connection.gatt.subscribe(counter, to: .notification, handler: ring)
        var counts: [UInt32] = []
        for await notification in ring.notifications() {
            counts.append(notification.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            if counts.count == 100 { break }
        }
        #expect(counts == (0..<100).map { UInt32($0) }, "in order, none missing")
        #expect(host.world.air.counters.retransmissions > 0)
        host.controller.close()
        host.world.stop()
    }
}

extension SimulatedDevicesTests {
    @Test func stylusManagerConnectsEveryPenAndStops() async throws {
        try await VirtualTimeDriver.run(Self.stylusManagerConnectsEveryPenAndStops)
    }

    static func stylusManagerConnectsEveryPenAndStops(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        var second = try #require(scenario.devices.first { $0.kind == .stylus })
        second.name = "Pen-S2"
        scenario.devices.append(second)
        let host = try await Self.host(scenario, clock: clock)
        let manager = StylusManager(central: host.central, scanDuration: .milliseconds(500))
        let connected = try await manager.start()
        #expect(Set(connected.map(\.name)) == ["Pen-S1", "Pen-S2"])
        #expect(connected.allSatisfy { $0.penIdentifier == "PEN-0001" && $0.pairing == .notPaired })
        #expect(try await connected[0].stylus.powerLevel().percent == 92)
        try await connected[0].stylus.writeButtonMap(StylusButtonMap(side1: .redo, side2: .save))
        #expect(try await connected[0].stylus.readButtonMap() == StylusButtonMap(side1: .redo, side2: .save))
        try await manager.stop()
        #expect(manager.styluses.isEmpty)
        host.controller.close()
        host.world.stop()
    }
}
