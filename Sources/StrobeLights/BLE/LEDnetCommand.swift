/// The commands of LEDnet ("Triones") Bluetooth lights, written without response to the write
/// characteristic. Byte layouts from `Captures/lgg6_zengge-ledstrip.btsnoop` and the open led-ble
/// project.
public enum LEDnetCommand: Sendable, Hashable {
    /// `EF 01 77`: the light answers with its 12-byte state on the notify characteristic.
    case queryState
    /// `CC 23 33` on, `CC 24 33` off.
    case power(Bool)
    /// `56 R G B 00 F0 AA`.
    case color(red: UInt8, green: UInt8, blue: UInt8)
    /// `56 00 00 00 WW 0F AA`.
    case warmWhite(UInt8)
    /// `BB PATTERN SPEED 44`, patterns 0x25...0x38.
    case effect(pattern: UInt8, speed: UInt8)

    public var bytes: [UInt8] {
        switch self {
        case .queryState: [0xEF, 0x01, 0x77]
        case .power(let on): [0xCC, on ? 0x23 : 0x24, 0x33]
        case .color(let red, let green, let blue): [0x56, red, green, blue, 0x00, 0xF0, 0xAA]
        case .warmWhite(let level): [0x56, 0x00, 0x00, 0x00, level, 0x0F, 0xAA]
        case .effect(let pattern, let speed): [0xBB, pattern, speed, 0x44]
        }
    }

    /// The command a light was sent, or nil for bytes that are none (what a simulated light reads).
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 3 where bytes == [0xEF, 0x01, 0x77]: self = .queryState
        case 3 where bytes[0] == 0xCC && bytes[2] == 0x33 && (bytes[1] == 0x23 || bytes[1] == 0x24): self = .power(bytes[1] == 0x23)
        case 7 where bytes[0] == 0x56 && bytes[5] == 0xF0 && bytes[6] == 0xAA: self = .color(red: bytes[1], green: bytes[2], blue: bytes[3])
        case 7 where bytes[0] == 0x56 && bytes[5] == 0x0F && bytes[6] == 0xAA: self = .warmWhite(bytes[4])
        case 4 where bytes[0] == 0xBB && bytes[3] == 0x44 && (0x25...0x38).contains(bytes[1]): self = .effect(pattern: bytes[1], speed: bytes[2])
        default: return nil
        }
    }

    /// What sets `light`'s colour and brightness: RGB scaled by brightness for a colour, the
    /// warm-white channel for white (these lights have no colour temperature).
    public static func color(of light: Light) -> LEDnetCommand {
        let brightness = min(max(light.brightness, 0), 1)
        guard light.color.saturation > 0 else { return .warmWhite(UInt8((brightness * 255).rounded())) }
        let (r, g, b) = rgb(hue: light.color.hue, saturation: light.color.saturation, value: brightness)
        return .color(red: r, green: g, blue: b)
    }

    static func rgb(hue: Double, saturation: Double, value: Double) -> (UInt8, UInt8, UInt8) {
        let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
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
        return (byte(r), byte(g), byte(b))
    }
}

/// The 12-byte state a light notifies after `queryState`:
/// `66 TYPE POWER MODE SUBMODE SPEED R G B WW VERSION 99`.
public struct LEDnetState: Sendable, Hashable {
    public var deviceType: UInt8
    public var power: Bool
    public var mode: UInt8
    public var subMode: UInt8
    public var speed: UInt8
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var warmWhite: UInt8
    public var version: UInt8

    public init(deviceType: UInt8 = 0x15, power: Bool, mode: UInt8 = 0x4A, subMode: UInt8 = 0x41, speed: UInt8 = 0x02,
                red: UInt8, green: UInt8, blue: UInt8, warmWhite: UInt8, version: UInt8 = 0x0A) {
        self.deviceType = deviceType
        self.power = power
        self.mode = mode
        self.subMode = subMode
        self.speed = speed
        self.red = red
        self.green = green
        self.blue = blue
        self.warmWhite = warmWhite
        self.version = version
    }

    public init(decoding bytes: [UInt8]) throws(LEDnetError) {
        guard bytes.count == 12 else { throw .malformedState("\(bytes.count) bytes, not 12") }
        guard bytes[0] == 0x66, bytes[11] == 0x99 else {
            throw .malformedState(String(format: "framed %02X...%02X, not 66...99", bytes[0], bytes[11]))
        }
        guard bytes[2] == 0x23 || bytes[2] == 0x24 else { throw .malformedState(String(format: "power byte %02X", bytes[2])) }
        self.init(deviceType: bytes[1], power: bytes[2] == 0x23, mode: bytes[3], subMode: bytes[4], speed: bytes[5],
                  red: bytes[6], green: bytes[7], blue: bytes[8], warmWhite: bytes[9], version: bytes[10])
    }

    public var bytes: [UInt8] {
        [0x66, deviceType, power ? 0x23 : 0x24, mode, subMode, speed, red, green, blue, warmWhite, version, 0x99]
    }

    /// Brightness and colour in the lights' model: white when only the warm-white channel is lit.
    public var brightnessAndColor: (brightness: Double, color: LightColor) {
        if red == 0, green == 0, blue == 0 {
            return ((Double(warmWhite) / 255 * 10000).rounded() / 10000, .white(kelvin: 2700))
        }
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let maximum = max(r, g, b), minimum = min(r, g, b), delta = maximum - minimum
        var hue = 0.0
        if delta > 0 {
            if maximum == r { hue = 60 * ((g - b) / delta).truncatingRemainder(dividingBy: 6) }
            else if maximum == g { hue = 60 * ((b - r) / delta + 2) }
            else { hue = 60 * ((r - g) / delta + 4) }
        }
        if hue < 0 { hue += 360 }
        let saturation = maximum > 0 ? delta / maximum : 0
        return ((maximum * 10000).rounded() / 10000, LightColor(hue: (hue * 100).rounded() / 100,
                                                                 saturation: (saturation * 10000).rounded() / 10000, kelvin: 2700))
    }
}
