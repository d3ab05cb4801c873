import StrobeHCI
import Testing

import StrobeHost

/// A connection attempt that times out is ended with LE Create Connection Cancel, on a scripted
/// controller and a virtual clock: the controller's answer to the cancel decides what follows.
@Suite(.timeLimit(.minutes(1))) struct CreateConnectionCancelTests {
    static let peer = BluetoothAddress(wire: (0x01, 0x02, 0x03, 0x04, 0x05, 0xC6))

    /// A controller that takes LE Create Connection (Command Status, success) and answers LE
    /// Create Connection Cancel with `cancelStatus`; everything else as `scriptedController`.
    static func controller(cancelStatus: UInt8) -> ScriptedTransport {
        let base = scriptedController(extendedScanning: false)
        return ScriptedTransport { packet in
            switch opcode(of: packet) {
            case .leCreateConnection?: [[0x04, 0x0F, 0x04, 0x00, 0x01, 0x0D, 0x20]]
            case .leCreateConnectionCancel?: [[0x04, 0x0E, 0x04, 0x01, 0x0E, 0x20, cancelStatus]]
            default: base.answers(to: packet)
            }
        }
    }

    static func attempt(cancelStatus: UInt8) async throws -> (ScriptedTransport, VirtualClock, HCIController, Task<LEConnection, any Error>) {
        let transport = controller(cancelStatus: cancelStatus)
        let clock = VirtualClock()
        let controller = HCIController(transport: transport, clock: clock)
        try await controller.open()
        let central = Central(controller: controller, clock: clock)
        let attempt = Task { try await central.connect(to: peer, addressType: .random, timeout: .seconds(2)) }
        #expect(await eventually { transport.sent.contains { opcode(of: $0) == .leCreateConnection } })
        // The attempt's own timer: the one sleeper due at 2 s.
        await clock.waitForSleepers(count: 1, deadline: clock.now.advanced(by: .seconds(2)))
        clock.advance(by: .seconds(2))
        #expect(await eventually { transport.sent.contains { opcode(of: $0) == .leCreateConnectionCancel } })
        // Its answer came back inside the write: handled once the controller has its credit back.
        #expect(await eventually { controller.commandCredits == 1 })
        return (transport, clock, controller, attempt)
    }

    /// The cancel refused for a reason other than "nothing to cancel": no LE Connection Complete
    /// will come, so the attempt ends with the controller's answer instead of waiting for ever.
    @Test func aRefusedCancelEndsTheAttemptWithTheControllersAnswer() async throws {
        let (_, _, controller, attempt) = try await Self.attempt(cancelStatus: 0x12)
        defer { controller.close() }
        await #expect(throws: StrobeError.controller(HCIError.commandFailed(.leCreateConnectionCancel, .invalidHCICommandParameters))) {
            _ = try await attempt.outcome
        }
    }

    /// Command Disallowed: the attempt was ending anyway. Its LE Connection Complete (here the
    /// cancel's Unknown Connection Identifier) is what ends it, as a timeout.
    @Test func commandDisallowedWaitsForTheConnectionComplete() async throws {
        let (transport, _, controller, attempt) = try await Self.attempt(cancelStatus: 0x0C)
        defer { controller.close() }
        var complete = ScriptedLink.connectionComplete(role: .central)
        complete[4] = 0x02  // status: Unknown Connection Identifier
        transport.deliver(complete)
        await #expect(throws: StrobeError.connection(ConnectionError.timeout(address: Self.peer, after: .seconds(2)))) { _ = try await attempt.outcome }
    }
}
