/// A stored set of per-selector states, applied together by `restoreState`.
public struct Scene: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var name: String
    public var states: [SceneState]

    public init(id: String, name: String, states: [SceneState]) {
        self.id = id
        self.name = name
        self.states = states
    }
}

/// One entry of a scene: the lights a selector names and what they become (nil: unchanged).
public struct SceneState: Sendable, Hashable, Codable {
    public var selector: LightSelector
    public var power: Bool?
    public var brightness: Double?
    public var color: LightColor?

    public init(selector: LightSelector, power: Bool? = nil, brightness: Double? = nil, color: LightColor? = nil) {
        self.selector = selector
        self.power = power
        self.brightness = brightness
        self.color = color
    }

    public func change(duration: Duration) -> LightStateChange {
        LightStateChange(power: power, color: color, brightness: brightness, duration: duration)
    }
}
