import Foundation
import Strobe

/// `decode`: stylus notifications from a capture through the full receive path, into the
/// notification ring, and out through the stylus codec in the consumer. A capture of several
/// links (`--write-capture --capture-links N`) goes into a ring per link, as `scale` runs it.
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
        let handles = try LinksDecode.connectionHandles(in: stream)
        let measured = try await LinksDecode.measure(stream, handles: handles)
        return BenchReport(
            scenario: "decode",
            figures: [
                "links": Double(handles.count),
                "notifications": Double(measured.taken),
                "samples": Double(measured.samples),
                "notificationsPerSecond": Double(measured.notifications) / (Double(measured.nanoseconds) / 1e9),
                "nanosecondsPerNotification": measured.nanosecondsPerNotification,
                "allocationsPerNotification": measured.allocations.map { Double($0) / Double(max(measured.notifications, 1)) },
                "droppedInRing": Double(measured.dropped),
                "decodeErrors": Double(measured.decodeErrors),
                "malformed": Double(measured.malformed),
            ],
            units: ["notificationsPerSecond": "notifications/s", "nanosecondsPerNotification": "ns"],
            notes: notes + ["one thread: H4 deframe, HCI controller, central, L2CAP link (reassembly), ATT bearer, ring push, ring drain, stylus decode; "
                            + "the first tenth warms up, the rest is timed"])
    }
}
