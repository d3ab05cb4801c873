import Foundation
import StrobeHCI
import StrobeHost
import StrobeSecurity
import Testing

import StrobeSim

/// A simulated device with privacy on: it advertises from resolvable private addresses made
/// from its IRK, a new one every 2 s; a host that bonded with it finds it under each new one.
/// In virtual time.
@Suite(.timeLimit(.minutes(1))) struct SimPrivacyTests {
    @Test func aBondedDeviceThatChangesItsPrivateAddressIsFoundAndReconnected() async throws {
        let clock = VirtualClock()
        try await VirtualTimeDriver.run(clock: clock, timeLimit: .seconds(300)) {
            var device = SimulatedDeviceDescription(kind: .test, name: "Strobe-Private", rssi: -61)
            device.privacy = true
            device.privacyRotationMilliseconds = 2000
            let world = SimWorld(scenario: SimScenario(devices: [device]), clock: clock)
            try await world.start()
            let controller = HCIController(transport: world.makeHostController(), clock: clock)
            try await controller.open()
            let store = InMemoryBondStore()
            let central = Central(controller: controller, clock: clock, security: SecurityManager(store: store))

            let first = try await central.connect(name: "Strobe-Private")
            #expect(ResolvablePrivateAddress.isResolvable(first.peerAddress, type: first.peerAddressType))
            let paired = try await first.pair()
            let identity = try #require(paired.peerIdentity)
            #expect(identity.address == world.devices[0].controller.configuration.address)
            #expect(paired.peerIRK == world.devices[0].bonds.localIRK())
            _ = try await first.disconnect()

            // The device rotates its address while it advertises: the bond still recognises it.
            let bond = try #require(store.bonds().first)
            let scanner = LEScanner(controller: controller)
            let updates = scanner.updates()
            try await scanner.start()
            let rotated = try await withTimeout(.seconds(10), clock: clock) { () async -> BluetoothAddress? in
                for await seen in updates where seen.address != first.peerAddress && bond.matches(seen.address, type: seen.addressType) {
                    return seen.address
                }
                return nil
            }
            try await scanner.stop()
            #expect(rotated != nil)

            let again = try await central.connect(bonded: identity.address)
            #expect(again.peerAddress != first.peerAddress)
            #expect(ResolvablePrivateAddress.resolves(again.peerAddress, with: try #require(paired.peerIRK)))
            #expect(again.securityLevel == paired.securityLevel)
            #expect(again.pairingResult == nil, "encrypted with the bond, not paired again")
            _ = try await again.disconnect()
            controller.close()
            world.stop()
        }
    }

    @Test func aPeerWithoutABondIsNotReconnected() async throws {
        // Refused before any wait: the clock never needs to move.
        let clock = VirtualClock()
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock, security: SecurityManager(store: InMemoryBondStore()))
        await #expect(throws: StrobeError.security(.noBond(address: BluetoothAddress("C4:5E:00:00:00:09")!))) {
            _ = try await central.connect(bonded: BluetoothAddress("C4:5E:00:00:00:09")!)
        }
    }
}
