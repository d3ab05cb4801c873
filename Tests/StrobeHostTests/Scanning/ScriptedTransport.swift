import StrobeBase
import Synchronization
import StrobeHCI

// The same in-memory controller double as the HCI tests use (test targets cannot share files).

/// An in-memory transport that plays a controller: records what the host writes, answers
/// through a responder from inside `send`, and lets a test inject packets.
final class ScriptedTransport: HCITransport {
    typealias Responder = @Sendable (_ packet: [UInt8]) -> [[UInt8]]

    private struct State {
        var sink: (any HCIPacketSink)?
        var sent: [[UInt8]] = []
        /// When each packet of `sent` was handed over, on the real clock.
        var sentAt: [ContinuousClock.Instant] = []
        var responder: Responder?
        var closed = false
    }

    let name = "scripted"
    private let state = Lock(State())

    init(responder: Responder? = nil) {
        state.withLock { $0.responder = responder }
    }

    var sent: [[UInt8]] { state.withLock { $0.sent } }

    /// When the first packet matching `predicate` was handed over (on the sending thread).
    func firstSent(where predicate: ([UInt8]) -> Bool) -> ContinuousClock.Instant? {
        state.withLock { s in s.sent.firstIndex(where: predicate).map { s.sentAt[$0] } }
    }

    /// What the responder answers to `packet`, without sending it (for a responder built on
    /// another's).
    func answers(to packet: [UInt8]) -> [[UInt8]] { state.withLock { $0.responder }?(packet) ?? [] }

    func start(_ sink: any HCIPacketSink) throws(TransportError) {
        state.withLock { $0.sink = sink }
    }

    func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        let packet = Array(h4Packet)
        let responder = try state.withLock { s throws(TransportError) in
            guard !s.closed, s.sink != nil else { throw TransportError.notOpen }
            s.sent.append(packet)
            s.sentAt.append(ContinuousClock.now)
            return s.responder
        }
        for reply in responder?(packet) ?? [] { deliver(reply) }
    }

    func close() {
        let sink = state.withLock { s -> (any HCIPacketSink)? in
            guard !s.closed else { return nil }
            s.closed = true
            return s.sink
        }
        sink?.transportDidClose(nil)
    }

    func deliver(_ h4Packet: [UInt8], at time: HostTime = HostTime(nanoseconds: 1)) {
        guard let sink = state.withLock({ $0.sink }), let first = h4Packet.first,
              let type = HCIPacketType(rawValue: first) else { return }
        h4Packet.withUnsafeBytes { bytes in
            sink.transportDidReceive(type, payload: UnsafeRawBufferPointer(rebasing: bytes[1...]), at: time)
        }
    }
}

/// `"04 0e 04"` -> `[0x04, 0x0E, 0x04]`.
func bytes(_ hexString: String) -> [UInt8] {
    hexString.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0, radix: 16) }
}

func opcode(of packet: [UInt8]) -> HCIOpcode? {
    guard packet.count >= 4, packet[0] == HCIPacketType.command.rawValue else { return nil }
    return HCIOpcode(rawValue: UInt16(packet[1]) | UInt16(packet[2]) << 8)
}

/// A controller that answers every command with success; the init commands with a 5.3 LE
/// controller's values, with or without the extended scanning commands.
func scriptedController(extendedScanning: Bool) -> ScriptedTransport {
    var commands = HCISupportedCommands()
    if extendedScanning {
        commands.insert(.leSetExtendedScanParameters)
        commands.insert(.leSetExtendedScanEnable)
    }
    let supported = commands.octets
    return ScriptedTransport { packet in
        guard let op = opcode(of: packet) else { return [] }
        let returned: [UInt8] = switch op {
        case .readLocalVersionInformation: [0x0C, 0x00, 0x00, 0x0C, 0x02, 0x00, 0x00, 0x00]
        case .readBDAddr: [0x55, 0x44, 0x33, 0x22, 0x11, 0x00]
        case .readLocalSupportedCommands: supported
        case .readLocalSupportedFeatures, .leReadLocalSupportedFeatures: [UInt8](repeating: 0, count: 8)
        case .leReadBufferSizeV1: [27, 0, 8]
        default: []
        }
        let parameters = [1, UInt8(op.rawValue & 0xFF), UInt8(op.rawValue >> 8), 0] + returned
        return [[0x04, 0x0E, UInt8(parameters.count)] + parameters]
    }
}

/// An H4 LE Advertising Report with one report.
func advertisingReport(eventType: UInt8, addressType: UInt8 = 0x01, address: [UInt8] = [0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0],
                       data: [UInt8], rssi: Int8) -> [UInt8] {
    let parameters = [0x02, 0x01, eventType, addressType] + address + [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
    return [0x04, 0x3E, UInt8(parameters.count)] + parameters
}

/// An H4 LE Extended Advertising Report with one report.
func extendedAdvertisingReport(eventType: UInt16, addressType: UInt8 = 0x01,
                               address: [UInt8] = [0xF5, 0xF4, 0xF3, 0xF2, 0xF1, 0xF0],
                               sid: UInt8 = 1, txPower: Int8 = 127, data: [UInt8], rssi: Int8) -> [UInt8] {
    var parameters: [UInt8] = [0x0D, 0x01, UInt8(eventType & 0xFF), UInt8(eventType >> 8), addressType] + address
    parameters += [0x01, 0x02, sid, UInt8(bitPattern: txPower), UInt8(bitPattern: rssi), 0x00, 0x00, 0x00]
    parameters += [UInt8](repeating: 0, count: 6) + [UInt8(data.count)] + data
    return [0x04, 0x3E, UInt8(parameters.count)] + parameters
}

extension Task where Failure == any Error {
    /// The task's value; cancelling the waiter (a test's time limit) cancels the task, so that a
    /// regression fails the test instead of hanging it.
    var outcome: Success {
        get async throws {
            try await withTaskCancellationHandler { try await value } onCancel: { cancel() }
        }
    }
}
