#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import Foundation
import StrobeHCI
import StrobeBase
import Synchronization
import Testing
import StrobeHost

/// The value the producer sends for `sequence`: 8 to 15 bytes, the scrambled sequence number
/// then a tail that also depends on it, so the consumer checks contents as well as order.
/// (Word-sized work per item keeps the test quick in debug builds.)
@inline(__always)
private func valueLength(_ sequence: UInt64) -> Int { 8 + Int(sequence & 7) }

@inline(__always)
private func valueWord(_ sequence: UInt64) -> UInt64 { sequence ^ 0x5A5A_A5A5_0F0F_F0F0 }

@inline(__always)
private func valueByte(_ sequence: UInt64, _ index: Int) -> UInt8 {
    UInt8(truncatingIfNeeded: sequence &+ UInt64(index) &* 7)
}

/// Writes the value for `sequence` into `buffer` and returns its length.
@inline(__always)
private func writeValue(_ sequence: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
    let length = valueLength(sequence)
    buffer.storeBytes(of: valueWord(sequence).littleEndian, toByteOffset: 0, as: UInt64.self)
    for i in 8..<length { buffer[i] = valueByte(sequence, i) }
    return length
}

/// What the consumer thread saw, checked by the test after both threads were joined.
private final class ConsumerReport: Sendable {
    let delivered = Atomic<UInt64>(0)
    let gaps = Atomic<UInt64>(0)          // sequence numbers skipped between deliveries
    let outOfOrder = Atomic<UInt64>(0)    // sequence not greater than the previous one
    let badContents = Atomic<UInt64>(0)   // wrong length, bytes, handle or timestamp
    let lastSequence = Atomic<UInt64>(0)
}

/// Checks one delivered notification; `expected` is the next sequence number not yet seen.
@inline(__always)
private func check(_ view: NotificationView, expected: inout UInt64, report: ConsumerReport) {
    let sequence = view.sequence
    if sequence < expected {
        report.outOfOrder.add(1, ordering: .relaxed)
    } else if sequence > expected {
        report.gaps.add(sequence - expected, ordering: .relaxed)
    }
    expected = sequence &+ 1
    var good = view.value.count == valueLength(sequence)
        && view.handle == AttributeHandle(UInt16(truncatingIfNeeded: sequence % 3 + 1))
        && view.timestamp.nanoseconds == sequence
        && UInt64(littleEndian: view.value.loadUnaligned(as: UInt64.self)) == valueWord(sequence)
    if good {
        for i in 8..<view.value.count where view.value[i] != valueByte(sequence, i) {
            good = false
            break
        }
    }
    if !good { report.badContents.add(1, ordering: .relaxed) }
}

