import StrobeLights
import Testing

/// The LIFXHTTPKit model over a scripted backend: targets, optimistic operations, reverts,
/// observers, serial order.
@Suite struct ClientTests {
    static let lights = [
        Light.sample("a", "Key", power: true, brightness: 1, group: "studio"),
        Light.sample("b", "Fill", power: false, brightness: 0.5, group: "studio"),
        Light.sample("c", "Hair", power: true, brightness: 0.2, group: "back", location: "l2"),
    ]

    static func client(_ lights: [Light] = lights, scenes: [Scene] = []) async throws -> (Client, ScriptedBackend) {
        let backend = ScriptedBackend(lights: lights, scenes: scenes)
        let client = Client(backend: backend)
        try await client.fetch()
        return (client, backend)
    }

    @Test func targetsAreCollectionsWithTheSDKsAggregates() async throws {
        var lights = Self.lights
        lights[2].connected = false
        let (client, _) = try await Self.client(lights)
        let all = client.allLightTarget()
        #expect(all.label == "All" && all.count == 3)
        #expect(all.power)
        // Averages over connected lights only: Hair is disconnected.
        #expect(all.brightness == 0.75)
        #expect(client.lightTargetWithSelector(.label("Hair")).power == false)
        #expect(all.toGroupTargets().map(\.label) == ["STUDIO", "BACK"])
        #expect(all.toLocationTargets().map(\.selector) == [.locationID("l1"), .locationID("l2")])
        #expect(all.toLightTargets().map(\.label) == ["Key", "Fill", "Hair"])
        #expect(client.lightTargetWithSelector(.groupID("studio")).label == "STUDIO")
        #expect(client.lightTargetWithSelector(.id("b")).label == "Fill")
        #expect(try LightSelector("group_id:studio") == .groupID("studio"))
        #expect(throws: LightsError.badSelector("room:1")) { try LightSelector("room:1") }
    }

    @Test func anOperationChangesTheCacheAtOnceAndObserversHearIt() async throws {
        let (client, backend) = try await Self.client()
        let fill = client.lightTargetWithSelector(.label("Fill"))
        let heard = Heard()
        let observer = fill.addObserver { heard.append("\($0.power)") }
        backend.holdNextOperation()
        let operation = Task { try await fill.setPower(true) }
        // While the backend still holds the operation, the cache and the observer already have it.
        while !backend.isHolding { await Task.yield() }
        #expect(fill.power)
        #expect(heard.values == ["true"])
        backend.release()
        #expect(try await operation.value.map(\.status) == [.ok])
        #expect(heard.values == ["true"], "no second notification when the light took it")
        fill.removeObserver(observer)
    }

    @Test func aFailedOperationRevertsAndALightThatDidNotAnswerIsDisconnected() async throws {
        let (client, backend) = try await Self.client()
        let all = client.allLightTarget()
        let heard = Heard()
        let observer = all.addObserver { heard.append($0.lights.map { "\($0.brightness)" }.joined(separator: ",")) }
        backend.failNextOperation()
        await #expect(throws: ScriptedBackend.failure) { _ = try await all.setBrightness(0.1) }
        #expect(client.lights.map(\.brightness) == [1, 0.5, 0.2])
        #expect(heard.values == ["0.1,0.1,0.1", "1.0,0.5,0.2"])

        backend.setStatus(.timedOut, for: "b")
        let results = try await all.setBrightness(0.3)
        #expect(results.map(\.status) == [.ok, .timedOut, .ok])
        #expect(client.lights.map(\.brightness) == [0.3, 0.5, 0.3])
        #expect(client.lights.map(\.connected) == [true, false, true])
        all.removeObserver(observer)
    }

