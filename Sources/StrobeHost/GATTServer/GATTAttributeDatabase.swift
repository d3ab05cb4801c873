import StrobeSecurity
import StrobeBase
import Synchronization

/// What a client may do with an attribute.
public struct GATTAttributePermissions: OptionSet, Hashable, Sendable {
    /// The permission bits: 0x01 read, 0x02 write.
    public var rawValue: UInt8
    /// Wraps permission bits; bits other than 0x01 and 0x02 mean nothing.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x01: clients may read the attribute; without it a read gets Read Not Permitted (0x02).
    public static let read = Self(rawValue: 1 << 0)
    /// 0x02: clients may write the attribute; without it a write gets Write Not Permitted (0x03).
    public static let write = Self(rawValue: 1 << 1)
}

/// Which connection asked: handlers can answer each client differently.
public struct GATTServerConnectionID: Hashable, Sendable {
    /// A number unique among the server connections of this process.
    public var rawValue: UInt64
}

/// A value computed when read. Runs on the transport's reader thread: return quickly.
public typealias GATTReadHandler = @Sendable (GATTServerConnectionID) -> [UInt8]
/// A written value, to accept (return nil) or refuse with an ATT error. Runs on the reader thread.
public typealias GATTWriteHandler = @Sendable (GATTServerConnectionID, [UInt8]) -> ATTErrorCode?

/// The handles a characteristic got.
public struct GATTServerCharacteristic: Hashable, Sendable {
    /// The characteristic declaration (type 0x2803).
    public var declarationHandle: AttributeHandle
    /// The characteristic value: the handle to give `setValue(_:at:)`, `notify` and `indicate`.
    public var valueHandle: AttributeHandle
    /// Present when the characteristic notifies or indicates.
    public var clientConfigurationHandle: AttributeHandle?
}

/// A GATT server's attribute table (Core Vol 3, Part G, 3): services, characteristic
/// declarations and values, descriptors, in handle order, built once and then served.
public final class GATTAttributeDatabase: Sendable {
    package struct Attribute: Sendable {
        package var handle: AttributeHandle
        package var type: BluetoothUUID
        package var value: [UInt8]
        var permissions: GATTAttributePermissions
        var onRead: GATTReadHandler?
        var onWrite: GATTWriteHandler?
        /// The characteristic properties, on a value attribute (to check write kinds).
        var properties: GATTCharacteristicProperties?
        /// A CCCD: its value lives per connection, not here.
        var isClientConfiguration = false
        /// The least security the link needs to read or write it.
        var security = SMPSecurityLevel.none
    }

    private let attributes = Lock<[Attribute]>([])

    /// Creates an empty table; the first attribute added gets handle 0x0001.
    public init() {}

    private func append(_ attribute: Attribute) -> AttributeHandle {
        attributes.withLock { list in
            var attribute = attribute
            attribute.handle = (list.last?.handle ?? .reserved).advanced(by: 1)
            list.append(attribute)
            return attribute.handle
        }
    }

    /// Starts a primary service; the characteristics added next belong to it.
    @discardableResult
    public func addPrimaryService(_ uuid: BluetoothUUID) -> AttributeHandle {
        append(Attribute(handle: 0, type: .primaryService, value: uuid.attBytes, permissions: .read))
    }

    /// Adds a characteristic declaration, its value and, when it notifies or indicates, its
    /// Client Characteristic Configuration descriptor. Permissions follow the properties unless
    /// given. `security` is the least the link needs to read or write the value and its CCCD
    /// (below it the client gets Insufficient Authentication or Encryption). `onRead` computes
    /// the value when read; `onWrite` accepts or refuses writes (the stored value is updated
    /// when it accepts).
    @discardableResult
    public func addCharacteristic(
        _ uuid: BluetoothUUID, properties: GATTCharacteristicProperties, value: [UInt8] = [],
        permissions: GATTAttributePermissions? = nil, security: SMPSecurityLevel = .none,
        onRead: GATTReadHandler? = nil, onWrite: GATTWriteHandler? = nil
    ) -> GATTServerCharacteristic {
        let declaration = attributes.withLock { ($0.last?.handle ?? .reserved).advanced(by: 1) }
        let valueHandle = declaration.advanced(by: 1)
        var declarationValue: [UInt8] = [properties.rawValue, UInt8(valueHandle.rawValue & 0xFF), UInt8(valueHandle.rawValue >> 8)]
        declarationValue += uuid.attBytes
        _ = append(Attribute(handle: 0, type: .characteristic, value: declarationValue, permissions: .read))
        var derived: GATTAttributePermissions = []
        if properties.contains(.read) { derived.insert(.read) }
        if !properties.isDisjoint(with: [.write, .writeWithoutResponse]) { derived.insert(.write) }
        _ = append(Attribute(handle: 0, type: uuid, value: value, permissions: permissions ?? derived,
                             onRead: onRead, onWrite: onWrite, properties: properties, security: security))
        var cccd: AttributeHandle?
        if !properties.isDisjoint(with: [.notify, .indicate]) {
            cccd = append(Attribute(handle: 0, type: .clientCharacteristicConfiguration, value: [0, 0],
                                    permissions: [.read, .write], isClientConfiguration: true, security: security))
        }
        return GATTServerCharacteristic(declarationHandle: declaration, valueHandle: valueHandle, clientConfigurationHandle: cccd)
    }

    /// Adds a descriptor to the last characteristic.
    @discardableResult
    public func addDescriptor(_ uuid: BluetoothUUID, value: [UInt8], permissions: GATTAttributePermissions = .read) -> AttributeHandle {
        append(Attribute(handle: 0, type: uuid, value: value, permissions: permissions))
    }

    /// Replaces a stored value (for example before notifying it).
    public func setValue(_ value: [UInt8], at handle: AttributeHandle) {
        attributes.withLock { list in
            if let index = list.firstIndex(where: { $0.handle == handle }) { list[index].value = value }
        }
    }

    /// The stored value at `handle`, or nil when no attribute has that handle. An `onRead` handler's
    /// result is not stored, and a CCCD reads 0x0000 here: clients' settings are kept per connection.
    public func value(at handle: AttributeHandle) -> [UInt8]? {
        attributes.withLock { list in list.first { $0.handle == handle }?.value }
    }

    /// The Database Hash of the table as it is now (Vol 3, Part G, 7.3), least significant octet first.
    public var hash: [UInt8] {
        GATTDatabaseHash.hash(snapshot.map { GATTDatabaseHash.Attribute(handle: $0.handle, type: $0.type, value: $0.value) })
    }

    /// Whether the table has a primary service of this UUID.
    public func hasPrimaryService(_ uuid: BluetoothUUID) -> Bool {
        let value = uuid.attBytes
        return snapshot.contains { $0.type == .primaryService && $0.value == value }
    }

    /// Service Changed's value and CCCD handles, when the table has the GATT service's.
    var serviceChanged: (value: AttributeHandle, configuration: AttributeHandle)? {
        let list = snapshot
        guard let index = list.firstIndex(where: { $0.type == .serviceChanged }),
              let cccd = list[(index + 1)...].prefix(while: { $0.type != .characteristic && $0.type != .primaryService })
                .first(where: \.isClientConfiguration)
        else { return nil }
        return (list[index].handle, cccd.handle)
    }

    package var snapshot: [Attribute] { attributes.withLock { $0 } }

    func update(_ body: (inout [Attribute]) -> Void) { attributes.withLock { body(&$0) } }
}
