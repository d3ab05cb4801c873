/// An AD type (Assigned Numbers, Common Data Types; Core Specification Supplement Part A).
public struct AdvertisingDataType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let flags = Self(rawValue: 0x01)
    public static let incompleteServiceUUIDs16 = Self(rawValue: 0x02)
    public static let completeServiceUUIDs16 = Self(rawValue: 0x03)
    public static let incompleteServiceUUIDs32 = Self(rawValue: 0x04)
    public static let completeServiceUUIDs32 = Self(rawValue: 0x05)
    public static let incompleteServiceUUIDs128 = Self(rawValue: 0x06)
    public static let completeServiceUUIDs128 = Self(rawValue: 0x07)
    public static let shortenedLocalName = Self(rawValue: 0x08)
    public static let completeLocalName = Self(rawValue: 0x09)
    public static let txPowerLevel = Self(rawValue: 0x0A)
    public static let serviceData16 = Self(rawValue: 0x16)
    public static let appearance = Self(rawValue: 0x19)
    public static let serviceData32 = Self(rawValue: 0x20)
    public static let serviceData128 = Self(rawValue: 0x21)
    public static let manufacturerSpecificData = Self(rawValue: 0xFF)

    public var description: String {
        let name: String? = switch rawValue {
        case 0x01: "Flags"
        case 0x02: "Incomplete List of 16-bit Service UUIDs"
        case 0x03: "Complete List of 16-bit Service UUIDs"
        case 0x04: "Incomplete List of 32-bit Service UUIDs"
        case 0x05: "Complete List of 32-bit Service UUIDs"
        case 0x06: "Incomplete List of 128-bit Service UUIDs"
        case 0x07: "Complete List of 128-bit Service UUIDs"
        case 0x08: "Shortened Local Name"
        case 0x09: "Complete Local Name"
        case 0x0A: "Tx Power Level"
        case 0x16: "Service Data - 16-bit UUID"
        case 0x19: "Appearance"
        case 0x20: "Service Data - 32-bit UUID"
        case 0x21: "Service Data - 128-bit UUID"
        case 0xFF: "Manufacturer Specific Data"
        default: nil
        }
        let code = String(rawValue, radix: 16, uppercase: true)
        let hex = "0x" + (code.count == 1 ? "0" + code : code)
        return name.map { "\($0) (\(hex))" } ?? "AD type \(hex)"
    }
}

/// The Flags AD structure's bits.
public struct AdvertisingFlags: OptionSet, Sendable, Hashable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 1 << 0)
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 1 << 1)
    public static let brEdrNotSupported = AdvertisingFlags(rawValue: 1 << 2)
    public static let simultaneousLEAndBREDRController = AdvertisingFlags(rawValue: 1 << 3)
    public static let simultaneousLEAndBREDRHost = AdvertisingFlags(rawValue: 1 << 4)
}

/// Manufacturer Specific Data: a company identifier (Assigned Numbers) and its bytes.
public struct ManufacturerData: Sendable, Hashable, Codable {
    public var companyIdentifier: UInt16
    public var data: [UInt8]

    public init(companyIdentifier: UInt16, data: [UInt8]) {
        self.companyIdentifier = companyIdentifier
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case companyIdentifier
        case data
    }

    // JSON carries the bytes as a hex string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        companyIdentifier = try container.decode(UInt16.self, forKey: .companyIdentifier)
        let text = try container.decode(String.self, forKey: .data)
        guard let bytes = hexBytes(text) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "not hex: \(text)")
        }
        data = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(companyIdentifier, forKey: .companyIdentifier)
        try container.encode(hexString(data), forKey: .data)
    }
}

/// Service Data: a service UUID and its bytes.
public struct ServiceData: Sendable, Hashable, Codable {
    public var uuid: BluetoothUUID
    public var data: [UInt8]

    public init(uuid: BluetoothUUID, data: [UInt8]) {
        self.uuid = uuid
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case uuid
        case data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try container.decode(BluetoothUUID.self, forKey: .uuid)
        let text = try container.decode(String.self, forKey: .data)
        guard let bytes = hexBytes(text) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "not hex: \(text)")
        }
        data = bytes
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(uuid, forKey: .uuid)
        try container.encode(hexString(data), forKey: .data)
    }
}

/// Lower-case hex without separators.
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    var text = ""
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0x0F)])
    }
    return text
}

func hexBytes(_ text: String) -> [UInt8]? {
    let characters = Array(text)
    guard characters.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(characters.count / 2)
    var index = 0
    while index < characters.count {
        guard let byte = UInt8(String(characters[index...index + 1]), radix: 16) else { return nil }
        bytes.append(byte)
        index += 2
    }
    return bytes
}
