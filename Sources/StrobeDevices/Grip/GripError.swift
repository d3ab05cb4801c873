import StrobeHost

/// Why a grip could not be used: the peer is not one, it lacks a characteristic, or its firmware
/// was refused. (A link that fails underneath throws that layer's error.)
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
        }
    }
}
