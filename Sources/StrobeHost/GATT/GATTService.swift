/// A service found by discovery: its UUID and the handles of its group (Vol 3, Part G, 3.1).
public struct GATTService: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The service's type, e.g. 0x180F Battery.
    public var uuid: BluetoothUUID
    /// The service declaration.
    public var startHandle: AttributeHandle
    /// The last attribute of the service.
    public var endHandle: AttributeHandle

    /// Creates a service from its declaration handle, the end of its group and its UUID.
    public init(uuid: BluetoothUUID, startHandle: AttributeHandle, endHandle: AttributeHandle) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    /// Every handle of the service, `startHandle...endHandle`: the range to discover its
    /// characteristics in.
    public var handles: ClosedRange<AttributeHandle> { startHandle...endHandle }

    /// E.g. `service 180F [0x0010-0x0014]`.
    public var description: String { "service \(uuid) [\(startHandle)-\(endHandle)]" }
}

/// An include declaration inside a service (Vol 3, Part G, 3.2).
public struct GATTIncludedService: Hashable, Sendable, Codable {
    /// The include declaration's own handle.
    public var declarationHandle: AttributeHandle
    /// The included service.
    public var service: GATTService

    /// Creates an include from its declaration's handle and the service it names.
    public init(declarationHandle: AttributeHandle, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}
