/// Characteristic Properties (Vol 3, Part G, 3.3.1.1).
public struct GATTCharacteristicProperties: OptionSet, Hashable, Sendable, Codable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = Self(rawValue: 0x01)
    public static let read = Self(rawValue: 0x02)
    public static let writeWithoutResponse = Self(rawValue: 0x04)
    public static let write = Self(rawValue: 0x08)
    public static let notify = Self(rawValue: 0x10)
    public static let indicate = Self(rawValue: 0x20)
    public static let authenticatedSignedWrites = Self(rawValue: 0x40)
    public static let extendedProperties = Self(rawValue: 0x80)
}

/// A characteristic found by discovery (Vol 3, Part G, 3.3).
public struct GATTCharacteristic: Hashable, Sendable, Codable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    public var properties: GATTCharacteristicProperties
    /// The characteristic declaration.
    public var declarationHandle: AttributeHandle
    /// The characteristic value: the handle to read, write and subscribe to.
    public var valueHandle: AttributeHandle
    /// The last attribute of the characteristic (its last descriptor): the declaration before
    /// the next characteristic, or the end of the service.
    public var endHandle: AttributeHandle

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

    public var description: String { "characteristic \(uuid) value \(valueHandle)" }
}

/// A characteristic descriptor (Vol 3, Part G, 3.3.3).
public struct GATTDescriptor: Hashable, Sendable, Codable {
    public var uuid: BluetoothUUID
    public var handle: AttributeHandle

    public init(uuid: BluetoothUUID, handle: AttributeHandle) {
        self.uuid = uuid
        self.handle = handle
    }
}

/// Client Characteristic Configuration bits (Vol 3, Part G, 3.3.3.3).
public struct GATTClientConfiguration: OptionSet, Hashable, Sendable, Codable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let notification = Self(rawValue: 0x0001)
    public static let indication = Self(rawValue: 0x0002)
}
