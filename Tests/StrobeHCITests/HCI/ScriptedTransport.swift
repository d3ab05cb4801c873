import StrobeBase
import Synchronization
import StrobeHCI

/// An in-memory transport that plays a controller: it records every packet the host writes,
/// answers through an optional responder (synchronously, from inside `send`, as a fast
/// controller on another thread might), and lets a test inject packets and closures.
final class ScriptedTransport: HCITransport {
    typealias Responder = @Sendable (_ packet: [UInt8]) -> [[UInt8]]

    private struct State {
        var sink: (any HCIPacketSink)?
        var sent: [[UInt8]] = []
        var responder: Responder?
        var sentWaiters: [(id: Int, count: Int, continuation: CheckedContinuation<[[UInt8]], Never>)] = []
        var nextWaiterID = 0
        var closeWaiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var closed = false
        var startError: TransportError?
    }

    let name = "scripted"
    private let state = Lock(State())

    init(responder: Responder? = nil, startError: TransportError? = nil) {
        state.withLock {
            $0.responder = responder
            $0.startError = startError
        }
    }

    func setResponder(_ responder: Responder?) { state.withLock { $0.responder = responder } }

    var sent: [[UInt8]] { state.withLock { $0.sent } }
    var isClosed: Bool { state.withLock { $0.closed } }

    func start(_ sink: any HCIPacketSink) throws(TransportError) {
        try state.withLock { s throws(TransportError) in
            if let error = s.startError { throw error }
            s.sink = sink
        }
    }

