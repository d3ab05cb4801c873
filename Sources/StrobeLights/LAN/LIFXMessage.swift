import StrobeHCI

/// The LAN protocol messages lights are driven with, by type number.
package enum LIFXMessage: Sendable, Hashable {
    case getService
    case stateService(service: UInt8, port: UInt32)
    case acknowledgement
    case getLabel
    case stateLabel(String)
    case getLocation
    case stateLocation(id: [UInt8], label: String, updatedAt: UInt64)
    case getGroup
    case stateGroup(id: [UInt8], label: String, updatedAt: UInt64)
    case get
    case lightState(LIFXHSBK, power: UInt16, label: String)
    case setColor(LIFXHSBK, durationMilliseconds: UInt32)
    case getPower
    case setPower(level: UInt16, durationMilliseconds: UInt32)
    case statePower(level: UInt16)
    /// A type this client does not use; kept so that it can be counted and skipped.
    case other(type: UInt16)

    package var type: UInt16 {
        switch self {
        case .getService: 2
        case .stateService: 3
        case .acknowledgement: 45
        case .getLabel: 23
        case .stateLabel: 25
        case .getLocation: 48
        case .stateLocation: 50
        case .getGroup: 51
        case .stateGroup: 53
        case .get: 101
        case .lightState: 107
        case .setColor: 102
        case .getPower: 116
        case .setPower: 117
        case .statePower: 118
        case .other(let type): type
        }
    }

    func encodePayload(into writer: inout ByteWriter) {
        switch self {
        case .getService, .acknowledgement, .getLabel, .getLocation, .getGroup, .get, .getPower, .other:
            break
        case .stateService(let service, let port):
            writer.write(service)
            writer.write(port)
        case .stateLabel(let label):
            writer.write(contentsOf: Self.field(label))
        case .stateLocation(let id, let label, let updatedAt), .stateGroup(let id, let label, let updatedAt):
            writer.write(contentsOf: (id + [UInt8](repeating: 0, count: 16)).prefix(16))
            writer.write(contentsOf: Self.field(label))
            writer.write(updatedAt)
        case .lightState(let hsbk, let power, let label):
            Self.write(hsbk, into: &writer)
            writer.write(UInt16(0))
            writer.write(power)
            writer.write(contentsOf: Self.field(label))
            writer.write(UInt64(0))
        case .setColor(let hsbk, let duration):
            writer.write(UInt8(0))
            Self.write(hsbk, into: &writer)
            writer.write(duration)
        case .setPower(let level, let duration):
            writer.write(level)
            writer.write(duration)
        case .statePower(let level):
            writer.write(level)
        }
    }

    /// Decodes the payload of a message of `type`; a payload shorter than the type needs, or a
    /// field outside its range, is an error that says which.
    init(type: UInt16, payload: inout ByteReader) throws(LightsError) {
        let size = payload.remaining
        func short(_ name: String, _ needed: Int) -> LightsError { .malformedLIFXMessage("\(name) payload of \(size) bytes, needs \(needed)") }
        switch type {
        case 2: self = .getService
        case 3:
            guard let service = payload.readUInt8(), let port = payload.readUInt32() else { throw short("StateService", 5) }
            guard (1...65535).contains(port) else { throw .malformedLIFXMessage("StateService port \(port)") }
            self = .stateService(service: service, port: port)
        case 45: self = .acknowledgement
        case 23: self = .getLabel
        case 25:
            guard let label = payload.readBytes(count: 32) else { throw short("StateLabel", 32) }
            self = .stateLabel(Self.string(label))
        case 48: self = .getLocation
        case 51: self = .getGroup
        case 50, 53:
            guard let id = payload.readBytes(count: 16), let label = payload.readBytes(count: 32), let updated = payload.readUInt64() else {
                throw short(type == 50 ? "StateLocation" : "StateGroup", 56)
            }
            self = type == 50 ? .stateLocation(id: id, label: Self.string(label), updatedAt: updated)
                : .stateGroup(id: id, label: Self.string(label), updatedAt: updated)
        case 101: self = .get
        case 107:
            guard let hsbk = Self.readHSBK(&payload), payload.readUInt16() != nil, let power = payload.readUInt16(),
                  let label = payload.readBytes(count: 32), payload.readUInt64() != nil
            else { throw short("LightState", 52) }
            self = .lightState(hsbk, power: power, label: Self.string(label))
        case 102:
            guard payload.readUInt8() != nil, let hsbk = Self.readHSBK(&payload), let duration = payload.readUInt32() else {
                throw short("SetColor", 13)
            }
            self = .setColor(hsbk, durationMilliseconds: duration)
        case 116: self = .getPower
        case 117:
            guard let level = payload.readUInt16(), let duration = payload.readUInt32() else { throw short("SetPower", 6) }
            self = .setPower(level: level, durationMilliseconds: duration)
        case 118:
            guard let level = payload.readUInt16() else { throw short("StatePower", 2) }
            self = .statePower(level: level)
        default:
            self = .other(type: type)
        }
        if case .lightState(let hsbk, _, _) = self, !LightColor.kelvinRange.contains(Int(hsbk.kelvin)) {
            throw .malformedLIFXMessage("LightState kelvin \(hsbk.kelvin) outside 1500...9000")
        }
    }

    private static func write(_ hsbk: LIFXHSBK, into writer: inout ByteWriter) {
        writer.write(hsbk.hue)
        writer.write(hsbk.saturation)
        writer.write(hsbk.brightness)
        writer.write(hsbk.kelvin)
    }

    private static func readHSBK(_ reader: inout ByteReader) -> LIFXHSBK? {
        guard let hue = reader.readUInt16(), let saturation = reader.readUInt16(), let brightness = reader.readUInt16(),
              let kelvin = reader.readUInt16() else { return nil }
        return LIFXHSBK(hue: hue, saturation: saturation, brightness: brightness, kelvin: kelvin)
    }

    /// A 32-byte, zero-padded UTF-8 field (longer labels are cut at a character boundary).
    static func field(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        while bytes.count > 32 || (bytes.count > 0 && String(validating: bytes, as: UTF8.self) == nil) { bytes.removeLast() }
        return bytes + [UInt8](repeating: 0, count: 32 - bytes.count)
    }

    /// Up to the first zero; bytes that are no UTF-8 become U+FFFD.
    static func string(_ field: [UInt8]) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
}
