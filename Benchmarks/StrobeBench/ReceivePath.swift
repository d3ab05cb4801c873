import Strobe
import StrobeSim
import Synchronization

/// The host's receive path for LE connections, as the stack runs it behind a transport's
/// reader thread: H4 deframing, then `HCIController` (packets in, ACL to the central), `Central`
/// (the connection by its handle), each connection's L2CAP link (reassembly) and ATT bearer,
/// into that connection's handler. The controller is opened against a simulated one; the
/// connections and their data are then handed up from memory, as a transport hands them up.
final class ReceivePath {
    private let world: SimWorld
    private let controller: HCIController
    private let central: Central
    private let connections: [LEConnection]
    private var deframer = H4Deframer()

    struct NoConnection: Error, CustomStringConvertible {
        var description: String { "the central did not take the connection" }
    }

    convenience init(connectionHandle: UInt16, handler: any ATTValueHandler) async throws {
        try await self.init(connectionHandles: [connectionHandle], handlers: [handler])
    }

    /// One connection per handle, each peer at its own address, each into its own handler.
    init(connectionHandles: [UInt16], handlers: [any ATTValueHandler]) async throws {
        world = SimWorld(scenario: SimScenario(devices: []), clock: ContinuousClock())
        let host = try await BluetoothHost(transport: world.makeHostController())
        let controller = host.controller
        self.controller = controller
        central = host.central
        final class Taken: Sendable { let connection = Mutex<LEConnection?>(nil) }
        let taken = Taken()
        central.setIncomingConnectionHandler { connection in taken.connection.withLock { $0 = connection } }
        var connections: [LEConnection] = []
        for (index, (connectionHandle, handler)) in zip(connectionHandles, handlers).enumerated() {
            // LE Connection Complete (Core Vol 4 Part E 7.7.65.1): this host as peripheral, so the
            // connection starts no exchange of its own; 7.5 ms interval, 2 s supervision timeout.
            let handle = [UInt8(connectionHandle & 0xFF), UInt8(connectionHandle >> 8)]
            let address = [UInt8((1 + index) & 0xFF), UInt8((1 + index) >> 8), 0x00, 0x00, 0x5E, 0xC4]
            let event: [UInt8] = [0x3E, 19, 0x01, 0x00] + handle + [0x01, 0x00] + address
                + [0x06, 0x00, 0x00, 0x00, 0xC8, 0x00, 0x00]
            event.withUnsafeBytes { controller.transportDidReceive(.event, payload: $0, at: HostTime(nanoseconds: nowNanoseconds())) }
            guard let connection = taken.connection.withLock({ $0.take() }) else { throw NoConnection() }
            connection.bearer.setDefaultValueHandler(handler)
            connections.append(connection)
        }
        self.connections = connections
    }

    /// Malformed input the path counted: H4-level ACL packets and L2CAP reassembly errors.
    var malformed: Int { controller.counters.malformedACLPackets + connections.reduce(0) { $0 + $1.l2capCounters.errors } }

    /// Feeds one chunk as read from a transport.
    func feed(_ chunk: UnsafeRawBufferPointer, at time: HostTime) throws {
        let controller = self.controller
        try deframer.feed(chunk) { type, payload in controller.transportDidReceive(type, payload: payload, at: time) }
        controller.transportDidFinishBatch()
    }

    func close() {
        controller.close()
        world.stop()
    }
}
