import Foundation
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// Lights in the model of LIFXHTTPKit's `Client`: fetches lights and scenes from a backend and
/// holds the state every `LightTarget` reads, so two targets over one light see one light.
///
/// Operations are optimistic: the cached state changes and observers hear it at once; then the
/// backend is asked, one operation at a time in the order they were made; a light that did not
/// answer is reverted and marked disconnected, and an operation that failed as a whole reverts
/// every light it changed (unless a later operation changed it since).
public final class Client: Sendable {
    /// Where lights are fetched from and changes are sent: the LAN protocol, the HTTP API or Bluetooth lights.
    public let backend: any LightsBackend
    private let state = Lock(State())
    private let gate = AsyncSerialGate()

    private struct State {
        var lights: [Light] = []
        var scenes: [Scene] = []
        var observers: [UInt64: Observer] = [:]
        var nextObserver: UInt64 = 0
    }

    private struct Observer {
        var selector: LightSelector
        var handler: @Sendable (LightTarget) -> Void
    }

    /// A client over `backend`; it knows no lights or scenes until the first `fetch()`.
    public init(backend: any LightsBackend) {
        self.backend = backend
    }

    /// The lights as last known, in the order the backend reported them.
    public var lights: [Light] { state.withLock { $0.lights } }
    /// The scenes as last fetched: the HTTP API's own, or the host's `LocalScenes` for LAN and
    /// Bluetooth lights.
    public var scenes: [Scene] { state.withLock { $0.scenes } }

    /// Fetches lights and scenes; observers of every light that changed (or appeared, or went
    /// away) hear it. A light that is no longer reported stays, disconnected.
    public func fetch() async throws(LightsError) {
        try await filing(LightsError.init(filing:)) {
            let (fetched, scenes) = try await gate.run { [backend] in
                (try await backend.fetchLights(), try await backend.fetchScenes())
            }
            let changed = state.withLock { s -> [(before: Light?, after: Light?)] in
                var changes: [(before: Light?, after: Light?)] = []
                var merged: [Light] = []
                for light in fetched {
                    let before = s.lights.first { $0.id == light.id }
                    var light = light
                    if let before, light.touchedAt == nil { light.touchedAt = before.touchedAt }
                    if before.map({ !$0.sameState(as: light) }) ?? true { changes.append((before, light)) }
                    merged.append(light)
                }
                for light in s.lights where !fetched.contains(where: { $0.id == light.id }) {
                    var gone = light
                    gone.connected = false
                    if light.connected { changes.append((light, gone)) }
                    merged.append(gone)
                }
                s.lights = merged
                s.scenes = scenes
                return changes
            }
            notify(changed)
        }
    }

    /// A target over every light (selector `all`, label "All").
    public func allLightTarget() -> LightTarget { LightTarget(client: self, selector: .all) }

    /// A target over the lights `selector` addresses; which lights those are is decided at each
    /// read, so the target follows later fetches.
    public func lightTargetWithSelector(_ selector: LightSelector) -> LightTarget { LightTarget(client: self, selector: selector) }

    /// Closes the backend (`LightsBackend.close()`): its UDP socket or Bluetooth connections.
    public func close() async throws(LightsError) { try await backend.close() }

    // MARK: For targets

    func lights(matching selector: LightSelector) -> [Light] {
        state.withLock { s in s.lights.filter { selector.matches($0, scenes: s.scenes) } }
    }

    func scene(id: String) -> Scene? { state.withLock { s in s.scenes.first { $0.id == id } } }

    func perform(_ change: LightStateChange, on selector: LightSelector) async throws -> [LightResult] {
        let (before, after) = changeOptimistically { lights, scenes in
            lights.indices.filter { selector.matches(lights[$0], scenes: scenes) }.map { ($0, change) }
        }
        guard !after.isEmpty else { throw LightsError.noLights(selector) }
        return try await settle(before: before, after: after) { [backend] in
            try await backend.apply(change, selector: selector, to: after)
        }
    }

    func restore(_ scene: Scene, duration: Duration) async throws -> [LightResult] {
        let (before, after) = changeOptimistically { lights, _ in
            scene.states.flatMap { state in
                lights.indices.filter { state.selector.matches(lights[$0]) }.map { ($0, state.change(duration: duration)) }
            }
        }
        return try await settle(before: before, after: after) { [backend] in
            let all = self.lights
            return try await backend.activate(scene, duration: duration, lights: all)
        }
    }

