import Foundation
import Testing

/// The fixture itself: a Bumble peripheral starts, listens on loopback and reports its summary.
@Suite struct BumbleFixtureTests {
    @Test func peripheralStartsAndStops() async throws {
        let peripheral = try await BumblePeripheral()
        #expect(peripheral.transport.hasPrefix("tcp:127.0.0.1:"))
        #expect(peripheral.name == "Bumble-Periph")
        let summary = try await peripheral.stop()
        #expect(summary["connections"] as? Int == 0)
    }
}