@Suite("Notifications: two-thread stress")
struct NotificationsStressTests {
    /// Producer and consumer on two OS threads; every item is either delivered exactly once, in
    /// order, with the right contents, or counted as dropped.
    @Test func tenMillionItemsArriveInOrderOrAreCountedAsDropped() async {
        let items: UInt64 = 10_000_000
        let ring = NotificationRing(capacity: 1024, maxValueSize: 16)
        let producerDone = Atomic<Bool>(false)
        let report = ConsumerReport()
        let start = monotonicNanoseconds()

        let consumer = TestThread {
            var expected: UInt64 = 0
            while true {
                let n = ring.drain(maxCount: 256) { check($0, expected: &expected, report: report) }
                report.delivered.add(UInt64(n), ordering: .relaxed)
                if n == 0 {
                    // Acquire pairs with the producer's release: its last push is visible now.
                    if producerDone.load(ordering: .acquiring) {
                        let rest = ring.drain { check($0, expected: &expected, report: report) }
                        report.delivered.add(UInt64(rest), ordering: .relaxed)
                        break
                    }
                    yieldThread()
                }
            }
            report.lastSequence.store(expected, ordering: .relaxed)
        }
        let producer = TestThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
            defer { buffer.deallocate() }
            for sequence in 0..<items {
                let length = writeValue(sequence, into: buffer)
                let outcome = ring.tryPush(
                    handle: AttributeHandle(UInt16(truncatingIfNeeded: sequence % 3 + 1)),
                    value: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length),
                    at: HostTime(nanoseconds: sequence))
                // The ring never blocks; the test's producer gives the consumer a turn when full.
                if case .droppedFull = outcome { yieldThread() }
            }
            producerDone.store(true, ordering: .releasing)
        }
        await producer.join()
        await consumer.join()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9

        let counters = ring.counters
        let delivered = report.delivered.load(ordering: .relaxed)
        print("ring stress: \(items) items in \(seconds) s, delivered \(delivered), dropped \(counters.droppedFull)")
        #expect(counters.offered == items)
        #expect(counters.pushed + counters.droppedFull == items)
        #expect(counters.droppedOversized == 0)
        #expect(delivered == counters.pushed)
        #expect(counters.delivered == delivered)
        #expect(delivered + counters.droppedFull == items)
        // Every gap is exactly the drops, so nothing was lost or duplicated unnoticed.
        #expect(report.gaps.load(ordering: .relaxed) + (items - report.lastSequence.load(ordering: .relaxed))
            == counters.droppedFull)
        #expect(report.outOfOrder.load(ordering: .relaxed) == 0)
        #expect(report.badContents.load(ordering: .relaxed) == 0)
        #expect(delivered > 0)
    }

    /// The async consumer parks and is woken over and over while a real thread produces.
    @Test func asyncConsumerKeepsUpWithAThreadProducer() async {
        let items: UInt64 = 200_000
        let ring = NotificationRing(capacity: 64, maxValueSize: 16)
        let start = monotonicNanoseconds()
        let producer = TestThread {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 8)
            defer { buffer.deallocate() }
            for sequence in 0..<items {
                let length = writeValue(sequence, into: buffer)
                let outcome = ring.tryPush(
                    handle: AttributeHandle(UInt16(truncatingIfNeeded: sequence % 3 + 1)),
                    value: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length),
                    at: HostTime(nanoseconds: sequence))
                // Bursts with pauses, so the consumer often finds the ring empty and parks.
                if case .droppedFull = outcome { yieldThread() } else if sequence % 32 == 0 { yieldThread() }
            }
            ring.close()
        }
        let report = ConsumerReport()
        var expected: UInt64 = 0
        var delivered: UInt64 = 0
        for await notification in ring.notifications() {
            notification.value.withUnsafeBytes { bytes in
                check(NotificationView(handle: notification.handle, sequence: notification.sequence,
                                       timestamp: notification.timestamp, value: bytes),
                      expected: &expected, report: report)
            }
            delivered += 1
        }
        await producer.join()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        let counters = ring.counters
        print("ring async stress: \(items) items in \(seconds) s, delivered \(delivered), dropped \(counters.droppedFull)")
        #expect(delivered + counters.droppedFull == items)
        #expect(report.gaps.load(ordering: .relaxed) + (items - expected) == counters.droppedFull)
        #expect(report.outOfOrder.load(ordering: .relaxed) == 0)
        #expect(report.badContents.load(ordering: .relaxed) == 0)
    }
}

/// A plain OS thread for tests that need two real threads (the ring's producer and consumer),
/// awaited without holding a thread of the cooperative pool: no sleeping, no blocking join.
private final class TestThread: Sendable {
    private struct State {
        var finished = false
        var joiner: CheckedContinuation<Void, Never>?
    }
    private let state = Lock(State())

    init(_ run: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            run()
            let joiner = self.state.withLock { s -> CheckedContinuation<Void, Never>? in
                s.finished = true
                return s.joiner
            }
            joiner?.resume()
        }
    }

    /// Returns once the thread's work is done.
    func join() async {
        await withCheckedContinuation { continuation in
            let finished = state.withLock { s -> Bool in
                if !s.finished { s.joiner = continuation }
                return s.finished
            }
            if finished { continuation.resume() }
        }
    }
}

/// Lets the other thread run (used when the ring is full or empty).
private func yieldThread() { sched_yield() }

/// CLOCK_MONOTONIC in nanoseconds, to report how long a stress test took (never asserted on).
private func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}
