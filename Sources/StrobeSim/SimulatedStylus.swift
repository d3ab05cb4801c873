import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A pressure stylus (reference profile v1): once subscribed, a stroke of samples at 1,000 per
/// second, sent as a batch every 8 ms; a button map to read and write; serial number; battery.
/// With a `channelPSM`, the same stroke goes over an LE credit-based channel that a host opens
/// on it, one batch per SDU.
final class SimulatedStylus: SimulatedBehaviour {
    let clock: any Clock<Duration>
    let batches: Int
    let channelPSM: UInt16?
    let interval: Duration
    private let events = SimLog()
    private let buttonMap = Lock(StylusButtonMap(side1: .undo, side2: .erase))
    private let samplesHandle = Lock<AttributeHandle>(.reserved)

    init(clock: any Clock<Duration>, batches: Int, channelPSM: UInt16? = nil, interval: Duration = .milliseconds(8)) {
        self.clock = clock
        self.batches = batches
        self.channelPSM = channelPSM
        self.interval = interval
    }

    var log: [String] { events.all }

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(StylusProfile.service)
        let samples = database.addCharacteristic(StylusProfile.samples, properties: [.notify])
        samplesHandle.withLock { $0 = samples.valueHandle }
        if let channelPSM {
            database.addCharacteristic(StylusProfile.samplesPSM, properties: [.read], value: [UInt8(channelPSM & 0xFF), UInt8(channelPSM >> 8)])
        }
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
        whenSubscribed(peripheral, to: handle) { [self] server in
            await stroke { value in await events.notify(server, valueHandle: handle, value: value) }
        }
        guard let channelPSM else { return }
        // Made before the task runs, so that no connection comes before it listens.
        let connections = peripheral.incomingConnections()
        let executor = peripheral.firmwareExecutor
        Task(executorPreference: executor) { [self] in
            for await connection in connections {
                guard let channels = try? connection.listen(psm: channelPSM, parameters: StylusProfile.channelParameters) else { continue }
                Task(executorPreference: executor) { [self] in
                    for await channel in channels {
                        await stroke { [events] value in
                            do {
                                try await channel.send(value)
                                return true
                            } catch {
                                events.append("channel send failed: \(error)")
                                return false
                            }
                        }
                    }
                }
            }
        }
    }

    /// One stroke, a batch every `interval` (8 ms: 1,000 samples/s), each handed to `send`;
    /// logged when it went.
    private func stroke(_ send: ([UInt8]) async -> Bool) async {
        var encoder = StylusBatchEncoder(includesPositions: false)
        for batch in 0..<batches {
            if interval > .zero { try? await clock.sleep(for: interval) }
            // A stroke: tip down for all but the last batch, pressure rising then falling.
            let touching = batch < batches - 1
            let samples = (0..<8).map { index in
                let step = batch * 8 + index
                return StylusSample(deltaMicroseconds: 1000, rawPressure: touching ? UInt16(min(step * 16, 4095)) : 0,
                                    buttons: touching ? [.tipContact] : [])
            }
            guard let value = try? encoder.encode(samples) else { continue }
            if await send(value) { events.append("batch \(batch)") }
        }
    }
}
