import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrobeHost
import StrobeLights

/// The LIFX HTTP API v1 (bearer token): list lights, set state, set states, scenes and scene
/// activation; 207 results per light; errors typed by status; a 429 waits for the rate-limit
/// reset (when it is near enough) and tries once more. The token goes in the Authorization
/// header and nowhere else: not in errors, not in descriptions.
public final class LIFXHTTPBackend: LightsBackend, CustomStringConvertible {
    /// `https://api.lifx.com/v1/`, the LIFX cloud.
    public static let defaultBaseURL = URL(string: "https://api.lifx.com/v1/")!

    /// Each request's deadline, how long a rate limit may be waited out, and fast mode.
    public struct Configuration: Sendable {
        /// Each request's deadline.
        public var timeout: Duration
        /// The longest wait for a rate-limit reset before giving up with `rateLimited`.
        public var longestRateLimitWait: Duration
        /// Fast mode: the API answers 202 at once with no per-light results.
        public var fast: Bool

        /// Defaults: 15 s per request, wait up to 10 s for a rate-limit reset, fast mode off.
        public init(timeout: Duration = .seconds(15), longestRateLimitWait: Duration = .seconds(10), fast: Bool = false) {
            self.timeout = timeout
            self.longestRateLimitWait = longestRateLimitWait
            self.fast = fast
        }
    }

    /// Where the API is, always ending in `/`; request paths such as `lights/all` follow it.
    public let baseURL: URL
    /// The settings the backend was made with.
    public let configuration: Configuration
    private let token: String

    /// A backend that calls the API at `baseURL` (a `/` is added if missing) with `token` as its
    /// bearer token; nothing is sent until the first operation.
    public init(token: String, baseURL: URL = LIFXHTTPBackend.defaultBaseURL, configuration: Configuration = Configuration()) {
        self.token = token
        self.baseURL = baseURL.absoluteString.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent("")
        self.configuration = configuration
    }

    /// The API's base URL; never the token.
    public var description: String { "LIFX HTTP API at \(baseURL.absoluteString)" }

    /// Nothing to release: requests go through the shared HTTP client.
    public func close() async {}

    // MARK: The API

    /// `GET /lights/all`. Throws `LightsError` for an error status, an answer of another shape,
    /// or no answer in time.
    public func fetchLights() async throws(LightsError) -> [Light] {
        try await filing(LightsError.init(filing:)) {
            let lights: [LIFXHTTPShapes.Light] = try await call("GET", "lights/all", expecting: [200])
            return lights.map { light in
                Light(id: light.id, label: light.label, power: light.power == "on", brightness: light.brightness,
                      color: LightColor(hue: light.color.hue, saturation: light.color.saturation, kelvin: light.color.kelvin),
                      group: light.group.map { LightGroup(id: $0.id, name: $0.name) },
                      location: light.location.map { LightLocation(id: $0.id, name: $0.name) }, connected: light.connected)
            }
        }
    }

    /// `GET /scenes`. Throws `LightsError.badResponse` for a scene state whose selector cannot
    /// be parsed, and the other `LightsError`s as `fetchLights` does.
    public func fetchScenes() async throws(LightsError) -> [Scene] {
        try await filing(LightsError.init(filing:)) {
            let scenes: [LIFXHTTPShapes.Scene] = try await call("GET", "scenes", expecting: [200])
            return try scenes.map { scene in
                Scene(id: scene.uuid, name: scene.name, states: try scene.states.map { state in
                    guard let selector = try? LightSelector(state.selector) else {
                        throw LightsError.badResponse("scene \(scene.uuid) has the selector '\(state.selector)'")
                    }
                    return SceneState(selector: selector, power: state.power.map { $0 == "on" }, brightness: state.brightness,
                                      color: state.color.map { LightColor(hue: $0.hue, saturation: $0.saturation, kelvin: $0.kelvin) })
                })
            }
        }
    }

    /// `PUT /lights/{selector}/state` with the change (the API addresses the lights itself, so
    /// `lights` is not used); the 207 results, or none in fast mode. Throws `LightsError`.
    public func apply(_ change: LightStateChange, selector: LightSelector, to lights: [Light]) async throws(LightsError) -> [LightResult] {
        try await filing(LightsError.init(filing:)) {
            var body = Self.body(change)
            body.fast = configuration.fast ? true : nil
            if configuration.fast {
                try await callWithoutResult("PUT", "lights/\(Self.path(selector))/state", body: body, expecting: [202, 207])
                return []
            }
            let results: LIFXHTTPShapes.Results = try await call("PUT", "lights/\(Self.path(selector))/state", body: body, expecting: [207])
            return try Self.results(results.results)
        }
    }

    /// `PUT /lights/states`: several selectors' states in one request; one list of per-light
    /// results per state, in order.
    public func setStates(_ states: [SceneState], duration: Duration = LightStateChange.defaultDuration) async throws(LightsError) -> [[LightResult]] {
        try await filing(LightsError.init(filing:)) {
            let bodies = states.map { state -> LIFXHTTPShapes.StateBody in
                var body = Self.body(state.change(duration: duration))
                body.selector = state.selector.description
                return body
            }
            let results: LIFXHTTPShapes.StatesResults = try await call("PUT", "lights/states", body: LIFXHTTPShapes.StatesBody(states: bodies),
                                                                       expecting: [207])
            return try results.results.map { try Self.results($0.results) }
        }
    }

