import Testing
import StrobeDevices

private typealias Queue = NovaCommandQueue<VirtualInstant>

private let t0 = VirtualInstant.zero
private func at(_ milliseconds: Int) -> VirtualInstant { t0.advanced(by: .milliseconds(milliseconds)) }

/// A command armed for a trigger: it reserves its request id, holds the queue while armed, and
/// ends as written (then acknowledged like any other) or withdrawn.
@Suite struct NovaArmedCommandTests {
    @Test func anArmedCommandIsWrittenByItsOwnerAndAcknowledgedLikeAnyOther() {
        var queue = Queue(model: .v1)
        let armed = queue.arm(.flash(.gentle))
        #expect(armed?.bytes == ascii("(00:L,7F,00,01F4)"))
        #expect(queue.isArmed)
        #expect(!queue.isBusy)
        // Only one at a time.
        #expect(queue.arm(.ping) == nil)

        #expect(queue.armedWritten(now: at(100)) == [.lightChanged(isLit: true), .startTimer(deadline: at(2100))])
        #expect(queue.pendingRequestID == 0)
        #expect(queue.counters.written == 1)
        let ticket = armed!.ticket
        #expect(queue.responseReceived(ascii("(00:A)"), now: at(130)) == [
            .complete(ticket, .acknowledged), .startTimer(deadline: at(630)),
        ])
        #expect(queue.isLit(at: at(629)))
    }

    @Test func commandsQueuedWhileArmedWaitAndGoWhenItIsWithdrawn() {
        var queue = Queue(model: .v2)
        let armed = queue.arm(.flash(.full))
        let off = queue.enqueue(.off, now: at(5))
        #expect(off.actions == [])
        #expect(queue.queuedCount == 1)
        // Withdrawn: its ticket fails, its request id (0) stays unused, the OFF goes out as 1.
        #expect(queue.disarm(now: at(10)) == [
            .complete(armed!.ticket, .failed(.withdrawn)), .write([0x03, 0x00, 0x00, 0x01]), .startTimer(deadline: at(2010)),
        ])
        #expect(!queue.isArmed)
        #expect(queue.disarm(now: at(11)) == [])
    }

    @Test func onlyAnIdleOpenQueueArms() {
        var busy = Queue(model: .v1)
        _ = busy.enqueue(.ping, now: t0)
        #expect(busy.arm(.flash(.gentle)) == nil)

        var closed = Queue(model: .v1)
        _ = closed.disconnected()
        #expect(closed.arm(.flash(.gentle)) == nil)
    }

    @Test func aDisconnectFailsTheArmedCommand() {
        var queue = Queue(model: .v1)
        let armed = queue.arm(.flash(.gentle))
        #expect(queue.disconnected() == [.complete(armed!.ticket, .failed(.disconnected))])
        #expect(!queue.isArmed)
        #expect(queue.armedWritten(now: at(1)) == [])
    }
}
