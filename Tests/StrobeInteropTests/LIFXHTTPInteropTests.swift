import Foundation
import StrobeLights
import StrobeLightsHTTP
import Testing

/// The HTTP backend against a local server that serves the LIFX HTTP API's documented shapes
/// (`Tests/Fixtures/LIFX/http_api.py`; the cloud API has no peer to run on loopback).
@Suite struct LIFXHTTPInteropTests {
    static let token = "c87bdf0a1a4e4f3e9d6bfcd3a85a9c11-test-token"
    static let studio = "1c8de82b81f445e7cfaafae49b259c71"
    static let scene = "0b1e6c52-5a0d-4c3b-9b53-3f3d2c8a1f00"

    func withServer(token: String = Self.token, configuration: LIFXHTTPBackend.Configuration = .init(),
                    _ body: (LIFXHTTPServer, Client, LIFXHTTPBackend) async throws -> Void) async throws {
        let server = try await LIFXHTTPServer(token: Self.token)
        let backend = LIFXHTTPBackend(token: token, baseURL: server.baseURL, configuration: configuration)
        let client = Client(backend: backend)
        do {
            try await body(server, client, backend)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func fetchReadsLightsAndScenesInTheDocumentedShapes() async throws {
        try await withServer { server, client, _ in
            try await client.fetch()
            #expect(client.lights.map(\.label) == ["Key", "Fill", "Hair"])
            #expect(client.lights.map(\.connected) == [true, true, false])
            #expect(client.lights.map(\.power) == [true, false, true])
            #expect(client.lights[1].color == LightColor(hue: 120, saturation: 1, kelvin: 3500))
            #expect(client.lights[1].brightness == 0.5)
            #expect(client.lights[0].group == LightGroup(id: Self.studio, name: "Studio"))
            #expect(client.scenes.map(\.name) == ["Dark set"])
            #expect(client.scenes.first?.states.first?.selector == .groupID(Self.studio))
            // Power is any connected light on; Hair is on but offline.
            #expect(client.lightTargetWithSelector(.label("Hair")).power == false)
            #expect(client.allLightTarget().power)
            let requests = try await server.requests()
            #expect(requests.map { $0["path"] as? String } == ["/v1/lights/all", "/v1/scenes"])
            // LIFXHTTPKit's own way in.
            let sdk = Client(accessToken: Self.token, baseURL: server.baseURL)
            try await sdk.fetch()
            #expect(sdk.lights.map(\.id) == client.lights.map(\.id))
            #expect(requests.allSatisfy { $0["authorized"] as? Bool == true })
        }
    }

    @Test func setStateSendsTheChangeAndMixedResultsRevertTheLightsThatDidNotTakeIt() async throws {
        try await withServer { server, client, _ in
            try await client.fetch()
            try await server.control("status?id=d3b2f2d97453&status=timed_out")
            let all = client.allLightTarget()
            let results = try await all.setState(color: LightColor(hue: 240, saturation: 0.5, kelvin: 4000), brightness: 0.75, power: true,
                                                 duration: .seconds(2))
            #expect(results.map(\.status) == [.ok, .timedOut, .offline])
            let body = try #require(try await server.requests().last?["body"] as? [String: Any])
            #expect(body["power"] as? String == "on")
            #expect(body["brightness"] as? Double == 0.75)
            #expect(body["duration"] as? Double == 2)
            #expect(body["color"] as? String == "hue:240 saturation:0.5 kelvin:4000")
            // Key took it; Fill (timed out) went back to off and is disconnected; Hair stays as it was.
            #expect(client.lights[0].brightness == 0.75 && client.lights[0].color.hue == 240)
            #expect(client.lights[1].power == false && client.lights[1].brightness == 0.5 && !client.lights[1].connected)
            #expect(client.lights[2].brightness == 0.25 && !client.lights[2].connected)
            // The server's own state agrees for the light that answered.
            try await client.fetch()
            #expect(client.lights[0].color == LightColor(hue: 240, saturation: 0.5, kelvin: 4000))
        }
    }

    @Test func setStatesAndScenesAnswerPerLight() async throws {
        try await withServer { server, client, backend in
            try await client.fetch()
            let results = try await backend.setStates([
                SceneState(selector: .label("Key"), power: false),
                SceneState(selector: .groupID(Self.studio), brightness: 0.3),
            ])
            #expect(results.map { $0.map(\.id) } == [["d3b2f2d97452"], ["d3b2f2d97452", "d3b2f2d97453"]])
            let restored = try await client.lightTargetWithSelector(.sceneID(Self.scene)).restoreState(duration: .seconds(1))
            #expect(restored.map(\.status) == [.ok, .ok, .offline])
            #expect(try await server.requests().last?["path"] as? String == "/v1/scenes/scene_id:\(Self.scene)/activate")
            #expect(client.lights[0].power == false && client.lights[1].power == false)
        }
    }

    @Test func fastModeIsAcceptedWithoutResults() async throws {
        try await withServer(configuration: .init(fast: true)) { server, client, _ in
            try await client.fetch()
            let results = try await client.lightTargetWithSelector(.label("Fill")).setPower(true)
            #expect(results.isEmpty)
            #expect(client.lights[1].power)
            #expect((try await server.requests().last?["body"] as? [String: Any])?["fast"] as? Bool == true)
        }
    }

    @Test func errorsAreTypedByStatus() async throws {
        try await withServer(token: "not-the-token") { _, client, _ in
            await #expect(throws: LightsError.http(status: 401, message: "Invalid token")) { try await client.fetch() }
        }
        try await withServer(token: "read-only-token") { _, client, _ in
            try await client.fetch()
            await #expect(throws: LightsError.http(status: 403, message: "This token may only read")) {
                _ = try await client.allLightTarget().setPower(false)
            }
            #expect(client.lights.map(\.power) == [true, false, true], "reverted after the refusal")
        }
        try await withServer { server, client, backend in
            await #expect(throws: LightsError.http(status: 404, message: "Could not find label:Nobody.")) {
                _ = try await backend.apply(LightStateChange(power: true), selector: .label("Nobody"), to: [])
            }
            await #expect(throws: LightsError.http(status: 422, message: "brightness must be between 0.0 and 1.0")) {
                _ = try await backend.apply(LightStateChange(brightness: 2), selector: .all, to: [])
            }
            try await server.control("fail?status=400&count=1")
            await #expect(throws: LightsError.http(status: 400, message: "Server error")) { try await client.fetch() }
            try await server.control("fail?status=503&count=1")
            await #expect(throws: LightsError.http(status: 503, message: "Server error")) { try await client.fetch() }
        }
    }

    @Test func aRateLimitWaitsForItsResetOnceThenGivesUp() async throws {
        try await withServer { server, client, _ in
            // Limited once, resetting within a second or two: the request goes through after it.
            try await server.control("ratelimit?count=1&reset_in=1")
            try await client.fetch()
            #expect(client.lights.count == 3)
            let paths = try await server.requests().compactMap { $0["path"] as? String }
            #expect(paths == ["/v1/lights/all", "/v1/lights/all", "/v1/scenes"])
            // Still limited after the wait: the typed error, with the reset it was given.
            try await server.control("ratelimit?count=2&reset_in=1")
            do {
                try await client.fetch()
                Issue.record("a second 429 did not fail")
            } catch let LightsError.rateLimited(resetAt, limit) {
                #expect(resetAt.map { abs(Double($0) - Date().timeIntervalSince1970) < 10 } == true)
                #expect(limit == 120)
            }
            // A reset too far away is not waited for.
            try await server.control("ratelimit?count=1&reset_in=3600")
            let started = ContinuousClock.now
            await #expect(throws: LightsError.self) { try await client.fetch() }
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test func theTokenNeverAppearsInAnError() async throws {
        try await withServer(configuration: .init(timeout: .seconds(2))) { server, client, backend in
            try await server.control("echo-token")
            var texts: [String] = []
            do { _ = try await backend.apply(LightStateChange(power: true), selector: .label("Nobody"), to: []) } catch { texts.append("\(error)") }
            do { _ = try await backend.apply(LightStateChange(brightness: 5), selector: .all, to: []) } catch { texts.append("\(error)") }
            try await server.control("fail?status=500&count=1")
            do { try await client.fetch() } catch { texts.append("\(error)"); texts.append(String(reflecting: error)) }
            await server.stop()
            do { try await client.fetch() } catch { texts.append("\(error)") }
            #expect(texts.count == 5)
            #expect(texts.allSatisfy { !$0.contains(Self.token) }, "\(texts)")
            #expect(texts[0].contains("[token]"), "the server's echo was cut out: \(texts[0])")
            #expect(!"\(backend)".contains(Self.token))
        }
    }
}
