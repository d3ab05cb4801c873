/// A way of reaching lights: the LIFX LAN protocol, the LIFX HTTP API, or Bluetooth LE lights.
/// The `Client` holds the state; a backend only fetches and applies.
public protocol LightsBackend: Sendable {
    /// Every light the backend reaches, as it reports them now.
    func fetchLights() async throws(LightsError) -> [Light]
    /// The scenes the backend knows: the HTTP API's own, or those of the host's `LocalScenes` file
    /// (none without one).
    func fetchScenes() async throws(LightsError) -> [Scene]
    /// Makes `change` on `lights` (each already in the state it should reach), which `selector`
    /// addressed; one result per light.
    func apply(_ change: LightStateChange, selector: LightSelector, to lights: [Light]) async throws(LightsError) -> [LightResult]
    /// Applies a scene's states; `lights` are every known light.
    func activate(_ scene: Scene, duration: Duration, lights: [Light]) async throws(LightsError) -> [LightResult]
    /// Releases sockets, links and connections: all of them, even when one fails; the first
    /// failure is thrown after.
    func close() async throws(LightsError)
}

extension LightsBackend {
    /// Runs `operation` for every light at once; the results in the lights' order.
    public func eachLight(_ lights: [Light], _ operation: @escaping @Sendable (Light) async -> LightResult) async -> [LightResult] {
        await withTaskGroup(of: (Int, LightResult).self) { group in
            for (index, light) in lights.enumerated() {
                group.addTask { (index, await operation(light)) }
            }
            var results = [LightResult?](repeating: nil, count: lights.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// Scenes kept by the host (LAN and Bluetooth lights have none of their own): each state
    /// applied in turn to the lights its selector names; a light named twice answers once, last.
    public func activateLocally(_ scene: Scene, duration: Duration, lights: [Light]) async throws(LightsError) -> [LightResult] {
        var results: [String: LightResult] = [:]
        var order: [String] = []
        for state in scene.states {
            let change = state.change(duration: duration)
            let targets = lights.filter { state.selector.matches($0) }.map(change.applied(to:))
            guard !targets.isEmpty, !change.isEmpty else { continue }
            for result in try await apply(change, selector: state.selector, to: targets) {
                if results[result.id] == nil { order.append(result.id) }
                results[result.id] = result
            }
        }
        return order.compactMap { results[$0] }
    }
}
