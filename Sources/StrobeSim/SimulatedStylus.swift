import StrobeDevices
import StrobeHCI
import StrobeHost
import Synchronization

/// A pressure stylus (reference profile v1): once subscribed, a stroke of samples at 1,000 per
/// second, sent as a batch every 8 ms; a button map to read and write; serial number; battery.
final class SimulatedStylus: SimulatedBehaviour {
    let clock: any Clock<Duration>
    let batches: Int
    private let events = SimLog()
    private let buttonMap = Mutex(StylusButtonMap(side1: .undo, side2: .erase))
    private let samplesHandle = Mutex<AttributeHandle>(.reserved)

    init(clock: any Clock<Duration>, batches: Int) {
        self.clock = clock
        self.batches = batches
    }

    var log: [String] { events.all }

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(StylusProfile.service)
        let samples = database.addCharacteristic(StylusProfile.samples, properties: [.notify])
        samplesHandle.withLock { $0 = samples.valueHandle }
        database.addCharacteristic(StylusProfile.buttonMap, properties: [.read, .write],
                                   onRead: { [self] _ in buttonMap.withLock { $0.encoded() } },
                                   onWrite: { [self] _, value in
                                       guard let map = try? StylusButtonMap(decoding: value) else { return .invalidAttributeValueLength }
                                       buttonMap.withLock { $0 = map }
                                       return nil
                                   })
        database.addPrimaryService(StylusProfile.deviceInformationService)
        database.addCharacteristic(StylusProfile.serialNumber, properties: [.read], value: Array("PEN-0001".utf8))
        database.addPrimaryService(StylusProfile.batteryService)
        database.addCharacteristic(StylusProfile.batteryLevel, properties: [.read], value: [92])
    }

    func attach(to peripheral: Peripheral) {
        let handle = samplesHandle.withLock { $0 }
        let batches = self.batches
        whenSubscribed(peripheral, to: handle) { [clock, events] server in
            var encoder = StylusBatchEncoder(includesPositions: false)
            for batch in 0..<batches {
                try? await clock.sleep(for: .milliseconds(8))
                // A stroke: tip down for all but the last batch, pressure rising then falling.
                let touching = batch < batches - 1
                let samples = (0..<8).map { index in
                    let step = batch * 8 + index
                    return StylusSample(deltaMicroseconds: 1000, rawPressure: touching ? UInt16(min(step * 16, 4095)) : 0,
                                        buttons: touching ? [.tipContact] : [])
                }
                guard let value = try? encoder.encode(samples) else { continue }
                if (try? await server.notify(valueHandle: handle, value: value)) == true {
                    events.append("batch \(batch)")
                }
            }
        }
    }
}
