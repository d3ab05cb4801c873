import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A generic device for tests: a readable 300-byte value, a writable one, a notifying one
/// that counts up once subscribed, and a Battery Service (87 % unless the scenario says).
package final class SimulatedTestDevice: SimulatedBehaviour {
    package static let service = BluetoothUUID("8D1E0001-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    package static let long = BluetoothUUID("8D1E0002-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    package static let control = BluetoothUUID("8D1E0003-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    package static let counter = BluetoothUUID("8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE")

    let clock: any Clock<Duration>
    let notifications: Int
    private let events = SimLog()

    let battery: UInt8

    init(clock: any Clock<Duration>, notifications: Int, battery: UInt8) {
        self.clock = clock
        self.notifications = notifications
        self.battery = battery
    }

    var log: [String] { events.all }

    private let counterHandle = Lock<AttributeHandle>(.reserved)

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(Self.service)
        database.addCharacteristic(Self.long, properties: [.read], value: (0..<300).map { UInt8($0 % 256) })
        database.addCharacteristic(Self.control, properties: [.write, .writeWithoutResponse], onWrite: { [events] _, value in
            events.append("write \(value.map { String($0, radix: 16) }.joined(separator: " "))")
            return nil
        })
        let counter = database.addCharacteristic(Self.counter, properties: [.notify])
        counterHandle.withLock { $0 = counter.valueHandle }
        // Last, so that the handles above stay where earlier captures have them.
        database.addPrimaryService(.batteryService)
        database.addCharacteristic(.batteryLevel, properties: [.read], value: [battery])
    }

    func attach(to peripheral: Peripheral) {
        let handle = counterHandle.withLock { $0 }
        let count = notifications
        whenSubscribed(peripheral, to: handle) { [clock, events] server in
            for index in 0..<count {
                try? await clock.sleep(for: .milliseconds(10))
                let value = withUnsafeBytes(of: UInt32(index).littleEndian) { Array($0) }
                await events.notify(server, valueHandle: handle, value: value)
            }
        }
    }
}
