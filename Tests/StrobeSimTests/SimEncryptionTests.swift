import Foundation
import StrobeHCI
import StrobeHost
import StrobeSecurity
import Synchronization
import Testing

@testable import StrobeSim

/// The simulated world's encryption: LE Enable Encryption becomes LE Long Term Key Request at the
/// device, and the link encrypts only when both hold the same key.
@Suite(.timeLimit(.minutes(1))) struct SimEncryptionTests {
    static func world() async throws -> (SimWorld, HCIController, Central, InMemoryBondStore) {
        let world = SimWorld(scenario: SimScenario(devices: [SimulatedDeviceDescription(kind: .test, name: "Strobe-Test")]),
                             clock: ContinuousClock())
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), configuration: .loadedMachine)
        try await controller.open()
        let store = InMemoryBondStore()
        return (world, controller, Central(controller: controller, security: SecurityManager(store: store)), store)
    }

    @Test func theBondsKeyEncryptsAndAWrongOneEndsTheLink() async throws {
        let (world, controller, central, store) = try await Self.world()
        defer {
            controller.close()
            world.stop()
        }
        let first = try await central.connect(name: "Strobe-Test")
        let paired = try await first.pair()
        #expect(first.securityLevel == .unauthenticated)
        _ = try await first.disconnect()

        let second = try await central.connect(name: "Strobe-Test")
        #expect(try await second.encrypt() == paired.securityLevel)
        _ = try await second.disconnect()

        // The host's copy of the key no longer matches the device's: the link fails its MIC
        // check and ends.
        var bond = try #require(store.bonds().first)
        bond.longTermKey?.value[0] ^= 0xFF
        store.save(bond)
        let third = try await central.connect(name: "Strobe-Test")
        await #expect(throws: SecurityError.self) { try await third.encrypt() }
        #expect(await third.disconnected() == .connectionTerminatedMICFailure)
        #expect(world.air.counters.encryptionFailures == 1)
    }

    /// A bonded client's subscription persists (Vol 3 Part G 3.3.3.3): on the next link the
    /// device notifies once the link is encrypted, though the host never writes the CCCD again.
    /// `connect(bonded:beforeEncrypting:)` hands over the link while it is still unencrypted, so
    /// the values' route is in place first. A client that is not bonded starts afresh.
    @Test func aBondedClientsSubscriptionCarriesOverToItsNextLink() async throws {
        let (world, controller, central, _) = try await Self.world()
        defer {
            controller.close()
            world.stop()
        }
        let first = try await central.connect(name: "Strobe-Test")
        _ = try await first.pair()
        let database = try await first.gatt.discoverDatabase(subscribeToServiceChanged: false)
        let counter = try #require(database.characteristic(SimulatedTestDevice.counter, inService: SimulatedTestDevice.service)).characteristic
        let (firstValues, firstSink) = AsyncStream.makeStream(of: [UInt8].self)
        try await first.gatt.subscribe(counter, to: .notification, handler: ATTValueClosureHandler { value, _, _, _ in firstSink.yield(Array(value)) })
        var firstIterator = firstValues.makeAsyncIterator()
        #expect(await firstIterator.next() == [0, 0, 0, 0])
        let deviceLink = try #require(world.devices[0].peripheral.withLock { $0 }?.connections.first)
        _ = try await first.disconnect()
        _ = await deviceLink.disconnected()

        let (values, sink) = AsyncStream.makeStream(of: [UInt8].self)
        let levelWhenHandedOver = Mutex<SMPSecurityLevel?>(nil)
        let second = try await central.connect(bonded: try #require(first.bond?.peer.address)) { link in
            levelWhenHandedOver.withLock { $0 = link.securityLevel }
            link.gatt.bearer.setValueHandler(ATTValueClosureHandler { value, _, _, _ in sink.yield(Array(value)) }, forHandle: counter.valueHandle)
        }
        #expect(levelWhenHandedOver.withLock { $0 } == SMPSecurityLevel.none)
        #expect(second.securityLevel == .unauthenticated)
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == [0, 0, 0, 0], "notified without the CCCD written on this link")
        _ = try await second.disconnect()

        // Not bonded: nothing carries over.
        let stranger = Central(controller: controller)
        let third = try await stranger.connect(name: "Strobe-Test")
        let server = try #require(world.devices[0].peripheral.withLock { $0 }?.connections.first?.server)
        #expect(server.clientConfigurations.isEmpty)
        _ = try await third.disconnect()
    }

    @Test func aDeviceThatForgotTheBondRefusesWithPinOrKeyMissing() async throws {
        let (world, controller, central, _) = try await Self.world()
        defer {
            controller.close()
            world.stop()
        }
        let first = try await central.connect(name: "Strobe-Test")
        _ = try await first.pair()
        // The device stores its bond when our keys reach it, before it hears the link end.
        let deviceLink = try #require(world.devices[0].peripheral.withLock { $0 }?.connections.first)
        _ = try await first.disconnect()
        _ = await deviceLink.disconnected()
        #expect(world.devices[0].bonds.bonds().count == 1)
        world.devices[0].bonds.removeAll()
        let second = try await central.connect(name: "Strobe-Test")
        await #expect(throws: SecurityError.encryptionFailed(address: second.peerAddress, status: .pinOrKeyMissing)) {
            try await second.encrypt()
        }
        #expect(second.isConnected)
        #expect(second.securityLevel == .none)
    }
}