    /// `PUT /scenes/scene_id:{uuid}/activate` with `duration` in seconds; the 207 results. Throws
    /// `LightsError` (`http` with status 404 for a scene the account does not have).
    public func activate(_ scene: Scene, duration: Duration, lights: [Light]) async throws(LightsError) -> [LightResult] {
        try await filing(LightsError.init(filing:)) {
            let results: LIFXHTTPShapes.Results = try await call(
                "PUT", "scenes/scene_id:\(Self.escape(scene.id))/activate", body: LIFXHTTPShapes.ActivateBody(duration: Self.seconds(duration)),
                expecting: [207])
            return try Self.results(results.results)
        }
    }

    // MARK: Shapes

    static func body(_ change: LightStateChange) -> LIFXHTTPShapes.StateBody {
        LIFXHTTPShapes.StateBody(
            power: change.power.map { $0 ? "on" : "off" },
            color: change.color.map { "hue:\(format($0.clamped.hue)) saturation:\(format($0.clamped.saturation)) kelvin:\($0.clamped.kelvin)" },
            brightness: change.brightness, duration: seconds(change.duration))
    }

    private static func format(_ value: Double) -> String { String(format: "%.4g", value) }

    static func seconds(_ duration: Duration) -> Double { Double(seconds: duration) }

    static func results(_ results: [LIFXHTTPShapes.Result]) throws -> [LightResult] {
        try results.map { result in
            guard let status = LightResult.Status(rawValue: result.status) else {
                throw LightsError.badResponse("light \(result.id) has the status '\(result.status)'")
            }
            return LightResult(id: result.id, label: result.label, status: status)
        }
    }

    private static func path(_ selector: LightSelector) -> String { escape(selector.description) }

    private static func escape(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    // MARK: Requests

    private func call<Answer: Decodable>(_ method: String, _ path: String, body: (some Encodable)? = Optional<Int>.none,
                                         expecting statuses: Set<Int>) async throws -> Answer {
        let data = try await send(method, path, body: body, expecting: statuses)
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw LightsError.badResponse("\(method) \(path): \(redacted(String(describing: error)))")
        }
    }

    private func callWithoutResult(_ method: String, _ path: String, body: some Encodable, expecting statuses: Set<Int>) async throws {
        _ = try await send(method, path, body: body, expecting: statuses)
    }

    /// One request, and once more after a 429 whose reset is near enough.
    private func send(_ method: String, _ path: String, body: (some Encodable)?, expecting statuses: Set<Int>) async throws -> Data {
        var request = HTTPClientRequest(url: baseURL.absoluteString + path)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        }
        var waitedForReset = false
        while true {
            let (status, headers, data) = try await execute(request)
            if statuses.contains(status) { return data }
            if status == 429, !waitedForReset, let wait = rateLimitWait(headers), wait <= configuration.longestRateLimitWait {
                waitedForReset = true
                try await Task.sleep(for: wait)
                continue
            }
            throw error(status: status, headers: headers, data: data)
        }
    }

    private func execute(_ request: HTTPClientRequest) async throws -> (Int, HTTPHeaders, Data) {
        do {
            let timeout = TimeAmount.nanoseconds(Int64(Double(seconds: configuration.timeout) * 1e9))
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            let buffer = try await response.body.collect(upTo: 8 << 20)
            return (Int(response.status.code), response.headers, Data(buffer.readableBytesView))
        } catch {
            throw LightsError.unreachable(redacted(String(describing: error)))
        }
    }

    /// Until X-RateLimit-Reset (epoch seconds); nil when the header is missing or unreadable.
    private func rateLimitWait(_ headers: HTTPHeaders) -> Duration? {
        guard let reset = headers.first(name: "X-RateLimit-Reset").flatMap(Double.init) else { return nil }
        return .milliseconds(Int64(max(0, reset - Date().timeIntervalSince1970) * 1000))
    }

    private func error(status: Int, headers: HTTPHeaders, data: Data) -> LightsError {
        let message = redacted((try? JSONDecoder().decode(LIFXHTTPShapes.ErrorBody.self, from: data))?.error
            ?? String(decoding: data.prefix(200), as: UTF8.self))
        guard status != 429 else {
            return .rateLimited(resetAt: headers.first(name: "X-RateLimit-Reset").flatMap { Double($0) }.map { Int($0) },
                                limit: headers.first(name: "X-RateLimit-Limit").flatMap { Int($0) })
        }
        return .http(status: status, message: message)
    }

    /// The token never leaves in text, even when a server echoes it.
    private func redacted(_ text: String) -> String {
        token.isEmpty ? text : text.replacingOccurrences(of: token, with: "[token]")
    }
}

extension Double {
    /// A duration in seconds.
    init(seconds duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = Double(seconds) + Double(attoseconds) / 1e18
    }
}

extension Client {
    /// A client of the LIFX HTTP API, as LIFXHTTPKit's `Client(accessToken:)`.
    public convenience init(accessToken: String, baseURL: URL = LIFXHTTPBackend.defaultBaseURL) {
        self.init(backend: LIFXHTTPBackend(token: accessToken, baseURL: baseURL))
    }
}
