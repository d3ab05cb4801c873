import StrobeHost

/// HID over GATT (HOGP 1.0, HIDS 1.0): the service, its characteristics and descriptor.
package enum HIDProfile {
    package static let service = BluetoothUUID(0x1812)
    package static let information = BluetoothUUID(0x2A4A)
    package static let reportMap = BluetoothUUID(0x2A4B)
    package static let controlPoint = BluetoothUUID(0x2A4C)
    package static let report = BluetoothUUID(0x2A4D)
    package static let protocolMode = BluetoothUUID(0x2A4E)
    package static let bootKeyboardInput = BluetoothUUID(0x2A22)
    /// Report Reference: the report ID and type (1 input, 2 output, 3 feature) of a Report.
    package static let reportReference = BluetoothUUID(0x2908)
    package static let batteryService = BluetoothUUID(0x180F)
    package static let batteryLevel = BluetoothUUID(0x2A19)

    /// Protocol Mode values.
    package static let bootProtocol: UInt8 = 0x00
    package static let reportProtocol: UInt8 = 0x01
}

/// What a HID device or shutter remote throws: the peer is not a HID device, a value it gave is
/// malformed, its database changed, or the link underneath failed.
public enum HIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer has no HID service (`1812`); `services` lists the UUIDs of the services it has.
    case notAHIDDevice(services: [String])
    /// The HID service has neither a notifying input Report that the Report Map describes nor a Boot
    /// Keyboard Input Report.
    case noInputReports
    /// The Report Reference descriptor (`2908`) at this handle is `length` bytes long instead of 2.
    case malformedReportReference(AttributeHandle, length: Int)
    /// The Report Map (`2A4B`) could not be parsed; `reason` names the item and what was wrong.
    case malformedReportMap(reason: String)
    /// The device has no Battery Level characteristic (`2A19`) to read.
    case noBatteryLevel
    /// The HID Information value (`2A4A`) is `length` bytes long instead of 4.
    case malformedInformation(length: Int)
    /// On a new link the device's database no longer has its reports where they were: attach again.
    case databaseChanged
    /// The Battery Level read is malformed.
    case malformedBatteryLevel(BatteryLevelError)
    /// The link underneath failed: no connection or no bond, encryption refused, a GATT request
    /// refused or unanswered, the controller gone. The host's error says which layer and why.
    case link(StrobeError)

    /// Files an error thrown inside the kit: its own errors under their case, the rest as `link`.
    init(filing error: any Error) {
        switch error {
        case let error as HIDError: self = error
        case let error as BatteryLevelError: self = .malformedBatteryLevel(error)
        default: self = .link(StrobeError(error))
        }
    }

    /// A one-line message that names the problem.
    public var description: String {
        switch self {
        case .notAHIDDevice(let services): "the peer has no HID service (0x1812); it has \(services.joined(separator: ", "))"
        case .noInputReports: "the HID device offers no input report to subscribe to"
        case .malformedReportReference(let handle, let length): "the Report Reference at \(handle) is \(length) bytes, not 2"
        case .malformedReportMap(let reason): "the HID device's Report Map: \(reason)"
        case .noBatteryLevel: "the HID device has no Battery Level"
        case .malformedInformation(let length): "the HID Information is \(length) bytes, not 4"
        case .databaseChanged: "the HID device's database changed since it was read: attach it again"
        case .malformedBatteryLevel(let error): "battery level: \(error)"
        case .link(let error): "\(error)"
        }
    }
}
