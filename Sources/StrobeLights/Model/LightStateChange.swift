/// What an operation changes: any subset of power, colour and brightness (nil: unchanged), over
/// a transition of `duration`.
public struct LightStateChange: Sendable, Hashable {
    public var power: Bool?
    public var color: LightColor?
    /// 0...1.
    public var brightness: Double?
    public var duration: Duration

    /// LIFXHTTPKit's default transition.
    public static let defaultDuration: Duration = .milliseconds(500)

    public init(power: Bool? = nil, color: LightColor? = nil, brightness: Double? = nil, duration: Duration = defaultDuration) {
        self.power = power
        self.color = color
        self.brightness = brightness
        self.duration = duration
    }

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
