import Foundation
import Strobe
import StrobeLights
import Testing

/// The Bluetooth backend through Strobe's GATT client against Bumble's GATT server playing
/// LEDnet lights (`Tests/Fixtures/Bumble/lednet.py`), through the `LightTarget` API.
@Suite(.serialized) struct LEDnetBumbleInteropTests {
    @Test func lightsAreReadAndDrivenThroughTheLightTargetAPI() async throws {
        let peer = try await BumblePeripheral(script: "lednet.py", arguments: ["--names", "Triones-A1,LEDBLE-B2"])
        let host = try await HostUnderTest(transport: peer.transport)
        let client = Client(backend: LEDnetBackend(central: host.central, configuration: .init(scanDuration: .seconds(1))))
        try await client.fetch()
        #expect(client.lights.map(\.label).sorted() == ["LEDBLE-B2", "Triones-A1"])
        let all = client.allLightTarget()
        #expect(all.power)
        let results = try await all.setState(color: .white(kelvin: 2700), brightness: 0.4, duration: .zero)
        #expect(results.map(\.status) == [.ok, .ok])
        try await client.lightTargetWithSelector(.label("LEDBLE-B2")).setPower(false, duration: .zero)
        try await client.fetch()
        #expect(client.lightTargetWithSelector(.label("LEDBLE-B2")).lights.first?.power == false)
        #expect(client.lightTargetWithSelector(.label("Triones-A1")).brightness == 0.4)
        try await client.close()
        host.close()
        let summary = try await peer.stop()
        let lights = summary["lights"] as? [[String: Any]] ?? []
        #expect(lights.map { $0["white"] as? Int } == [102, 102], "warm white at 0.4 of 255 on both")
        #expect(lights.map { $0["power"] as? Bool } == [true, false])
    }

    @Test func aLightThatNeverAnswersIsTimedOutAndReverted() async throws {
        let peer = try await BumblePeripheral(script: "lednet.py", arguments: ["--names", "Triones-A1", "--silent"])
        let host = try await HostUnderTest(transport: peer.transport)
        let backend = LEDnetBackend(central: host.central, configuration: .init(scanDuration: .seconds(1), answerTimeout: .milliseconds(500)))
        let client = Client(backend: backend)
        try await client.fetch()
        // It connected but did not answer the state query: known, not connected.
        let light = try #require(client.lights.first)
        #expect(light.label == "Triones-A1" && !light.connected)
        let results = try await client.allLightTarget().setPower(false, duration: .zero)
        #expect(results.map(\.status) == [.timedOut])
        #expect(client.lights.first?.power == light.power, "reverted")
        try await client.close()
        host.close()
        _ = try await peer.stop()
    }
}
