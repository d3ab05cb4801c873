import StrobeHCI
import Testing

import StrobeHost

/// The link's own deadlines on a scripted controller and a virtual clock: a controller that
/// takes LE Connection Update and never reports it done fails the caller at the procedure
/// timeout, and the next update may be asked.
@Suite(.timeLimit(.minutes(1))) struct ProcedureTimeoutTests {
    static let parameters = LEConnectionParameters(interval: .milliseconds(15)...(.milliseconds(15)), supervisionTimeout: .seconds(2))

    @Test func anUpdateNeverReportedDoneTimesOutAndFreesTheSlot() async throws {
        let link = try await ScriptedLink.open()
        let (clock, connection) = (link.clock, link.connection)
        defer { link.controller.close() }
        let update = Task { try await connection.updateParameters(Self.parameters) }
        // The link's timer, set for the procedure's end.
        await clock.waitForSleepers(count: 1, deadline: clock.now.advanced(by: LEConnection.procedureTimeout))
        await #expect(throws: StrobeError.connection(ConnectionError.alreadyUpdating(address: connection.peerAddress))) {
            try await connection.updateParameters(Self.parameters)
        }
        clock.advance(by: LEConnection.procedureTimeout)
        await #expect(throws: StrobeError.connection(ConnectionError.updateTimeout(address: connection.peerAddress, after: LEConnection.procedureTimeout))) {
            _ = try await update.outcome
        }
        // The slot is free again: a new update is asked, and this time the controller reports it.
        let again = Task { try await connection.updateParameters(Self.parameters) }
        #expect(await eventually { link.transport.sent.filter { opcode(of: $0) == .leConnectionUpdate }.count == 2 })
        link.transport.deliver([0x04, 0x3E, 0x0A, 0x03, 0x00, 0x40, 0x00, 0x0C, 0x00, 0x00, 0x00, 0xC8, 0x00])
        #expect(try await again.outcome.supervisionTimeout == 200)
    }
}

/// The L2CAP signalling deadlines on a scripted controller and a virtual clock: a request of
/// ours the peer never answers ends after the response timeout (the spec's RTX, here 30 s).
@Suite(.timeLimit(.minutes(1))) struct SignalingTimeoutTests {
    @Test func anUnansweredChannelRequestFailsAfterTheResponseTimeout() async throws {
        let link = try await ScriptedLink.open()
        let (clock, connection) = (link.clock, link.connection)
        defer { link.controller.close() }
        let open = Task { try await connection.openChannel(psm: 0x0085) }
        #expect(await eventually { !ParameterUpdateFallbackTests.signaling(link.transport).isEmpty })
        await clock.waitForSleepers(count: 1, deadline: clock.now.advanced(by: L2CAPLink.responseTimeout))
        clock.advance(by: L2CAPLink.responseTimeout)
        await #expect(throws: StrobeError.l2cap(L2CAPChannelError.timeout(after: L2CAPLink.responseTimeout))) { _ = try await open.outcome }
    }

    /// A peripheral whose controller cannot run the link layer's procedure asks through L2CAP;
    /// a central that never answers fails the update with `timeout`, and the next may be asked.
    @Test func anUnansweredParameterUpdateRequestTimesOut() async throws {
        let link = try await ScriptedLink.open(role: .peripheral, transport: ParameterUpdateFallbackTests.controller())
        let (transport, clock, connection) = (link.transport, link.clock, link.connection)
        defer { link.controller.close() }
        let update = Task { try await connection.updateParameters(ParameterUpdateFallbackTests.asked) }
        #expect(await eventually { ParameterUpdateFallbackTests.signaling(transport).count == 1 })
        await clock.waitForSleepers(count: 1, deadline: clock.now.advanced(by: L2CAPLink.responseTimeout))
        clock.advance(by: L2CAPLink.responseTimeout)
        await #expect(throws: StrobeError.connection(ConnectionError.updateTimeout(address: connection.peerAddress, after: L2CAPLink.responseTimeout))) {
            _ = try await update.outcome
        }
        let again = Task { try await connection.updateParameters(ParameterUpdateFallbackTests.asked) }
        #expect(await eventually { ParameterUpdateFallbackTests.signaling(transport).count == 2 })
        again.cancel()
    }
}
