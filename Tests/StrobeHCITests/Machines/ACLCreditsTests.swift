import Testing
import StrobeHCI

/// The ACL flow control machine driven by scripted inputs: no transport, no clock, no tasks.
@Suite struct ACLCreditsTests {
    /// `nil` for success, the error otherwise (Result<Void, _> is not Equatable).
    private static func failure(_ grant: ACLCredits<Int>.Grant?) -> HCIError?? {
        guard let grant else { return .none }
        if case .failure(let error) = grant.result { return .some(error) }
        return .some(nil)
    }

    private static func configured(total: Int) -> ACLCredits<Int> {
        var credits = ACLCredits<Int>()
        credits.configure(total: total, maximumLength: 27)
        return credits
    }

    /// A flush ends when the packets in flight on its handle when it was asked are reported
    /// completed (later ones and other handles' do not hold it), or unsent when the link closes
    /// or at its deadline.
    @Test func aFlushEndsWhenTheHandlesPacketsAreCompletedOrAtItsDeadline() {
        var credits = Self.configured(total: 4)
        #expect(credits.flush(1, handle: 0x40, now: .zero, timeout: .milliseconds(500))?.sent == true)
        _ = credits.tryTake(0x40)
        _ = credits.tryTake(0x40)
        _ = credits.tryTake(0x41)
        #expect(credits.flush(2, handle: 0x40, now: .zero, timeout: .milliseconds(500)) == nil)
        #expect(credits.nextDeadline == .milliseconds(500))
        _ = credits.completed(0x40, count: 1)
        // A packet sent after the flush was asked for.
        _ = credits.tryTake(0x40)
        #expect(credits.endedFlushes(now: .milliseconds(10)).isEmpty)
        _ = credits.completed(0x40, count: 1)
        let ended = credits.endedFlushes(now: .milliseconds(20))
        #expect(ended.map(\.token) == [2] && ended.first?.sent == true)
        #expect(!credits.hasFlushes)
        // 0x41's packet is never reported: its flush ends unsent at the deadline, not before.
        #expect(credits.flush(3, handle: 0x41, now: .milliseconds(20), timeout: .milliseconds(500)) == nil)
        #expect(credits.endedFlushes(now: .milliseconds(519)).isEmpty)
        let late = credits.endedFlushes(now: .milliseconds(520))
        #expect(late.map(\.token) == [3] && late.first?.sent == false)
        // The link's end leaves nothing to wait for.
        #expect(credits.flush(4, handle: 0x41, now: .seconds(1), timeout: .milliseconds(500)) == nil)
        _ = credits.connectionClosed(0x41)
        #expect(credits.endedFlushes(now: .seconds(1)).map(\.sent) == [false])
    }

    @Test func firstComeFirstServedWithNoOvertaking() {
        var credits = Self.configured(total: 1)
        let first = credits.acquire(1, handle: 0x40, now: .zero, timeout: .seconds(10))
        #expect(Self.failure(first) == .some(nil))
        let second = credits.acquire(2, handle: 0x40, now: .zero, timeout: .seconds(10))
        let third = credits.acquire(3, handle: 0x41, now: .zero, timeout: .seconds(10))
        #expect(second == nil && third == nil)
        // A waiter is queued: nobody takes a buffer past it.
        let overtook = credits.tryTake(0x41)
        #expect(!overtook)
        let granted = credits.completed(0x40, count: 1)
        #expect(granted.map(\.token) == [2])
        #expect(credits.inFlight == [0x40: 1] && credits.waitingCount == 1)
    }

    @Test func aBufferHeldAheadLeavesOneFree() {
        var credits = Self.configured(total: 2)
        let held = credits.tryTake(0x40, keepingOneFree: true)
        let lastKept = credits.tryTake(0x40, keepingOneFree: true)
        let lastTaken = credits.tryTake(0x40)
        #expect(held && !lastKept && lastTaken)
        for _ in 0..<3 {
            let granted = credits.giveBack(0x40)
            #expect(granted.isEmpty)
        }
        #expect(credits.credits == 2)
    }

    @Test func aControllerThatStopsReturningBuffersFailsWaitersAtTheirDeadline() {
        var credits = Self.configured(total: 2)
        _ = credits.acquire(1, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.acquire(2, handle: 0x40, now: .zero, timeout: .seconds(10))
        let queued = credits.acquire(3, handle: 0x40, now: .seconds(1), timeout: .seconds(10))
        #expect(queued == nil)
        #expect(credits.nextDeadline == .seconds(11))
        let early = credits.expire(now: .seconds(10))
        #expect(early.isEmpty)
        let failed = credits.expire(now: .seconds(11))
        #expect(failed.map(\.token) == [3])
        #expect(Self.failure(failed.first) == .some(.noACLCredits(handle: 0x40, waited: .seconds(10), inFlight: 2, total: 2)))
        #expect(credits.waitingCount == 0 && credits.nextDeadline == nil)
    }

    @Test func theConnectionsEndReturnsItsBuffersAndFailsItsWaiters() {
        var credits = Self.configured(total: 2)
        _ = credits.acquire(1, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.acquire(2, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.acquire(3, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.acquire(4, handle: 0x41, now: .zero, timeout: .seconds(10))
        let ended = credits.connectionClosed(0x40)
        #expect(ended.first?.token == 3 && Self.failure(ended.first) == .some(.connectionClosed(handle: 0x40)))
        #expect(ended.last?.token == 4 && Self.failure(ended.last) == .some(nil))
        #expect(credits.credits == 1 && credits.inFlight == [0x41: 1])
    }

    @Test func completionsBeyondWhatWasSentAreCountedNotCredited() {
        var credits = Self.configured(total: 3)
        _ = credits.acquire(1, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.completed(0x40, count: 3)
        #expect(credits.credits == 3 && credits.unexpectedCompletions == 2)
    }

    @Test func cancellingAndClosing() {
        var credits = Self.configured(total: 1)
        _ = credits.acquire(1, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.acquire(2, handle: 0x40, now: .zero, timeout: .seconds(10))
        _ = credits.acquire(3, handle: 0x40, now: .zero, timeout: .seconds(10))
        credits.cancel(2)
        #expect(credits.waitingCount == 1)
        let closed = credits.close(.closed(nil))
        #expect(closed.map(\.token) == [3])
        let refused = credits.acquire(4, handle: 0x40, now: .zero, timeout: .seconds(1))
        #expect(Self.failure(refused) == .some(.closed(nil)))
        let taken = credits.tryTake(0x40)
        #expect(!taken)
    }
}
