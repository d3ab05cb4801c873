import StrobeHost

/// What a Nova flash or its manager throws: the peer is not a Nova or lacks what was asked of it,
/// a command failed, a value it gave is malformed, or the link underneath failed.
public enum NovaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer has neither the V1 service `FFF0` nor the V2 service `EFF0`; `services` lists the
    /// primary services it has.
    case notANova(services: [BluetoothUUID])
    /// The Nova service lacks the model's request or response characteristic (`FFF3`/`FFF4` for V1,
    /// `EFF1`/`EFF2` for V2).
    case missingCharacteristic(BluetoothUUID)
    /// The flash has no such characteristic: flash defaults (`EFF3`), counters (`EFF4`) and Battery
    /// Level (`2A19`) exist on V2 flashes only, and only when the flash exposes them.
    case unsupported(model: NovaModel, characteristic: BluetoothUUID)
    /// A command (FLASH, OFF, PING) was not acknowledged: why.
    case command(NovaCommandFailure)
    /// The flash defaults or counters value read is malformed.
    case malformedValue(NovaDecodingError)
    /// The Battery Level read is malformed.
    case malformedBatteryLevel(BatteryLevelError)
    /// The link underneath failed: no connection, a GATT request refused or unanswered, the
    /// controller gone. The host's error says which layer and why.
    case link(StrobeError)

    /// Files an error thrown inside the kit: its own errors under their case, the rest as `link`.
    init(filing error: any Error) {
        switch error {
        case let error as NovaError: self = error
        case let error as NovaCommandFailure: self = .command(error)
        case let error as NovaDecodingError: self = .malformedValue(error)
        case let error as BatteryLevelError: self = .malformedBatteryLevel(error)
        default: self = .link(StrobeError(error))
        }
    }

    /// Why the command failed, when this is a command's failure (`command`).
    public var commandFailure: NovaCommandFailure? {
        if case .command(let failure) = self { failure } else { nil }
    }

    /// A one-line message that names what was missing or failed.
    public var description: String {
        switch self {
        case .notANova(let services):
            "the peer has no Nova service (\(NovaProfile.v1Service) or \(NovaProfile.v2Service)); it has \(services.map(\.description).joined(separator: ", "))"
        case .missingCharacteristic(let uuid):
            "the Nova service lacks characteristic \(uuid)"
        case .unsupported(let model, let uuid):
            "this Nova (\(model)) has no characteristic \(uuid)"
        case .command(let failure): "\(failure)"
        case .malformedValue(let error): "\(error)"
        case .malformedBatteryLevel(let error): "battery level: \(error)"
        case .link(let error): "\(error)"
        }
    }
}
