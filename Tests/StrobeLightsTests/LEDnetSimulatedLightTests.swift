import StrobeHCI
import StrobeHost
import StrobeLights
import StrobeSim
import Testing

/// The Bluetooth backend through Strobe's own GATT client against the simulated world's LEDnet light.
@Suite struct LEDnetSimulatedLightTests {
    static func world() -> SimScenario {
        SimScenario(devices: [
            SimulatedDeviceDescription(kind: .lednet, name: "LEDBLE-Key", advertisingIntervalMilliseconds: 20),
            SimulatedDeviceDescription(kind: .lednet, name: "Triones-Fill", advertisingIntervalMilliseconds: 20),
            SimulatedDeviceDescription(kind: .test, name: "Strobe-Test", advertisingIntervalMilliseconds: 20),
        ])
    }

    @Test func lightsAreFoundReadAndDrivenThroughTheLightTargetAPI() async throws {
        try await VirtualTimeDriver.run(Self.lightsAreFoundReadAndDrivenThroughTheLightTargetAPI)
    }

    static func lightsAreFoundReadAndDrivenThroughTheLightTargetAPI(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: Self.world(), clock: clock)
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close(); world.stop() }
        let backend = LEDnetBackend(central: Central(controller: controller, clock: clock), configuration: .init(scanDuration: .milliseconds(300)))
        let client = Client(backend: backend)
        try await client.fetch()
        #expect(client.lights.map(\.label).sorted() == ["LEDBLE-Key", "Triones-Fill"])
        // The simulated light starts on, warm white at full.
        #expect(client.lights.allSatisfy { $0.power && $0.brightness == 1 && $0.color.saturation == 0 && $0.connected })

        let key = client.lightTargetWithSelector(.label("LEDBLE-Key"))
        let results = try await key.setState(color: LightColor(hue: 240, saturation: 1), brightness: 0.5, duration: .zero)
        #expect(results.map(\.status) == [.ok])
        #expect(try await client.allLightTarget().setPower(false, duration: .zero).map(\.status) == [.ok, .ok])
        let keyDevice = try #require(world.devices.first { $0.description.name == "LEDBLE-Key" })
        #expect(keyDevice.log.contains("command color(red: 0, green: 0, blue: 128)"))
        #expect(keyDevice.log.contains("command power(false)"))

        // What the lights report back is what was set.
        try await client.fetch()
        let keyLight = try #require(key.lights.first)
        #expect(keyLight.power == false)
        #expect(keyLight.color.hue == 240 && keyLight.color.saturation == 1)
        #expect(abs(keyLight.brightness - 0.5) < 0.01)
        #expect(client.lightTargetWithSelector(.label("Triones-Fill")).lights.first?.brightness == 1)
        try await client.close()
    }

    @Test func aLightThatStopsAnsweringIsRevertedAndDisconnected() async throws {
        try await VirtualTimeDriver.run(Self.aLightThatStopsAnsweringIsRevertedAndDisconnected)
    }

    static func aLightThatStopsAnsweringIsRevertedAndDisconnected(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: Self.world(), clock: clock)
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close(); world.stop() }
        let backend = LEDnetBackend(central: Central(controller: controller, clock: clock),
                                    configuration: .init(scanDuration: .milliseconds(300), answerTimeout: .milliseconds(300)))
        let client = Client(backend: backend)
        try await client.fetch()
        let fill = client.lightTargetWithSelector(.label("Triones-Fill"))
        #expect(fill.power)
        let heard = Heard()
        let observer = fill.addObserver { heard.append("\($0.lights.first?.power ?? false)") }
        try #require(world.devices.first { $0.description.name == "Triones-Fill" }).stop()
        let results = try await fill.setPower(false, duration: .zero)
        fill.removeObserver(observer)
        #expect(results.count == 1 && results[0].status != .ok)
        #expect(heard.values == ["false", "true"], "optimistic off, then reverted")
        #expect(fill.lights.first?.connected == false)
        #expect(fill.connected == false)
        // The other light is untouched and still answers.
        #expect(try await client.lightTargetWithSelector(.label("LEDBLE-Key")).setPower(true, duration: .zero).map(\.status) == [.ok])
    }
}