    @Test func aFetchThatFindsAChangeNotifiesAndAMissingLightIsDisconnected() async throws {
        let (client, backend) = try await Self.client()
        let heard = Heard()
        let hair = client.lightTargetWithSelector(.label("Hair"))
        let key = client.lightTargetWithSelector(.label("Key"))
        let hairObserver = hair.addObserver { heard.append("hair \($0.power)") }
        let keyObserver = key.addObserver { heard.append("key \($0.connected)") }
        var changed = Self.lights
        changed[2].power = false
        changed.remove(at: 0)
        backend.setLights(changed)
        try await client.fetch()
        #expect(Set(heard.values) == ["hair false", "key false"])
        #expect(client.lights.count == 3)
        #expect(key.connected == false)
        // Nothing changed: nobody hears anything.
        try await client.fetch()
        #expect(heard.values.count == 2)
        hair.removeObserver(hairObserver)
        key.removeObserver(keyObserver)
    }

    @Test func twoTargetsOverOneLightAreBothNotifiedAndRemovalStopsIt() async throws {
        let (client, _) = try await Self.client()
        let byLabel = client.lightTargetWithSelector(.label("Key"))
        let byGroup = client.lightTargetWithSelector(.groupID("studio"))
        let other = client.lightTargetWithSelector(.groupID("back"))
        let heard = Heard()
        let first = byLabel.addObserver { _ in heard.append("label") }
        let second = byGroup.addObserver { _ in heard.append("group") }
        let third = other.addObserver { _ in heard.append("back") }
        try await byLabel.setColor(LightColor(hue: 10, saturation: 1))
        #expect(heard.values.sorted() == ["group", "label"])
        #expect(byGroup.lights.first?.color.hue == 10, "one light, one state, whichever target reads it")
        byLabel.removeObserver(first)
        byGroup.removeObserver(second)
        other.removeObserver(third)
        try await byLabel.setColor(LightColor(hue: 20, saturation: 1))
        #expect(heard.values.count == 2)
    }

    @Test func changesAsASequence() async throws {
        let (client, _) = try await Self.client()
        let key = client.lightTargetWithSelector(.label("Key"))
        var changes = key.changes().makeAsyncIterator()
        try await key.setPower(false)
        #expect(await changes.next()?.power == false)
        try await key.setPower(true)
        #expect(await changes.next()?.power == true)
    }

    @Test func operationsReachTheBackendOneAtATimeInOrder() async throws {
        let (client, backend) = try await Self.client()
        let all = client.allLightTarget()
        backend.holdNextOperation()
        let first = Task { try await all.setBrightness(0.1) }
        while !backend.isHolding { await Task.yield() }
        let second = Task { try await all.setBrightness(0.2) }
        // The second changes the cache at once, then waits behind the first, which the backend holds.
        while abs(all.brightness - 0.2) >= 1e-9 { await Task.yield() }
        #expect(abs(all.brightness - 0.2) < 1e-9, "both changed the cache at once")
        #expect(backend.applied.count == 1)
        backend.release()
        _ = try await first.value
        _ = try await second.value
        #expect(backend.applied.map { $0.change.brightness } == [0.1, 0.2])
        #expect(backend.maxInFlight == 1, "never two operations in the backend at once")
    }

    @Test func restoreIsForSceneTargetsOnly() async throws {
        let scene = Scene(id: "s1", name: "Dark", states: [SceneState(selector: .groupID("studio"), power: false),
                                                           SceneState(selector: .label("Hair"), brightness: 0.9)])
        let (client, backend) = try await Self.client(scenes: [scene])
        await #expect(throws: LightsError.notASceneTarget(.label("Key"))) {
            _ = try await client.lightTargetWithSelector(.label("Key")).restoreState()
        }
        let target = client.lightTargetWithSelector(.sceneID("s1"))
        #expect(target.label == "Dark" && target.count == 3)
        let results = try await target.restoreState()
        #expect(results.map(\.id) == ["a", "b", "c"])
        #expect(client.lights.map(\.power) == [false, false, true])
        #expect(client.lights[2].brightness == 0.9)
        #expect(backend.applied.map(\.selector) == [.groupID("studio"), .label("Hair")])
        await #expect(throws: LightsError.badValue("brightness 2.0 is outside 0...1")) { _ = try await target.setBrightness(2) }
    }
}
