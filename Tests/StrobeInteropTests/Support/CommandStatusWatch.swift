import Strobe
import StrobeBase
import Synchronization

/// Wraps a transport and reports when the controller answers a given command with Command
/// Status: a test can then act while the controller is busy with it (e.g. initiating).
final class CommandStatusWatch: HCITransport, HCIPacketSink {
    let inner: any HCITransport
    let opcodes: Set<UInt16>
    let statuses: AsyncStream<UInt16>
    private let continuation: AsyncStream<UInt16>.Continuation
    private let downstream = Lock<(any HCIPacketSink)?>(nil)

    init(wrapping inner: any HCITransport, opcodes: Set<UInt16>) {
        self.inner = inner
        self.opcodes = opcodes
        (statuses, continuation) = AsyncStream.makeStream(of: UInt16.self)
    }

    var name: String { inner.name }

    func start(_ sink: any HCIPacketSink) throws(TransportError) {
        downstream.withLock { $0 = sink }
        try inner.start(self)
    }

    func send(_ h4Packet: UnsafeRawBufferPointer) throws(TransportError) { try inner.send(h4Packet) }

    func close() { inner.close() }

    func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
        downstream.withLock { $0 }?.transportDidReceive(type, payload: payload, at: time)
        // Command Status: [0x0F][length][status][credits][opcode u16]
        if type == .event, payload.count >= 6, payload[0] == 0x0F {
            let opcode = UInt16(payload[4]) | UInt16(payload[5]) << 8
            if opcodes.contains(opcode) { continuation.yield(opcode) }
        }
    }

    func transportDidClose(_ error: TransportError?) {
        continuation.finish()
        downstream.withLock { $0 }?.transportDidClose(error)
    }
}
