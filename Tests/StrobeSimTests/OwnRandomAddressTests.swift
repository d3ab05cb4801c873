import Strobe
import StrobeSim
import Testing

/// A scan from the random address needs that address given to the controller first, as real
/// controllers refuse it otherwise (Invalid HCI Command Parameters); the simulated controller
/// refuses it too, and `Central.setUpOwnAddress()` gives it before anything connects.
@Suite(.timeLimit(.minutes(1))) struct OwnRandomAddressTests {
    @Test func aScanFromTheRandomAddressNeedsItSetFirst() async throws {
        try await VirtualTimeDriver.run(timeLimit: .seconds(60)) { clock in
            let world = SimWorld(scenario: .standard, clock: clock)
            try await world.start()
            let controller = HCIController(transport: world.makeHostController(), clock: clock)
            try await controller.open()
            let random = BluetoothAddress("C1:00:00:00:00:01")!
            let central = Central(controller: controller, clock: clock,
                                  configuration: Central.Configuration(ownAddress: .staticRandom(random)))
            let scanner = LEScanner(controller: controller)
            let configuration = LEScanner.Configuration(ownAddressType: .random)
            await #expect(throws: StrobeError.controller(.commandFailed(.leSetScanEnable, .invalidHCICommandParameters))) {
                try await scanner.start(configuration)
            }
            try await central.setUpOwnAddress()
            let found = try await scanner.scan(for: .seconds(1), configuration: configuration)
            #expect(found.contains { $0.name == "Nova2" })
            // Not while scanning: the controller keeps the address it scans from.
            try await scanner.start(configuration)
            await #expect(throws: HCIError.commandFailed(.leSetRandomAddress, .commandDisallowed)) {
                try await controller.send(HCILESetRandomAddress(address: BluetoothAddress("C1:00:00:00:00:02")!))
            }
            try await scanner.stop()
            world.stop()
        }
    }
}
