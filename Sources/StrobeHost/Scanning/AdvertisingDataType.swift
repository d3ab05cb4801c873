/// An AD type (Assigned Numbers, Common Data Types; Core Specification Supplement Part A).
public struct AdvertisingDataType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The AD type octet.
    public var rawValue: UInt8
    /// Wraps any AD type octet, named here or not.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Flags.
    public static let flags = Self(rawValue: 0x01)
    /// 0x02 Incomplete List of 16-bit Service UUIDs.
    public static let incompleteServiceUUIDs16 = Self(rawValue: 0x02)
    /// 0x03 Complete List of 16-bit Service UUIDs.
    public static let completeServiceUUIDs16 = Self(rawValue: 0x03)
    /// 0x04 Incomplete List of 32-bit Service UUIDs.
    public static let incompleteServiceUUIDs32 = Self(rawValue: 0x04)
    /// 0x05 Complete List of 32-bit Service UUIDs.
    public static let completeServiceUUIDs32 = Self(rawValue: 0x05)
    /// 0x06 Incomplete List of 128-bit Service UUIDs.
    public static let incompleteServiceUUIDs128 = Self(rawValue: 0x06)
    /// 0x07 Complete List of 128-bit Service UUIDs.
    public static let completeServiceUUIDs128 = Self(rawValue: 0x07)
    /// 0x08 Shortened Local Name.
    public static let shortenedLocalName = Self(rawValue: 0x08)
    /// 0x09 Complete Local Name.
    public static let completeLocalName = Self(rawValue: 0x09)
    /// 0x0A Tx Power Level.
    public static let txPowerLevel = Self(rawValue: 0x0A)
    /// 0x16 Service Data - 16-bit UUID.
    public static let serviceData16 = Self(rawValue: 0x16)
    /// 0x19 Appearance.
    public static let appearance = Self(rawValue: 0x19)
    /// 0x20 Service Data - 32-bit UUID.
    public static let serviceData32 = Self(rawValue: 0x20)
    /// 0x21 Service Data - 128-bit UUID.
    public static let serviceData128 = Self(rawValue: 0x21)
    /// 0xFF Manufacturer Specific Data.
    public static let manufacturerSpecificData = Self(rawValue: 0xFF)

    /// The Assigned Numbers name with the value, e.g. "Flags (0x01)", or "AD type 0xNN" for other types.
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
    /// The Flags data octet.
    public var rawValue: UInt8
    /// Wraps a Flags octet; bits 5 to 7 are reserved and kept as they are.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bit 0: LE Limited Discoverable Mode.
    public static let leLimitedDiscoverable = AdvertisingFlags(rawValue: 1 << 0)
    /// Bit 1: LE General Discoverable Mode.
    public static let leGeneralDiscoverable = AdvertisingFlags(rawValue: 1 << 1)
    /// Bit 2: BR/EDR Not Supported.
    public static let brEdrNotSupported = AdvertisingFlags(rawValue: 1 << 2)
    /// Bit 3: Simultaneous LE and BR/EDR to Same Device Capable (Controller).
    public static let simultaneousLEAndBREDRController = AdvertisingFlags(rawValue: 1 << 3)
    /// Bit 4: Simultaneous LE and BR/EDR to Same Device Capable (Host).
    public static let simultaneousLEAndBREDRHost = AdvertisingFlags(rawValue: 1 << 4)
}

/// Manufacturer Specific Data: a company identifier (Assigned Numbers) and its bytes.
public struct ManufacturerData: Sendable, Hashable, Codable {
    /// The Company Identifier (Assigned Numbers, e.g. 0x004C Apple), sent little-endian before the data.
    public var companyIdentifier: UInt16
    /// The bytes that follow the company identifier.
    public var data: [UInt8]

    /// Creates manufacturer data from a company identifier and the bytes that follow it.
    public init(companyIdentifier: UInt16, data: [UInt8]) {
        self.companyIdentifier = companyIdentifier
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case companyIdentifier
        case data
    }

    /// JSON carries the bytes as a hex string.
    /// Decodes the keys `companyIdentifier` and `data`; throws `DecodingError.dataCorrupted` when `data`
    /// is not an even number of hex digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        companyIdentifier = try container.decode(UInt16.self, forKey: .companyIdentifier)
        let text = try container.decode(String.self, forKey: .data)
        guard let bytes = hexBytes(text) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "not hex: \(text)")
        }
        data = bytes
    }

    /// Encodes `companyIdentifier` as a number and `data` as lower-case hex.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(companyIdentifier, forKey: .companyIdentifier)
        try container.encode(hexString(data), forKey: .data)
    }
}

/// Service Data: a service UUID and its bytes.
public struct ServiceData: Sendable, Hashable, Codable {
    /// The service UUID the data belongs to.
    public var uuid: BluetoothUUID
    /// The bytes that follow the service UUID.
    public var data: [UInt8]

    /// Creates service data from a service UUID and the bytes that follow it.
    public init(uuid: BluetoothUUID, data: [UInt8]) {
        self.uuid = uuid
        self.data = data
    }

    enum CodingKeys: String, CodingKey {
        case uuid
        case data
    }

    /// Decodes the keys `uuid` and `data`; throws `DecodingError.dataCorrupted` when `data` is not an even
    /// number of hex digits.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        uuid = try container.decode(BluetoothUUID.self, forKey: .uuid)
        let text = try container.decode(String.self, forKey: .data)
        guard let bytes = hexBytes(text) else {
            throw DecodingError.dataCorruptedError(forKey: .data, in: container, debugDescription: "not hex: \(text)")
        }
        data = bytes
    }

    /// Encodes `uuid` and `data`, the bytes as lower-case hex.
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
