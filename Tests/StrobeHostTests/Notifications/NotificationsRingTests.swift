import StrobeHCI
import StrobeBase
import Synchronization
import Testing
import StrobeHost

/// Pushes `bytes` as the value of `handle`, stamped at `nanoseconds`.
@discardableResult
private func push(_ ring: NotificationRing, handle: AttributeHandle = 0x002A, _ bytes: [UInt8], at nanoseconds: UInt64 = 0)
    -> NotificationPushOutcome
{
    bytes.withUnsafeBytes { ring.tryPush(handle: handle, value: $0, at: HostTime(nanoseconds: nanoseconds)) }
}

/// Drains everything as copies.
private func drainAll(_ ring: NotificationRing, maxCount: Int = .max) -> [GATTNotification] {
    var out: [GATTNotification] = []
    ring.drain(maxCount: maxCount) { out.append(GATTNotification($0)) }
    return out
}

@Suite("Notifications: ring")
struct NotificationsRingTests {
    @Test func capacityIsRoundedUpToAPowerOfTwo() {
        #expect(NotificationRing(capacity: 5).capacity == 8)
        #expect(NotificationRing(capacity: 8).capacity == 8)
        #expect(NotificationRing(capacity: 0).capacity == 1)
        #expect(NotificationRing(capacity: 4, maxValueSize: 100_000).maxValueSize == NotificationRing.maximumValueSizeLimit)
    }

    @Test func viewCarriesHandleTimestampSequenceAndValue() {
        let ring = NotificationRing(capacity: 4, maxValueSize: 16)
        #expect(push(ring, handle: 0x0010, [1, 2, 3], at: 1_000) == .pushed(sequence: 0))
        #expect(push(ring, handle: 0x0011, [], at: 2_000) == .pushed(sequence: 1))
        var seen: [(AttributeHandle, UInt64, UInt64, [UInt8])] = []
        let n = ring.drain { seen.append(($0.handle, $0.sequence, $0.timestamp.nanoseconds, Array($0.value))) }
        #expect(n == 2)
        #expect(seen.count == 2)
        #expect(seen[0] == (0x0010, 0, 1_000, [1, 2, 3]))
        #expect(seen[1] == (0x0011, 1, 2_000, []))
        #expect(ring.counters.delivered == 2)
        #expect(ring.count == 0)
    }

    /// Slots are packed: every length up to and past the word-copy limit, in slots whose size is
    /// no multiple of 8, arrives whole, and no value spills into its neighbours.
    @Test func everyShortLengthArrivesWholeWithoutTouchingItsNeighbours() {
        let ring = NotificationRing(capacity: 64, maxValueSize: 37)
        let values = (0...37).map { length in (0..<length).map { UInt8(truncatingIfNeeded: length &* 31 &+ $0 &+ 1) } }
        for (index, value) in values.enumerated() {
            #expect(push(ring, handle: AttributeHandle(rawValue: UInt16(index)), value) == .pushed(sequence: UInt64(index)))
        }
        let drained = drainAll(ring)
        #expect(drained.map(\.value) == values)
        #expect(drained.map(\.handle.rawValue) == (0...37).map { UInt16($0) })
        #expect(ring.counters.pushed == 38)
    }

    /// The slot's length field is 16 bits: the longest value a ring takes, 65,535 bytes, comes out
    /// whole; and slots long enough to start on a cache line carry every length up to theirs.
    @Test func theLongestValuesAndLineAlignedSlotsArriveWhole() {
        let widest = NotificationRing(capacity: 2, maxValueSize: NotificationRing.maximumValueSizeLimit)
        let longest = (0..<NotificationRing.maximumValueSizeLimit).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(push(widest, handle: 0x0020, longest) == .pushed(sequence: 0))
        #expect(drainAll(widest).map(\.value) == [longest])

        let aligned = NotificationRing(capacity: 8, maxValueSize: 512)
        let values = [512, 0, 44, 45, 300, 511, 1, 64].map { length in (0..<length).map { UInt8(truncatingIfNeeded: length &+ $0) } }
        for value in values { _ = push(aligned, handle: 0x0021, value) }
        #expect(drainAll(aligned).map(\.value) == values)
    }

