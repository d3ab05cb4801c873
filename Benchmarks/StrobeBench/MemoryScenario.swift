import Foundation
import Strobe

/// `memory`: peak resident memory while stylus batches stream through the receive path at a
/// paced 1,000 batches a second, and whether it grows between the first and the second half.
enum MemoryScenario {
    static func run(seconds: Int) async throws -> BenchReport {
        // Earlier scenarios in this process raised the peak: reset it (Linux: "5" > clear_refs).
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let batches = seconds * 1000
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("strobe-bench-memory-\(getpid()).btsnoop").path
        try StylusCapture.write(batches: batches, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stream = try StylusCapture.h4Stream(of: path)
        let ring = NotificationRing(capacity: 1024, maxValueSize: 512)
        let receive = try await ReceivePath(connectionHandle: StylusCapture.connectionHandle, handler: ring)
        defer { receive.close() }
        var decoder = StylusSampleDecoder()

        // Each batch is 2 ACL packets of known size: feed one batch's bytes per millisecond.
        let perBatch = stream.count / batches
        var samplesRSS: [Int] = []
        let start = nowNanoseconds()
        try stream.withUnsafeBytes { bytes in
            for batch in 0..<batches {
                let deadline = start + UInt64(batch) * 1_000_000
                while nowNanoseconds() < deadline { usleep(200) }
                let range = (batch * perBatch)..<min((batch + 1) * perBatch, bytes.count)
                try receive.feed(UnsafeRawBufferPointer(rebasing: bytes[range]), at: HostTime(nanoseconds: nowNanoseconds()))
                ring.drain { view in _ = try? decoder.decode(view.value, receivedAt: view.timestamp) { _ in } }
                if batch % 500 == 0 { samplesRSS.append(residentKilobytes()) }
            }
        }
        let half = samplesRSS.count / 2
        let firstHalf = samplesRSS[..<half].max() ?? 0
        let secondHalf = samplesRSS[half...].max() ?? 0
        return BenchReport(
            scenario: "memory",
            figures: [
                "batches": Double(batches),
                "peakRSSKilobytes": Double(peakResidentKilobytes()),
                "rssFirstHalfKilobytes": Double(firstHalf),
                "rssSecondHalfKilobytes": Double(secondHalf),
                "growthKilobytes": Double(secondHalf - firstHalf),
                "samplesDecoded": Double(decoder.counters.samples),
            ],
            units: ["peakRSSKilobytes": "KiB", "rssFirstHalfKilobytes": "KiB", "rssSecondHalfKilobytes": "KiB", "growthKilobytes": "KiB"],
            notes: ["1,000 batches/s for \(seconds) s; peak includes the capture held in memory"])
    }

    static func peakResidentKilobytes() -> Int { statusField("VmHWM") }
    static func residentKilobytes() -> Int { statusField("VmRSS") }

    private static func statusField(_ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}
