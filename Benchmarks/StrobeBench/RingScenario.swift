import Foundation
import Histogram
import Strobe

/// `ring`: the notification ring with its producer and consumer on two threads.
enum RingScenario {
    static func run(items: Int) -> BenchReport {
        let ring = NotificationRing(capacity: 4096, maxValueSize: 16)
        let startGate = DispatchSemaphore(value: 0)
        let producerDone = DispatchSemaphore(value: 0)
        // One core each, when there are two: the scheduler otherwise moves them about, and a
        // spinning consumer that lands on the producer's core halves the rate.
        let pinned = ProcessInfo.processInfo.activeProcessorCount >= 2
        let producer = JoinableThread {
            var value: UInt64 = 0
            if pinned { pinCurrentThread(toCPU: 1) }
            startGate.wait()
            var pushed = 0
            while pushed < items {
                // Every 16th item carries a clock reading in its slot, and the consumer measures
                // its crossing; reading the clock for every item would measure the clock.
                let time = value & 15 == 0 ? nowNanoseconds() : 0
                let outcome = withUnsafeBytes(of: &value) { bytes in
                    ring.tryPush(handle: 1, value: bytes, at: HostTime(nanoseconds: time))
                }
                if case .pushed = outcome {
                    pushed += 1
                    value &+= 1
                }
            }
            producerDone.signal()
        }

        var consumer = Consumer()
        if pinned { pinCurrentThread(toCPU: 0) }
        defer { if pinned { unpinCurrentThread() } }
        let start = nowNanoseconds()
        startGate.signal()
        consume(ring, items: items, into: &consumer)
        let elapsed = nowNanoseconds() - start
        producerDone.wait()
        producer.join()
        let counters = ring.counters
        return BenchReport(
            scenario: "ring",
            figures: [
                "items": Double(items),
                "itemsPerSecond": Double(items) / (Double(elapsed) / 1e9),
                "crossingP50": Double(consumer.histogram.valueAtPercentile(50)),
                "crossingP99": Double(consumer.histogram.valueAtPercentile(99)),
                "crossingP999": Double(consumer.histogram.valueAtPercentile(99.9)),
                "crossingMax": Double(consumer.histogram.max),
                "droppedFull": Double(counters.droppedFull),
                "outOfOrder": Double(consumer.outOfOrder),
            ],
            units: ["itemsPerSecond": "items/s", "crossingP50": "ns", "crossingP99": "ns", "crossingP999": "ns", "crossingMax": "ns"],
            notes: ["producer retries when the ring is full (drops are then expected and counted); the crossing latency is sampled on every 16th item"])
    }

    /// The consumer's state, in one value the drain loop owns (no captured boxes per item).
    struct Consumer {
        var histogram = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        var received = 0
        var outOfOrder = 0
        var expected: UInt64 = 0

        mutating func take(_ view: NotificationView) {
            let value = view.value.loadUnaligned(as: UInt64.self)
            if value != expected { outOfOrder += 1 }
            expected = value &+ 1
            if value & 15 == 0 { histogram.record(nowNanoseconds() &- view.timestamp.nanoseconds) }
        }
    }

    /// A polling consumer: when a drain finds only a few items it waits a microsecond before
    /// the next, so that it takes them in batches instead of pulling the producer's line back
    /// for every item (a real-time loop polls at its own pace in the same way).
    private static func consume(_ ring: NotificationRing, items: Int, into consumer: inout Consumer) {
        while consumer.received < items {
            let taken = ring.drain { consumer.take($0) }
            consumer.received += taken
            if taken < 64 {
                let until = nowNanoseconds() &+ 1_000
                while nowNanoseconds() < until {}
            }
        }
    }
}
