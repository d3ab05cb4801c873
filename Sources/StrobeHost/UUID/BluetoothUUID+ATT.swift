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

    /// Decodes an ATT UUID held in an array: 2 or 16 little-endian bytes; any other length is not one.
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
    /// 0x2800 Primary Service declaration.
    public static let primaryService: BluetoothUUID = "2800"
    /// 0x2801 Secondary Service declaration.
    public static let secondaryService: BluetoothUUID = "2801"
    /// 0x2802 Include declaration.
    public static let include: BluetoothUUID = "2802"
    /// 0x2803 Characteristic declaration.
    public static let characteristic: BluetoothUUID = "2803"
    /// 0x2900 Characteristic Extended Properties descriptor.
    public static let characteristicExtendedProperties: BluetoothUUID = "2900"
    /// 0x2901 Characteristic User Description descriptor.
    public static let characteristicUserDescription: BluetoothUUID = "2901"
    /// 0x2902 Client Characteristic Configuration descriptor: turns notifications and indications on.
    public static let clientCharacteristicConfiguration: BluetoothUUID = "2902"
    /// 0x2903 Server Characteristic Configuration descriptor.
    public static let serverCharacteristicConfiguration: BluetoothUUID = "2903"
    /// 0x2904 Characteristic Presentation Format descriptor.
    public static let characteristicPresentationFormat: BluetoothUUID = "2904"
    /// 0x2905 Characteristic Aggregate Format descriptor.
    public static let characteristicAggregateFormat: BluetoothUUID = "2905"
    /// 0x2908 Report Reference descriptor (HID over GATT).
    public static let reportReference: BluetoothUUID = "2908"
    /// 0x1800 Generic Access service.
    public static let genericAccessService: BluetoothUUID = "1800"
    /// 0x1801 Generic Attribute service.
    public static let genericAttributeService: BluetoothUUID = "1801"
    /// 0x180A Device Information service.
    public static let deviceInformationService: BluetoothUUID = "180A"
    /// 0x180F Battery service.
    public static let batteryService: BluetoothUUID = "180F"
    /// 0x1812 Human Interface Device service.
    public static let humanInterfaceDeviceService: BluetoothUUID = "1812"
    /// 0x2A00 Device Name characteristic.
    public static let deviceName: BluetoothUUID = "2A00"
    /// 0x2A01 Appearance characteristic.
    public static let appearance: BluetoothUUID = "2A01"
    /// 0x2A04 Peripheral Preferred Connection Parameters characteristic.
    public static let peripheralPreferredConnectionParameters: BluetoothUUID = "2A04"
    /// 0x2A05 Service Changed characteristic.
    public static let serviceChanged: BluetoothUUID = "2A05"
    /// 0x2B29 Client Supported Features characteristic.
    public static let clientSupportedFeatures: BluetoothUUID = "2B29"
    /// 0x2B2A Database Hash characteristic.
    public static let databaseHash: BluetoothUUID = "2B2A"
    /// 0x2A19 Battery Level characteristic.
    public static let batteryLevel: BluetoothUUID = "2A19"
    /// 0x2A23 System ID characteristic.
    public static let systemID: BluetoothUUID = "2A23"
    /// 0x2A25 Serial Number String characteristic.
    public static let serialNumberString: BluetoothUUID = "2A25"
    /// 0x2A26 Firmware Revision String characteristic.
    public static let firmwareRevisionString: BluetoothUUID = "2A26"
}
