/// A colour as red, green and blue bytes: how LEDnet lights and `#RRGGBB` text give it.
/// Converts to and from hue, saturation and brightness (the model's value, HSV's V).
public struct RGBColor: Sendable, Hashable {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8

    /// A colour from its three bytes.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `color` at `brightness` (kelvin has no part in RGB).
    public init(color: LightColor, brightness: Double) {
        let value = min(max(brightness, 0), 1), saturation = min(max(color.saturation, 0), 1)
        let h = color.clamped.hue / 60
        let c = value * saturation
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(h) {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        let m = value - c
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v + m, 0), 1) * 255).rounded()) }
        self.init(red: byte(r), green: byte(g), blue: byte(b))
    }

    /// `#RRGGBB`.
    public init?(hex text: String) {
        guard text.hasPrefix("#"), text.count == 7, let rgb = UInt32(text.dropFirst(), radix: 16) else { return nil }
        self.init(red: UInt8(rgb >> 16 & 0xFF), green: UInt8(rgb >> 8 & 0xFF), blue: UInt8(rgb & 0xFF))
    }

    /// Hue to 0.01 degree, saturation and brightness to 1/10000; white at `kelvin`.
    public func color(kelvin: Int = 3500) -> (color: LightColor, brightness: Double) {
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let maximum = max(r, g, b), delta = maximum - min(r, g, b)
        var hue = 0.0
        if delta > 0 {
            if maximum == r { hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6) }
            else if maximum == g { hue = 60 * ((b - r) / delta + 2) }
            else { hue = 60 * ((r - g) / delta + 4) }
        }
        if hue < 0 { hue += 360 }
        let saturation = maximum > 0 ? delta / maximum : 0
        return (LightColor(hue: (hue * 100).rounded() / 100, saturation: (saturation * 10000).rounded() / 10000, kelvin: kelvin),
                (maximum * 10000).rounded() / 10000)
    }
}