    @Test func wrapsAroundManyTimesKeepingOrderAndContents() {
        let ring = NotificationRing(capacity: 4, maxValueSize: 8)
        var next: UInt64 = 0
        for round in 0..<25 {
            let batch = 1 + round % 4  // 1...4 items, so the indices cross the end at varying points
            for _ in 0..<batch {
                let value = (0..<Int(next % 9)).map { UInt8(truncatingIfNeeded: Int(next) &+ $0) }
                #expect(push(ring, value) == .pushed(sequence: next))
                next += 1
            }
            let got = drainAll(ring)
            #expect(got.count == batch)
            for (i, notification) in got.enumerated() {
                let sequence = next - UInt64(batch) + UInt64(i)
                #expect(notification.sequence == sequence)
                #expect(notification.value == (0..<Int(sequence % 9)).map { UInt8(truncatingIfNeeded: Int(sequence) &+ $0) })
            }
        }
        #expect(ring.counters == NotificationRingCounters(pushed: next, delivered: next))
    }

    @Test func fullRingDropsAndCounts() {
        let ring = NotificationRing(capacity: 4, maxValueSize: 4)
        for i in 0..<4 { #expect(push(ring, [UInt8(i)]) == .pushed(sequence: UInt64(i))) }
        #expect(push(ring, [4]) == .droppedFull(sequence: 4))
        #expect(push(ring, [5]) == .droppedFull(sequence: 5))
        #expect(ring.counters.pushed == 4)
        #expect(ring.counters.droppedFull == 2)
        #expect(ring.count == 4)

        // The four that fit arrive; the gap in sequence numbers shows the two drops.
        #expect(drainAll(ring).map(\.value) == [[0], [1], [2], [3]])
        #expect(push(ring, [6]) == .pushed(sequence: 6))
        #expect(drainAll(ring).map(\.sequence) == [6])
        #expect(ring.counters == NotificationRingCounters(pushed: 5, droppedFull: 2, delivered: 5))
    }

    @Test func oversizedValueIsATypedOutcomeAndCounted() {
        let ring = NotificationRing(capacity: 4, maxValueSize: 8)
        #expect(push(ring, [UInt8](repeating: 7, count: 9)) == .droppedOversized(sequence: 0, length: 9))
        #expect(push(ring, [UInt8](repeating: 8, count: 8)) == .pushed(sequence: 1))
        #expect(push(ring, [UInt8](repeating: 0, count: 600)) == .droppedOversized(sequence: 2, length: 600))
        #expect(ring.counters.droppedOversized == 2)
        #expect(ring.counters.offered == 3)
        #expect(drainAll(ring).map(\.value) == [[UInt8](repeating: 8, count: 8)])
    }

    @Test func drainHonoursMaxCount() {
        let ring = NotificationRing(capacity: 8, maxValueSize: 4)
        for i in 0..<5 { push(ring, [UInt8(i)]) }
        #expect(drainAll(ring, maxCount: 2).map(\.value) == [[0], [1]])
        #expect(drainAll(ring, maxCount: 0).isEmpty)
        #expect(ring.count == 3)
        #expect(drainAll(ring, maxCount: 10).map(\.value) == [[2], [3], [4]])
        #expect(drainAll(ring, maxCount: 10).isEmpty)
    }

    @Test func closeRefusesPushes() {
        let ring = NotificationRing(capacity: 4)
        ring.close()
        ring.close()
        #expect(ring.isClosed)
        #expect(push(ring, [1]) == .closed)
        #expect(ring.counters.offered == 0)
    }

    @Test func callbackModeDeliversOnThePushingThread() {
        let received = Lock<[GATTNotification]>([])
        let ring = NotificationRing(capacity: 2, maxValueSize: 4) { view in
            received.withLock { $0.append(GATTNotification(view)) }
        }
        // More than the capacity: each push is delivered before the next, so nothing drops.
        for i in 0..<5 { #expect(push(ring, handle: 9, [UInt8(i)], at: UInt64(i)) == .pushed(sequence: UInt64(i))) }
        let got = received.withLock { $0 }
        #expect(got.map(\.value) == [[0], [1], [2], [3], [4]])
        #expect(got.map(\.timestamp.nanoseconds) == [0, 1, 2, 3, 4])
        #expect(ring.counters == NotificationRingCounters(pushed: 5, delivered: 5))
        // The callback owns the consumer side.
        #expect(ring.drain { _ in } == 0)
    }

    @Test func pushFromInsideTheCallbackIsRefusedNotRaced() {
        let inner = Lock<NotificationPushOutcome?>(nil)
        let ringBox = Lock<NotificationRing?>(nil)
        let ring = NotificationRing(capacity: 4, maxValueSize: 4) { _ in
            guard let ring = ringBox.withLock({ $0 }) else { return }
            let outcome = [UInt8(1)].withUnsafeBytes { ring.tryPush(handle: 1, value: $0, at: HostTime(nanoseconds: 0)) }
            inner.withLock { $0 = outcome }
        }
        ringBox.withLock { $0 = ring }
        #expect(push(ring, [0]) == .pushed(sequence: 0))
        #expect(inner.withLock { $0 } == .concurrentProducer)
        #expect(ring.counters.concurrentProducerRejections == 1)
        #expect(ring.counters.pushed == 1)
        ringBox.withLock { $0 = nil }  // break the cycle
    }

    @Test func consumerModesAreExclusive() async {
        let pulled = NotificationRing(capacity: 4)
        push(pulled, [1])
        #expect(pulled.drain { _ in } == 1)
        push(pulled, [2])
        pulled.close()
        var iterator = pulled.notifications().makeAsyncIterator()
        #expect(await iterator.next() == nil)  // drain owns this ring
        #expect(pulled.drain { _ in } == 1)

        let streamed = NotificationRing(capacity: 4)
        push(streamed, [1])
        streamed.close()
        var first = streamed.notifications().makeAsyncIterator()
        var second = streamed.notifications().makeAsyncIterator()
        #expect(await second.next() == nil)
        #expect(await first.next()?.value == [1])
        #expect(await first.next() == nil)
        #expect(streamed.drain { _ in } == 0)
    }
}

@Suite("Notifications: async sequence")
struct NotificationsSequenceTests {
    /// Waits, without sleeping, until the consumer task has parked on the empty ring.
    private func untilParked(_ ring: NotificationRing) async {
        while !ring.isConsumerParked { await Task.yield() }
    }

    @Test func closeEndsTheSequenceAfterTheBufferedItems() async {
        let ring = NotificationRing(capacity: 8, maxValueSize: 4)
        for i in 0..<3 { push(ring, [UInt8(i)], at: UInt64(i)) }
        ring.close()
        var got: [GATTNotification] = []
        for await notification in ring.notifications() { got.append(notification) }
        #expect(got.map(\.value) == [[0], [1], [2]])
        #expect(got.map(\.sequence) == [0, 1, 2])
    }

    @Test func parkedConsumerIsWokenByPushAndEndedByClose() async {
        let ring = NotificationRing(capacity: 8, maxValueSize: 4)
        let consumer = Task {
            var got: [[UInt8]] = []
            for await notification in ring.notifications() { got.append(notification.value) }
            return got
        }
        await untilParked(ring)
        push(ring, [1])
        push(ring, [2])
        // The consumer takes both and parks again on the empty ring.
        while ring.counters.delivered < 2 || !ring.isConsumerParked { await Task.yield() }
        ring.close()
        #expect(await consumer.value == [[1], [2]])
    }

    /// Fed by a bearer, the ring wakes a parked consumer once per transport read: the values of
    /// one read land without a wakeup, and the batch end wakes the consumer once for all.
    @Test func aBatchOfValuesWakesAParkedConsumerOnce() async {
        let ring = NotificationRing(capacity: 64, maxValueSize: 4)
        let consumer = Task {
            var got: [[UInt8]] = []
            for await notification in ring.notifications() {
                got.append(notification.value)
                if got.count == 50 { break }
            }
            return got
        }
        await untilParked(ring)
        for i in 0..<50 {
            [UInt8(i)].withUnsafeBytes { ring.attributeValueReceived($0, handle: 0x002A, kind: .notification, at: HostTime(nanoseconds: 1)) }
        }
        #expect(ring.isConsumerParked, "no wakeup before the batch ends")
        #expect(ring.counters.consumerWakeups == 0)
        ring.attributeValuesDidFinishBatch()
        #expect(await consumer.value == (0..<50).map { [UInt8($0)] })
        #expect(ring.counters.consumerWakeups == 1)
        // A batch end with nothing pushed since wakes nobody.
        ring.attributeValuesDidFinishBatch()
        #expect(ring.counters.consumerWakeups == 1)
    }

    @Test func cancellingAParkedConsumerEndsItsSequence() async {
        let ring = NotificationRing(capacity: 8)
        let consumer = Task {
            var count = 0
            for await _ in ring.notifications() { count += 1 }
            return count
        }
        await untilParked(ring)
        consumer.cancel()
        #expect(await consumer.value == 0)
        #expect(!ring.isConsumerParked)
    }
}
