/// Hue, saturation, brightness and kelvin as the LAN protocol carries them: hue 0...65535 for
/// 0...360 degrees, saturation and brightness 0...65535 for 0...1.
package struct LIFXHSBK: Sendable, Hashable {
    package var hue: UInt16
    package var saturation: UInt16
    package var brightness: UInt16
    package var kelvin: UInt16

    package init(hue: UInt16, saturation: UInt16, brightness: UInt16, kelvin: UInt16) {
        self.hue = hue
        self.saturation = saturation
        self.brightness = brightness
        self.kelvin = kelvin
    }

    package init(color: LightColor, brightness: Double) {
        let color = color.clamped
        hue = UInt16((color.hue / 360 * 65535).rounded())
        saturation = UInt16((color.saturation * 65535).rounded())
        self.brightness = UInt16((min(max(brightness, 0), 1) * 65535).rounded())
        kelvin = UInt16(color.kelvin)
    }

    /// Hue rounded to 0.01 degree, saturation and brightness to 1/10000, so a value survives
    /// the round trip through 16 bits as it was set.
    package var color: LightColor {
        LightColor(hue: (Double(hue) * 360 / 65535 * 100).rounded() / 100,
                   saturation: (Double(saturation) / 65535 * 10000).rounded() / 10000, kelvin: Int(kelvin))
    }

    package var level: Double { (Double(brightness) / 65535 * 10000).rounded() / 10000 }
}
