import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A Bluetooth camera shutter remote of the common "AB Shutter3" kind: HID over GATT with a
/// keyboard report (ID 1) and a consumer-control report (ID 2), its reports and their CCCDs
/// readable and writable only on an encrypted link; once a host subscribes to the consumer
/// report it presses Volume Up (and releases it 80 ms later) at each scripted time. As a boot
/// keyboard only (`bootKeyboardOnly`), it offers the Boot Keyboard Input Report alone and
/// presses Enter there.
package final class SimulatedShutterRemote: SimulatedBehaviour {
    let clock: any Clock<Duration>
    let presses: [Duration]
    let battery: UInt8
    let bootKeyboardOnly: Bool
    private let events = SimLog()
    private let consumerHandle = Lock<AttributeHandle>(.reserved)

    /// The Report Map: keyboard (ID 1: modifiers, reserved, six keys) and consumer control (ID 2: Volume Up,
    /// Volume Down, six bits of padding).
    static let reportMap: [UInt8] = [
        0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x85, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00,
        0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x01, 0x95, 0x06,
        0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xC0,
        0x05, 0x0C, 0x09, 0x01, 0xA1, 0x01, 0x85, 0x02, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x02,
        0x09, 0xE9, 0x09, 0xEA, 0x81, 0x02, 0x95, 0x06, 0x81, 0x01, 0xC0,
    ]

    /// bcdHID 1.11, no country, normally connectable.
    package static let information = HIDInformation(version: 0x0111, normallyConnectable: true)
    /// Device Information; the PnP ID in the Bluetooth SIG's vendor ID space, 0xFFFF (for tests).
    package static let manufacturer = "Strobe Sim"
    package static let model = "AB Shutter3"
    package static let pnpID = DeviceInformation.PnPID(vendorIDSource: 0x01, vendorID: 0xFFFF, productID: 0x0001, productVersion: 0x0100)

    init(clock: any Clock<Duration>, presses: [Duration], battery: UInt8, bootKeyboardOnly: Bool = false) {
        self.clock = clock
        self.presses = presses
        self.battery = battery
        self.bootKeyboardOnly = bootKeyboardOnly
    }

    var log: [String] { events.all }
    var advertisedServices: [BluetoothUUID] { [HIDProfile.service] }
    /// Generic Human Interface Device, as a shutter remote presents itself.
    var appearance: UInt16 { 0x03C0 }

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(HIDProfile.service)
        if bootKeyboardOnly {
            database.addCharacteristic(HIDProfile.information, properties: [.read], value: Self.information.encoded)
            let boot = database.addCharacteristic(HIDProfile.bootKeyboardInput, properties: [.read, .notify],
                                                  value: [UInt8](repeating: 0, count: 8), security: .unauthenticated)
            consumerHandle.withLock { $0 = boot.valueHandle }
            database.addCharacteristic(HIDProfile.protocolMode, properties: [.read, .writeWithoutResponse], value: [HIDProfile.bootProtocol],
                                       security: .unauthenticated)
            return
        }
        database.addCharacteristic(HIDProfile.information, properties: [.read], value: Self.information.encoded)
        database.addCharacteristic(HIDProfile.reportMap, properties: [.read], value: Self.reportMap, security: .unauthenticated)
        database.addCharacteristic(HIDProfile.report, properties: [.read, .notify], value: [UInt8](repeating: 0, count: 8),
                                   security: .unauthenticated)
        database.addDescriptor(HIDProfile.reportReference, value: [0x01, 0x01])
        let consumer = database.addCharacteristic(HIDProfile.report, properties: [.read, .notify], value: [0x00], security: .unauthenticated)
        database.addDescriptor(HIDProfile.reportReference, value: [0x02, 0x01])
        consumerHandle.withLock { $0 = consumer.valueHandle }
        database.addCharacteristic(HIDProfile.protocolMode, properties: [.read, .writeWithoutResponse], value: [HIDProfile.reportProtocol],
                                   security: .unauthenticated)
        database.addCharacteristic(HIDProfile.controlPoint, properties: [.writeWithoutResponse], security: .unauthenticated)
        database.addPrimaryService(HIDProfile.batteryService)
        database.addCharacteristic(HIDProfile.batteryLevel, properties: [.read], value: [battery])
        database.addPrimaryService(DeviceInformation.service)
        database.addCharacteristic(DeviceInformation.manufacturerNameString, properties: [.read], value: Array(Self.manufacturer.utf8))
        database.addCharacteristic(DeviceInformation.modelNumberString, properties: [.read], value: Array(Self.model.utf8))
        database.addCharacteristic(DeviceInformation.pnpIDCharacteristic, properties: [.read], value: Self.pnpID.encoded)
    }

    func attach(to peripheral: Peripheral) {
        let handle = consumerHandle.withLock { $0 }
        let presses = self.presses
        // Volume Up on the consumer report, or Enter in the boot keyboard report's first key slot.
        let (down, up): ([UInt8], [UInt8]) = bootKeyboardOnly ? ([0, 0, 0x28, 0, 0, 0, 0, 0], [UInt8](repeating: 0, count: 8)) : ([0x01], [0x00])
        whenSubscribed(peripheral, to: handle) { [clock, events] server in
            var elapsed = Duration.zero
            for at in presses {
                try? await clock.sleep(for: max(at - elapsed, .zero))
                events.append("press")
                await events.notify(server, valueHandle: handle, value: down)
                try? await clock.sleep(for: .milliseconds(80))
                await events.notify(server, valueHandle: handle, value: up)
                elapsed = at + .milliseconds(80)
            }
        }
    }
}
