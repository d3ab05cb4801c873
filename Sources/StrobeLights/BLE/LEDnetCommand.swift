/// The commands of LEDnet ("Triones") Bluetooth lights, written without response to the write
/// characteristic. Byte layouts from `Captures/lgg6_zengge-ledstrip.btsnoop` and the open led-ble
/// project.
package enum LEDnetCommand: Sendable, Hashable {
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

    package var bytes: [UInt8] {
        switch self {
        case .queryState: [0xEF, 0x01, 0x77]
        case .power(let on): [0xCC, on ? 0x23 : 0x24, 0x33]
        case .color(let red, let green, let blue): [0x56, red, green, blue, 0x00, 0xF0, 0xAA]
        case .warmWhite(let level): [0x56, 0x00, 0x00, 0x00, level, 0x0F, 0xAA]
        case .effect(let pattern, let speed): [0xBB, pattern, speed, 0x44]
        }
    }

    /// The command a light was sent, or nil for bytes that are none (what a simulated light reads).
    package init?(bytes: [UInt8]) {
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
    package static func color(of light: Light) -> LEDnetCommand {
        guard light.color.saturation > 0 else { return .warmWhite(UInt8((min(max(light.brightness, 0), 1) * 255).rounded())) }
        let rgb = RGBColor(color: light.color, brightness: light.brightness)
        return .color(red: rgb.red, green: rgb.green, blue: rgb.blue)
    }
}

/// The 12-byte state a light notifies after `queryState`:
/// `66 TYPE POWER MODE SUBMODE SPEED R G B WW VERSION 99`.
package struct LEDnetState: Sendable, Hashable {
    package var deviceType: UInt8
    package var power: Bool
    package var mode: UInt8
    package var subMode: UInt8
    package var speed: UInt8
    package var red: UInt8
    package var green: UInt8
    package var blue: UInt8
    package var warmWhite: UInt8
    package var version: UInt8

    package init(deviceType: UInt8 = 0x15, power: Bool, mode: UInt8 = 0x4A, subMode: UInt8 = 0x41, speed: UInt8 = 0x02,
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

    package init(decoding bytes: [UInt8]) throws(LightsError) {
        guard bytes.count == 12 else { throw .malformedLEDnetState("\(bytes.count) bytes, not 12") }
        guard bytes[0] == 0x66, bytes[11] == 0x99 else {
            throw .malformedLEDnetState(String(format: "framed %02X...%02X, not 66...99", bytes[0], bytes[11]))
        }
        guard bytes[2] == 0x23 || bytes[2] == 0x24 else { throw .malformedLEDnetState(String(format: "power byte %02X", bytes[2])) }
        self.init(deviceType: bytes[1], power: bytes[2] == 0x23, mode: bytes[3], subMode: bytes[4], speed: bytes[5],
                  red: bytes[6], green: bytes[7], blue: bytes[8], warmWhite: bytes[9], version: bytes[10])
    }

    package var bytes: [UInt8] {
        [0x66, deviceType, power ? 0x23 : 0x24, mode, subMode, speed, red, green, blue, warmWhite, version, 0x99]
    }

    /// Brightness and colour in the lights' model: white when only the warm-white channel is lit.
    package var brightnessAndColor: (brightness: Double, color: LightColor) {
        if red == 0, green == 0, blue == 0 {
            return ((Double(warmWhite) / 255 * 10000).rounded() / 10000, .white(kelvin: 2700))
        }
        let (color, brightness) = RGBColor(red: red, green: green, blue: blue).color(kelvin: 2700)
        return (brightness, color)
    }
}
