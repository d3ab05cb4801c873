import StrobeHCI
import StrobeHost

/// The HID-over-GATT host role (HOGP 1.0, 6): the link secured (HOGP requires an encrypted,
/// bonded link), the HID service's Report Map read and parsed, each input Report found through
/// its Report Reference, Report Protocol Mode set, and every input report subscribed to, its
/// values handed to `handler(for:)`'s handler on the receive path. A device offering only the
/// boot keyboard report is used in the boot protocol. What discovery found is kept for the
/// bonded device's next links, whose handles do not change while it does not say so (Vol 3
/// Part G 2.5.2): `route` and `start` take it up again without discovering.
public struct HIDDevice: Sendable {
    /// One input report the device notifies: a Report (`2A4D`) whose Report Reference says Input
    /// (0x01), with the layout the Report Map gives its report ID, or the Boot Keyboard Input Report.
    public struct InputReport: Sendable, Hashable {
        /// The Report characteristic (`2A4D`), or the Boot Keyboard Input Report (`2A22`) in the
        /// boot protocol.
        public var characteristic: GATTCharacteristic
        package var layout: HIDReportDescriptor.Report
        /// Its Client Characteristic Configuration descriptor.
        public var clientConfiguration: AttributeHandle
    }

    package let descriptor: HIDReportDescriptor
    /// The input reports to subscribe to, in the HID service's order; never empty.
    public let inputReports: [InputReport]
    /// `true` when the device offers only the Boot Keyboard Input Report and is used in Boot Protocol
    /// Mode (0x00); `false` for Report Protocol Mode (0x01).
    public let usesBootProtocol: Bool
    /// The value handle of Battery Level (`2A19` in the Battery service `180F`); `nil` without one.
    public let batteryLevelHandle: AttributeHandle?
    /// The value handle of Protocol Mode (`2A4E`); `nil` when the device has none, and `start(_:)`
    /// then sets no mode.
    public let protocolModeHandle: AttributeHandle?
    /// HID Information, when the device has it (HIDS makes it mandatory; some devices do not).
    package let information: HIDInformation?
    /// The Device Information service's manufacturer, model and PnP ID, when it has one.
    package let deviceInformation: DeviceInformation?

    /// Discovers and reads the device (securing the link first), without subscribing.
    public static func discover(on connection: LEConnection) async throws(HIDError) -> HIDDevice {
        try await filing(HIDError.init(filing:)) { try await discovering(on: connection) }
    }

    private static func discovering(on connection: LEConnection) async throws -> HIDDevice {
        try await connection.secure(to: .unauthenticated)
        let gatt = connection.gatt
        // A bonded device's database comes from its bond while its Database Hash is unchanged.
        let database = try await connection.discoverDatabase()
        guard let hid = database.service(HIDProfile.service) else {
            throw HIDError.notAHIDDevice(services: database.services.map(\.service.uuid.description))
        }
        let battery = database.characteristic(HIDProfile.batteryLevel, inService: HIDProfile.batteryService)?.characteristic.valueHandle
        var descriptor = HIDReportDescriptor.bootKeyboard
        var inputs: [InputReport] = []
        if let map = hid.characteristic(HIDProfile.reportMap) {
            let bytes = try await gatt.readLong(handle: map.characteristic.valueHandle)
            do throws(HIDDescriptorError) {
                descriptor = try HIDReportDescriptor(parsing: bytes)
            } catch {
                throw HIDError.malformedReportMap(reason: error.description)
            }
            for report in hid.characteristics where report.characteristic.uuid == HIDProfile.report && report.characteristic.properties.contains(.notify) {
                guard let reference = report.descriptor(HIDProfile.reportReference) else { continue }
                let value = try await gatt.read(handle: reference.handle)
                guard value.count == 2 else { throw HIDError.malformedReportReference(reference.handle, length: value.count) }
                guard value[1] == 0x01, let layout = descriptor.inputReport(id: value[0]) else { continue }
                inputs.append(InputReport(characteristic: report.characteristic, layout: layout,
                                          clientConfiguration: try clientConfiguration(of: report)))
            }
        }
        var boot = false
        if inputs.isEmpty, let keyboard = hid.characteristic(HIDProfile.bootKeyboardInput),
           let layout = HIDReportDescriptor.bootKeyboard.inputReport(id: 0) {
            descriptor = .bootKeyboard
            inputs = [InputReport(characteristic: keyboard.characteristic, layout: layout,
                                  clientConfiguration: try clientConfiguration(of: keyboard))]
            boot = true
        }
        guard !inputs.isEmpty else { throw HIDError.noInputReports }
        var information: HIDInformation?
        if let characteristic = hid.characteristic(HIDProfile.information)?.characteristic {
            information = try HIDInformation(decoding: try await gatt.read(handle: characteristic.valueHandle))
        }
        return HIDDevice(descriptor: descriptor, inputReports: inputs, usesBootProtocol: boot, batteryLevelHandle: battery,
                         protocolModeHandle: hid.characteristic(HIDProfile.protocolMode)?.characteristic.valueHandle,
                         information: information, deviceInformation: try await DeviceInformation.read(database, gatt: gatt))
    }

    private static func clientConfiguration(of report: GATTDatabase.Characteristic) throws -> AttributeHandle {
        guard let cccd = report.descriptor(.clientCharacteristicConfiguration) else {
            throw GATTError.noClientCharacteristicConfiguration(valueHandle: report.characteristic.valueHandle)
        }
        return cccd.handle
    }

    /// Whether `database` still has every input report, its CCCD, the protocol mode and the
    /// battery level at the handles this device was read with.
    public func isDescribed(by database: GATTDatabase) -> Bool {
        for report in inputReports {
            guard let found = database.characteristic(valueHandle: report.characteristic.valueHandle),
                  found.characteristic == report.characteristic,
                  found.descriptor(.clientCharacteristicConfiguration)?.handle == report.clientConfiguration
            else { return false }
        }
        for handle in [protocolModeHandle, batteryLevelHandle].compactMap({ $0 }) where database.characteristic(valueHandle: handle) == nil {
            return false
        }
        return true
    }

    /// Routes each input report's values on `gatt` to the handler `handler(for:)` gives it.
    public func route(_ gatt: GATTClient, handler: (InputReport) -> any ATTValueHandler) {
        for report in inputReports { gatt.bearer.setValueHandler(handler(report), forHandle: report.characteristic.valueHandle) }
    }

    /// Sets the protocol mode (boot or report) and enables every input report's notifications,
    /// as each new link needs (a device starts every link in Report Protocol Mode, HOGP 1.0 5.4.2).
    public func start(_ gatt: GATTClient) async throws(HIDError) {
        try await filing(HIDError.init(filing:)) {
            if let protocolModeHandle {
                try await gatt.writeWithoutResponse([usesBootProtocol ? HIDProfile.bootProtocol : HIDProfile.reportProtocol],
                                                    handle: protocolModeHandle)
            }
            for report in inputReports {
                try await gatt.write([0x01, 0x00], handle: report.clientConfiguration)  // notifications on
            }
        }
    }
}
