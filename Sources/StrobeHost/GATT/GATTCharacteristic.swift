/// Characteristic Properties (Vol 3, Part G, 3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable, Codable {
    /// The Characteristic Properties byte of the characteristic declaration.
    public var rawValue: UInt8
    /// Wraps a properties byte as read from a characteristic declaration.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01 Broadcast: the value may be broadcast in advertising data.
    public static let broadcast = Self(rawValue: 0x01)
    /// 0x02 Read: the value may be read.
    public static let read = Self(rawValue: 0x02)
    /// 0x04 Write Without Response: the value may be written with Write Command.
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    /// 0x08 Write: the value may be written with Write Request.
    public static let write = Self(rawValue: 0x08)
    /// 0x10 Notify: the server may send Handle Value Notifications of the value.
    public static let notify = Self(rawValue: 0x10)
    /// 0x20 Indicate: the server may send Handle Value Indications of the value.
    public static let indicate = Self(rawValue: 0x20)
    /// 0x40 Authenticated Signed Writes: the value may be written with Signed Write Command.
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    /// 0x80 Extended Properties: a Characteristic Extended Properties descriptor (0x2900) follows.
    public static let extendedProperties = Self(rawValue: 0x80)
}

/// A characteristic found by discovery (Vol 3, Part G, 3.3).
public struct GATTCharacteristic: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The characteristic's type, e.g. 0x2A19 Battery Level.
    public var uuid: BluetoothUUID
    /// What the characteristic allows, from its declaration: read, write, notify and so on.
    public var properties: GATTCharacteristicProperties
    /// The characteristic declaration.
    public var declarationHandle: AttributeHandle
    /// The characteristic value: the handle to read, write and subscribe to.
    public var valueHandle: AttributeHandle
    /// The last attribute of the characteristic (its last descriptor): the declaration before
    /// the next characteristic, or the end of the service.
    public var endHandle: AttributeHandle

    /// Creates a characteristic from its declaration's fields and the handle range discovery found.
    public init(uuid: BluetoothUUID, properties: GATTCharacteristicProperties, declarationHandle: AttributeHandle, valueHandle: AttributeHandle, endHandle: AttributeHandle) {
        self.uuid = uuid
        self.properties = properties
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.endHandle = endHandle
    }

    /// Where descriptors can be, or nil when the value is the characteristic's last attribute.
    public var descriptorHandles: ClosedRange<AttributeHandle>? {
        valueHandle < endHandle ? valueHandle.advanced(by: 1)...endHandle : nil
    }

    /// E.g. `characteristic 2A19 value 0x0012`.
    public var description: String { "characteristic \(uuid) value \(valueHandle)" }
}

/// A characteristic descriptor (Vol 3, Part G, 3.3.3).
public struct GATTDescriptor: Hashable, Sendable, Codable {
    /// The descriptor's type, e.g. 0x2902 Client Characteristic Configuration.
    public var uuid: BluetoothUUID
    /// The descriptor's attribute handle: the one to read or write.
    public var handle: AttributeHandle

    /// Creates a descriptor as Find Information reports it: its type and handle.
    public init(uuid: BluetoothUUID, handle: AttributeHandle) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// Client Characteristic Configuration bits (Vol 3, Part G, 3.3.3.3).
public struct GATTClientConfiguration: OptionSet, Hashable, Sendable, Codable {
    /// The 16-bit descriptor value as written to the server.
    public var rawValue: UInt16
    /// Wraps a Client Characteristic Configuration value; bits other than 0x0001 and 0x0002 are reserved.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0x0001 Notification: the server sends Handle Value Notifications.
    public static let notification = Self(rawValue: 0x0001)
    /// 0x0002 Indication: the server sends Handle Value Indications.
    public static let indication = Self(rawValue: 0x0002)
}
