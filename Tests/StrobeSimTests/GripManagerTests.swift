import Foundation
import StrobeDevices
import StrobeHCI
import StrobeHost
import Testing

import StrobeSim

/// The grip manager in its simulated mode: discover, connect, remember, reconnect, forget.
@Suite(.timeLimit(.minutes(1))) struct GripManagerTests {
    static func configuration(timeout: Duration = .seconds(5)) -> GripManager.Configuration {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-grip-\(UUID().uuidString)/grip.json")
        return GripManager.Configuration(reconnectTimeout: timeout, rememberedGripFile: file)
    }

    /// One run of an app: a host controller with the same address each time (the same
    /// adapter), a central, the bond store file and the remembered grip file.
    static func run(in world: SimWorld, configuration: GripManager.Configuration, bonds: String, clock: VirtualClock) async throws -> GripManager {
        let controller = HCIController(transport: world.makeHostController(address: BluetoothAddress("00:5E:00:00:F0:AA")!), clock: clock)
        try await controller.open()
        let central = Central(controller: controller, clock: clock, security: SecurityManager(store: FileBondStore(path: bonds)))
        return GripManager(central: central, configuration: configuration)
    }

    @Test func connectBondsAndANewRunReconnectsEncryptedUntilForgotten() async throws {
        try await VirtualTimeDriver.run(Self.connectBondsAndANewRunReconnectsEncryptedUntilForgotten)
    }

    static func connectBondsAndANewRunReconnectsEncryptedUntilForgotten(_ clock: VirtualClock) async throws {
        let configuration = Self.configuration()
        let directory = configuration.rememberedGripFile.deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bonds = directory.appendingPathComponent("bonds.json").path
        let world = SimWorld(scenario: .standard, clock: clock)
        try await world.start()
        defer { world.stop() }

        let manager = try await Self.run(in: world, configuration: configuration, bonds: bonds, clock: clock)
        await manager.start()
        #expect(manager.currentState == .ready, "nothing remembered yet")
        var discoveries = manager.discoveries().makeAsyncIterator()
        try await manager.startScanning()
        #expect(manager.currentState == .scanningForGrips)
        let found = try #require(await discoveries.next())
        #expect(manager.discoveredGrips.count == 1, "each grip once, however many advertisements")
        #expect(found.name == "Grip-S1" && found.rssi == -60)

        let events = manager.events()
        try await manager.connect(toGrip: found)
        #expect(manager.currentState == .connected(found))
        #expect(manager.rememberedGrip?.address == found.address)
        let first = try #require(manager.central.connections.first)
        #expect(first.securityLevel == .unauthenticated)
        #expect(first.pairingResult?.bonded == true)
        #expect(try FileBondStore(path: bonds).bonds().map(\.peer.address.description) == [found.address])
        var received: [GripEvent] = []
        for await occurrence in events {
            received.append(occurrence.event)
            if received.count == 3 { break }
        }
        #expect(received == [.shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased])
        #expect(try await manager.batteryLevel().percent == 87)
        // The app quits.
        _ = try await first.disconnect()
        manager.central.controller.close()

        // The next run reconnects the bonded grip by itself and encrypts with the stored key.
        let again = try await Self.run(in: world, configuration: configuration, bonds: bonds, clock: clock)
        let moreEvents = again.events()
        await again.start()
        #expect(again.currentState == .connected(found), "\(String(describing: again.lastError))")
        let second = try #require(again.central.connections.first)
        #expect(second.securityLevel == .unauthenticated)
        #expect(second.pairingResult == nil, "encrypted with the bond, not paired again")
        var iterator = moreEvents.makeAsyncIterator()
        #expect(await iterator.next()?.event == .shutterButtonHalfDown)

        try await again.disconnectAndForgetBondedGrip()
        #expect(again.rememberedGrip == nil)
        #expect(again.currentState == .ready)
        #expect(try FileBondStore(path: bonds).bonds().isEmpty)
        again.central.controller.close()
    }

    /// The grip sends events only on an encrypted link: a host that will not secure it gets
    /// Insufficient Authentication when it subscribes.
    @Test func theGripsEventsNeedAnEncryptedLink() async throws {
        try await VirtualTimeDriver.run(Self.theGripsEventsNeedAnEncryptedLink)
    }

    static func theGripsEventsNeedAnEncryptedLink(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: .standard, clock: clock)
        try await world.start()
        defer { world.stop() }
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock, security: SecurityManager(configuration: .init(onInsufficientSecurity: .fail)))
        let connection = try await central.connect(name: "Grip-S1")
        await #expect(throws: GripError.link(.security(.insufficientLevel(reached: .none, required: .unauthenticated)))) {
            _ = try await Grip.attach(to: connection.gatt, handler: { _ in })
        }
        #expect(connection.securityLevel == .none)
    }

    @Test func aRememberedGripThatDoesNotShowUpIsGivenUpAfterTheTimeout() async throws {
        try await VirtualTimeDriver.run(Self.aRememberedGripThatDoesNotShowUpIsGivenUpAfterTheTimeout)
    }

    static func aRememberedGripThatDoesNotShowUpIsGivenUpAfterTheTimeout(_ clock: VirtualClock) async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind != .grip }
        let configuration = Self.configuration(timeout: .milliseconds(300))
        defer { try? FileManager.default.removeItem(at: configuration.rememberedGripFile.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: configuration.rememberedGripFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(GripManager.DiscoveredGrip(address: "C4:5E:00:00:00:99", addressType: "random", name: "Grip-S1", rssi: nil))
            .write(to: configuration.rememberedGripFile)
        let manager = try await GripManager.simulated(scenario: scenario, configuration: configuration, clock: clock)
        let stream = manager.states()
        let observer = Task(executorPreference: clock.executor) {
            var states: [GripManager.State] = []
            for await state in stream {
                states.append(state)
                if state == .ready { break }
            }
            return states
        }
        await manager.start()
        #expect(manager.currentState == .ready)
        #expect(await observer.value == [.uninitialized, .scanningForBondedGrip, .ready])
    }
}

extension GripManagerTests {
    @Test func withoutAnOpenControllerBluetoothIsUnavailable() async throws {
        try await VirtualTimeDriver.run(Self.withoutAnOpenControllerBluetoothIsUnavailable)
    }

    static func withoutAnOpenControllerBluetoothIsUnavailable(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = HCIController(transport: world.makeHostController(), clock: clock)  // never opened
        let manager = GripManager(central: Central(controller: controller, clock: clock), configuration: Self.configuration())
        await manager.start()
        #expect(manager.currentState == .bluetoothUnavailable)
    }
}
