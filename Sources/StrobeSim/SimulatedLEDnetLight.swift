import StrobeHost
import StrobeLights
import StrobeBase
import Synchronization

/// A LEDnet ("Triones") Bluetooth light: service 0xFFD5 with the write characteristic 0xFFD9,
/// service 0xFFD0 with the notify characteristic 0xFFD4; takes power, colour and warm-white
/// commands and answers the state query with its 12-byte state.
final class SimulatedLEDnetLight: SimulatedBehaviour {
    private let state = Lock(LEDnetState(power: true, red: 0, green: 0, blue: 0, warmWhite: 255))
    private let notifyHandle = Lock<AttributeHandle>(.reserved)
    private let events = SimLog()
    private let box = PeripheralBox()

    var log: [String] { events.all }

    func build(_ database: GATTAttributeDatabase) {
        database.addPrimaryService(LEDnetProfile.trionesWriteService)
        database.addCharacteristic(LEDnetProfile.trionesWrite, properties: [.writeWithoutResponse, .write], onWrite: { [self] _, value in
            handle(value)
            return nil
        })
        database.addPrimaryService(LEDnetProfile.trionesNotifyService)
        let notify = database.addCharacteristic(LEDnetProfile.trionesNotify, properties: [.notify])
        notifyHandle.withLock { $0 = notify.valueHandle }
    }

    func attach(to peripheral: Peripheral) {
        box.peripheral.withLock { $0 = peripheral }
    }

    private func handle(_ value: [UInt8]) {
        guard let command = LEDnetCommand(bytes: value) else {
            events.append("unparsable command \(value.map { String($0, radix: 16) }.joined(separator: " "))")
            return
        }
        events.append("command \(command)")
        let answer = state.withLock { s -> [UInt8]? in
            switch command {
            case .queryState: return s.bytes
            case .power(let on): s.power = on
            case .color(let red, let green, let blue): (s.red, s.green, s.blue, s.warmWhite) = (red, green, blue, 0)
            case .warmWhite(let level): (s.red, s.green, s.blue, s.warmWhite) = (0, 0, 0, level)
            case .effect: break
            }
            return nil
        }
        guard let answer else { return }
        let handle = notifyHandle.withLock { $0 }
        guard let peripheral = box.peripheral.withLock({ $0 }) else { return }
        Task(executorPreference: peripheral.firmwareExecutor) {
            await peripheral.notify(valueHandle: handle, value: answer)
        }
    }
}
