import StrobeHCI

/// One advertiser found by a scan: the latest advertising data and scan response merged, with
/// the fields a user wants. Encodes to JSON with the address and types as strings.
public struct DiscoveredDevice: Sendable, Hashable, Identifiable, Codable {
    /// A device is one address of one address type.
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        /// The advertiser's device address.
        public var address: BluetoothAddress
        /// The type of `address`: public, random, or an identity the controller resolved.
        public var addressType: LEAddressType

        /// Identifies the device with `address` of type `addressType`.
        public init(address: BluetoothAddress, addressType: LEAddressType) {
            self.address = address
            self.addressType = addressType
        }

        /// The address followed by its type in parentheses.
        public var description: String { "\(address) (\(addressType))" }
    }

    /// The advertiser's device address as the controller reported it.
    public var address: BluetoothAddress
    /// The type of `address`: public, random, or an identity the controller resolved.
    public var addressType: LEAddressType
    /// dBm of the latest report, when the controller measured it.
    public var rssi: Int?
    /// The Complete Local Name from the advertising data or scan response, else a Shortened Local Name;
    /// nil when neither carries a name.
    public var name: String?
    /// The service UUIDs listed in the advertising data and scan response, without repeats.
    public var serviceUUIDs: [BluetoothUUID]
    /// The Manufacturer Specific Data of the advertising data and scan response, without repeats.
    public var manufacturerData: [ManufacturerData]
    /// The Service Data of the advertising data and scan response, without repeats.
    public var serviceData: [ServiceData]
    /// The advertised TX power in dBm (AD Tx Power Level, else the extended report's TX_Power).
    public var txPower: Int?
    /// The Appearance value (Assigned Numbers), from the advertising data before the scan response.
    public var appearance: UInt16?
    /// Whether the latest advertising PDU accepts connections.
    public var connectable: Bool
    /// The latest advertising data and scan response, parsed.
    public var advertisingData: AdvertisingData
    /// The latest scan response, parsed; nil until one arrives (a passive scan gets none).
    public var scanResponse: AdvertisingData?
    /// When the latest report arrived.
    public var lastSeen: HostTime
    /// Reports folded into this entry.
    public var reportCount: Int
    /// TX_Power of the latest extended report, used when the data has no Tx Power Level.
    var reportedTxPower: Int8?

    /// The address and address type, which tell devices apart.
    public var id: ID { ID(address: address, addressType: addressType) }

    /// Creates an entry with no report folded in yet: no data, no RSSI, not connectable, `lastSeen` at time 0.
    public init(address: BluetoothAddress, addressType: LEAddressType) {
        self.address = address
        self.addressType = addressType
        rssi = nil
        name = nil
        serviceUUIDs = []
        manufacturerData = []
        serviceData = []
        txPower = nil
        appearance = nil
        connectable = false
        advertisingData = AdvertisingData()
        scanResponse = nil
        lastSeen = HostTime(nanoseconds: 0)
        reportCount = 0
        reportedTxPower = nil
    }

    /// Recomputes the summary fields from the advertising data and scan response: the
    /// advertising data wins where both say something, lists are joined.
    mutating func refreshSummary() {
        let sources = [advertisingData] + (scanResponse.map { [$0] } ?? [])
        let complete = sources.lazy.compactMap { data -> String? in
            for case .localName(let name, true) in data.structures { return name }
            return nil
        }.first
        name = complete ?? sources.lazy.compactMap(\.localName).first
        var seen = Set<BluetoothUUID>()
        serviceUUIDs = sources.flatMap(\.serviceUUIDs).filter { seen.insert($0).inserted }
        var manufacturers = Set<ManufacturerData>()
        manufacturerData = sources.flatMap(\.manufacturerData).filter { manufacturers.insert($0).inserted }
        var services = Set<ServiceData>()
        serviceData = sources.flatMap(\.serviceData).filter { services.insert($0).inserted }
        txPower = (sources.lazy.compactMap(\.txPowerLevel).first ?? reportedTxPower).map(Int.init)
        appearance = sources.lazy.compactMap(\.appearance).first
    }

    // MARK: JSON

    enum CodingKeys: String, CodingKey {
        case address, addressType, rssi, name, serviceUUIDs, manufacturerData, serviceData
        case txPower, appearance, connectable
    }

    /// Decodes the JSON `encode(to:)` writes. Throws `DecodingError.dataCorrupted` when `address` or
    /// `addressType` cannot be read; the parsed data, `lastSeen` and `reportCount` start empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .address)
        guard let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorruptedError(forKey: .address, in: container, debugDescription: "not an address: \(text)")
        }
        let typeName = try container.decode(String.self, forKey: .addressType)
        guard let type = LEAddressType.named(typeName) else {
            throw DecodingError.dataCorruptedError(forKey: .addressType, in: container, debugDescription: "unknown address type \(typeName)")
        }
        self.init(address: address, addressType: type)
        rssi = try container.decodeIfPresent(Int.self, forKey: .rssi)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        serviceUUIDs = try container.decodeIfPresent([BluetoothUUID].self, forKey: .serviceUUIDs) ?? []
        manufacturerData = try container.decodeIfPresent([ManufacturerData].self, forKey: .manufacturerData) ?? []
        serviceData = try container.decodeIfPresent([ServiceData].self, forKey: .serviceData) ?? []
        txPower = try container.decodeIfPresent(Int.self, forKey: .txPower)
        appearance = try container.decodeIfPresent(UInt16.self, forKey: .appearance)
        connectable = try container.decodeIfPresent(Bool.self, forKey: .connectable) ?? false
    }

    /// Encodes the summary: address and type as strings, `rssi` (null when unmeasured), name, UUIDs,
    /// manufacturer and service data, `txPower` and `appearance` when known, and `connectable`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address.description, forKey: .address)
        try container.encode(addressType.description, forKey: .addressType)
        try container.encode(rssi, forKey: .rssi)  // null when the controller had no RSSI
        try container.encode(name, forKey: .name)
        try container.encode(serviceUUIDs, forKey: .serviceUUIDs)
        try container.encode(manufacturerData, forKey: .manufacturerData)
        try container.encode(serviceData, forKey: .serviceData)
        try container.encodeIfPresent(txPower, forKey: .txPower)
        try container.encodeIfPresent(appearance, forKey: .appearance)
        try container.encode(connectable, forKey: .connectable)
    }
}

extension LEAddressType {
    /// The address type a `description` names (`public`, `random`, `public-identity`, ...).
    public static func named(_ name: String) -> LEAddressType? {
        let known: [LEAddressType] = [.public, .random, .publicIdentity, .randomIdentity, .unresolvedRandom, .anonymous]
        if let match = known.first(where: { $0.description == name }) { return match }
        guard name.hasPrefix("type-0x"), let raw = UInt8(name.dropFirst(7), radix: 16) else { return nil }
        return LEAddressType(rawValue: raw)
    }
}
