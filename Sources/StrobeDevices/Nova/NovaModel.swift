import StrobeHost

/// The two Nova wire protocols: V1 speaks ASCII frames with 8-bit request ids, V2 binary
/// messages with 16-bit request ids.
public enum NovaModel: Sendable, Hashable, CaseIterable {
    /// The original Nova and its clones (`Nova`, `Noon`, `S-Power`): service `FFF0`, ASCII frames.
    case v1
    /// The Nova Pro (`Nova2`): service `EFF0`, binary messages, plus flash defaults, counters and
    /// battery level.
    case v2

    /// The primary service that identifies the model: `FFF0` (V1) or `EFF0` (V2).
    public var service: BluetoothUUID { self == .v1 ? NovaProfile.v1Service : NovaProfile.v2Service }
    /// The characteristic commands are written to, with response: `FFF3` (V1) or `EFF1` (V2).
    public var requestCharacteristic: BluetoothUUID { self == .v1 ? NovaProfile.v1Request : NovaProfile.v2Request }
    /// The characteristic that notifies acks (and V2 trigger presses): `FFF4` (V1) or `EFF2` (V2).
    public var responseCharacteristic: BluetoothUUID { self == .v1 ? NovaProfile.v1Response : NovaProfile.v2Response }

    /// The request id that follows `id`: V1 wraps 255 -> 0, V2 wraps 65535 -> 0.
    public func requestID(after id: UInt16) -> UInt16 {
        switch self {
        case .v1: UInt16(UInt8(truncatingIfNeeded: id) &+ 1)
        case .v2: id &+ 1
        }
    }
}
