import StrobeHCI

/// UUIDs as ATT carries them (Core Specification Vol 3, Part F, 3.2.1): 2 bytes for a 16-bit
/// alias, otherwise all 16 (ATT has no 32-bit form). Servers compare declaration values byte for
/// byte, so a UUID with a 16-bit alias always goes out in 2 bytes.
extension BluetoothUUID {
    /// Bytes on the wire in ATT: 2 for a 16-bit alias, otherwise 16.
    public var attEncodedCount: Int { uuid16 == nil ? 16 : 2 }

    /// Decodes an ATT UUID: 2 or 16 little-endian bytes; any other length is not one.
    public init?(attBytes bytes: UnsafeRawBufferPointer) {
        guard bytes.count == 2 || bytes.count == 16 else { return nil }
        self.init(littleEndian: bytes)
    }

    public init?(attBytes bytes: [UInt8]) {
        guard let uuid = bytes.withUnsafeBytes({ BluetoothUUID(attBytes: $0) }) else { return nil }
        self = uuid
    }

    package func encodeATT(into writer: inout ByteWriter) {
        if let uuid16 {
            writer.write(uuid16)
        } else {
            writer.write(UInt64(truncatingIfNeeded: value))
            writer.write(UInt64(truncatingIfNeeded: value >> 64))
        }
    }

    /// The ATT wire form, little-endian.
    public var attBytes: [UInt8] { littleEndianBytes(width: uuid16 == nil ? .bits128 : .bits16) }
}

extension BluetoothUUID {
    // GATT attribute types (Assigned Numbers, 3.5 and 3.7).
    public static let primaryService: BluetoothUUID = "2800"
    public static let secondaryService: BluetoothUUID = "2801"
    public static let include: BluetoothUUID = "2802"
    public static let characteristic: BluetoothUUID = "2803"
    public static let characteristicExtendedProperties: BluetoothUUID = "2900"
    public static let characteristicUserDescription: BluetoothUUID = "2901"
    public static let clientCharacteristicConfiguration: BluetoothUUID = "2902"
    public static let serverCharacteristicConfiguration: BluetoothUUID = "2903"
    public static let characteristicPresentationFormat: BluetoothUUID = "2904"
    public static let characteristicAggregateFormat: BluetoothUUID = "2905"
    public static let reportReference: BluetoothUUID = "2908"
    public static let genericAccessService: BluetoothUUID = "1800"
    public static let genericAttributeService: BluetoothUUID = "1801"
    public static let deviceInformationService: BluetoothUUID = "180A"
    public static let batteryService: BluetoothUUID = "180F"
    public static let humanInterfaceDeviceService: BluetoothUUID = "1812"
    public static let deviceName: BluetoothUUID = "2A00"
    public static let appearance: BluetoothUUID = "2A01"
    public static let peripheralPreferredConnectionParameters: BluetoothUUID = "2A04"
    public static let serviceChanged: BluetoothUUID = "2A05"
    public static let clientSupportedFeatures: BluetoothUUID = "2B29"
    public static let databaseHash: BluetoothUUID = "2B2A"
    public static let batteryLevel: BluetoothUUID = "2A19"
    public static let systemID: BluetoothUUID = "2A23"
    public static let serialNumberString: BluetoothUUID = "2A25"
    public static let firmwareRevisionString: BluetoothUUID = "2A26"
}
