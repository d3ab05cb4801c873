import StrobeHCI
import Testing

import StrobeHost

/// A peripheral's `updateParameters` when the link layer cannot carry the request (a controller
/// that disallows LE Connection Update as peripheral): it asks through L2CAP signalling, and the
/// central's answer decides. A scripted controller, no clock.
@Suite(.timeLimit(.minutes(1))) struct ParameterUpdateFallbackTests {
    /// A controller that refuses LE Connection Update with Command Disallowed, and answers
    /// everything else as `scriptedController` does.
    static func controller() -> ScriptedTransport {
        let plain = scriptedController(extendedScanning: false)
        return ScriptedTransport { packet in
            guard opcode(of: packet) == .leConnectionUpdate else { return plain.answers(to: packet) }
            return [[0x04, 0x0F, 0x04, HCIStatus.commandDisallowed.rawValue, 0x01, 0x13, 0x20]]
        }
    }

    /// The signalling PDUs the host sent on CID 5.
    static func signaling(_ transport: ScriptedTransport) -> [[UInt8]] {
        transport.sent.filter { $0.count > 9 && $0[0] == 0x02 && $0[7] == 0x05 && $0[8] == 0x00 }.map { Array($0[9...]) }
    }

    static func response(identifier: UInt8, accepted: Bool) -> [UInt8] {
        let signal: [UInt8] = [0x13, identifier, 0x02, 0x00, accepted ? 0x00 : 0x01, 0x00]
        let l2cap = [UInt8(signal.count), 0x00, 0x05, 0x00] + signal
        return [0x02, 0x40, 0x20, UInt8(l2cap.count), 0x00] + l2cap
    }

    static func link() async throws -> (ScriptedTransport, HCIController, LEConnection) {
        let link = try await ScriptedLink.open(role: .peripheral, transport: Self.controller())
        return (link.transport, link.controller, link.connection)
    }

    static let asked = LEConnectionParameters(intervalMin: 24, intervalMax: 40, maxLatency: 2, supervisionTimeout: 200)

    @Test func anAcceptedRequestIsFollowedByTheCentralsUpdate() async throws {
        let (transport, controller, connection) = try await Self.link()
        defer { controller.close() }
        let update = Task { try await connection.updateParameters(Self.asked) }
        #expect(await eventually { !Self.signaling(transport).isEmpty })
        let request = try #require(Self.signaling(transport).first)
        // Connection Parameter Update Request, length 8: 24, 40, 2, 200.
        #expect(request[0] == 0x12 && Array(request[2...]) == [0x08, 0x00, 24, 0, 40, 0, 2, 0, 200, 0])
        transport.deliver(Self.response(identifier: request[1], accepted: true))
        // The central updates the link: LE Connection Update Complete.
        transport.deliver([0x04, 0x3E, 0x0A, 0x03, 0x00, 0x40, 0x00, 40, 0, 2, 0, 200, 0])
        let inUse = try await update.value
        #expect(inUse.interval == 40 && inUse.latency == 2 && inUse.supervisionTimeout == 200)
        #expect(connection.parameters == inUse)
    }

    @Test func aRejectedRequestIsRefused() async throws {
        let (transport, controller, connection) = try await Self.link()
        defer { controller.close() }
        let update = Task { try await connection.updateParameters(Self.asked) }
        #expect(await eventually { !Self.signaling(transport).isEmpty })
        let request = try #require(Self.signaling(transport).first)
        transport.deliver(Self.response(identifier: request[1] &+ 1, accepted: true))  // not ours: dropped
        transport.deliver(Self.response(identifier: request[1], accepted: false))
        await #expect(throws: StrobeError.connection(ConnectionError.updateRefused(address: connection.peerAddress, status: .unacceptableConnectionParameters))) {
            try await update.value
        }
        #expect(connection.parameters.interval == 0x0C)
    }
}
