import Foundation
import StrobeLights
import StrobeBase
import Synchronization
import Testing

/// The LAN backend against `lifx-emulator`, someone else's LIFX LAN implementation, on loopback.
@Suite(.serialized) struct LIFXLANInteropTests {
    static let studio = (id: "11111111111111111111111111111111", name: "Studio")
    static let back = (id: "22222222222222222222222222222222", name: "Back")
    static let set = (id: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", name: "Set")

    static let devices: [LIFXEmulator.Device] = [
        .init(serial: "d073d5000001", label: "Key", power: true, hsbk: [0, 0, 65535, 5600], group: studio, location: set),
        .init(serial: "d073d5000002", label: "Fill", power: false, hsbk: [21845, 65535, 32768, 3500], group: studio, location: set),
        .init(serial: "d073d5000003", label: "Hair", power: true, hsbk: [43690, 32768, 16384, 2700], group: back, location: set),
    ]

    func withEmulator(scenes: [Scene] = [], _ body: (LIFXEmulator, Client, LIFXLANBackend) async throws -> Void) async throws {
        let emulator = try await LIFXEmulator(devices: Self.devices)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-scenes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let scenesFile = directory.appendingPathComponent("scenes.json")
        try JSONEncoder().encode(scenes).write(to: scenesFile)
        let backend = try LIFXLANBackend(configuration: .init(discoveryHosts: ["127.0.0.1"], port: emulator.port,
                                                              discoveryWindow: .milliseconds(400), scenes: LocalScenes(file: scenesFile)))
        let client = Client(backend: backend)
        try await client.fetch()
        do {
            try await body(emulator, client, backend)
        } catch {
            // Already failing: that error is the news.
            try? await client.close()
            await emulator.stop()
            throw error
        }
        try await client.close()
        await emulator.stop()
    }

    @Test func discoveryFindsEveryLightWithItsLabelGroupLocationAndState() async throws {
        try await withEmulator { emulator, client, _ in
            let lights = client.lights
            #expect(lights.map(\.id) == Self.devices.map(\.serial))
            #expect(lights.map(\.label) == ["Key", "Fill", "Hair"])
            #expect(lights.map(\.group?.name) == ["Studio", "Studio", "Back"])
            #expect(lights.map(\.group?.id) == [Self.studio.id, Self.studio.id, Self.back.id])
            #expect(Set(lights.map(\.location?.name)) == ["Set"])
            #expect(lights.map(\.power) == [true, false, true])
            #expect(lights.allSatisfy { $0.connected })
            // What the emulator itself reports, field by field.
            for light in lights {
                let device = try await emulator.device(light.id)
                let color = try #require(device["color"] as? [String: Any])
                #expect(LIFXHSBK(color: light.color, brightness: light.brightness)
                    == LIFXHSBK(hue: UInt16(color["hue"] as! Int), saturation: UInt16(color["saturation"] as! Int),
                                brightness: UInt16(color["brightness"] as! Int), kelvin: UInt16(color["kelvin"] as! Int)))
                #expect(device["label"] as? String == light.label)
            }
            let all = client.allLightTarget()
            #expect(all.label == "All")
            #expect(all.count == 3)
            #expect(all.power)
            #expect(all.toGroupTargets().map(\.label) == ["Studio", "Back"])
            #expect(all.toGroupTargets().map(\.count) == [2, 1])
            #expect(all.toLocationTargets().map(\.label) == ["Set"])
            #expect(all.toLightTargets().map(\.label) == ["Key", "Fill", "Hair"])
        }
    }

    /// Discovery by broadcast: GetService to loopback's broadcast address, heard by an emulator
    /// listening on every interface, its lights then driven at the address they answered from.
    @Test func discoveryByBroadcast() async throws {
        let emulator = try await LIFXEmulator(devices: Self.devices, bind: "0.0.0.0")
        let backend = try LIFXLANBackend(configuration: .init(discoveryHosts: ["127.255.255.255"], port: emulator.port,
                                                              discoveryWindow: .milliseconds(400)))
        let client = Client(backend: backend)
        do {
            try await client.fetch()
            #expect(client.lights.map(\.label) == ["Key", "Fill", "Hair"])
            #expect(try await client.lightTargetWithSelector(.label("Fill")).setPower(true, duration: .zero).map(\.status) == [.ok])
            #expect(try await emulator.device("d073d5000002")["power_level"] as? Int == 65535)
        } catch {
            Issue.record(error)
        }
        try await client.close()
        await emulator.stop()
    }

