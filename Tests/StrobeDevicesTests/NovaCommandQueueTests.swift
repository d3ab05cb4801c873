import Testing
import StrobeDevices

private typealias Queue = NovaCommandQueue<VirtualInstant>
private typealias Action = Queue.Action

private let t0 = VirtualInstant.zero
private func at(_ milliseconds: Int) -> VirtualInstant { t0.advanced(by: .milliseconds(milliseconds)) }
private func ticket(_ raw: UInt64) -> NovaCommandTicket { NovaCommandTicket(rawValue: raw) }

@Suite struct NovaCommandQueueTests {
    @Test func oneCommandIsWrittenAndCompletedByItsAck() {
        var queue = Queue(model: .v1)
        let (id, actions) = queue.enqueue(.ping, now: t0)
        #expect(id == ticket(1))
        #expect(actions == [.write(ascii("(00:P)")), .startTimer(deadline: at(2000))])
        #expect(queue.isBusy)
        #expect(queue.pendingRequestID == 0)

        #expect(queue.responseReceived(ascii("(00:A)"), now: at(30)) == [.complete(id, .acknowledged), .cancelTimer])
        #expect(!queue.isBusy)
        #expect(queue.counters.acknowledged == 1)
    }

    @Test func commandsWaitInOrderForThePreviousAck() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.ping, now: t0)
        let b = queue.enqueue(.off, now: at(1))
        let c = queue.enqueue(.flash(.gentle), now: at(2))
        #expect(b.actions == [])
        #expect(c.actions == [.lightChanged(isLit: true)])
        #expect(queue.queuedCount == 2)
        #expect(queue.counters.written == 1)

        #expect(queue.responseReceived(ascii("(00:A)"), now: at(10)) == [
            .complete(a.ticket, .acknowledged), .write(ascii("(01:O)")), .startTimer(deadline: at(2010)),
        ])
        #expect(queue.responseReceived(ascii("(01:A)"), now: at(20)) == [
            .complete(b.ticket, .acknowledged), .write(ascii("(02:L,7F,00,01F4)")), .startTimer(deadline: at(2020)),
        ])
        #expect(queue.queuedCount == 0)
    }

    @Test func aLostAckTimesOutAndTheNextCommandGoes() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.ping, now: t0)
        let b = queue.enqueue(.ping, now: at(1000))
        // A timer that fires early changes nothing but is re-armed.
        #expect(queue.timerFired(now: at(1999)) == [.startTimer(deadline: at(2000))])
        #expect(queue.timerFired(now: at(2000)) == [
            .complete(a.ticket, .failed(.ackTimeout)), .write(ascii("(01:P)")), .startTimer(deadline: at(4000)),
        ])
        #expect(queue.counters.timedOut == 1)
        #expect(queue.responseReceived(ascii("(01:A)"), now: at(2100)) == [.complete(b.ticket, .acknowledged), .cancelTimer])
        #expect(queue.isOpen)
    }

    @Test func aFailedWriteFailsItsCommandAndTheNextCommandGoes() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.flash(.gentle), now: t0)
        let b = queue.enqueue(.ping, now: at(1))
        // Another command's bytes (not the one in flight) change nothing.
        #expect(queue.writeFailed(ascii("(07:P)"), reason: "closed", now: at(5)) == [])
        #expect(queue.writeFailed(ascii("(00:L,7F,00,01F4)"), reason: "ATT timeout", now: at(10)) == [
            .complete(a.ticket, .failed(.writeFailed("ATT timeout"))), .lightChanged(isLit: false), .write(ascii("(01:P)")),
            .startTimer(deadline: at(2010)),
        ])
        #expect(queue.counters.failed == 1)
        #expect(queue.isOpen)
        #expect(queue.responseReceived(ascii("(01:A)"), now: at(20)) == [.complete(b.ticket, .acknowledged), .cancelTimer])
    }

    @Test func aWriteThatFailsAfterItsCommandTimedOutChangesNothing() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.ping, now: t0)
        _ = queue.enqueue(.ping, now: at(1))
        #expect(queue.timerFired(now: at(2000)) == [
            .complete(a.ticket, .failed(.ackTimeout)), .write(ascii("(01:P)")), .startTimer(deadline: at(4000)),
        ])
        #expect(queue.writeFailed(ascii("(00:P)"), reason: "ATT timeout", now: at(2500)) == [])
        #expect(queue.pendingRequestID == 1)
    }

    @Test func anAckForAnotherRequestDisconnectsAndFailsEverything() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.ping, now: t0)
        let b = queue.enqueue(.ping, now: t0)
        let c = queue.enqueue(.off, now: t0)
        let failure = NovaCommandResult.failed(.unexpectedAck(expected: 0, received: 7))
        #expect(queue.responseReceived(ascii("(07:A)"), now: at(5)) == [
            .disconnect, .complete(a.ticket, failure), .complete(b.ticket, failure), .complete(c.ticket, failure),
            .cancelTimer,
        ])
        #expect(!queue.isOpen)
        #expect(queue.counters.unexpectedAcks == 1)
        #expect(queue.counters.failed == 3)
        #expect(NovaCommandFailure.unexpectedAck(expected: 0, received: 7).isProtocolViolation)
        #expect(!NovaCommandFailure.ackTimeout.isProtocolViolation)
    }

    @Test func aLateAckAfterItsTimeoutIsAnotherRequestsAck() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.ping, now: t0)
        let b = queue.enqueue(.ping, now: t0)
        _ = queue.timerFired(now: at(2000))
        let actions = queue.responseReceived(ascii("(00:A)"), now: at(2500))
        #expect(actions.first == .disconnect)
        #expect(actions.contains(.complete(b.ticket, .failed(.unexpectedAck(expected: 1, received: 0)))))
        #expect(!actions.contains { if case .complete(a.ticket, _) = $0 { true } else { false } })
    }

    @Test(arguments: [ascii("garbage"), ascii("(00:A"), [UInt8](), ascii("(00:P)")])
    func anUnparsableResponseDisconnectsAndFailsEverything(response: [UInt8]) {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.ping, now: t0)
        let b = queue.enqueue(.ping, now: t0)
        let actions = queue.responseReceived(response, now: at(5))
        #expect(actions.count == 4)
        #expect(actions[0] == .disconnect)
        for (index, command) in [a.ticket, b.ticket].enumerated() {
            guard case .complete(command, .failed(.malformedResponse)) = actions[index + 1] else {
                Issue.record("expected a malformed-response failure of \(command), got \(actions[index + 1])")
                continue
            }
        }
        #expect(actions[3] == .cancelTimer)
        #expect(queue.counters.malformedResponses == 1)
    }

    @Test func anAckWithNothingPendingDisconnects() {
        var queue = Queue(model: .v2)
        #expect(queue.responseReceived([0, 0, 0, 4], now: t0) == [.disconnect])
        #expect(!queue.isOpen)
        #expect(queue.counters.unexpectedAcks == 1)
        // What the owner's disconnect then reports changes nothing more.
        #expect(queue.disconnected() == [])
    }

    @Test func disconnectFailsThePendingAndAllQueuedCommands() {
        var queue = Queue(model: .v2)
        let tickets = (0..<4).map { _ in queue.enqueue(.ping, now: t0).ticket }
        #expect(queue.queuedCount == 3)
        #expect(queue.disconnected() == tickets.map { .complete($0, .failed(.disconnected)) } + [.cancelTimer])
        #expect(queue.queuedCount == 0)
        #expect(!queue.isBusy)
        #expect(queue.counters.failed == 4)
    }

    @Test func aClosedQueueRefusesAndIgnores() {
        var queue = Queue(model: .v1)
        _ = queue.disconnected()
        let (id, actions) = queue.enqueue(.ping, now: t0)
        #expect(actions == [.complete(id, .failed(.notConnected))])
        #expect(queue.responseReceived(ascii("(00:A)"), now: t0) == [])
        #expect(queue.timerFired(now: at(3000)) == [])
        #expect(queue.counters.ignoredAfterClose == 2)
    }

    @Test func emptyLightsGoOutAsOff() {
        var v1 = Queue(model: .v1)
        #expect(v1.enqueue(.flash(.off), now: t0).actions == [.write(ascii("(00:O)")), .startTimer(deadline: at(2000))])
        var v2 = Queue(model: .v2, firstRequestID: 0x0102)
        let zeroTimeout = NovaCommand.flash(.full.withTimeout(.zero))
        #expect(v2.enqueue(zeroTimeout, now: t0).actions == [.write([3, 0, 1, 2]), .startTimer(deadline: at(2000))])
        #expect(!v2.light.isLit)
    }

    @Test func requestIDsWrap() {
        var v1 = Queue(model: .v1, firstRequestID: 0xFF)
        #expect(v1.enqueue(.ping, now: t0).actions.first == .write(ascii("(FF:P)")))
        _ = v1.enqueue(.ping, now: t0)
        #expect(v1.responseReceived(ascii("(FF:A)"), now: at(1)).contains(.write(ascii("(00:P)"))))

        var v2 = Queue(model: .v2, firstRequestID: 0xFFFF)
        #expect(v2.enqueue(.ping, now: t0).actions.first == .write([1, 0, 0xFF, 0xFF]))
        _ = v2.enqueue(.ping, now: t0)
        #expect(v2.responseReceived([0, 0, 0xFF, 0xFF], now: at(1)).contains(.write([1, 0, 0, 0])))
    }

    @Test func theFlashButtonIsReportedWithoutTouchingTheQueue() {
        var queue = Queue(model: .v2)
        let a = queue.enqueue(.ping, now: t0)
        #expect(queue.responseReceived([4, 0, 0, 0, 1], now: at(1)) == [.remoteTrigger(pressed: true)])
        #expect(queue.responseReceived([4, 0, 0, 0, 0], now: at(2)) == [.remoteTrigger(pressed: false)])
        #expect(queue.counters.triggers == 2)
        #expect(queue.isBusy)
        #expect(queue.responseReceived([0, 0, 0, 0], now: at(3)) == [.complete(a.ticket, .acknowledged), .cancelTimer])
    }

    @Test func theLightGoesOutWhenItsSafetyTimeoutPasses() {
        var queue = Queue(model: .v2)
        let flash = NovaCommand.flash(.full.withTimeout(.milliseconds(1500)))
        let a = queue.enqueue(flash, now: t0)
        #expect(a.actions == [
            .lightChanged(isLit: true), .write([2, 0, 0, 0, 0x05, 0xDC, 255, 255]), .startTimer(deadline: at(2000)),
        ])
        #expect(queue.isLit(at: at(10)))
        // The device's timeout starts with the ack; the one timer now waits for it.
        #expect(queue.responseReceived([0, 0, 0, 0], now: at(20)) == [
            .complete(a.ticket, .acknowledged), .startTimer(deadline: at(1520)),
        ])
        #expect(queue.isLit(at: at(1519)))
        #expect(!queue.isLit(at: at(1520)))
        // The timer that fired is spent: nothing to cancel.
        #expect(queue.timerFired(now: at(1520)) == [.lightChanged(isLit: false)])
        #expect(!queue.light.isLit)
    }

    @Test func offAFailedLightOrADisconnectPutTheLightOut() {
        var queue = Queue(model: .v1)
        _ = queue.enqueue(.flash(.warm), now: t0)
        #expect(queue.enqueue(.off, now: at(1)).actions == [.lightChanged(isLit: false)])

        var timedOut = Queue(model: .v1)
        let a = timedOut.enqueue(.flash(.warm), now: t0)
        #expect(timedOut.timerFired(now: at(2000)) == [
            .complete(a.ticket, .failed(.ackTimeout)), .lightChanged(isLit: false),
        ])

        var dropped = Queue(model: .v1)
        let b = dropped.enqueue(.flash(.warm), now: t0)
        #expect(dropped.disconnected() == [
            .complete(b.ticket, .failed(.disconnected)), .lightChanged(isLit: false), .cancelTimer,
        ])
    }

    @Test func theEarliestDeadlineArmsTheTimer() {
        var queue = Queue(model: .v1)
        let a = queue.enqueue(.flash(.full.withTimeout(.milliseconds(100))), now: t0)
        _ = queue.responseReceived(ascii("(00:A)"), now: at(10))
        // Light goes out at 110 ms; a ping written at 50 ms waits for its ack until 2050 ms.
        #expect(queue.enqueue(.ping, now: at(50)).actions == [.write(ascii("(01:P)"))])
        #expect(queue.timerFired(now: at(110)) == [.lightChanged(isLit: false), .startTimer(deadline: at(2050))])
        _ = a
    }
}

@Suite struct NovaLightTrackerTests {
    @Test func onlyTheLatestLightCommandStartsTheSafetyTimeout() {
        var light = NovaLightTracker<VirtualInstant>()
        let lit = light.lightRequested(ticket(1), timeout: .milliseconds(100))
        #expect(lit)
        let litAgain = light.lightRequested(ticket(2), timeout: .milliseconds(300))
        #expect(!litAgain)
        light.acknowledged(ticket(1), at: at(10))
        #expect(light.offDeadline == nil)
        light.acknowledged(ticket(2), at: at(20))
        #expect(light.offDeadline == at(320))
        let staleFailure = light.failed(ticket(1))
        #expect(!staleFailure)
        let early = light.expire(at: at(319))
        #expect(!early)
        let due = light.expire(at: at(320))
        #expect(due)
        #expect(!light.isLit(at: at(320)))
    }
}
