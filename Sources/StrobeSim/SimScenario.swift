import Foundation
import StrobeDevices
import StrobeHCI

/// One device of a simulated world.
public struct SimulatedDeviceDescription: Sendable, Hashable, Codable {
    /// What the device is, and so which GATT database and behaviour it has.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A Nova V1 flash, a Nova V2 flash, a camera grip, a pressure stylus, and a generic test
        /// device (a long readable value, a writable one, counting notifications, a Battery Service).
        case nova1, nova2, grip, stylus, test
        /// A LEDnet ("Triones") Bluetooth light, for modelling lights.
        case lednet
        /// A HID-over-GATT camera shutter remote ("AB Shutter3" kind).
        case remote
    }

    /// What the device is.
    public var kind: Kind
    /// The advertised Complete Local Name and the GAP Device Name, 1 to 26 bytes of UTF-8.
    public var name: String
    /// Random static address; derived from the device's position when absent.
    public var address: String?
    /// The RSSI, in dBm, the host sees in the device's advertising reports (default -55).
    public var rssi: Int
    /// The advertising interval in ms, 20...10240 (default 100).
    public var advertisingIntervalMilliseconds: Double
    /// Nova V2: seconds after the subscription at which the flash's own trigger button is pressed.
    /// Remote: seconds after the subscription at which Volume Up is pressed (default: `count`
    /// presses, one every 0.3 s).
    public var triggerPresses: [Double]?
    /// Grip: the events sent after the subscription, each with the delay before it in seconds.
    public var gripEvents: [ScriptedGripEvent]?
    /// Grip: the Firmware Revision String it reports (default `1.4.0`).
    public var firmware: String?
    /// The Battery Level in percent, 0...100, of a device with a Battery Service (default 87).
    public var battery: Int?
    /// Stylus: how many 8-sample batches one stroke has. Test device: how many notifications.
    public var count: Int?
    /// Nova: answer wrongly, for the host's failure rules: `noAck`, `wrongID` or `garbage`.
    public var misbehaviour: NovaMisbehaviour?
    /// Advertise and connect from resolvable private addresses (made from the device's IRK,
    /// which it gives to the hosts it bonds with), a new one every `privacyRotationMilliseconds`
    /// (default 15 minutes).
    public var privacy: Bool?
    /// With `privacy`: how often the resolvable private address changes, in ms (default 900000,
    /// 15 minutes).
    public var privacyRotationMilliseconds: Double?
    /// Remote: offer only the boot keyboard input report (no Report Map reports), pressing Enter.
    public var bootKeyboardOnly: Bool?
    /// Stylus: also stream over an LE credit-based channel on this SPSM (named in its Samples
    /// PSM characteristic), one batch per SDU, to a host that opens one.
    public var channelPSM: UInt16?
    /// Stylus: milliseconds between batches (default 8, 1,000 samples/s; 0: each as soon as the
    /// link takes the one before, for throughput).
    public var batchIntervalMilliseconds: Double?

    /// How a simulated Nova answers wrongly, to exercise the host's handling of failures.
    public enum NovaMisbehaviour: String, Sendable, Hashable, Codable {
        /// `noAck`: no acknowledgement at all; `wrongID`: an acknowledgement carrying the request id
        /// plus one; `garbage`: the two bytes `FF FE` instead of an acknowledgement.
        case noAck, wrongID, garbage
    }

    /// One button event a simulated grip sends, after a delay.
    public struct ScriptedGripEvent: Sendable, Hashable, Codable {
        /// Seconds to wait before sending it, counted from the event before (or from the
        /// subscription), 0...3600.
        public var after: Double
        /// The grip's event code byte, e.g. 0x01 shutter half press, 0x02 full press, 0x03 release.
        public var code: UInt8

        /// An event `code` sent `after` seconds after the one before.
        public init(after: Double, code: UInt8) {
            self.after = after
            self.code = code
        }
    }

    /// A device with defaults for everything else: an address from its position, RSSI -55 dBm,
    /// advertising every 100 ms.
    public init(kind: Kind, name: String, rssi: Int = -55, advertisingIntervalMilliseconds: Double = 100) {
        self.kind = kind
        self.name = name
        self.rssi = rssi
        self.advertisingIntervalMilliseconds = advertisingIntervalMilliseconds
    }

    var advertisingInterval: Duration { .microseconds(Int64(advertisingIntervalMilliseconds * 1000)) }
}

