import Testing
import StrobeHCI

private func controller(buffers: UInt8) async throws -> (HCIController, ScriptedTransport) {
    var profile = ControllerProfile()
    profile.leBufferV1 = (27, buffers)
    return try await openController(profile: profile)
}

private func twoBufferController() async throws -> (HCIController, ScriptedTransport) {
    try await controller(buffers: 2)
}

private struct NoBuffer: Error {}

/// An ATT Exchange MTU Request (247) in one L2CAP PDU on CID 4.
private let mtuRequest: [UInt8] = [0x03, 0x00, 0x04, 0x00, 0x02, 0xF7, 0x00]

@Suite(.timeLimit(.minutes(1))) struct ACLFlowTests {
    @Test func sendWritesOneWholeH4Packet() async throws {
        let (controller, transport) = try await twoBufferController()
        try await controller.sendACL(handle: 0x0001, boundary: .firstNonFlushable, payload: mtuRequest)
        #expect(transport.sent.last == bytes("02 01 00 07 00 03 00 04 00 02 f7 00"))
        try await controller.sendACL(handle: 0x0ABC, boundary: .continuing, payload: [0xEE])
        #expect(transport.sent.last == bytes("02 bc 1a 01 00 ee"))
        #expect(controller.counters.aclPacketsSent == 2)
    }

    @Test func creditsAreConsumedAndReturnedPerHandle() async throws {
        let (controller, transport) = try await twoBufferController()
        let base = transport.sent.count
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        try await controller.sendACL(handle: 2, boundary: .firstNonFlushable, payload: mtuRequest)
        #expect(controller.aclCredits == 0)
        #expect(controller.aclPacketsInFlight(handle: 1) == 1 && controller.aclPacketsInFlight(handle: 2) == 1)

        // No buffer: the third send waits instead of dropping.
        let third = Task { try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: [1, 2, 3]) }
        #expect(await eventually(controller) { $0.aclWaitingCount == 1 })
        #expect(transport.sent.count == base + 2)
        let none = controller.tryReserveACLBuffer(for: 1) == nil
        #expect(none)

        transport.deliver(completedPackets([(handle: 2, count: 1)]))
        try await third.outcome
        #expect(transport.sent.count == base + 3)
        #expect(controller.aclPacketsInFlight(handle: 1) == 2 && controller.aclPacketsInFlight(handle: 2) == 0)
        #expect(controller.aclCredits == 0)

        transport.deliver(completedPackets([(handle: 1, count: 2)]))
        #expect(controller.aclCredits == 2)
        // More completions than packets in flight are counted, not credited.
        transport.deliver(completedPackets([(handle: 1, count: 1)]))
        #expect(controller.aclCredits == 2)
        #expect(controller.counters.unexpectedCompletedPackets == 1)
    }

    @Test func disconnectionReclaimsCreditsAndFailsWaitersForThatHandle() async throws {
        let (controller, transport) = try await twoBufferController()
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        let sameHandle = Task { try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: [1]) }
        #expect(await eventually(controller) { $0.aclWaitingCount == 1 })
        let otherHandle = Task { try await controller.sendACL(handle: 2, boundary: .firstNonFlushable, payload: [2]) }
        #expect(await eventually(controller) { $0.aclWaitingCount == 2 })

        transport.deliver(disconnectionComplete(handle: 1))
        await #expect(throws: HCIError.connectionClosed(handle: 1)) { try await sameHandle.outcome }
        try await otherHandle.outcome
        #expect(controller.aclPacketsInFlight(handle: 1) == 0)
        #expect(controller.aclPacketsInFlight(handle: 2) == 1)
        #expect(controller.aclCredits == 1)
        #expect(transport.sent.last == bytes("02 02 00 01 00 02"))
    }

    @Test func cancelledAndClosedSendersAreResumed() async throws {
        let (controller, transport) = try await twoBufferController()
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        let cancelled = Task { try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: [1]) }
        #expect(await eventually(controller) { $0.aclWaitingCount == 1 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.outcome }

        let closed = Task { try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: [1]) }
        #expect(await eventually(controller) { $0.aclWaitingCount == 1 })
        transport.fail(.closedByPeer)
        await #expect(throws: HCIError.closed(.closedByPeer)) { try await closed.outcome }
    }

    @Test func oversizedPayloadIsRefused() async throws {
        let (controller, _) = try await twoBufferController()
        await #expect(throws: HCIError.aclPayloadTooLong(length: 28, maximum: 27)) {
            try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: [UInt8](repeating: 0, count: 28))
        }
        #expect(controller.aclCredits == 2)
    }

    @Test func receivedACLGoesToTheHandler() async throws {
        let (controller, transport) = try await twoBufferController()
        transport.deliver(bytes("02 01 20 07 00 03 00 04 00 03 05 02"))
        #expect(controller.counters.aclPacketsWithoutHandler == 1)

        let handler = RecordingACLHandler()
        controller.setACLHandler(handler, for: 1)
        transport.deliver(bytes("02 01 20 07 00 03 00 04 00 03 05 02"), at: HostTime(nanoseconds: 7))
        transport.deliver(bytes("02 01 10 02 00 aa bb"))
        #expect(handler.packets.values == [
            .init(handle: 1, boundary: .firstFlushable, payload: [0x03, 0x00, 0x04, 0x00, 0x03, 0x05, 0x02],
                  time: HostTime(nanoseconds: 7)),
            .init(handle: 1, boundary: .continuing, payload: [0xAA, 0xBB], time: HostTime(nanoseconds: 1)),
        ])
        // Length field disagreeing with the bytes, and a short header: counted, not delivered.
        transport.deliver(bytes("02 01 20 09 00 03 00"))
        transport.deliver(bytes("02 01"))
        #expect(controller.counters.malformedACLPackets == 2)
        #expect(handler.packets.values.count == 2)
        #expect(controller.counters.aclPacketsReceived == 3)
    }

    /// Routes are found by their handles' low bits among many links, handles that share them
    /// (0x0040 and 0x0100, 0x0001 and 0x0041) probing on: each handle's data reaches its own
    /// handler (whichever order the routes were added in), and a handle without a route reaches
    /// none, whether its first slot is vacant or taken (0x0E1F's probe wraps past 0x0EFF at the
    /// table's end). Each packet comes with its own handler's receive context.
    @Test func eachOfManyHandlesReachesItsOwnHandler() async throws {
        let (controller, transport) = try await twoBufferController()
        let handles: [UInt16] = [0x0EFF, 0x0040, 0x0002, 0x0100, 0x0041, 0x0001, 0x0777, 0x0042, 0x0003]
        var handlers: [UInt16: RecordingACLHandler] = [:]
        for handle in handles {
            handlers[handle] = RecordingACLHandler(contextAddress: 0x1000 + Int(handle) * 16)
            controller.setACLHandler(handlers[handle], for: ConnectionHandle(rawValue: handle))
        }
        for handle in handles.reversed() {
            transport.deliver([0x02, UInt8(handle & 0xFF), UInt8(handle >> 8) | 0x20, 0x01, 0x00, UInt8(handle & 0xFF)])
        }
        for handle in handles {
            #expect(handlers[handle]?.packets.values.map(\.payload) == [[UInt8(handle & 0xFF)]], "handle \(handle)")
            #expect(handlers[handle]?.packets.values.map(\.handle) == [ConnectionHandle(rawValue: handle)])
            #expect(handlers[handle]?.packets.values.map(\.context) == [0x1000 + Int(handle) * 16], "handle \(handle)")
        }
        for unrouted: UInt16 in [0x0050, 0x0060, 0x0E1F, 0x0004] {
            transport.deliver([0x02, UInt8(unrouted & 0xFF), UInt8(unrouted >> 8) | 0x20, 0x01, 0x00, 0x00])
        }
        #expect(controller.counters.aclPacketsWithoutHandler == 4)
        #expect(handles.allSatisfy { handlers[$0]?.packets.values.count == 1 })
    }

    /// Until the transport reports the end of a read, each packet is a batch of its own; after,
    /// batches end where the transport says, on every link.
    @Test func batchesEndPerPacketUntilTheTransportReportsItsReads() async throws {
        let (controller, transport) = try await twoBufferController()
        let first = RecordingACLHandler()
        let second = RecordingACLHandler()
        controller.setACLHandler(first, for: 1)
        controller.setACLHandler(second, for: 2)
        transport.deliver(bytes("02 01 20 02 00 aa bb"))
        transport.deliver(bytes("02 01 10 02 00 cc dd"))
        #expect(first.events.values == ["acl", "end", "acl", "end"])
        #expect(second.events.values == [])

        controller.transportDidFinishBatch()
        transport.deliver(bytes("02 01 20 02 00 aa bb"))
        transport.deliver(bytes("02 02 20 02 00 aa bb"))
        transport.deliver(bytes("02 01 10 02 00 cc dd"))
        #expect(first.events.values == ["acl", "end", "acl", "end", "end", "acl", "acl"])
        #expect(second.events.values == ["end", "acl"])
        controller.transportDidFinishBatch()
        #expect(first.events.values.suffix(3) == ["acl", "acl", "end"])
        #expect(second.events.values == ["end", "acl", "end"])
    }

    @Test func aReservedBufferIsHeldUntilItsPacketGoesOrComesBack() async throws {
        let (controller, transport) = try await controller(buffers: 3)
        guard let first = controller.tryReserveACLBuffer(for: 1, keepingOneFree: true) else { throw NoBuffer() }
        #expect(controller.aclCredits == 2)
        #expect(controller.aclPacketsInFlight(handle: 1) == 1)
        guard let second = controller.tryReserveACLBuffer(for: 2, keepingOneFree: true) else { throw NoBuffer() }
        // The last buffer stays free for everyone else.
        let refused = controller.tryReserveACLBuffer(for: 3, keepingOneFree: true) == nil
        #expect(refused)
        #expect(controller.aclCredits == 1)

        let packet = bytes("02 01 00 07 00 03 00 04 00 02 f7 00")
        try first.send(packet)
        #expect(transport.sent.last == packet)
        #expect(controller.counters.aclPacketsSent == 1)
        #expect(controller.aclCredits == 1)
        transport.deliver(completedPackets([(handle: 1, count: 1)]))
        #expect(controller.aclCredits == 2)

        second.release()
        #expect(controller.aclCredits == 3)
        #expect(controller.aclPacketsInFlight(handle: 2) == 0)
        #expect(controller.counters.unexpectedCompletedPackets == 0)
    }

    @Test func aReservationThatGoesOutOfScopeGivesItsBufferBack() async throws {
        let (controller, _) = try await controller(buffers: 2)
        do {
            let unused = controller.tryReserveACLBuffer(for: 1)
            let held = unused != nil
            #expect(held)
            #expect(controller.aclCredits == 1)
        }
        #expect(controller.aclCredits == 2)
        #expect(controller.aclPacketsInFlight(handle: 1) == 0)
    }

    @Test func aReservationEndsWithItsConnection() async throws {
        let (controller, transport) = try await controller(buffers: 3)
        guard let reservation = controller.tryReserveACLBuffer(for: 1) else { throw NoBuffer() }
        transport.deliver(disconnectionComplete(handle: 1))
        #expect(controller.aclCredits == 3)
        // Giving back what the disconnection already returned changes nothing.
        reservation.release()
        #expect(controller.aclCredits == 3)
        #expect(controller.counters.unexpectedCompletedPackets == 0)
    }

    @Test func aControllerThatReturnsNoBuffersFailsTheSenderAtItsDeadline() async throws {
        let clock = VirtualClock()
        var profile = ControllerProfile()
        profile.leBufferV1 = (27, 1)
        let (controller, transport) = try await openController(
            profile: profile, clock: clock, configuration: .init(aclCreditTimeout: .seconds(3)))
        try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: mtuRequest)
        let base = transport.sent.count
        // The controller never sends Number Of Completed Packets.
        let stuck = Task { try await controller.sendACL(handle: 1, boundary: .firstNonFlushable, payload: [1]) }
        #expect(await eventually(controller) { $0.aclWaitingCount == 1 })
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .milliseconds(2999))
        #expect(controller.aclCredits == 0)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: HCIError.noACLCredits(handle: 1, waited: .seconds(3), inFlight: 1, total: 1)) {
            try await stuck.outcome
        }
        #expect(transport.sent.count == base)
        #expect(clock.sleeperCount == 0)
        #expect(await eventually(controller) { $0.aclWaitingCount == 0 })
    }
}
