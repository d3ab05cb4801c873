import Foundation
import Strobe

/// `decode`: stylus notifications from a capture through the full receive path, into the
/// notification ring, and out through the stylus codec in the consumer.
enum DecodeScenario {
    static func run(batches: Int, capture: String?) async throws -> BenchReport {
        let path: String
        var notes: [String] = []
        if let capture {
            path = capture
        } else {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-bench-stylus-\(getpid()).btsnoop").path
            try StylusCapture.write(batches: batches, to: path)
            notes.append("\(batches) stylus batches of \(StylusCapture.samplesPerBatch) samples, generated; 27-byte ACL fragments")
        }
        defer { if capture == nil { try? FileManager.default.removeItem(atPath: path) } }
        let stream = try StylusCapture.h4Stream(of: path)

        let ring = NotificationRing(capacity: 4096, maxValueSize: 512)
        let path_ = try await ReceivePath(connectionHandle: StylusCapture.connectionHandle, handler: ring)
        defer { path_.close() }
        var consumer = Consumer()
        // What one read() of a descriptor transport takes (DescriptorLink.readBufferSize).
        let chunkSize = 64 * 1024

        // One pass: decode chunk by chunk, draining after each chunk as a consumer would.
        func pass(_ range: Range<Int>, _ consumer: inout Consumer) throws {
            try stream.withUnsafeBytes { bytes in
                var offset = range.lowerBound
                while offset < range.upperBound {
                    let end = min(offset + chunkSize, range.upperBound)
                    try path_.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), at: HostTime(nanoseconds: nowNanoseconds()))
                    ring.drain { consumer.take($0) }
                    offset = end
                }
            }
        }
        // Warm up on the first tenth (caches, lazily built tables), measure the rest.
        let split = chunkBoundary(stream.count / 10, chunkSize)
        try pass(0..<split, &consumer)
        let warmNotifications = consumer.notifications
        let start = nowNanoseconds()
        var elapsed: UInt64 = 0
        let allocations = try Allocations.count {
            try pass(split..<stream.count, &consumer)
            elapsed = nowNanoseconds() - start
        }
        let measured = consumer.notifications - warmNotifications
        return BenchReport(
            scenario: "decode",
            figures: [
                "notifications": Double(consumer.notifications),
                "samples": Double(consumer.samples),
                "notificationsPerSecond": Double(measured) / (Double(elapsed) / 1e9),
                "nanosecondsPerNotification": Double(elapsed) / Double(max(measured, 1)),
                "allocationsPerNotification": allocations.map { Double($0) / Double(max(measured, 1)) },
                "droppedInRing": Double(ring.counters.dropped),
                "decodeErrors": Double(consumer.decodeErrors),
                "malformed": Double(path_.malformed),
            ],
            units: ["notificationsPerSecond": "notifications/s", "nanosecondsPerNotification": "ns"],
            notes: notes + ["one thread: H4 deframe, HCI controller, central, L2CAP link (reassembly), ATT bearer, ring push, ring drain, stylus decode"])
    }

    /// The application's side: each notification through the stylus codec, its events dropped.
    struct Consumer {
        var decoder = StylusSampleDecoder()
        var samples = 0
        var notifications = 0
        var decodeErrors = 0

        mutating func take(_ view: NotificationView) {
            notifications += 1
            do {
                samples += try decoder.decode(view.value, receivedAt: view.timestamp) { _ in }
            } catch {
                decodeErrors += 1
            }
        }
    }

    /// Where a pass boundary falls: whole chunks, so both passes see the same chunking.
    private static func chunkBoundary(_ offset: Int, _ chunk: Int) -> Int { offset / chunk * chunk }
}
