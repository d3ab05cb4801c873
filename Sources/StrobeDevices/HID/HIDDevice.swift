import StrobeHCI
import StrobeHost

/// The HID-over-GATT host role on one link (HOGP 1.0, 6): the link secured (HOGP requires an
/// encrypted, bonded link), the HID service's Report Map read and parsed, each input Report
/// found through its Report Reference, Report Protocol Mode set, and every input report
/// subscribed to, its values handed to `listener(for:)`'s handler on the receive path. A device
/// offering only the boot keyboard report is used in the boot protocol.
public struct HIDDevice: Sendable {
    public struct InputReport: Sendable, Hashable {
        public var characteristic: GATTCharacteristic
        public var layout: HIDReportDescriptor.Report
    }

    public let descriptor: HIDReportDescriptor
    public let inputReports: [InputReport]
    public let usesBootProtocol: Bool
    public let batteryLevelHandle: AttributeHandle?

    /// Discovers and reads the device (securing the link first), without subscribing.
    public static func discover(on connection: LEConnection) async throws -> HIDDevice {
        try await connection.secure(to: .unauthenticated)
        let gatt = connection.gatt
        let database = try await gatt.discoverDatabase(subscribeToServiceChanged: false)
        guard let hid = database.service(HIDProfile.service) else {
            throw HIDSetupError.notAHIDDevice(services: database.services.map(\.service.uuid.description))
        }
        let battery = database.characteristic(HIDProfile.batteryLevel, inService: HIDProfile.batteryService)?.characteristic.valueHandle
        var descriptor = HIDReportDescriptor.bootKeyboard
        var inputs: [InputReport] = []
        if let map = hid.characteristic(HIDProfile.reportMap) {
            let bytes = try await gatt.readLong(handle: map.characteristic.valueHandle)
            do throws(HIDDescriptorError) {
                descriptor = try HIDReportDescriptor(parsing: bytes)
            } catch {
                throw HIDSetupError.reportMap(error)
            }
            for report in hid.characteristics where report.characteristic.uuid == HIDProfile.report && report.characteristic.properties.contains(.notify) {
                guard let reference = report.descriptor(HIDProfile.reportReference) else { continue }
                let value = try await gatt.read(handle: reference.handle)
                guard value.count == 2 else { throw HIDSetupError.malformedReportReference(reference.handle, length: value.count) }
                guard value[1] == 0x01, let layout = descriptor.inputReport(id: value[0]) else { continue }
                inputs.append(InputReport(characteristic: report.characteristic, layout: layout))
            }
        }
        var boot = false
        if inputs.isEmpty, let keyboard = hid.characteristic(HIDProfile.bootKeyboardInput),
           let layout = HIDReportDescriptor.bootKeyboard.inputReport(id: 0) {
            descriptor = .bootKeyboard
            inputs = [InputReport(characteristic: keyboard.characteristic, layout: layout)]
            boot = true
        }
        guard !inputs.isEmpty else { throw HIDSetupError.noInputReports }
        if let mode = hid.characteristic(HIDProfile.protocolMode) {
            try await gatt.writeWithoutResponse([boot ? HIDProfile.bootProtocol : HIDProfile.reportProtocol],
                                                handle: mode.characteristic.valueHandle)
        }
        return HIDDevice(descriptor: descriptor, inputReports: inputs, usesBootProtocol: boot, batteryLevelHandle: battery)
    }

    /// Subscribes to every input report, each to the handler `handler(for:)` gives it.
    public func subscribe(_ gatt: GATTClient, handler: (InputReport) -> any ATTValueHandler) async throws {
        for report in inputReports {
            try await gatt.subscribe(report.characteristic, to: .notification, handler: handler(report))
        }
    }
}
