/// What an operation changes: any subset of power, colour and brightness (nil: unchanged), over
/// a transition of `duration`.
public struct LightStateChange: Sendable, Hashable {
    /// On (true) or off; nil leaves power as it is.
    public var power: Bool?
    /// Hue, saturation and kelvin to reach (clamped when applied); nil leaves the colour.
    public var color: LightColor?
    /// 0...1.
    public var brightness: Double?
    /// The transition: sent in whole ms on the LAN, in seconds to the HTTP API; Bluetooth lights
    /// change at once.
    public var duration: Duration

    /// LIFXHTTPKit's default transition.
    public static let defaultDuration: Duration = .milliseconds(500)

    /// A change of the fields given over `duration` (0.5 s unless given).
    public init(power: Bool? = nil, color: LightColor? = nil, brightness: Double? = nil, duration: Duration = defaultDuration) {
        self.power = power
        self.color = color
        self.brightness = brightness
        self.duration = duration
    }

    /// True when it changes neither power, colour nor brightness (a duration alone is no change).
    public var isEmpty: Bool { power == nil && color == nil && brightness == nil }

    /// `light` as it is once the change is made.
    public func applied(to light: Light) -> Light {
        var light = light
        if let power { light.power = power }
        if let color { light.color = color.clamped }
        if let brightness { light.brightness = min(max(brightness, 0), 1) }
        return light
    }

    /// Whole milliseconds, for the wire (negative durations are zero).
    public var milliseconds: UInt32 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return UInt32(clamping: Int64(ms.rounded()))
    }
}
