
/// What a `Peer` could not find among the peer's services.
public enum PeerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The peer has no service with this UUID.
    case noService(BluetoothUUID)
    /// The peer has no characteristic with this UUID (in the service named, if one was).
    case noCharacteristic(BluetoothUUID)
    /// No characteristic has its value at this handle.
    case noCharacteristicAt(AttributeHandle)
    /// More than one characteristic has the UUID: name the service as well.
    case ambiguousCharacteristic(BluetoothUUID, valueHandles: [AttributeHandle])

    /// What was not found, in a sentence.
    public var description: String {
        switch self {
        case .noService(let uuid): "the peer has no service \(uuid)"
        case .noCharacteristic(let uuid): "the peer has no characteristic \(uuid)"
        case .noCharacteristicAt(let handle): "the peer has no characteristic with its value at \(handle)"
        case .ambiguousCharacteristic(let uuid, let handles):
            "\(handles.count) characteristics are \(uuid) (value handles \(handles.map(\.description).joined(separator: ", ")))"
        }
    }
}
