import StrobeHost

/// What a stylus or its manager throws: the peer is not a stylus, it lacks a characteristic, a
/// value it gave is malformed, or the link underneath failed. (A malformed sample batch is
/// counted on the receive path and dropped.)
public enum StylusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer has no stylus service; `services` lists the UUIDs of the primary services it has.
    case notAStylus(services: [String])
    /// The stylus service lacks this characteristic: Samples, Samples PSM (for
    /// `attachOverChannel(to:ringCapacity:)`), the Button Map when it is read or written, or Battery
    /// Level (`2A19`) when the battery is read.
    case missingCharacteristic(BluetoothUUID)
    /// The Samples PSM characteristic's value is not two bytes.
    case malformedSamplesPSM([UInt8])
    /// A Button Map value is not 2 bytes long; the associated value is its length.
    case malformedButtonMap(length: Int)
    /// The Battery Level read is malformed.
    case malformedBatteryLevel(BatteryLevelError)
    /// The link underneath failed: no connection, the pen's channel refused, a GATT request
    /// refused or unanswered, the controller gone. The host's error says which layer and why.
    case link(StrobeError)

    /// Files an error thrown inside the kit: its own errors under their case, the rest as `link`.
    init(filing error: any Error) {
        switch error {
        case let error as StylusError: self = error
        case let error as BatteryLevelError: self = .malformedBatteryLevel(error)
        default: self = .link(StrobeError(error))
        }
    }

    /// A one-line message that names the missing service or characteristic, or the length of the
    /// malformed value.
    public var description: String {
        switch self {
        case .notAStylus(let services):
            "the peer has no stylus service (\(StylusProfile.service)); it has \(services.joined(separator: ", "))"
        case .missingCharacteristic(let uuid): "the stylus lacks characteristic \(uuid)"
        case .malformedSamplesPSM(let value): "the stylus's Samples PSM is \(value.count) bytes, not 2"
        case .malformedButtonMap(let length): "stylus button map must be 2 bytes, got \(length)"
        case .malformedBatteryLevel(let error): "battery level: \(error)"
        case .link(let error): "\(error)"
        }
    }
}
