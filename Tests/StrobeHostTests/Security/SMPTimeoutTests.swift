import StrobeHCI
import StrobeSecurity
import Testing

import StrobeHost

/// The SMP timer on a link, on a virtual clock: a peer that stops answering ends the pairing 30 s
/// after the last SMP command, and the link takes no more SMP (Core Vol 3, Part H, 3.4).
@Suite(.timeLimit(.minutes(1))) struct SMPTimeoutTests {
    static let handle: [UInt8] = [0x40, 0x00]

    /// An ACL packet carrying one SMP PDU (CID 6) from the peer.
    static func smp(_ pdu: [UInt8]) -> [UInt8] {
        let l2cap = [UInt8(pdu.count), 0x00, 0x06, 0x00] + pdu
        return [0x02, handle[0], handle[1] | 0x20, UInt8(l2cap.count), 0x00] + l2cap
    }

    /// The SMP PDUs the host sent.
    static func sentSMP(_ transport: ScriptedTransport) -> [[UInt8]] {
        transport.sent.filter { $0.count > 9 && $0[0] == 0x02 && $0[7] == 0x06 && $0[8] == 0x00 }.map { Array($0[9...]) }
    }

    @Test func aPeerThatStopsAnsweringTimesOutAndTheLinkTakesNoMoreSMP() async throws {
        let link = try await ScriptedLink.open()
        let (transport, clock, connection) = (link.transport, link.clock, link.connection)
        defer { link.controller.close() }

        let before = clock.sleeperCount
        let pairing = Task { try await connection.pair() }
        #expect(await eventually { Self.sentSMP(transport).first?.first == SMPCommandCode.pairingRequest.rawValue })
        // The link's one timer, set for the SMP timer (pair()'s own deadline comes later).
        await clock.waitForSleepers(count: before + 1)
        clock.advance(by: .seconds(30) - .milliseconds(1))
        #expect(connection.pairingResult == nil)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: StrobeError.security(SecurityError.pairing(.timeout))) { try await pairing.outcome }

        // After the timeout: a late answer gets nothing back, and pairing cannot start again.
        let sent = Self.sentSMP(transport).count
        transport.deliver(Self.smp([0x02, 0x03, 0x00, 0x09, 0x10, 0x07, 0x07]))
        transport.deliver(Self.smp([0x3F]))
        #expect(Self.sentSMP(transport).count == sent)
        await #expect(throws: StrobeError.security(SecurityError.pairing(.notAllowed("SMP timed out on this link")))) { try await connection.pair() }
        #expect(connection.securityLevel == .none)
    }
}
