import StrobeHCI
import StrobeHost
import Testing

import StrobeSim

/// Two Strobe hosts on one simulated air, each on its own virtual controller, linked: the one
/// advertising `name` in the peripheral role, the other connected to it as central. For tests in
/// virtual time.
struct TwoHosts {
    let world: SimWorld
    let central: Central
    let peripheral: Peripheral
    /// The central's end of the link, and the peripheral's.
    let link: LEConnection
    let served: LEConnection

    static func linked(clock: VirtualClock, name: String) async throws -> TwoHosts {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        try await world.start()
        let centralController = HCIController(transport: world.makeHostController(), clock: clock)
        try await centralController.open()
        let central = Central(controller: centralController, clock: clock)
        let peripheralController = HCIController(transport: world.makeHostController(), clock: clock)
        try await peripheralController.open()
        let peripheral = Peripheral(central: Central(controller: peripheralController, clock: clock), database: GATTAttributeDatabase())
        var incoming = peripheral.incomingConnections().makeAsyncIterator()
        try await peripheral.startAdvertising(name: name)
        let link = try await central.connect(name: name)
        let served = try #require(await incoming.next())
        return TwoHosts(world: world, central: central, peripheral: peripheral, link: link, served: served)
    }
}
