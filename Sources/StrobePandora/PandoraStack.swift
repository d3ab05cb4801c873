import Logging
import Strobe
import StrobeSim
import StrobeBase
import Synchronization

/// One opened Strobe stack for the Pandora services: the controller on the transport (reset
/// as it opens), the central and peripheral roles on it, the Security Manager with an
/// in-memory bond store, and every link handed out, by the id its cookie carries. A factory
/// reset closes it and opens a new one.
final class PandoraStack: Sendable {
    let controller: HCIController
    let central: Central
    let peripheral: Peripheral
    let bonds: InMemoryBondStore
    private let links = Links()
    private let accepting: Task<Void, Never>

    /// The links handed out, by id. Ids go on across stacks, so that a cookie from before a
    /// reset finds nothing.
    private final class Links: Sendable {
        private static let nextID = Atomic<UInt64>(0)
        private let byID = Lock<[UInt64: LEConnection]>([:])

        func register(_ connection: LEConnection) -> UInt64 {
            byID.withLock { links in
                if let known = links.first(where: { $0.value === connection }) { return known.key }
                let id = Self.nextID.add(1, ordering: .relaxed).newValue
                links[id] = connection
                return id
            }
        }

        subscript(id: UInt64) -> LEConnection? { byID.withLock { $0[id] } }
    }

    /// Opens `spec`, resets the controller and starts the roles. Connects and advertises from
    /// `randomAddress` (a static random address).
    static func open(_ spec: TransportSpec, randomAddress: BluetoothAddress, bonds: InMemoryBondStore,
                     pairing: PandoraPairing, logger: Logger) async throws -> PandoraStack {
        let transport = try spec.openIncludingSimulatedWorld()
        let clock = transport.clock
        let controller = HCIController(transport: transport, clock: clock, configuration: HCIController.Configuration(
            livenessProbeInterval: .seconds(5), logger: logger))
        do {
            _ = try await controller.open()
            let security = SecurityManager(store: bonds, delegate: pairing)
            let central = Central(controller: controller, clock: clock, configuration: Central.Configuration(
                connectTimeout: .seconds(10), ownAddress: .staticRandom(randomAddress)), security: security)
            // Now, not when the central first connects or advertises: a scan from the random
            // address needs it (Invalid HCI Command Parameters otherwise).
            try await central.setUpOwnAddress()
            return PandoraStack(controller: controller, central: central, bonds: bonds)
        } catch {
            controller.close()
            throw error
        }
    }

    private init(controller: HCIController, central: Central, bonds: InMemoryBondStore) {
        self.controller = controller
        self.central = central
        self.bonds = bonds
        peripheral = Peripheral(central: central, database: GATTAttributeDatabase())
        // Links a central makes to this host are registered as they come, whether or not an
        // Advertise call is still there to hear of them.
        let incoming = peripheral.incomingConnections()
        accepting = Task { [links] in
            for await connection in incoming { _ = links.register(connection) }
        }
    }

    /// The controller's public address.
    var publicAddress: BluetoothAddress? { controller.info?.address }

    /// The cookie for `connection`, registering it the first time.
    func cookie(for connection: LEConnection) -> Pandora_Connection {
        Pandora_Connection(id: links.register(connection))
    }

    func connection(_ cookie: Pandora_Connection) -> LEConnection? {
        guard let id = cookie.id else { return nil }
        return links[id]
    }

    /// The link up now to `peer` (as the link layer knows it), for questions that name the peer.
    func cookie(forPeer peer: BluetoothAddress) -> Pandora_Connection? {
        guard let connection = central.connections.last(where: { $0.peerAddress == peer }) else { return nil }
        return cookie(for: connection)
    }

    func close() {
        accepting.cancel()
        controller.close()
    }
}
