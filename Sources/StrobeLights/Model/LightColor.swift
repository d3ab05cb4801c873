/// A light's colour as the LIFX APIs give it: hue in degrees, saturation 0...1 and a white
/// point in kelvin (which a saturated colour ignores). Brightness is kept apart, on the light.
public struct LightColor: Sendable, Hashable, Codable {
    public var hue: Double
    public var saturation: Double
    public var kelvin: Int

    public init(hue: Double, saturation: Double, kelvin: Int = 3500) {
        self.hue = hue
        self.saturation = saturation
        self.kelvin = kelvin
    }

    /// White at a colour temperature.
    public static func white(kelvin: Int) -> LightColor { LightColor(hue: 0, saturation: 0, kelvin: kelvin) }

    /// The range LIFX lights accept.
    public static let kelvinRange = 1500...9000

    /// Clamped into what a light accepts (hue wrapped into 0..<360).
    public var clamped: LightColor {
        var hue = self.hue.truncatingRemainder(dividingBy: 360)
        if hue < 0 { hue += 360 }
        return LightColor(hue: hue.isFinite ? hue : 0, saturation: min(max(saturation.isFinite ? saturation : 0, 0), 1),
                          kelvin: min(max(kelvin, Self.kelvinRange.lowerBound), Self.kelvinRange.upperBound))
    }
}
