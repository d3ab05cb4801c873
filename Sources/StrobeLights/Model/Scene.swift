/// A stored set of per-selector states, applied together by `restoreState`.
public struct Scene: Sendable, Hashable, Codable, Identifiable {
    /// The id `scene_id:UUID` selects: the HTTP API's scene UUID, or any text in a local file.
    public var id: String
    /// The scene's name, which a scene target takes as its label.
    public var name: String
    /// What the scene sets, applied in order (a light named twice ends in the later state).
    public var states: [SceneState]

    /// A scene, for instance to write to a `LocalScenes` file.
    public init(id: String, name: String, states: [SceneState]) {
        self.id = id
        self.name = name
        self.states = states
    }
}

/// One entry of a scene: the lights a selector names and what they become (nil: unchanged).
public struct SceneState: Sendable, Hashable, Codable {
    /// The lights this entry sets.
    public var selector: LightSelector
    /// On (true) or off; nil leaves power as it is.
    public var power: Bool?
    /// Brightness, 0...1; nil leaves it as it is.
    public var brightness: Double?
    /// Hue, saturation and kelvin; nil leaves the colour as it is.
    public var color: LightColor?

    /// An entry for `selector`; the fields not given leave the lights as they are.
    public init(selector: LightSelector, power: Bool? = nil, brightness: Double? = nil, color: LightColor? = nil) {
        self.selector = selector
        self.power = power
        self.brightness = brightness
        self.color = color
    }

    /// The entry as a change with a transition of `duration`.
    public func change(duration: Duration) -> LightStateChange {
        LightStateChange(power: power, color: color, brightness: brightness, duration: duration)
    }
}
