import StrobeHCI
import Testing

import StrobeHost

/// A link on a scripted controller and a virtual clock: the controller opened, a central
/// watching it, and LE Connection Complete delivered (handle 0x0040, the peer at a random
/// address, this host in `role`).
struct ScriptedLink {
    let transport: ScriptedTransport
    let clock: VirtualClock
    let controller: HCIController
    let connection: LEConnection

    static func connectionComplete(role: LERole) -> [UInt8] {
        let parameters: [UInt8] = [0x01, 0x00, 0x40, 0x00, role.rawValue, 0x01, 0x01, 0x02, 0x03, 0x04, 0x05, 0xC6]
            + [0x0C, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00]
        return [0x04, 0x3E, UInt8(parameters.count)] + parameters
    }

    static func open(role: LERole = .central, transport: ScriptedTransport = scriptedController(extendedScanning: false))
        async throws -> ScriptedLink {
        let clock = VirtualClock()
        let controller = HCIController(transport: transport, clock: clock)
        try await controller.open()
        let central = Central(controller: controller, clock: clock)
        transport.deliver(connectionComplete(role: role))
        #expect(await eventually { !central.connections.isEmpty })
        return ScriptedLink(transport: transport, clock: clock, controller: controller, connection: try #require(central.connections.first))
    }

    /// The same link on the real clock: the host's loop has a thread of its own.
    static func openOnTheRealClock(role: LERole = .central) async throws -> (ScriptedTransport, HCIController, LEConnection) {
        let transport = scriptedController(extendedScanning: false)
        let controller = HCIController(transport: transport, clock: ContinuousClock())
        try await controller.open()
        let central = Central(controller: controller, clock: ContinuousClock())
        transport.deliver(connectionComplete(role: role))
        #expect(await eventually { !central.connections.isEmpty })
        return (transport, controller, try #require(central.connections.first))
    }
}