    @Test func everyOperationReachesEverySelectedLight() async throws {
        let scene = Scene(id: "0b1e6c52-5a0d-4c3b-9b53-3f3d2c8a1f00", name: "Dark set", states: [
            SceneState(selector: .groupID(Self.studio.id), power: false),
            SceneState(selector: .label("Hair"), power: true, brightness: 0.25, color: .white(kelvin: 3200)),
        ])
        try await withEmulator(scenes: [scene]) { emulator, client, _ in
            func power(_ serial: String) async throws -> Int? { try await emulator.device(serial)["power_level"] as? Int }
            func color(_ serial: String) async throws -> [String: Int] { try await emulator.device(serial)["color"] as? [String: Int] ?? [:] }

            let studio = client.lightTargetWithSelector(.groupID(Self.studio.id))
            let results = try await studio.setPower(true, duration: .zero)
            #expect(results.map(\.status) == [.ok, .ok])
            #expect(try await power("d073d5000001") == 65535)
            #expect(try await power("d073d5000002") == 65535)

            try await client.allLightTarget().setColor(LightColor(hue: 120, saturation: 1, kelvin: 3500), duration: .zero)
            for device in Self.devices {
                let c = try await color(device.serial)
                #expect(c["hue"] == 21845 && c["saturation"] == 65535, "\(device.label): \(c)")
            }
            try await client.lightTargetWithSelector(.label("Key")).setBrightness(0.5, duration: .zero)
            #expect(try await color("d073d5000001")["brightness"] == 32768)
            #expect(try await color("d073d5000002")["brightness"] == 32768) // untouched: it was 32768 already
            try await client.lightTargetWithSelector(.id("d073d5000003")).setState(color: .white(kelvin: 6500), brightness: 1, power: false, duration: .zero)
            let hair = try await emulator.device("d073d5000003")
            #expect(hair["power_level"] as? Int == 0)
            #expect((hair["color"] as? [String: Int])?["kelvin"] == 6500)
            #expect((hair["color"] as? [String: Int])?["brightness"] == 65535)

            // A scene from the local scenes file.
            let sceneTarget = client.lightTargetWithSelector(.sceneID(scene.id))
            #expect(sceneTarget.label == "Dark set")
            #expect(sceneTarget.count == 3)
            let restored = try await sceneTarget.restoreState(duration: .zero)
            #expect(restored.count == 3 && restored.allSatisfy { $0.status == .ok })
            #expect(try await power("d073d5000001") == 0)
            #expect(try await power("d073d5000002") == 0)
            #expect(try await power("d073d5000003") == 65535)
            #expect(try await color("d073d5000003")["kelvin"] == 3200)
            await #expect(throws: LightsError.notASceneTarget(.all)) { _ = try await client.allLightTarget().restoreState() }

            // A new fetch reads back what the operations did.
            try await client.fetch()
            #expect(client.lights.map(\.power) == [false, false, true])
            #expect(client.lightTargetWithSelector(.label("Hair")).brightness == 0.25)
        }
    }

    /// The emulator's fault scenarios: each operation ends within its retries with `timedOut`
    /// (or a counted malformed answer), the optimistic state reverted, the light disconnected.
    @Test(arguments: [
        ("dropped SetPower", #"{"drop_packets": {"117": 1.0}}"#),
        ("delayed acknowledgements", #"{"response_delays": {"45": 5.0}}"#),
        ("malformed acknowledgements", #"{"malformed_packets": [45]}"#),
    ])
    func faultsGiveTimedOutAndARevertedState(_ name: String, _ scenario: String) async throws {
        try await withEmulator { emulator, client, backend in
            let fill = client.lightTargetWithSelector(.label("Fill"))
            #expect(fill.power == false)
            try await emulator.setScenario(json: scenario)
            let observed = Observed()
            let observer = fill.addObserver { observed.append($0.lights.first?.power ?? false) }
            let results = try await fill.setPower(true, duration: .zero)
            fill.removeObserver(observer)
            #expect(results == [LightResult(id: "d073d5000002", label: "Fill", status: .timedOut)], "\(name)")
            // Given up after its tries (200, 400 and 800 ms), no more: the emulator took in each
            // SetPower (117). (The schedule's length is no wall-clock claim on a loaded machine.)
            let tries = backend.configuration.attempts
            #expect(try await emulator.received(type: 117, atLeast: tries) == tries, "\(name)")
            #expect(observed.values == [true, false], "\(name): optimistic on, then reverted")
            #expect(fill.lights.first?.connected == false)
            #expect(fill.power == false)
            if name == "malformed acknowledgements" { #expect(backend.malformedCount > 0) }
        }
    }

    /// A LightState cut short (the emulator's malformed answer: half the payload, a wrong size)
    /// or filled with 0xFF (kelvin 65535): counted, and the light is not believed. (The
    /// emulator's `partial_responses` only shortens answers of several packets, which this
    /// backend never asks for.)
    @Test(arguments: [#"{"malformed_packets": [107]}"#, #"{"invalid_field_values": [107]}"#])
    func aBrokenLightStateLeavesTheLightDisconnectedAndCounted(_ scenario: String) async throws {
        try await withEmulator { emulator, client, backend in
            try await emulator.setScenario(json: scenario)
            try await client.fetch()
            #expect(client.lights.count == 3)
            #expect(client.lights.allSatisfy { !$0.connected })
            #expect(backend.malformedCount > 0)
            #expect(client.allLightTarget().power == false)
        }
    }
}

final class Observed: Sendable {
    private let state = Lock<[Bool]>([])
    func append(_ value: Bool) { state.withLock { $0.append(value) } }
    var values: [Bool] { state.withLock { $0 } }
}