/// A simulated world as a JSON file describes it: the devices, the air between them and the
/// host's controller, and the seed that makes a run repeat.
public struct SimScenario: Sendable, Hashable, Codable {
    /// The devices, each on its own virtual controller; at most 200.
    public var devices: [SimulatedDeviceDescription]
    /// Fixes every random choice of the world (advertising delays, jitter, loss), so that a run
    /// repeats; default 1.
    public var seed: UInt64
    /// The host controller's LE ACL buffers.
    public var aclLength: Int?
    /// A fixed delay, in ms (0...10000), on every packet between the host and each device
    /// (default 0).
    public var latencyMilliseconds: Double?
    /// A random extra delay of up to this many ms (0...10000) on each packet (default 0).
    public var jitterMilliseconds: Double?
    /// The chance, 0...1, that a packet is lost and retransmitted at the next connection event
    /// (default 0).
    public var loss: Double?
    /// A defect of the host's controller: after answering the command with this opcode (hex,
    /// e.g. "0x200C" for LE Set Scan Enable) it grants no more command credits
    /// (Num_HCI_Command_Packets 0), so the host can send no further command.
    public var withholdsCommandCreditsAfter: String?

    /// A world of `devices`, with seed 1 unless given and no added latency, jitter or loss.
    public init(devices: [SimulatedDeviceDescription], seed: UInt64 = 1) {
        self.devices = devices
        self.seed = seed
    }

    /// What `strobe` uses when no scenario is given: one of each device.
    public static let standard: SimScenario = {
        var nova2 = SimulatedDeviceDescription(kind: .nova2, name: "Nova2", rssi: -48)
        nova2.battery = 80
        var grip = SimulatedDeviceDescription(kind: .grip, name: "Grip-S1", rssi: -60)
        grip.firmware = "1.4.0"
        grip.gripEvents = [.init(after: 0.5, code: 0x01), .init(after: 0.2, code: 0x02), .init(after: 0.1, code: 0x03)]
        var stylus = SimulatedDeviceDescription(kind: .stylus, name: "Pen-S1", rssi: -52)
        stylus.count = 125
        stylus.channelPSM = 0x0085
        // Presses Volume Up every 0.3 s for as long as a host listens (up to 1000 presses).
        var remote = SimulatedDeviceDescription(kind: .remote, name: "AB Shutter3", rssi: -58)
        remote.count = 1000
        return SimScenario(devices: [
            SimulatedDeviceDescription(kind: .nova1, name: "Nova", rssi: -57),
            nova2, grip, stylus,
            SimulatedDeviceDescription(kind: .test, name: "Strobe-Test", rssi: -70),
            SimulatedDeviceDescription(kind: .lednet, name: "LEDBLE-Key", rssi: -62),
            remote,
        ])
    }()

