import StrobeLights
import StrobeBase
import Synchronization

/// A test double for a unit: lights it reports, results it gives (per light id), errors it
/// throws, and the order operations reached it.
final class ScriptedBackend: LightsBackend {
    /// What a failed operation throws.
    static let failure = LightsError.unreachable("scripted failure")

    private struct State {
        var lights: [Light]
        var scenes: [Scene] = []
        var statuses: [String: LightResult.Status] = [:]
        var failNext = false
        var applied: [(LightStateChange, LightSelector, [String])] = []
        var gate: CheckedContinuation<Void, Never>?
        var holdNext = false
        var inFlight = 0
        var maxInFlight = 0
    }

    private let state: Lock<State>

    init(lights: [Light], scenes: [Scene] = []) {
        state = Lock(State(lights: lights, scenes: scenes))
    }

    func setLights(_ lights: [Light]) { state.withLock { $0.lights = lights } }
    func setStatus(_ status: LightResult.Status, for id: String) { state.withLock { $0.statuses[id] = status } }
    func failNextOperation() { state.withLock { $0.failNext = true } }
    var applied: [(change: LightStateChange, selector: LightSelector, ids: [String])] { state.withLock { $0.applied } }

    /// The next apply waits, once it has been recorded, until `release()`.
    func holdNextOperation() { state.withLock { $0.holdNext = true } }
    func release() { state.withLock { s -> CheckedContinuation<Void, Never>? in defer { s.gate = nil }; return s.gate }?.resume() }
    var isHolding: Bool { state.withLock { $0.gate != nil } }
    /// The most operations the backend was in at once.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    func fetchLights() async throws(LightsError) -> [Light] { state.withLock { $0.lights } }
    func fetchScenes() async throws(LightsError) -> [Scene] { state.withLock { $0.scenes } }

    func apply(_ change: LightStateChange, selector: LightSelector, to lights: [Light]) async throws(LightsError) -> [LightResult] {
        let (fail, hold) = state.withLock { s -> (Bool, Bool) in
            s.applied.append((change, selector, lights.map(\.id)))
            s.inFlight += 1
            s.maxInFlight = max(s.maxInFlight, s.inFlight)
            defer { s.failNext = false; s.holdNext = false }
            return (s.failNext, s.holdNext)
        }
        if hold { await withCheckedContinuation { continuation in state.withLock { $0.gate = continuation } } }
        state.withLock { $0.inFlight -= 1 }
        if fail { throw Self.failure }
        return state.withLock { s in
            lights.map { LightResult(id: $0.id, label: $0.label, status: s.statuses[$0.id] ?? .ok) }
        }
    }

    func activate(_ scene: Scene, duration: Duration, lights: [Light]) async throws(LightsError) -> [LightResult] {
        try await activateLocally(scene, duration: duration, lights: lights)
    }

    func close() async {}
}

extension Light {
    static func sample(_ id: String, _ label: String, power: Bool = true, brightness: Double = 1, group: String = "g1",
                       location: String = "l1") -> Light {
        Light(id: id, label: label, power: power, brightness: brightness, color: .white(kelvin: 3500),
              group: LightGroup(id: group, name: group.uppercased()), location: LightLocation(id: location, name: location.uppercased()))
    }
}

/// What observers heard, in order.
final class Heard: Sendable {
    private let state = Lock<[String]>([])
    func append(_ value: String) { state.withLock { $0.append(value) } }
    var values: [String] { state.withLock { $0 } }
}
