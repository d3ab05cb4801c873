import Testing
import StrobeHCI

/// A Command Complete that only hands out credits.
private func nop(credits: UInt8) -> [UInt8] { [0x04, 0x0E, 0x03, credits, 0x00, 0x00] }

@Suite(.timeLimit(.minutes(1))) struct CommandFlowTests {
    @Test func oneCreditAllowsOneCommandInFlight() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let first = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        let second = Task { try await controller.send(HCILESetScanParameters(scanType: .active, scanInterval: 16, scanWindow: 16)) }
        #expect(await eventually(controller) { $0.queuedCommandCount == 1 })
        #expect(transport.sent.count == base + 1)
        #expect(controller.commandCredits == 0)

        transport.deliver(commandComplete(.leSetScanEnable, credits: 1))
        _ = try await first.outcome
        #expect(transport.sent.count == base + 2)
        #expect(transport.sent.last.flatMap(opcode(of:)) == .leSetScanParameters)
        transport.deliver(commandComplete(.leSetScanParameters, credits: 1))
        _ = try await second.outcome
        #expect(controller.counters.unexpectedCommandResponses == 0)
    }

    @Test func severalCreditsAllowSeveralInFlightAndQueueTheRest() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        transport.deliver(nop(credits: 3))
        #expect(controller.commandCredits == 3)
        let commands: [HCIOpcode] = [.leSetScanEnable, .leSetScanParameters, .leSetAdvertisingEnable, .leCreateConnectionCancel]
        let tasks = [
            Task { try await controller.send(HCILESetScanEnable(enable: true)) },
            Task { try await controller.send(HCILESetScanParameters(scanType: .passive, scanInterval: 16, scanWindow: 16)) },
            Task { try await controller.send(HCILESetAdvertisingEnable(enable: true)) },
            Task { try await controller.send(HCILECreateConnectionCancel()) },
        ]
        _ = await transport.waitForSent(count: base + 3)
        #expect(await eventually(controller) { $0.queuedCommandCount == 1 })
        #expect(transport.sent.count == base + 3)
        let inFlight = transport.sent[base...].compactMap(opcode(of:))
        let waiting = try #require(commands.first { !inFlight.contains($0) })

        // One answer with one credit: the queued command goes out.
        transport.deliver(commandComplete(inFlight[0], credits: 1))
        #expect(transport.sent.count == base + 4)
        #expect(transport.sent.last.flatMap(opcode(of:)) == waiting)
        for op in inFlight.dropFirst() + [waiting] { transport.deliver(commandComplete(op, credits: 1)) }
        for task in tasks { _ = try await task.outcome }
        #expect(controller.counters.unexpectedCommandResponses == 0)
    }

    @Test func zeroCreditsQueueUntilANOPHandsOutCredits() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let first = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        // The controller answers but says it cannot take another command yet.
        transport.deliver(commandComplete(.leSetScanEnable, credits: 0))
        _ = try await first.outcome
        let second = Task { try await controller.send(HCILESetScanEnable(enable: false)) }
        #expect(await eventually(controller) { $0.queuedCommandCount == 1 })
        #expect(transport.sent.count == base + 1)
        transport.deliver(nop(credits: 1))
        #expect(transport.sent.count == base + 2)
        transport.deliver(commandComplete(.leSetScanEnable, credits: 1))
        _ = try await second.outcome
        #expect(controller.counters.unexpectedCommandResponses == 0)
    }

    @Test func commandStatusAnswersAsynchronousCommands() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let accepted = Task { try await controller.send(HCIDisconnect(connectionHandle: 1)) }
        _ = await transport.waitForSent(count: base + 1)
        transport.deliver(commandStatus(.disconnect))
        _ = try await accepted.outcome

        let refused = Task { try await controller.send(HCIDisconnect(connectionHandle: 9)) }
        _ = await transport.waitForSent(count: base + 2)
        transport.deliver(commandStatus(.disconnect, status: HCIStatus.unknownConnectionIdentifier.rawValue))
        await #expect(throws: HCIError.commandFailed(.disconnect, .unknownConnectionIdentifier)) { try await refused.outcome }
    }

    @Test func nonZeroCommandCompleteStatusIsATypedError() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let task = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        transport.deliver(commandComplete(.leSetScanEnable, status: HCIStatus.commandDisallowed.rawValue))
        await #expect(throws: HCIError.commandFailed(.leSetScanEnable, .commandDisallowed)) { try await task.outcome }
    }

    @Test func successfulCommandStatusDoesNotEndACommandCompleteCommand() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let task = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        transport.deliver(commandStatus(.leSetScanEnable))
        transport.deliver(commandComplete(.leSetScanEnable, status: HCIStatus.commandDisallowed.rawValue))
        // Had the Command Status ended it, the call would have succeeded.
        await #expect(throws: HCIError.commandFailed(.leSetScanEnable, .commandDisallowed)) { try await task.outcome }
    }

    @Test func returnParametersAreDecoded() async throws {
        let (controller, transport) = try await openController(keepResponder: true)
        #expect(try await controller.send(HCIReadBDAddr()).bdAddr == BluetoothAddress("00:11:22:33:44:55"))
        #expect(try await controller.send(HCILESetDataLength(connectionHandle: 0x0041, txOctets: 251, txTime: 2120)).connectionHandle == 0x0041)
        transport.setResponder { packet in [commandComplete(opcode(of: packet) ?? .nop, [0x55, 0x44])] }
        await #expect(throws: HCIError.malformed(packet: "Command Complete for Read BD_ADDR (0x1009)",
                                                 detail: "BD_ADDR needs 6 bytes, 2 left")) {
            try await controller.send(HCIReadBDAddr())
        }
        #expect(controller.counters.malformedEvents == 1)
    }

    @Test func unansweredCommandTimesOutOnTheInjectedClock() async throws {
        let clock = VirtualClock()
        let (controller, transport) = try await openController(clock: clock)
        let base = transport.sent.count
        let task = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        await #expect(throws: HCIError.commandTimeout(.leSetScanEnable, after: .seconds(2))) { try await task.outcome }
        #expect(controller.counters.commandTimeouts == 1)

        // The lost answer must not stall the queue: the next command goes out and can succeed.
        let next = Task { try await controller.send(HCILESetScanEnable(enable: false)) }
        _ = await transport.waitForSent(count: base + 2)
        transport.deliver(commandComplete(.leSetScanEnable))
        _ = try await next.outcome
    }

    @Test func answerBeforeTheDeadlineWinsAndCancelsTheTimer() async throws {
        let clock = VirtualClock()
        let (controller, transport) = try await openController(
            clock: clock, configuration: .init(commandTimeout: .milliseconds(500)))
        let base = transport.sent.count
        let task = Task { try await controller.send(HCILESetScanEnable(enable: true), timeout: .seconds(1)) }
        _ = await transport.waitForSent(count: base + 1)
        await clock.waitForSleepers(count: 1)
        // The per-call timeout (1 s) overrides the configuration's (500 ms).
        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        transport.deliver(commandComplete(.leSetScanEnable))
        _ = try await task.outcome
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(5))
        #expect(controller.counters.commandTimeouts == 0)
    }

    @Test func transportFailureFailsEveryPendingCommandOnce() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let inFlight = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        let queued = Task { try await controller.send(HCILESetScanEnable(enable: false)) }
        #expect(await eventually(controller) { $0.queuedCommandCount == 1 })
        let stream = controller.events()

        transport.fail(.closedByPeer)
        await #expect(throws: HCIError.closed(.closedByPeer)) { try await inFlight.outcome }
        await #expect(throws: HCIError.closed(.closedByPeer)) { try await queued.outcome }
        await #expect(throws: HCIError.closed(.closedByPeer)) { try await controller.send(HCIReset()) }
        var remaining = 0
        for await _ in stream { remaining += 1 }
        #expect(remaining == 0)
        // A late answer after the close changes nothing and does not trap.
        transport.deliver(commandComplete(.leSetScanEnable))
    }

    @Test func closeFailsPendingCommandsAndClosesTheTransport() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let task = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        controller.close()
        await #expect(throws: HCIError.closed(nil)) { try await task.outcome }
        #expect(transport.isClosed)
        controller.close()
    }

    @Test func cancellingAWaitingCallerResumesItAndKeepsCreditsRight() async throws {
        let (controller, transport) = try await openController()
        let base = transport.sent.count
        let inFlight = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        let queued = Task { try await controller.send(HCILESetAdvertisingEnable(enable: true)) }
        #expect(await eventually(controller) { $0.queuedCommandCount == 1 })

        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.outcome }
        inFlight.cancel()
        await #expect(throws: CancellationError.self) { try await inFlight.outcome }

        // The controller still answers the written command: matched, not unexpected, credit back.
        transport.deliver(commandComplete(.leSetScanEnable, credits: 1))
        #expect(controller.counters.unexpectedCommandResponses == 0)
        #expect(controller.commandCredits == 1)
        // The cancelled queued command was never written.
        #expect(transport.sent.count == base + 1)
        let next = Task { try await controller.send(HCILESetScanEnable(enable: false)) }
        _ = await transport.waitForSent(count: base + 2)
        transport.deliver(commandComplete(.leSetScanEnable))
        _ = try await next.outcome
    }

    @Test func unexpectedAnswersAreCountedAndStillGiveCredits() async throws {
        let (controller, transport) = try await openController()
        transport.deliver(commandComplete(.leSetScanEnable, credits: 4))
        #expect(controller.counters.unexpectedCommandResponses == 1)
        #expect(controller.commandCredits == 4)
    }

    /// A controller that answers Reset but grants no further command credits: `open()` fails
    /// within its deadline, naming the command that never went out and why.
    @Test func aControllerThatGrantsNoCreditsFailsOpenWithinTheDeadline() async throws {
        let clock = VirtualClock()
        var profile = ControllerProfile()
        profile.credits = 0
        let transport = ScriptedTransport(responder: profile.responder)
        let controller = HCIController(transport: transport, clock: clock)
        let opening = Task { try await controller.open() }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(2))
        await #expect(throws: HCIError.noCommandCredits(.readLocalVersionInformation, after: .seconds(2))) {
            try await opening.outcome
        }
        #expect(transport.sent.compactMap(opcode(of:)) == [.reset])
        #expect(transport.isClosed)
    }

    /// A controller that stops answering after init: the liveness probe (Read BD_ADDR, every 5 s)
    /// goes unanswered for the 2 s command timeout and the controller closes as unresponsive,
    /// which is the cause every later caller sees.
    @Test func aControllerThatFallsSilentIsClosedByTheLivenessProbe() async throws {
        let clock = VirtualClock()
        let (controller, transport) = try await openController(
            clock: clock, configuration: .init(livenessProbeInterval: .seconds(5)))
        let base = transport.sent.count
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(5))
        let sent = await transport.waitForSent(count: base + 1)
        #expect(opcode(of: sent[base]) == .readBDAddr)
        await clock.waitForSleepers(count: 1)
        #expect(controller.closeError == nil)
        clock.advance(by: .seconds(2))
        #expect(await eventually(controller) { $0.isClosed })
        let cause = TransportError.unresponsive(probe: "Read BD_ADDR", after: .seconds(2))
        #expect(controller.closeError == .closed(cause))
        // The controller records its close first and closes the transport just after, on the
        // prober's task; a transport left open fails at the suite's time limit.
        await transport.waitForClose()
        #expect(transport.isClosed)
        await #expect(throws: HCIError.closed(cause)) { try await controller.send(HCIReset()) }
        #expect(cause.description == "the controller stopped answering: no answer to Read BD_ADDR within 2 s")
    }

    /// A controller that grants no command credits after init: the liveness probe is never
    /// written, fails with `noCommandCredits` at the 2 s command timeout, and the controller
    /// closes as unresponsive all the same.
    @Test func aControllerWithoutCommandCreditsIsClosedByTheLivenessProbe() async throws {
        let clock = VirtualClock()
        let (controller, transport) = try await openController(
            clock: clock, configuration: .init(livenessProbeInterval: .seconds(5)))
        transport.deliver(nop(credits: 0))
        let base = transport.sent.count
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(5))
        await clock.waitForSleepers(count: 1)
        #expect(transport.sent.count == base, "no credit, so the probe is not written")
        #expect(controller.closeError == nil)
        clock.advance(by: .seconds(2))
        #expect(await eventually(controller) { $0.isClosed })
        #expect(controller.closeError == .closed(.unresponsive(probe: "Read BD_ADDR", after: .seconds(2))))
        // The controller records its close first and closes the transport just after, on the
        // prober's task; a transport left open fails at the suite's time limit.
        await transport.waitForClose()
        #expect(transport.isClosed)
    }

    /// Credits that drop to 0 after a command: the next one waits, then fails at its deadline
    /// (counted from when it was queued), and a NOP later lets the queue move again.
    @Test func creditsThatDropToZeroFailTheWaitingCommandAtItsDeadline() async throws {
        let clock = VirtualClock()
        let (controller, transport) = try await openController(clock: clock)
        let base = transport.sent.count
        let enable = Task { try await controller.send(HCILESetScanEnable(enable: true)) }
        _ = await transport.waitForSent(count: base + 1)
        transport.deliver(commandComplete(.leSetScanEnable, credits: 0))
        _ = try await enable.outcome
        let stuck = Task { try await controller.send(HCILESetScanEnable(enable: false)) }
        #expect(await eventually(controller) { $0.queuedCommandCount == 1 })
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(2))
        await #expect(throws: HCIError.noCommandCredits(.leSetScanEnable, after: .seconds(2))) {
            try await stuck.outcome
        }
        #expect(transport.sent.count == base + 1)
        #expect(clock.sleeperCount == 0)
        transport.deliver(nop(credits: 1))
        let after = Task { try await controller.send(HCILESetScanEnable(enable: false)) }
        _ = await transport.waitForSent(count: base + 2)
        transport.deliver(commandComplete(.leSetScanEnable))
        _ = try await after.outcome
    }
}
