/// A light's colour as the LIFX APIs give it: hue in degrees, saturation 0...1 and a white
/// point in kelvin (which a saturated colour ignores). Brightness is kept apart, on the light.
public struct LightColor: Sendable, Hashable, Codable {
    /// Hue in degrees, 0..<360 (`clamped` wraps other values into it).
    public var hue: Double
    /// Saturation, 0...1: 0 is white at `kelvin`, 1 the pure hue.
    public var saturation: Double
    /// White point in kelvin, 1500...9000 (`kelvinRange`).
    public var kelvin: Int

    /// A colour as given (not clamped); the white point defaults to 3500 K.
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
