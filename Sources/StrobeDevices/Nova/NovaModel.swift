import StrobeHost

/// The two Nova wire protocols: V1 speaks ASCII frames with 8-bit request ids, V2 binary
/// messages with 16-bit request ids.
public enum NovaModel: Sendable, Hashable, CaseIterable {
    case v1
    case v2

    public var service: BluetoothUUID { self == .v1 ? NovaProfile.v1Service : NovaProfile.v2Service }
    public var requestCharacteristic: BluetoothUUID { self == .v1 ? NovaProfile.v1Request : NovaProfile.v2Request }
    public var responseCharacteristic: BluetoothUUID { self == .v1 ? NovaProfile.v1Response : NovaProfile.v2Response }

    /// The request id that follows `id`: V1 wraps 255 -> 0, V2 wraps 65535 -> 0.
    public func requestID(after id: UInt16) -> UInt16 {
        switch self {
        case .v1: UInt16(UInt8(truncatingIfNeeded: id) &+ 1)
        case .v2: id &+ 1
        }
    }
}
