import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeSecurity
import StrobeBase
import Synchronization

/// A device in the simulated world: its own virtual controller, Strobe's host stack in the
/// peripheral role on top (as a real peripheral runs its own stack), a GATT database, and the
/// behaviour of the device it stands for.
package final class SimulatedDevice: Sendable {
    package let description: SimulatedDeviceDescription
    package let controller: VirtualController
    let clock: any Clock<Duration>
    private let hci: HCIController
    private let behaviour: any SimulatedBehaviour
    package let peripheral = Lock<Peripheral?>(nil)
    /// The bonds the device keeps, and the seeded source of its pairing's random values.
    package let bonds: InMemoryBondStore
    private let random: SeededRandomSource

    init(_ description: SimulatedDeviceDescription, controller: VirtualController, clock: any Clock<Duration>, seed: UInt64) {
        random = SeededRandomSource(seed: seed)
        bonds = InMemoryBondStore(localIRK: IdentityResolvingKey(value: random.bytes(16)))
        self.description = description
        self.controller = controller
        self.clock = clock
        // A virtual controller answers every command at once; the deadline only catches a stalled
        // host, which a busy machine (a sanitizer's build) can make seconds long. A peer's host,
        // not the one under test: its threads run as any other.
        hci = HCIController(transport: controller, clock: clock,
                            configuration: .init(commandTimeout: .seconds(15), threadScheduling: .normal))
        behaviour = description.kind.makeBehaviour(description, clock: clock)
    }

    /// Where the device's own work runs: its host's loop, a thread of its own on the real clock.
    var executor: (any TaskExecutor)? { hci.loop.executor }

    /// Runs the init sequence and starts advertising the device's name.
    func start() async throws {
        try await hci.open()
        // A device of its own: a static random address, and the bonds it made (kept while the
        // world runs, as a device keeps them in its flash).
        let central = Central(controller: hci, clock: clock,
                              configuration: .init(ownAddress: description.privacy == true
                                  ? .resolvablePrivate(rotation: .milliseconds(Int64(description.privacyRotationMilliseconds ?? 900_000)))
                                  : .staticRandom(controller.configuration.address)),
                              security: SecurityManager(store: bonds, random: random.bytes))
        let database = GATTAttributeDatabase()
        behaviour.build(database)
        let peripheral = Peripheral(central: central, database: database,
                                    genericAccess: GATTGenericAccess(deviceName: description.name, appearance: behaviour.appearance))
        self.peripheral.withLock { $0 = peripheral }
        behaviour.attach(to: peripheral)
        try await peripheral.startAdvertising(name: description.name, serviceUUIDs: behaviour.advertisedServices,
                                              interval: description.advertisingInterval)
    }

    /// Switches the device off: its links drop and it stops advertising.
    package func stop() {
        hci.close()
    }

    /// The centrals connected to the device now (its GATT server's counters are on each).
    package var peripheralConnections: [LEConnection] { peripheral.withLock { $0 }?.connections ?? [] }

    /// What the device did, for tests and `strobe sim list`.
    package var log: [String] { behaviour.log }
}

/// What a simulated device does: builds its attributes, then reacts to writes and subscriptions.
protocol SimulatedBehaviour: Sendable {
    func build(_ database: GATTAttributeDatabase)
    func attach(to peripheral: Peripheral)
    var log: [String] { get }
    /// Service UUIDs the device advertises (in its scan response).
    var advertisedServices: [BluetoothUUID] { get }
    /// What its GAP service's Appearance says (Assigned Numbers, 2.6).
    var appearance: UInt16 { get }
}

extension SimulatedBehaviour {
    var advertisedServices: [BluetoothUUID] { [] }
    var appearance: UInt16 { 0x0000 }  // Unknown
}

/// A thread-safe list of what happened, with a bound.
final class SimLog: Sendable {
    private let entries = Lock<[String]>([])
    func append(_ entry: String) { entries.withLock { if $0.count < 10_000 { $0.append(entry) } } }
    var all: [String] { entries.withLock { $0 } }

    /// A simulated device's notification on `server`: one that failed, or that the central had
    /// not enabled, is written to the log with why, not dropped unseen. Returns whether it was sent.
    @discardableResult
    func notify(_ server: GATTServerConnection, valueHandle: AttributeHandle, value: [UInt8]) async -> Bool {
        do {
            if try await server.notify(valueHandle: valueHandle, value: value) { return true }
            append("notification of \(valueHandle) not sent: notifications not enabled")
        } catch {
            append("notification of \(valueHandle) failed: \(error)")
        }
        return false
    }
}

/// Runs `body` for each central that connects, once it has enabled notifications of the value
/// at `valueHandle`: what a device does when someone listens. Each link has a task of its own,
/// so a central that comes back while the last link's `body` still runs is heard.
func whenSubscribed(_ peripheral: Peripheral, to valueHandle: AttributeHandle,
                    _ body: @escaping @Sendable (GATTServerConnection) async -> Void) {
    let executor = peripheral.firmwareExecutor
    Task(executorPreference: executor) {
        for await connection in peripheral.incomingConnections() {
            guard let server = connection.server else { continue }
            let (subscribed, signal) = AsyncStream.makeStream(of: Void.self)
            server.setSubscriptionHandler { handle, configuration in
                if handle == valueHandle, configuration.contains(.notification) { signal.yield() }
            }
            Task(executorPreference: executor) {
                _ = await connection.disconnected()
                signal.finish()
            }
            Task(executorPreference: executor) {
                var iterator = subscribed.makeAsyncIterator()
                guard await iterator.next() != nil else { return }  // the link ended unsubscribed
                await body(server)
            }
        }
    }
}
