import Foundation
import StrobeHost

/// Lights addressed by a selector, as LIFXHTTPKit's `LightTarget`: everything is a collection
/// (one light is a collection of one). Reads come from the client's shared state; operations
/// change it optimistically and return one result per light.
public struct LightTarget: Sendable, CustomStringConvertible {
    /// The client whose shared state the target reads and changes.
    public let client: Client
    /// Which lights the target addresses.
    public let selector: LightSelector

    /// The lights the selector matches now, from the client's cache (nothing is asked of the
    /// network).
    public var lights: [Light] { client.lights(matching: selector) }
    /// How many lights the selector matches now, connected or not.
    public var count: Int { lights.count }

    /// True if any connected light is on.
    public var power: Bool { lights.contains { $0.connected && $0.power } }
    /// True if any light is connected.
    public var connected: Bool { lights.contains(where: \.connected) }

    /// The average over connected lights (0 when none is).
    public var brightness: Double {
        let on = lights.filter(\.connected)
        guard !on.isEmpty else { return 0 }
        return on.map(\.brightness).reduce(0, +) / Double(on.count)
    }

    /// The average colour over connected lights (white 3500 K when none is).
    public var color: LightColor {
        let on = lights.filter(\.connected)
        guard !on.isEmpty else { return .white(kelvin: 3500) }
        let n = Double(on.count)
        return LightColor(hue: on.map(\.color.hue).reduce(0, +) / n, saturation: on.map(\.color.saturation).reduce(0, +) / n,
                          kelvin: Int((Double(on.map(\.color.kelvin).reduce(0, +)) / n).rounded()))
    }

    /// "All" for every light; a light's, group's, location's or scene's own name; otherwise the
    /// selector's value.
    public var label: String {
        switch selector {
        case .all: return "All"
        case .id(let id): return lights.first?.label ?? id
        case .groupID(let id): return lights.first?.group?.name ?? id
        case .locationID(let id): return lights.first?.location?.name ?? id
        case .sceneID(let id): return client.scene(id: id)?.name ?? id
        case .label(let label): return label
        }
    }

    /// When any of its lights was last touched.
    public var touchedAt: Date? { lights.compactMap(\.touchedAt).max() }

    /// The label and the selector, e.g. `All (all)`.
    public var description: String { "\(label) (\(selector))" }

    // MARK: Slicing

    /// One `id:ID` target per light, in the client's order.
    public func toLightTargets() -> [LightTarget] { lights.map { client.lightTargetWithSelector(.id($0.id)) } }

    /// One `group_id:ID` target per group among these lights, in the order they first appear;
    /// lights without a group have none.
    public func toGroupTargets() -> [LightTarget] {
        unique(lights.compactMap(\.group?.id)).map { client.lightTargetWithSelector(.groupID($0)) }
    }

    /// One `location_id:ID` target per location among these lights, in the order they first
    /// appear; lights without a location have none.
    public func toLocationTargets() -> [LightTarget] {
        unique(lights.compactMap(\.location?.id)).map { client.lightTargetWithSelector(.locationID($0)) }
    }

    private func unique(_ ids: [String]) -> [String] {
        var seen = Set<String>()
        return ids.filter { seen.insert($0).inserted }
    }

    // MARK: Operations

    /// Turns the lights on or off over `duration` (default 0.5 s); one result per light. Throws
    /// `LightsError.noLights` when no light matches, or the backend's error (the change is then
    /// reverted).
    @discardableResult
    public func setPower(_ on: Bool, duration: Duration = LightStateChange.defaultDuration) async throws(LightsError) -> [LightResult] {
        try await setState(LightStateChange(power: on, duration: duration))
    }

    /// Sets brightness, 0...1, over `duration` (default 0.5 s); one result per light. Throws
    /// `LightsError.badValue` outside 0...1, `LightsError.noLights` when no light matches, or the
    /// backend's error (the change is then reverted).
    @discardableResult
    public func setBrightness(_ brightness: Double, duration: Duration = LightStateChange.defaultDuration) async throws(LightsError) -> [LightResult] {
        try await setState(LightStateChange(brightness: brightness, duration: duration))
    }

    /// Sets hue, saturation and kelvin over `duration` (default 0.5 s); one result per light.
    /// Throws `LightsError.badValue` for saturation outside 0...1 or kelvin outside 1500...9000,
    /// `LightsError.noLights` when no light matches, or the backend's error (then reverted).
    @discardableResult
    public func setColor(_ color: LightColor, duration: Duration = LightStateChange.defaultDuration) async throws(LightsError) -> [LightResult] {
        try await setState(LightStateChange(color: color, duration: duration))
    }

    /// Any subset at once (nil: unchanged).
    @discardableResult
    public func setState(color: LightColor? = nil, brightness: Double? = nil, power: Bool? = nil,
                         duration: Duration = LightStateChange.defaultDuration) async throws(LightsError) -> [LightResult] {
        try await setState(LightStateChange(power: power, color: color, brightness: brightness, duration: duration))
    }

    /// Makes `change` on these lights: in the cache and to observers at once, then through the
    /// backend in turn; one result per light (none in the HTTP API's fast mode). Throws as
    /// `setColor` and `setBrightness` do.
    @discardableResult
    public func setState(_ change: LightStateChange) async throws(LightsError) -> [LightResult] {
        try await filing(LightsError.init(filing:)) {
            if let brightness = change.brightness, !(0...1).contains(brightness) {
                throw LightsError.badValue("brightness \(brightness) is outside 0...1")
            }
            if let kelvin = change.color?.kelvin, !LightColor.kelvinRange.contains(kelvin) {
                throw LightsError.badValue("kelvin \(kelvin) is outside 1500...9000")
            }
            if let color = change.color, !(0...1).contains(color.saturation) {
                throw LightsError.badValue("saturation \(color.saturation) is outside 0...1")
            }
            return try await client.perform(change, on: selector)
        }
    }

    /// Applies the scene this target stands for; an error for any other target.
    @discardableResult
    public func restoreState(duration: Duration = LightStateChange.defaultDuration) async throws(LightsError) -> [LightResult] {
        try await filing(LightsError.init(filing:)) {
            guard case .sceneID(let id) = selector else { throw LightsError.notASceneTarget(selector) }
            guard let scene = client.scene(id: id) else { throw LightsError.noSuchScene(id) }
            return try await client.restore(scene, duration: duration)
        }
    }

    // MARK: Observing

    /// `handler` runs on every change to these lights, local or from the network, until removed.
    public func addObserver(_ handler: @escaping @Sendable (LightTarget) -> Void) -> LightTargetObserver {
        client.addObserver(selector, handler)
    }

    /// Stops the handler that `addObserver` returned `observer` for (on any target of the client).
    public func removeObserver(_ observer: LightTargetObserver) { client.removeObserver(observer) }

    /// The same changes as a sequence; the observer goes when iteration ends.
    public func changes() -> AsyncStream<LightTarget> {
        let (stream, continuation) = AsyncStream.makeStream(of: LightTarget.self, bufferingPolicy: .bufferingNewest(64))
        let observer = addObserver { continuation.yield($0) }
        let client = self.client
        continuation.onTermination = { _ in client.removeObserver(observer) }
        return stream
    }
}
