/// A service found by discovery: its UUID and the handles of its group (Vol 3, Part G, 3.1).
public struct GATTService: Hashable, Sendable, Codable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    /// The service declaration.
    public var startHandle: AttributeHandle
    /// The last attribute of the service.
    public var endHandle: AttributeHandle

    public init(uuid: BluetoothUUID, startHandle: AttributeHandle, endHandle: AttributeHandle) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    public var handles: ClosedRange<AttributeHandle> { startHandle...endHandle }

    public var description: String { "service \(uuid) [\(startHandle)-\(endHandle)]" }
}

/// An include declaration inside a service (Vol 3, Part G, 3.2).
public struct GATTIncludedService: Hashable, Sendable, Codable {
    /// The include declaration's own handle.
    public var declarationHandle: AttributeHandle
    /// The included service.
    public var service: GATTService

    public init(declarationHandle: AttributeHandle, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}
