import StrobeHost

/// What a grip or its manager throws: the peer is not a grip, it lacks a characteristic, its
/// firmware was refused, a value it gave is malformed, or the link underneath failed.
public enum GripError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer has no grip service; `services` lists the UUIDs of the services it does have (empty
    /// when a `DiscoveredGrip` could not be used at all: unparsable address or no grip connected).
    case notAGrip(services: [String])
    /// The grip service is there but lacks this characteristic (the Events characteristic, or the
    /// Battery Level `2A19` when the battery is read).
    case missingCharacteristic(BluetoothUUID)
    /// The grip runs `found`, older than the `minimum` this host requires.
    case firmwareTooOld(found: FirmwareVersion, minimum: FirmwareVersion)
    /// The Firmware Revision String value is not UTF-8 or not a dotted numeric version; `reason`
    /// says which, with the value.
    case firmwareUnreadable(reason: String)
    /// The Battery Level read is malformed.
    case malformedBatteryLevel(BatteryLevelError)
    /// The link underneath failed: no connection, pairing or encryption refused, a GATT request
    /// refused or unanswered, the controller gone. The host's error says which layer and why.
    case link(StrobeError)

    /// Files an error thrown inside the kit: its own errors under their case, the rest as `link`.
    init(filing error: any Error) {
        switch error {
        case let error as GripError: self = error
        case let error as BatteryLevelError: self = .malformedBatteryLevel(error)
        default: self = .link(StrobeError(error))
        }
    }

    /// A one-line message that names the missing service or characteristic, or both firmware
    /// versions (asking for the grip to be updated).
    public var description: String {
        switch self {
        case .notAGrip(let services):
            "the peer has no grip service (\(GripProfile.service)); it has \(services.joined(separator: ", "))"
        case .missingCharacteristic(let uuid): "the grip lacks characteristic \(uuid)"
        case .firmwareTooOld(let found, let minimum):
            "grip firmware \(found) is older than the minimum \(minimum) this host requires; update the grip"
        case .firmwareUnreadable(let reason): "grip firmware version unreadable: \(reason)"
        case .malformedBatteryLevel(let error): "battery level: \(error)"
        case .link(let error): "\(error)"
        }
    }
}
