import StrobeHCI
import Testing

import StrobeHost

/// `connect` waits for the MTU exchange on the link's own timer, not a sleeping task: the wait
/// ends at its limit, the request goes on, and a late answer still sets the MTU. On a virtual
/// clock, with a scripted controller.
@Suite(.timeLimit(.minutes(1))) struct MTUExchangeWaitTests {
    /// The ATT PDUs the host sent on CID 4.
    static func sentATT(_ transport: ScriptedTransport) -> [[UInt8]] {
        transport.sent.filter { $0.count > 9 && $0[0] == 0x02 && $0[7] == 0x04 && $0[8] == 0x00 }.map { Array($0[9...]) }
    }

    static func att(_ pdu: [UInt8]) -> [UInt8] {
        let l2cap = [UInt8(pdu.count), 0x00, 0x04, 0x00] + pdu
        return [0x02, 0x40, 0x20, UInt8(l2cap.count), 0x00] + l2cap
    }

    @Test func aSilentServersWaitEndsAtItsLimitAndALateAnswerStillCounts() async throws {
        let link = try await ScriptedLink.open()
        defer { link.controller.close() }
        let start = link.clock.now
        let waiting = Task { await link.connection.exchangeMTU(waitingUpTo: .seconds(3)) }
        #expect(await eventually { Self.sentATT(link.transport).first?.first == ATTOpcode.exchangeMTURequest.rawValue })
        #expect(await eventually { link.clock.nextDeadline == start.advanced(by: .seconds(3)) })
        link.clock.advance(by: .seconds(3))
        #expect(await waiting.value == false)
        #expect(link.connection.mtu == 23)
        // The answer after the wait: the MTU is the smaller of the two.
        link.transport.deliver(Self.att([ATTOpcode.exchangeMTUResponse.rawValue, 0xB9, 0x00]))
        #expect(await eventually { link.connection.mtu == 185 })
        // One exchange per link: a second wait ends at once.
        #expect(await link.connection.exchangeMTU(waitingUpTo: .seconds(3)))
    }

    @Test func anAnswerWithinTheLimitEndsTheWaitAndItsDeadline() async throws {
        let link = try await ScriptedLink.open()
        defer { link.controller.close() }
        let waiting = Task { await link.connection.exchangeMTU(waitingUpTo: .seconds(3)) }
        #expect(await eventually { !Self.sentATT(link.transport).isEmpty })
        link.transport.deliver(Self.att([ATTOpcode.exchangeMTUResponse.rawValue, 0xF7, 0x00]))
        #expect(await waiting.value)
        #expect(link.connection.mtu == 247)
    }

    @Test func theLinksEndEndsTheWait() async throws {
        let link = try await ScriptedLink.open()
        defer { link.controller.close() }
        let waiting = Task { await link.connection.exchangeMTU(waitingUpTo: .seconds(3)) }
        #expect(await eventually { !Self.sentATT(link.transport).isEmpty })
        link.transport.deliver([0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13])
        #expect(await waiting.value == false)
    }
}
