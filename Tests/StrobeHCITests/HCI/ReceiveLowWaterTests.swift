import Testing
import StrobeHCI

/// A link part-way through a PDU, owing `owed` data bytes.
private final class OwingACLHandler: HCIACLHandler {
    let owed: Int
    init(owed: Int) { self.owed = owed }
    func controllerDidReceiveACL(_ header: ACLHeader, payload: UnsafeRawBufferPointer, at time: HostTime,
                                 context: UnsafeMutableRawPointer?) {}
    var bytesToCompletePDU: Int { owed }
}

/// An ATT Exchange MTU Request (247) in one L2CAP PDU on CID 4.
private let mtuRequest: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00]

/// What the controller tells a stream reader it may wait for (`HCIReceiveLowWater`). The test's
/// thread stands in for the reader.
@Suite(.timeLimit(.minutes(1))) struct ReceiveLowWaterTests {
    @Test func theOnlyLinksOwedBytesWhileTheHostAwaitsNothing() async throws {
        var profile = ControllerProfile()
        profile.leBufferV1 = (27, 2)
        let (controller, transport) = try await openController(profile: profile)
        #expect(controller.aclBytesCertainToFollow() == 0)
        controller.setACLHandler(OwingACLHandler(owed: 200), for: 1)
        #expect(controller.aclBytesCertainToFollow() == 200)

        // A packet of the host's awaiting its Number Of Completed Packets: the credits must not
        // wait behind the PDU.
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        #expect(controller.aclBytesCertainToFollow() == 0)
        transport.deliver(completedPackets([(handle: 1, count: 1)]))
        #expect(controller.aclBytesCertainToFollow() == 200)

        // A command awaiting its answer.
        let base = transport.sent.count
        let command = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        #expect(controller.aclBytesCertainToFollow() == 0)
        transport.deliver(commandComplete(.leSetScanEnable))
        _ = try await command.outcome
        #expect(controller.aclBytesCertainToFollow() == 200)

        // A second link: its packets must not wait behind the first's PDU.
        controller.setACLHandler(OwingACLHandler(owed: 0), for: 2)
        #expect(controller.aclBytesCertainToFollow() == 0)
        controller.setACLHandler(nil, for: 2)
        #expect(controller.aclBytesCertainToFollow() == 200)
    }
}
