import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A Nova flash (V1 or V2) following the protocol facts: every ping, flash and off is acked with
/// its request id; a flash lights the LEDs until OFF or its safety timeout; V2 keeps defaults,
/// counters and a battery level, and presses its own trigger button when scripted to.
final class SimulatedNova: SimulatedBehaviour {
    let model: NovaModel
    let clock: any Clock<Duration>
    let triggerPresses: [Duration]
    let battery: UInt8
    let misbehaviour: SimulatedDeviceDescription.NovaMisbehaviour?
    private let state = Lock(State())
    private let events = SimLog()
    private let box = PeripheralBox()

    private struct State {
        var defaults = NovaFlashDefaults(regular: .warm, preflash: NovaFlashSettings(warm: 64, cool: 0, timeoutMilliseconds: 60))
        var flashes: UInt32 = 0
        var lit = false
        var litGeneration = 0
        var responseHandle: AttributeHandle = .reserved
    }

    init(model: NovaModel, clock: any Clock<Duration>, triggerPresses: [Duration], battery: UInt8,
         misbehaviour: SimulatedDeviceDescription.NovaMisbehaviour? = nil) {
        self.misbehaviour = misbehaviour
        self.model = model
        self.clock = clock
        self.triggerPresses = triggerPresses
        self.battery = battery
    }

    var log: [String] { events.all }

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(model.service)
        database.addCharacteristic(model.requestCharacteristic, properties: [.write], onWrite: { [self] _, value in
            handle(value)
            return nil
        })
        let response = database.addCharacteristic(model.responseCharacteristic, properties: [.notify])
        state.withLock { $0.responseHandle = response.valueHandle }
        if model == .v2 {
            database.addCharacteristic(NovaProfile.v2FlashDefaults, properties: [.read, .write],
                                       onRead: { [self] _ in state.withLock { $0.defaults.encoded() } },
                                       onWrite: { [self] _, value in
                                           guard let defaults = value.withUnsafeBytes({ try? NovaFlashDefaults(decoding: $0) }) else { return .invalidAttributeValueLength }
                                           state.withLock { $0.defaults = defaults }
                                           return nil
                                       })
            database.addCharacteristic(NovaProfile.v2Counters, properties: [.read],
                                       onRead: { [self] _ in NovaCounters(values: [state.withLock { $0.flashes }, 0]).encoded() })
            database.addPrimaryService(NovaProfile.batteryService)
            database.addCharacteristic(NovaProfile.batteryLevel, properties: [.read], value: [battery])
        }
    }

    func attach(to peripheral: Peripheral) {
        box.peripheral.withLock { $0 = peripheral }
        guard model == .v2, !triggerPresses.isEmpty else { return }
        let handle = state.withLock { $0.responseHandle }
        // The trigger button, pressed and released at the scripted times after someone subscribes.
        let presses = triggerPresses
        whenSubscribed(peripheral, to: handle) { [clock] server in
            var previous = Duration.zero
            for press in presses {
                try? await clock.sleep(for: press - previous)
                previous = press
                for pressed in [true, false] {
                    self.events.append("trigger \(pressed ? "down" : "up")")
                    await self.events.notify(server, valueHandle: handle, value: NovaV2Message(requestID: 0, body: .trigger(pressed: pressed)).encoded())
                }
            }
        }
    }

    /// A request written by the central: act on it, then ack.
    private func handle(_ value: [UInt8]) {
        let parsed: (id: UInt16, command: NovaCommand)?
        switch model {
        case .v1:
            if let frame = try? NovaV1Frame(decoding: value) {
                switch frame.body {
                case .ping: parsed = (UInt16(frame.requestID), .ping)
                case .off: parsed = (UInt16(frame.requestID), .off)
                case .light(let settings): parsed = (UInt16(frame.requestID), .flash(settings))
                case .ack: parsed = nil
                }
            } else { parsed = nil }
        case .v2:
            if let message = try? NovaV2Message(decoding: value) {
                switch message.body {
                case .ping: parsed = (message.requestID, .ping)
                case .off: parsed = (message.requestID, .off)
                case .flash(let settings): parsed = (message.requestID, .flash(settings))
                case .ack, .trigger: parsed = nil
                }
            } else { parsed = nil }
        }
        guard let parsed else {
            events.append("unparsable request \(value.map { String($0, radix: 16) }.joined(separator: " "))")
            return
        }
        events.append("request \(parsed.id) \(parsed.command)")
        switch parsed.command {
        case .flash(let settings): light(settings)
        case .off: lightOff("off")
        case .ping: break
        }
        let ackID = misbehaviour == .wrongID ? parsed.id &+ 1 : parsed.id
        var ack = model == .v1
            ? NovaV1Frame(requestID: UInt8(truncatingIfNeeded: ackID), body: .ack).encoded()
            : NovaV2Message(requestID: ackID, body: .ack).encoded()
        switch misbehaviour {
        case .noAck?: return
        case .garbage?: ack = [0xFF, 0xFE]
        default: break
        }
        let handle = state.withLock { $0.responseHandle }
        guard let peripheral = box.peripheral.withLock({ $0 }) else { return }
        Task(executorPreference: peripheral.firmwareExecutor) {
            await peripheral.notify(valueHandle: handle, value: ack)
        }
    }

    private func light(_ settings: NovaFlashSettings) {
        let generation = state.withLock { s -> Int in
            s.lit = true
            s.flashes += 1
            s.litGeneration += 1
            return s.litGeneration
        }
        events.append("light warm \(settings.warm) cool \(settings.cool)")
        // The safety cut-off: the light goes out by itself when no OFF comes in time.
        Task(executorPreference: box.peripheral.withLock({ $0 })?.firmwareExecutor ?? clock.taskExecutor) { [self, clock] in
            try? await clock.sleep(for: settings.timeout)
            let stillLit = state.withLock { $0.lit && $0.litGeneration == generation }
            if stillLit { lightOff("safety timeout") }
        }
    }

    private func lightOff(_ why: String) {
        let was = state.withLock { s -> Bool in
            defer { s.lit = false }
            return s.lit
        }
        if was { events.append("light off (\(why))") }
    }
}

/// The peripheral a behaviour talks through, known once the device has started.
final class PeripheralBox: Sendable {
    let peripheral = Lock<Peripheral?>(nil)
}
