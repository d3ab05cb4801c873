import Foundation
import StrobeHCI
import StrobeHost
import StrobeSecurity
import Testing

import StrobeSim

/// The simulated world's encryption: LE Enable Encryption becomes LE Long Term Key Request at the
/// device, and the link encrypts only when both hold the same key. In virtual time.
@Suite(.timeLimit(.minutes(1))) struct SimEncryptionTests {
    static func world(_ clock: VirtualClock) async throws -> (SimWorld, HCIController, Central, InMemoryBondStore) {
        let world = SimWorld(scenario: SimScenario(devices: [SimulatedDeviceDescription(kind: .test, name: "Strobe-Test")]), clock: clock)
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        let store = InMemoryBondStore()
        return (world, controller, Central(controller: controller, clock: clock, security: SecurityManager(store: store)), store)
    }

    @Test func theBondsKeyEncryptsAndAWrongOneEndsTheLink() async throws {
        try await VirtualTimeDriver.run(Self.theBondsKeyEncryptsAndAWrongOneEndsTheLink)
    }

    static func theBondsKeyEncryptsAndAWrongOneEndsTheLink(_ clock: VirtualClock) async throws {
        let (world, controller, central, store) = try await Self.world(clock)
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
        let error = await #expect(throws: StrobeError.self) { try await third.encrypt() }
        guard case .security? = error else { Issue.record("expected a security error, got \(String(describing: error))"); return }
        #expect(await third.disconnected() == .connectionTerminatedMICFailure)
        #expect(world.air.counters.encryptionFailures == 1)
    }

    @Test func aDeviceThatForgotTheBondRefusesWithPinOrKeyMissing() async throws {
        try await VirtualTimeDriver.run(Self.aDeviceThatForgotTheBondRefusesWithPinOrKeyMissing)
    }

    static func aDeviceThatForgotTheBondRefusesWithPinOrKeyMissing(_ clock: VirtualClock) async throws {
        let (world, controller, central, _) = try await Self.world(clock)
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
        await #expect(throws: StrobeError.security(.encryptionFailed(address: second.peerAddress, status: .pinOrKeyMissing))) {
            try await second.encrypt()
        }
        #expect(second.isConnected)
        #expect(second.securityLevel == .none)
    }
}
