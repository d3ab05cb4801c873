/// A service found by discovery: its UUID and the handles of its group (Vol 3, Part G, 3.1).
public struct GATTService: Hashable, Sendable, CustomStringConvertible {
    public var uuid: BluetoothUUID
    /// The service declaration.
    public var startHandle: UInt16
    /// The last attribute of the service.
    public var endHandle: UInt16

    public init(uuid: BluetoothUUID, startHandle: UInt16, endHandle: UInt16) {
        self.uuid = uuid
        self.startHandle = startHandle
        self.endHandle = endHandle
    }

    public var handles: ClosedRange<UInt16> { startHandle...endHandle }

    public var description: String { "service \(uuid) [0x\(hex(startHandle))-0x\(hex(endHandle))]" }
}

/// An include declaration inside a service (Vol 3, Part G, 3.2).
public struct GATTIncludedService: Hashable, Sendable {
    /// The include declaration's own handle.
    public var declarationHandle: UInt16
    /// The included service.
    public var service: GATTService

    public init(declarationHandle: UInt16, service: GATTService) {
        self.declarationHandle = declarationHandle
        self.service = service
    }
}

func hex(_ handle: UInt16) -> String {
    let text = String(handle, radix: 16, uppercase: true)
    return String(repeating: "0", count: 4 - text.count) + text
}
