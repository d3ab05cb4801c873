import StrobeHCI
import Testing

import StrobeHost

/// A K-frame too long for the link to reassemble is dropped before any channel sees it; the
/// channel it was for ends with a violation instead of joining the next K-frame's bytes into
/// the SDU. A scripted controller, no clock.
@Suite(.timeLimit(.minutes(1))) struct OversizedKFrameTests {
    /// H4 ACL, one start fragment of handle 0x0040 carrying `l2cap` (which may announce more).
    static func acl(_ l2cap: [UInt8]) -> [UInt8] {
        [0x02, 0x40, 0x20, UInt8(l2cap.count & 0xFF), UInt8(l2cap.count >> 8)] + l2cap
    }

    static func signal(_ packet: LESignalingPacket) -> [UInt8] {
        let command = packet.encoded
        return acl([UInt8(command.count), 0x00, 0x05, 0x00] + command)
    }

    @Test func anOversizedKFrameEndsItsChannel() async throws {
        let link = try await ScriptedLink.open(role: .peripheral)
        defer { link.controller.close() }
        var incoming = try link.connection.listen(psm: 0x80, parameters: .init(mtu: 4000, mps: 1000, initialCredits: 8))
            .makeAsyncIterator()
        link.transport.deliver(Self.signal(LECreditBasedConnectionRequest(
            spsm: 0x80, sourceCID: L2CAPChannelID(0x0050), mtu: 100, mps: 64, initialCredits: 1).packet(identifier: 1)))
        let channel = try #require(await incoming.next())
        // The SDU's first K-frame (4000 bytes announced), then one of 2000 bytes announced: above
        // the link's 1024 and the channel's MPS of 1000.
        link.transport.deliver(Self.acl([12, 0x00, UInt8(channel.cid.rawValue), 0x00, 0xA0, 0x0F] + Array(repeating: 1, count: 10)))
        link.transport.deliver(Self.acl([0xD0, 0x07, UInt8(channel.cid.rawValue), 0x00] + Array(repeating: 2, count: 40)))
        #expect(await eventually { channel.isClosed })
        #expect(channel.closeReason == .kFrameExceedsMPS(length: 2000, mps: 1000))
        #expect(link.connection.l2capCounters.errors == 1)
    }
}
