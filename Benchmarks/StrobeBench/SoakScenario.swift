import Foundation
import Strobe

/// `soak`: millions of stylus notifications through the real receive path at full rate, made as
/// they are fed (the stream is never held whole, so memory is the stack's alone): H4 deframing,
/// the HCI controller, L2CAP reassembly, the ATT bearer, the ring, and the stylus codec draining
/// it after each 64 KiB read. Reports loss (sequence gaps seen by the codec), ring drops,
/// malformed input and resident memory sampled every 100,000 notifications after warm-up.
enum SoakScenario {
    static func run(notifications: Int) async throws -> BenchReport {
        let ring = NotificationRing(capacity: 4096, maxValueSize: 512)
        let receive = try await ReceivePath(connectionHandle: StylusCapture.connectionHandle, handler: ring)
        defer { receive.close() }
        var generator = StylusCapture.Generator()
        var decoder = StylusSampleDecoder()
        var delivered = 0
        var decodeErrors = 0
        let readSize = 64 * 1024
        var chunk: [UInt8] = []
        chunk.reserveCapacity(readSize + 256)

        let warmUp = min(1_000_000, notifications / 10)
        var rssAfterWarmUp = 0
        var rssSamples: [Int] = []
        var nextSample = warmUp
        let start = nowNanoseconds()
        var batch = 0
        while batch < notifications {
            chunk.removeAll(keepingCapacity: true)
            while chunk.count < readSize, batch < notifications {
                try generator.appendH4(ofBatch: batch, to: &chunk)
                batch += 1
            }
            try chunk.withUnsafeBytes { try receive.feed($0, at: HostTime(nanoseconds: nowNanoseconds())) }
            ring.drain { view in
                delivered += 1
                do { _ = try decoder.decode(view.value, receivedAt: view.timestamp) { _ in } } catch { decodeErrors += 1 }
            }
            if delivered >= nextSample {
                let rss = MemoryScenario.residentKilobytes()
                if rssAfterWarmUp == 0 { rssAfterWarmUp = rss } else { rssSamples.append(rss) }
                nextSample += 100_000
            }
        }
        let elapsed = Double(nowNanoseconds() - start) / 1e9
        let rssEnd = MemoryScenario.residentKilobytes()
        let rssMax = max(rssSamples.max() ?? rssEnd, rssEnd)
        return BenchReport(
            scenario: "soak",
            figures: [
                "notificationsSent": Double(notifications),
                "notificationsDelivered": Double(delivered),
                "lostBatches": Double(decoder.counters.lostBatches),
                "outOfOrderBatches": Double(decoder.counters.outOfOrderBatches),
                "droppedInRing": Double(ring.counters.dropped),
                "malformed": Double(receive.malformed),
                "decodeErrors": Double(decodeErrors),
                "notificationsPerSecond": Double(delivered) / elapsed,
                "seconds": elapsed,
                "rssAfterWarmUpKilobytes": Double(rssAfterWarmUp),
                "rssMaxAfterWarmUpKilobytes": Double(rssMax),
                "rssEndKilobytes": Double(rssEnd),
                "rssGrowthKilobytes": Double(rssMax - rssAfterWarmUp),
            ],
            units: ["notificationsPerSecond": "notifications/s", "seconds": "s", "rssAfterWarmUpKilobytes": "KiB",
                    "rssMaxAfterWarmUpKilobytes": "KiB", "rssEndKilobytes": "KiB", "rssGrowthKilobytes": "KiB"],
            notes: ["\(notifications) stylus notifications (8 samples each) made as fed, 27-byte ACL fragments, 64 KiB reads; "
                    + "warm-up \(warmUp) notifications; lost = sequence gaps the codec saw"])
    }
}