    /// Reads a scenario from a JSON file; throws when the file cannot be read, is not a scenario,
    /// or holds a value out of range (the error names the file and what was wrong).
    public init(contentsOf path: String) throws {
        do {
            self = try JSONDecoder().decode(SimScenario.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch let error as DecodingError {
            throw SimError.badScenario(path: path, reason: "\(error)")
        } catch {
            throw SimError.badScenario(path: path, reason: error.localizedDescription)
        }
        try validate(path: path)
    }

    /// Values a file may hold but a world cannot use are refused with what was wrong.
    func validate(path: String) throws {
        func bad(_ reason: String) -> SimError { .badScenario(path: path, reason: reason) }
        guard devices.count <= 200 else { throw bad("\(devices.count) devices; at most 200") }
        if let aclLength, !(27...1024).contains(aclLength) { throw bad("aclLength \(aclLength) is outside 27...1024") }
        if let latency = latencyMilliseconds, !(0...10_000).contains(latency) { throw bad("latencyMilliseconds must be 0...10000") }
        if let jitter = jitterMilliseconds, !(0...10_000).contains(jitter) { throw bad("jitterMilliseconds must be 0...10000") }
        if let loss, !(0...1).contains(loss) { throw bad("loss must be between 0 and 1") }
        if let opcode = withholdsCommandCreditsAfter, Self.opcode(opcode) == nil {
            throw bad("withholdsCommandCreditsAfter '\(opcode)' is no opcode (hex, e.g. 0x200C)")
        }
        for device in devices {
            guard !device.name.isEmpty, device.name.utf8.count <= 26 else { throw bad("device name '\(device.name)' must be 1 to 26 bytes") }
            guard (20...10_240).contains(device.advertisingIntervalMilliseconds) else {
                throw bad("\(device.name): advertisingIntervalMilliseconds must be 20...10240")
            }
            if let count = device.count, !(0...1_000_000).contains(count) { throw bad("\(device.name): count must be 0...1000000") }
            if let battery = device.battery, !(0...100).contains(battery) { throw bad("\(device.name): battery must be 0...100") }
            for time in (device.triggerPresses ?? []) + (device.gripEvents ?? []).map(\.after) where !(0...3600).contains(time) {
                throw bad("\(device.name): scripted times must be 0...3600 seconds")
            }
        }
    }
}

extension SimScenario {
    /// "0x200C" or "200C" -> 0x200C.
    static func opcode(_ text: String) -> UInt16? {
        UInt16(text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text, radix: 16)
    }
}

package enum SimError: Error, Sendable, Hashable, CustomStringConvertible {
    case badScenario(path: String, reason: String)

    package var description: String {
        switch self {
        case .badScenario(let path, let reason): "cannot use scenario \(path): \(reason)"
        }
    }
}

extension SimulatedDeviceDescription.Kind {
    func makeBehaviour(_ description: SimulatedDeviceDescription, clock: any Clock<Duration>) -> any SimulatedBehaviour {
        let battery = UInt8(clamping: description.battery ?? 87)
        switch self {
        case .nova1:
            return SimulatedNova(model: .v1, clock: clock, triggerPresses: [], battery: battery, misbehaviour: description.misbehaviour)
        case .nova2:
            return SimulatedNova(model: .v2, clock: clock,
                                 triggerPresses: (description.triggerPresses ?? []).map { .milliseconds(Int64($0 * 1000)) },
                                 battery: battery, misbehaviour: description.misbehaviour)
        case .grip:
            let script = (description.gripEvents ?? []).map { (delay: Duration.milliseconds(Int64($0.after * 1000)), event: GripEvent(code: $0.code)) }
            return SimulatedGrip(clock: clock, firmware: description.firmware ?? "1.4.0", battery: battery, script: script)
        case .stylus:
            // At most a minute between batches; 0, a negative or a non-number: back to back.
            let interval = min(description.batchIntervalMilliseconds ?? 8, 60_000)
            return SimulatedStylus(clock: clock, batches: description.count ?? 125, channelPSM: description.channelPSM,
                                   interval: interval > 0 ? .microseconds(Int64(interval * 1000)) : .zero)
        case .test:
            return SimulatedTestDevice(clock: clock, notifications: description.count ?? 100, battery: battery)
        case .lednet:
            return SimulatedLEDnetLight()
        case .remote:
            let presses = description.triggerPresses ?? (1...(description.count ?? 5)).map { Double($0) * 0.3 }
            return SimulatedShutterRemote(clock: clock, presses: presses.map { .milliseconds(Int64($0 * 1000)) }, battery: battery,
                                          bootKeyboardOnly: description.bootKeyboardOnly == true)
        }
    }
}
