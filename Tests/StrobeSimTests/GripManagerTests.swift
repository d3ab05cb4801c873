import Foundation
import StrobeDevices
import StrobeHCI
import StrobeHost
import Testing

@testable import StrobeSim

/// The grip manager in its simulated mode: discover, connect, remember, reconnect, forget.
@Suite(.timeLimit(.minutes(1))) struct GripManagerTests {
    static func configuration(timeout: Duration = .seconds(5)) -> GripManager.Configuration {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-grip-\(UUID().uuidString)/grip.json")
        return GripManager.Configuration(reconnectTimeout: timeout, rememberedGripFile: file)
    }

    @Test func discoverConnectRememberReconnectAndForget() async throws {
        let configuration = Self.configuration()
        defer { try? FileManager.default.removeItem(at: configuration.rememberedGripFile.deletingLastPathComponent()) }
        let manager = try await GripManager.simulated(configuration: configuration)
        await manager.start()
        #expect(manager.currentState == .ready, "nothing remembered yet")

        var discoveries = manager.discoveries().makeAsyncIterator()
        try await manager.startScanning()
        #expect(manager.currentState == .scanningForGrips)
        let found = try #require(await discoveries.next())
        #expect(manager.discoveredGrips.count == 1, "each grip once, however many advertisements")
        #expect(found.name == "Grip-S1" && found.rssi == -60)

        let events = manager.events()
        try await manager.connect(to: found)
        #expect(manager.currentState == .connected(found))
        #expect(manager.rememberedGrip?.address == found.address)
        var received: [GripEvent] = []
        for await occurrence in events {
            received.append(occurrence.event)
            if received.count == 3 { break }
        }
        #expect(received == [.shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased])
        #expect(try await manager.batteryLevel().percent == 87)

        // A new manager (a new run of the app) reconnects the remembered grip by itself.
        let again = GripManager(central: manager.central, clock: ContinuousClock(), configuration: configuration)
        await manager.forgetConnectionOnly()
        await again.start()
        #expect(again.currentState == .connected(found))

        await again.forget()
        #expect(again.rememberedGrip == nil)
        #expect(again.currentState == .ready)
    }

    @Test func aRememberedGripThatDoesNotShowUpIsGivenUpAfterTheTimeout() async throws {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind != .grip }
        let configuration = Self.configuration(timeout: .milliseconds(300))
        defer { try? FileManager.default.removeItem(at: configuration.rememberedGripFile.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: configuration.rememberedGripFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONEncoder().encode(GripManager.DiscoveredGrip(address: "C4:5E:00:00:00:99", addressType: "random", name: "Grip-S1", rssi: nil))
            .write(to: configuration.rememberedGripFile)
        let manager = try await GripManager.simulated(scenario: scenario, configuration: configuration)
        let stream = manager.states()
        let observer = Task {
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
        let world = SimWorld(scenario: SimScenario(devices: []), clock: ContinuousClock())
        let controller = HCIController(transport: world.makeHostController())  // never opened
        let manager = GripManager(central: Central(controller: controller), clock: ContinuousClock(), configuration: Self.configuration())
        await manager.start()
        #expect(manager.currentState == .bluetoothUnavailable)
    }
}

extension GripManager {
    /// Drops the link but keeps the remembered grip, as quitting the app would.
    func forgetConnectionOnly() async {
        if let connection = central.connections.first { _ = try? await connection.disconnect() }
    }
}
