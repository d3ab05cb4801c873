import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A camera grip (reference profile v1): firmware revision, battery, and a scripted sequence of
/// button events sent once a central subscribes.
final class SimulatedGrip: SimulatedBehaviour {
    let clock: any Clock<Duration>
    let firmware: String
    let battery: UInt8
    let script: [(delay: Duration, event: GripEvent)]
    private let events = SimLog()
    private let box = PeripheralBox()

    init(clock: any Clock<Duration>, firmware: String, battery: UInt8, script: [(delay: Duration, event: GripEvent)]) {
        self.clock = clock
        self.firmware = firmware
        self.battery = battery
        self.script = script
    }

    var log: [String] { events.all }

    private let eventsHandle = Lock<AttributeHandle>(.reserved)

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(GripProfile.service)
        // As a real grip: events only on an encrypted link (its CCCD needs one too).
        let characteristic = database.addCharacteristic(GripProfile.events, properties: [.notify], security: .unauthenticated)
        eventsHandle.withLock { $0 = characteristic.valueHandle }
        database.addPrimaryService(GripProfile.deviceInformationService)
        database.addCharacteristic(GripProfile.firmwareRevision, properties: [.read], value: Array(firmware.utf8))
        database.addPrimaryService(GripProfile.batteryService)
        database.addCharacteristic(GripProfile.batteryLevel, properties: [.read, .notify], value: [battery])
    }

    func attach(to peripheral: Peripheral) {
        box.peripheral.withLock { $0 = peripheral }
        let handle = eventsHandle.withLock { $0 }
        let script = self.script
        whenSubscribed(peripheral, to: handle) { [clock, events] server in
            var sequence: UInt16 = 0
            for (delay, event) in script {
                // A zero delay sends at once, as a grip whose button is already down does.
                if delay > .zero { try? await clock.sleep(for: delay) }
                events.append("event \(event)")
                await events.notify(server, valueHandle: handle, value: GripEventRecord.encode([GripEventRecord(sequence: sequence, event: event)]))
                sequence &+= 1
            }
        }
    }
}
