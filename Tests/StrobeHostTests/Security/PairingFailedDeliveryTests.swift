import StrobeHCI
import StrobeSecurity
import Testing

import StrobeHost

/// A failed pairing's Pairing Failed reaches the peer when the caller disconnects at once: the
/// failure is reported only once the PDU is with the controller, and `disconnect()` waits for
/// the controller to report the link's packets sent (a controller may drop what it still holds
/// on Disconnect), up to `LEConnection.flushTimeout`. On a virtual clock, with a scripted
/// controller that reports completed packets only when the test says so.
@Suite(.timeLimit(.minutes(1))) struct PairingFailedDeliveryTests {
    static let numberOfCompletedPackets: [UInt8] = [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x02, 0x00]
    static let disconnectionComplete: [UInt8] = [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x16]

    /// A link whose pairing just failed on our side (the peer offered a 5-octet key).
    static func failedPairing() async throws -> (ScriptedTransport, VirtualClock, HCIController, LEConnection) {
        let link = try await ScriptedLink.open()
        let (transport, clock, controller, connection) = (link.transport, link.clock, link.controller, link.connection)
        let pairing = Task { try await connection.pair() }
        #expect(await eventually { SMPTimeoutTests.sentSMP(transport).first?.first == SMPCommandCode.pairingRequest.rawValue })
        transport.deliver(SMPTimeoutTests.smp([0x02, 0x03, 0x00, 0x09, 0x05, 0x00, 0x00]))
        let error = await #expect(throws: StrobeError.self) { try await pairing.value }
        #expect(error?.layer == "security")
        // Reported only once the Pairing Failed is with the controller.
        #expect(SMPTimeoutTests.sentSMP(transport).last == [SMPCommandCode.pairingFailed.rawValue, SMPPairingFailedReason.invalidParameters.rawValue])
        return (transport, clock, controller, connection)
    }

    static func disconnectSent(_ transport: ScriptedTransport) -> Bool {
        transport.sent.contains { opcode(of: $0) == HCIDisconnect.opcode }
    }

    @Test func disconnectWaitsUntilTheControllerHasSentThePairingFailed() async throws {
        let (transport, clock, controller, connection) = try await Self.failedPairing()
        defer { controller.close() }
        let start = clock.now
        let disconnecting = Task { try await connection.disconnect() }
        // Two packets in flight (Pairing Request, Pairing Failed): the flush's deadline is set.
        #expect(await eventually { clock.nextDeadline == start.advanced(by: LEConnection.flushTimeout) })
        #expect(!Self.disconnectSent(transport))
        transport.deliver(Self.numberOfCompletedPackets)
        #expect(await eventually { Self.disconnectSent(transport) })
        #expect(clock.now == start)
        transport.deliver(Self.disconnectionComplete)
        _ = try await disconnecting.value
    }

    @Test func aControllerThatNeverReportsThemIsWaitedForOnlyUntilTheFlushTimeout() async throws {
        let (transport, clock, controller, connection) = try await Self.failedPairing()
        defer { controller.close() }
        let start = clock.now
        let disconnecting = Task { try await connection.disconnect() }
        #expect(await eventually { clock.nextDeadline == start.advanced(by: LEConnection.flushTimeout) })
        clock.advance(by: LEConnection.flushTimeout - .milliseconds(1))
        // The flush still waits for its deadline: nothing has been sent.
        #expect(clock.nextDeadline == start.advanced(by: LEConnection.flushTimeout))
        #expect(!Self.disconnectSent(transport))
        clock.advance(by: .milliseconds(1))
        #expect(await eventually { Self.disconnectSent(transport) })
        transport.deliver(Self.disconnectionComplete)
        _ = try await disconnecting.value
    }
}