    /// Makes the changes `select` picks (index into the lights, change) in the cache; returns the
    /// lights before and after, and tells observers.
    private func changeOptimistically(
        _ select: ([Light], [Scene]) -> [(Int, LightStateChange)]
    ) -> (before: [Light], after: [Light]) {
        let now = Date()
        let (before, after) = state.withLock { s -> ([Light], [Light]) in
            var before: [Int: Light] = [:]
            var order: [Int] = []
            for (index, change) in select(s.lights, s.scenes) {
                if before[index] == nil {
                    before[index] = s.lights[index]
                    order.append(index)
                }
                s.lights[index] = change.applied(to: s.lights[index])
                s.lights[index].touchedAt = now
            }
            return (order.map { before[$0]! }, order.map { s.lights[$0] })
        }
        notify(zip(before, after).map { ($0, $1) })
        return (before, after)
    }

    /// Runs the backend's part in turn, then reverts what did not take.
    private func settle(before: [Light], after: [Light],
                        _ operation: @escaping @Sendable () async throws -> [LightResult]) async throws -> [LightResult] {
        let results: [LightResult]
        do {
            results = try await gate.run(operation)
        } catch {
            revert(before: before, after: after, failed: Set(after.map(\.id)), disconnect: [])
            throw error
        }
        let failed = Set(results.filter { $0.status != .ok }.map(\.id))
        revert(before: before, after: after, failed: failed, disconnect: failed)
        let answered = Set(results.filter { $0.status == .ok }.map(\.id))
        markConnected(answered)
        return results
    }

    /// Puts the lights in `failed` back as they were, unless changed since; marks `disconnect`
    /// disconnected.
    private func revert(before: [Light], after: [Light], failed: Set<String>, disconnect: Set<String>) {
        let changes = state.withLock { s -> [(before: Light?, after: Light?)] in
            var changes: [(before: Light?, after: Light?)] = []
            for (old, new) in zip(before, after) where failed.contains(old.id) {
                guard let index = s.lights.firstIndex(where: { $0.id == old.id }) else { continue }
                let current = s.lights[index]
                var reverted = current.sameState(as: new) ? old : current
                if disconnect.contains(old.id) { reverted.connected = false }
                guard reverted != current else { continue }
                s.lights[index] = reverted
                changes.append((current, reverted))
            }
            return changes
        }
        notify(changes)
    }

    private func markConnected(_ ids: Set<String>) {
        let changes = state.withLock { s -> [(before: Light?, after: Light?)] in
            var changes: [(before: Light?, after: Light?)] = []
            for index in s.lights.indices where ids.contains(s.lights[index].id) && !s.lights[index].connected {
                let before = s.lights[index]
                s.lights[index].connected = true
                changes.append((before, s.lights[index]))
            }
            return changes
        }
        notify(changes)
    }

    // MARK: Observers

    func addObserver(_ selector: LightSelector, _ handler: @escaping @Sendable (LightTarget) -> Void) -> LightTargetObserver {
        let id = state.withLock { s -> UInt64 in
            s.nextObserver += 1
            s.observers[s.nextObserver] = Observer(selector: selector, handler: handler)
            return s.nextObserver
        }
        return LightTargetObserver(id: id, selector: selector)
    }

    func removeObserver(_ observer: LightTargetObserver) {
        _ = state.withLock { $0.observers.removeValue(forKey: observer.id) }
    }

    /// Tells each observer whose target held a changed light, before or after, once; outside
    /// the lock, so a handler may read the client.
    private func notify(_ changes: [(before: Light?, after: Light?)]) {
        guard !changes.isEmpty else { return }
        let (observers, scenes) = state.withLock { s in (Array(s.observers.values), s.scenes) }
        for observer in observers {
            let touched = changes.contains { change in
                [change.before, change.after].contains { light in light.map { observer.selector.matches($0, scenes: scenes) } ?? false }
            }
            if touched { observer.handler(LightTarget(client: self, selector: observer.selector)) }
        }
    }
}

/// What `addObserver` returns; give it to `removeObserver` to stop hearing changes.
public struct LightTargetObserver: Sendable, Hashable {
    let id: UInt64
    /// The selector of the target the observer was added on.
    public let selector: LightSelector
}
