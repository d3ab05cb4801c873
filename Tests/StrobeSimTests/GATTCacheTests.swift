import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization
import Testing

import StrobeSim

/// Both ends of GATT caching between bonded devices, in virtual time: the host's client keeps
/// the grip's database with the bond and takes it again while the grip's Database Hash is
/// unchanged; the grip's server keeps the host's subscription with its bond and sets it again
/// when the link is encrypted, so the grip sends at once and the host, which routed its events
/// before encrypting, loses none.
@Suite(.timeLimit(.minutes(2))) struct GATTCacheTests {
    static func gripScenario() -> SimScenario {
        var grip = SimulatedDeviceDescription(kind: .grip, name: "Grip-S1", rssi: -60)
        grip.firmware = "1.4.0"
        // The first event goes out the moment the grip sees a subscription.
        grip.gripEvents = [.init(after: 0, code: 0x01), .init(after: 0.2, code: 0x02), .init(after: 0.1, code: 0x03)]
        return SimScenario(devices: [grip])
    }

    static let discovery: [ATTOpcode] = [.readByGroupTypeRequest, .findByTypeValueRequest, .findInformationRequest]

    /// `gripAndHost`, after a first link that bonded, attached the grip and ended.
    static func gripBondedOnce(_ clock: VirtualClock)
        async throws -> (world: SimWorld, device: SimulatedDevice, controller: HCIController, central: Central) {
        let (world, device, controller, central, _) = try await gripAndHost(clock)
        let first = try await central.connect(name: "Grip-S1")
        _ = try await Grip.attach(to: first)
        _ = try await first.disconnect()
        return (world, device, controller, central)
    }

    /// The grip's world started, and a host with a bond store on it.
    static func gripAndHost(_ clock: VirtualClock)
        async throws -> (world: SimWorld, device: SimulatedDevice, controller: HCIController, central: Central, store: InMemoryBondStore) {
        let world = SimWorld(scenario: Self.gripScenario(), clock: clock)
        try await world.start()
        let device = try #require(world.devices.first)
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        let store = InMemoryBondStore()
        return (world, device, controller, Central(controller: controller, clock: clock, security: SecurityManager(store: store)), store)
    }

    @Test func aBondedGripsNextLinkTakesTheCachedDatabaseAndLosesNoFirstEvent() async throws {
        try await VirtualTimeDriver.run(timeLimit: .seconds(300)) { clock in
            let (world, device, controller, central, store) = try await Self.gripAndHost(clock)

            func shoot() async throws -> (LEConnection, [GripEvent], GATTServerCounters) {
                let connection = try await central.connect(name: "Grip-S1")
                let (events, sink) = AsyncStream.makeStream(of: GripEvent.self)
                _ = try await Grip.attach(to: connection) { sink.yield($0.event) }
                var received: [GripEvent] = []
                for await event in events {
                    received.append(event)
                    if received.count == 3 { break }
                }
                let server = try #require(device.peripheralConnections.first?.server)
                return (connection, received, server.counters)
            }

            let (first, firstEvents, firstCounters) = try await shoot()
            #expect(firstEvents == [.shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased])
            #expect(!first.databaseFromCache)
            #expect(Self.discovery.contains { firstCounters.requests[$0, default: 0] > 0 })
            // Kept with each side's bond: the database and its hash here, the subscription there.
            let kept = try #require(store.bonds().first?.peerDatabase)
            let grip = try #require(device.peripheral.withLock { $0 }?.database)
            #expect(kept.hash == grip.hash)
            #expect(kept.database.service(GripProfile.service) != nil)
            // The grip's events and its Service Changed, enabled by the host.
            let subscribed = try #require(device.bonds.bonds().first?.clientConfigurations)
            #expect(subscribed.databaseHash == grip.hash)
            #expect(Set(subscribed.values.values) == [.notification, .indication])
            _ = try await first.disconnect()

            let (second, secondEvents, secondCounters) = try await shoot()
            #expect(secondEvents == [.shutterButtonHalfDown, .shutterButtonDown, .shutterButtonReleased])
            #expect(second.databaseFromCache)
            #expect(second.pairingResult == nil, "encrypted with the bond")
            // One Read By Type for the hash (and none to discover), reads and writes of its own.
            #expect(Self.discovery.allSatisfy { secondCounters.requests[$0, default: 0] == 0 }, "\(secondCounters.requests)")
            #expect(secondCounters.requests[.readByTypeRequest] == 1)
            _ = try await second.disconnect()

            // The grip's own part: encrypted with the bond, it notifies with no CCCD written.
            let third = try await central.connect(name: "Grip-S1")
            let database = try await third.discoverDatabase()
            let events = try #require(database.characteristic(GripProfile.events, inService: GripProfile.service))
            let collector = GripEventCollector()
            third.gatt.bearer.setValueHandler(collector, forHandle: events.characteristic.valueHandle)
            try await third.encrypt()
            let values = await collector.first(3)
            #expect(values.count == 3)
            let server = try #require(device.peripheralConnections.first?.server)
            #expect(server.counters.requests[.writeRequest, default: 0] == 0, "no CCCD written on this link")
            _ = try await third.disconnect()
            controller.close()
            world.stop()
        }
    }

    /// The grip's database changes between links (a firmware update): the host sees a new hash
    /// and discovers again, and the grip, which kept the host's Service Changed subscription,
    /// indicates every handle changed instead of restoring subscriptions made on the old one.
    @Test func aChangedDatabaseIsDiscoveredAgainAndIndicated() async throws {
        try await VirtualTimeDriver.run(timeLimit: .seconds(300)) { clock in
            let (world, device, controller, central) = try await Self.gripBondedOnce(clock)
            let added = BluetoothUUID("5EC00003-5EC0-4E00-8000-00805F9B34FB")
            let database = try #require(device.peripheral.withLock { $0 }?.database)
            database.addPrimaryService(added)
            database.addCharacteristic(BluetoothUUID("5EC00004-5EC0-4E00-8000-00805F9B34FB"), properties: .read, value: [1])

            let second = try await central.connect(name: "Grip-S1")
            let (events, sink) = AsyncStream.makeStream(of: GripEvent.self)
            _ = try await Grip.attach(to: second) { sink.yield($0.event) }
            var iterator = events.makeAsyncIterator()
            #expect(await iterator.next() == .shutterButtonHalfDown)
            #expect(!second.databaseFromCache)
            await second.gatt.waitForRediscovery()
            #expect(second.gatt.database?.service(added) != nil)
            let server = try #require(device.peripheralConnections.first?.server)
            #expect(server.counters.indicationsSent == 1)
            _ = try await second.disconnect()
            controller.close()
            world.stop()
        }
    }

    /// Another host at the bonded host's address, which pairs without bonding, proves nothing:
    /// the grip neither restores the bonded host's subscriptions to it (no event reaches it) nor
    /// lets it change what the bond keeps.
    @Test func aPeerAtABondedAddressThatDidNotProveTheBondGetsNothingOfIt() async throws {
        try await VirtualTimeDriver.run(timeLimit: .seconds(300)) { clock in
            let (world, device, controller, _) = try await Self.gripBondedOnce(clock)
            let kept = try #require(device.bonds.bonds().first)
            #expect(kept.clientConfigurations != nil)
            let address = controller.info?.address
            controller.close()

            // The same address, no bond of its own, pairing without bonding.
            let impostorController = HCIController(transport: world.makeHostController(address: address), clock: clock)
            try await impostorController.open()
            let impostor = Central(controller: impostorController, clock: clock,
                                   security: SecurityManager(configuration: .init(bonding: false)))
            let link = try await impostor.connect(name: "Grip-S1")
            let database = try await link.discoverDatabase()
            let events = try #require(database.characteristic(GripProfile.events, inService: GripProfile.service))
            let collector = GripEventCollector()
            link.gatt.bearer.setValueHandler(collector, forHandle: events.characteristic.valueHandle)
            _ = try await link.pair()
            #expect(link.securityLevel == .unauthenticated)
            try await clock.sleep(for: .seconds(2))
            #expect(collector.count == 0, "the bonded host's subscription was not restored to it")
            #expect(device.bonds.bonds() == [kept], "the bond is as the bonded host left it")
            _ = try await link.disconnect()
            impostorController.close()
            world.stop()
        }
    }

    @Test func aChangedHashOrNoServiceChangedMeansDiscoveringAgain() {
        let database = GATTDatabase(services: [.init(service: GATTService(uuid: .batteryService, startHandle: 1, endHandle: 3))])
        let hash = [UInt8](repeating: 7, count: 16)
        #expect(GATTDatabaseCache(database: database, hash: hash).isCurrent(currentHash: hash))
        #expect(!GATTDatabaseCache(database: database, hash: hash).isCurrent(currentHash: [UInt8](repeating: 8, count: 16)))
        #expect(!GATTDatabaseCache(database: database, hash: hash).isCurrent(currentHash: nil))
        #expect(!GATTDatabaseCache(database: database, hash: nil).isCurrent(currentHash: hash))
        // No hash either time: only Service Changed can say it changed.
        #expect(!GATTDatabaseCache(database: database, hash: nil).isCurrent(currentHash: nil))
        let withServiceChanged = GATTDatabase(services: database.services + [.init(
            service: GATTService(uuid: .genericAttributeService, startHandle: 4, endHandle: 6),
            characteristics: [.init(characteristic: GATTCharacteristic(uuid: .serviceChanged, properties: .indicate,
                                                                       declarationHandle: 5, valueHandle: 6, endHandle: 6),
                                    descriptors: [])])])
        #expect(GATTDatabaseCache(database: withServiceChanged, hash: nil).isCurrent(currentHash: nil))
    }
}

/// Collects the values routed to it, for a test to await.
final class GripEventCollector: ATTValueHandler {
    private let values: AsyncStream<[UInt8]>
    private let sink: AsyncStream<[UInt8]>.Continuation

    init() { (values, sink) = AsyncStream.makeStream(of: [UInt8].self) }

    private let received = Lock(0)

    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        received.withLock { $0 += 1 }
        sink.yield(Array(value))
    }

    var count: Int { received.withLock { $0 } }

    func first(_ count: Int) async -> [[UInt8]] {
        var collected: [[UInt8]] = []
        for await value in values {
            collected.append(value)
            if collected.count == count { break }
        }
        return collected
    }
}
