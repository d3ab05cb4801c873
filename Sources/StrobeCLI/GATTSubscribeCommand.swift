import ArgumentParser
import Foundation
import Strobe

/// `strobe gatt subscribe`: a characteristic's notifications or indications as they arrive.
struct GATTSubscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subscribe",
        abstract: "Print each notified value (seconds since the first, hex), then count, rate and sequence gaps.",
        discussion: """
            Sequence gaps are counted when every value starts with a little-endian u32 sequence number. \
            Without --count or --duration it runs until the link ends. A link lost before the count \
            or duration is an error (exit 1) after the summary.
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: GATTTargetOptions
    @OptionGroup var linkSecurity: LinkSecurityOptions
    @Argument(help: "UUID|HANDLE") var attribute: AttributeReference
    @Option(help: "Stop after this many values.") var count: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double?
    @Flag(help: "Ask for indications (confirmed) instead of notifications.") var indicate = false
    @Flag(help: "{\"t\":SECONDS,\"value\":\"HEX\"} per value, then {\"summary\":{...}}.") var json = false

    struct Value: Encodable {
        var t: Double
        var value: String
    }

    struct Summary: Encodable {
        var count: Int
        var ratePerSecond: Double
        var sequenceGaps: Int?
    }

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let duration, !(duration > 0 && duration <= 86_400) { throw ValidationError("--duration must be in (0, 86400] seconds") }
    }

    func run() async throws {
        let session = try await ControllerSession.open(global) { try linkSecurity.configure(&$0, target, global) }
        try await session.closing {
            let connection = try await linkSecurity.connect(target, session)
            let characteristic = try await attribute.characteristic(in: connection)
            let ring = NotificationRing(capacity: 16_384, maxValueSize: 512)
            try await GATTCommandError.naming("subscribe", characteristic.valueHandle) {
                try await connection.gatt.subscribe(characteristic, to: indicate ? .indication : .notification, handler: ring)
            }
            let start = HostTime.now()
            // The values end with the duration; the link's end closes the ring by itself.
            let ending = Task(executorPreference: session.clock.taskExecutor) { [duration, clock = session.clock] in
                guard let duration else { return }
                try? await clock.sleep(for: .milliseconds(Int64(duration * 1000)))
                if !Task.isCancelled { ring.close() }
            }
            var received = 0
            var gaps = SequenceGaps()
            // Times are the transport's stamps of the bytes, counted from the first value's.
            var first: HostTime?
            for await notification in ring.notifications() {
                received += 1
                gaps.observe(notification.value)
                let origin = first ?? notification.timestamp
                first = origin
                let t = Double(Int64(bitPattern: notification.timestamp.nanoseconds &- origin.nanoseconds)) / 1e9
                if json {
                    try JSONOutput.print(Value(t: (t * 1e6).rounded() / 1e6, value: notification.value.hexString))
                } else {
                    print(String(format: "%.6f ", t) + notification.value.hexString)
                }
                if let count, received >= count { break }
            }
            ending.cancel()
            let elapsed = Double(HostTime.now().nanoseconds &- start.nanoseconds) / 1e9
            let summary = Summary(count: received, ratePerSecond: (Double(received) / max(elapsed, 1e-9) * 10).rounded() / 10,
                                  sequenceGaps: gaps.count)
            if json {
                try JSONOutput.print(["summary": summary])
            } else {
                print("\(received) values in \(String(format: "%.1f", elapsed)) s (\(summary.ratePerSecond)/s)"
                      + (gaps.count.map { ", \($0) sequence gaps" } ?? ""))
            }
            let reachedCount = count.map { received >= $0 } ?? false
            if !reachedCount, let lost = LinkLost(connection, device: "device") { throw lost }
            if connection.isConnected {
                try await connection.gatt.unsubscribe(characteristic)
                try await connection.disconnect()
            }
        }
    }
}

/// Missing sequence numbers among values that start with a little-endian u32 counter; `nil`
/// once a value is too short to carry one.
struct SequenceGaps {
    private var last: UInt32?
    private var missing = 0
    private var applies = true

    var count: Int? { applies ? missing : nil }

    mutating func observe(_ value: [UInt8]) {
        guard applies, value.count >= 4 else {
            applies = false
            return
        }
        let sequence = UInt32(value[0]) | UInt32(value[1]) << 8 | UInt32(value[2]) << 16 | UInt32(value[3]) << 24
        if let last, sequence != last &+ 1 {
            // Ahead: the numbers skipped; behind or repeated: one gap.
            let ahead = sequence &- last &- 1
            missing += ahead < 1 << 31 ? Int(ahead) : 1
        }
        last = sequence
    }
}
