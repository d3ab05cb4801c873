import Foundation
import Histogram
import Strobe

/// `ring`: the notification ring with its producer and consumer on two threads.
enum RingScenario {
    static func run(items: Int) -> BenchReport {
        let ring = NotificationRing(capacity: 4096, maxValueSize: 16)
        let startGate = DispatchSemaphore(value: 0)
        let producerDone = DispatchSemaphore(value: 0)
        let producer = Thread {
            var value: UInt64 = 0
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
        producer.start()

        var histogram = Histogram<UInt64>(highestTrackableValue: 10_000_000_000, numberOfSignificantValueDigits: .three)
        var received = 0
        var outOfOrder = 0
        var expected: UInt64 = 0
        let start = nowNanoseconds()
        startGate.signal()
        while received < items {
            received += ring.drain { view in
                let value = view.value.loadUnaligned(as: UInt64.self)
                if value != expected { outOfOrder += 1 }
                expected = value &+ 1
                if value & 15 == 0 { histogram.record(nowNanoseconds() &- view.timestamp.nanoseconds) }
            }
        }
        let elapsed = nowNanoseconds() - start
        producerDone.wait()
        let counters = ring.counters
        return BenchReport(
            scenario: "ring",
            figures: [
                "items": Double(items),
                "itemsPerSecond": Double(items) / (Double(elapsed) / 1e9),
                "crossingP50": Double(histogram.valueAtPercentile(50)),
                "crossingP99": Double(histogram.valueAtPercentile(99)),
                "crossingP999": Double(histogram.valueAtPercentile(99.9)),
                "crossingMax": Double(histogram.max),
                "droppedFull": Double(counters.droppedFull),
                "outOfOrder": Double(outOfOrder),
            ],
            units: ["itemsPerSecond": "items/s", "crossingP50": "ns", "crossingP99": "ns", "crossingP999": "ns", "crossingMax": "ns"],
            notes: ["producer retries when the ring is full (drops are then expected and counted); the crossing latency is sampled on every 16th item"])
    }
}
