import StrobeHost

/// Why a stylus could not be used: the peer is not one, it lacks a characteristic, or a value it
/// gave is malformed. (A link that fails underneath throws that layer's error; a malformed sample
/// batch is counted on the receive path, `StylusDecodingError`.)
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

    /// A one-line message that names the missing service or characteristic, or the length of the
    /// malformed value.
    public var description: String {
        switch self {
        case .notAStylus(let services):
            "the peer has no stylus service (\(StylusProfile.service)); it has \(services.joined(separator: ", "))"
        case .missingCharacteristic(let uuid): "the stylus lacks characteristic \(uuid)"
        case .malformedSamplesPSM(let value): "the stylus's Samples PSM is \(value.count) bytes, not 2"
        case .malformedButtonMap(let length): "stylus button map must be 2 bytes, got \(length)"
        }
    }
}