    func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) {
        let packet = Array(h4Packet)
        let (responder, ready) = try state.withLock { s throws(TransportError) in
            guard !s.closed, s.sink != nil else { throw TransportError.notOpen }
            s.sent.append(packet)
            let count = s.sent.count
            let sent = s.sent
            var ready: [(CheckedContinuation<[[UInt8]], Never>, [[UInt8]])] = []
            s.sentWaiters.removeAll { waiter in
                guard waiter.count <= count else { return false }
                ready.append((waiter.continuation, sent))
                return true
            }
            return (s.responder, ready)
        }
        for (continuation, sent) in ready { continuation.resume(returning: sent) }
        for reply in responder?(packet) ?? [] { deliver(reply) }
    }

    func close() { end(nil) }

    /// The link fails under the host (`closedByPeer` and the like).
    func fail(_ error: TransportError) { end(error) }

    private func end(_ error: TransportError?) {
        let ended = state.withLock { s -> (sink: (any HCIPacketSink)?, waiters: [CheckedContinuation<Void, Never>])? in
            guard !s.closed else { return nil }
            s.closed = true
            defer { s.closeWaiters = [] }
            return (s.sink, s.closeWaiters.map(\.continuation))
        }
        guard let ended else { return }
        for waiter in ended.waiters { waiter.resume() }
        ended.sink?.transportDidClose(error)
    }

    /// Suspends until the transport is closed (by the host or `fail`), or the task is cancelled.
    func waitForClose() async {
        let id = state.withLock { s in
            s.nextWaiterID += 1
            return s.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { s -> Bool in
                    if s.closed || Task.isCancelled { return true }
                    s.closeWaiters.append((id, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard let index = s.closeWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.closeWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    /// Delivers one H4 packet (type byte first) from the "controller".
    func deliver(_ h4Packet: [UInt8], at time: HostTime = HostTime(nanoseconds: 1)) {
        guard let sink = state.withLock({ $0.sink }), let first = h4Packet.first,
              let type = HCIPacketType(rawValue: first) else { return }
        h4Packet.withUnsafeBytes { bytes in
            sink.transportDidReceive(type, payload: UnsafeRawBufferPointer(rebasing: bytes[1...]), at: time)
        }
    }

    func deliver(_ hexString: String) { deliver(bytes(hexString)) }

    /// Suspends until at least `count` packets were written, or the task is cancelled; returns
    /// what was written.
    func waitForSent(count: Int) async -> [[UInt8]] {
        let id = state.withLock { s in
            s.nextWaiterID += 1
            return s.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let sent = state.withLock { s -> [[UInt8]]? in
                    if s.sent.count >= count || Task.isCancelled { return s.sent }
                    s.sentWaiters.append((id, count, continuation))
                    return nil
                }
                if let sent { continuation.resume(returning: sent) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> (CheckedContinuation<[[UInt8]], Never>, [[UInt8]])? in
                guard let index = s.sentWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return (s.sentWaiters.remove(at: index).continuation, s.sent)
            }
            waiter.map { $0.0.resume(returning: $0.1) }
        }
    }
}

/// `"04 0e 04"` -> `[0x04, 0x0E, 0x04]`.
func bytes(_ hexString: String) -> [UInt8] {
    hexString.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { UInt8($0, radix: 16) }
}

/// The opcode of an H4 command packet, if it is one.
func opcode(of packet: [UInt8]) -> HCIOpcode? {
    guard packet.count >= 4, packet[0] == HCIPacketType.command.rawValue else { return nil }
    return HCIOpcode(rawValue: UInt16(packet[1]) | UInt16(packet[2]) << 8)
}

/// An H4 Command Complete event.
func commandComplete(_ opcode: HCIOpcode, credits: UInt8 = 1, status: UInt8 = 0, _ returnParameters: [UInt8] = []) -> [UInt8] {
    let parameters = [credits, UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8), status] + returnParameters
    return [0x04, 0x0E, UInt8(parameters.count)] + parameters
}

/// An H4 Command Status event.
func commandStatus(_ opcode: HCIOpcode, credits: UInt8 = 1, status: UInt8 = 0) -> [UInt8] {
    [0x04, 0x0F, 0x04, status, credits, UInt8(opcode.rawValue & 0xFF), UInt8(opcode.rawValue >> 8)]
}

/// An H4 Number Of Completed Packets event.
func completedPackets(_ entries: [(handle: UInt16, count: UInt16)]) -> [UInt8] {
    var parameters: [UInt8] = [UInt8(entries.count)]
    for entry in entries {
        parameters += [UInt8(entry.handle & 0xFF), UInt8(entry.handle >> 8), UInt8(entry.count & 0xFF), UInt8(entry.count >> 8)]
    }
    return [0x04, 0x13, UInt8(parameters.count)] + parameters
}

/// An H4 Disconnection Complete event.
func disconnectionComplete(handle: UInt16, reason: UInt8 = 0x13) -> [UInt8] {
    [0x04, 0x05, 0x04, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), reason]
}

/// What the scripted controller answers during the init sequence.
struct ControllerProfile: Sendable {
    var address: [UInt8] = [0x55, 0x44, 0x33, 0x22, 0x11, 0x00]
    /// HCI 5.3, revision 0x1234, LMP 5.3, company 0x0002, LMP subversion 0x5678.
    var version: [UInt8] = [0x0C, 0x34, 0x12, 0x0C, 0x02, 0x00, 0x78, 0x56]
    var supportedCommands = HCISupportedCommands()
    var lmpFeatures: UInt64 = 1 << 38 | 1 << 37
    var leFeatures: UInt64 = 0x0000_0000_0000_0165
    var leBufferV1: (length: UInt16, count: UInt8) = (27, 8)
    var leBufferV2: (length: UInt16, count: UInt8, isoLength: UInt16, isoCount: UInt8) = (251, 12, 0, 0)
    var brEdrBuffer: (length: UInt16, count: UInt16) = (1021, 6)
    var credits: UInt8 = 1

    static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// Command Complete for the init commands; Command Complete success for any other command
    /// that completes that way, Command Status success for the asynchronous ones.
    func answer(_ packet: [UInt8]) -> [[UInt8]] {
        guard let op = opcode(of: packet) else { return [] }
        let returnParameters: [UInt8]
        switch op {
        case .readLocalVersionInformation: returnParameters = version
        case .readBDAddr: returnParameters = address
        case .readLocalSupportedCommands: returnParameters = supportedCommands.octets
        case .readLocalSupportedFeatures: returnParameters = Self.le(lmpFeatures)
        case .leReadLocalSupportedFeatures: returnParameters = Self.le(leFeatures)
        case .leReadBufferSizeV1: returnParameters = Self.le(leBufferV1.length) + [leBufferV1.count]
        case .leReadBufferSizeV2:
            returnParameters = Self.le(leBufferV2.length) + [leBufferV2.count] + Self.le(leBufferV2.isoLength) + [leBufferV2.isoCount]
        case .readBufferSize:
            returnParameters = Self.le(brEdrBuffer.length) + [0x40] + Self.le(brEdrBuffer.count) + Self.le(UInt16(8))
        case .leCreateConnection, .leExtendedCreateConnection, .disconnect, .leConnectionUpdate, .leSetPHY,
             .leReadRemoteFeatures, .readRemoteVersionInformation:
            return [commandStatus(op, credits: credits)]
        case .leSetDataLength: returnParameters = Array(packet[4..<6])
        default: returnParameters = []
        }
        return [commandComplete(op, credits: credits, returnParameters)]
    }

    var responder: ScriptedTransport.Responder {
        let profile = self
        return { packet in profile.answer(packet) }
    }
}
