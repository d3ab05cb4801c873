import Foundation
import Strobe
import Synchronization

/// `e2e`: against a Bumble virtual controller and GATT peripheral on loopback, over H4/TCP:
/// connection setup (connect, MTU, discovery, subscription), then a notification stream.
enum EndToEndScenario {
    static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")
    static let notify = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DC0001")

    /// The peripheral's advertising interval, here and in Benchmarks/compare.sh.
    static let advertisingIntervalMilliseconds = 2

    /// How the bench takes the notifications from the ring.
    enum Consumer: String, CaseIterable, Sendable {
        /// The ring's callback, on the reader's thread right after each push: what Bumble's
        /// `on_value` is to its host, so the CPU figures compare like for like.
        case callback
        /// `for await` over `ring.notifications()` on a task: an app's usual loop, which adds a
        /// wake of the consumer's thread for each read that brings notifications.
        case async
    }

    /// Counts the notifications the callback takes, and says when the last one came.
    final class Tally: Sendable {
        let wanted: Int
        let count = Atomic<Int>(0)
        let done: AsyncStream<Void>
        let finish: AsyncStream<Void>.Continuation

        init(wanted: Int) {
            self.wanted = wanted
            (done, finish) = AsyncStream.makeStream(of: Void.self)
        }

        func take() {
            if count.add(1, ordering: .relaxed).newValue == wanted { finish.finish() }
        }
    }

    static func run(notifications: Int, consumer: Consumer = .callback, readCoalescing: ReadCoalescing = .off) async throws -> BenchReport {
        // The peripheral advertises every 2 ms: connecting waits for its next advertising event,
        // which both stacks share, and a 20 ms interval would swamp the hosts' own setup time.
        let peripheral = try BumbleProcess(arguments: ["--notify-count", "\(notifications)", "--timeout", "300",
                                                       "--adv-interval-ms", "\(advertisingIntervalMilliseconds)"])
        defer { _ = peripheral.stop() }
        let host = try await BluetoothHost(transport: try TransportSpec(parsing: peripheral.transport).open(readCoalescing: readCoalescing))
        defer { host.close() }
        let central = host.central
        let tally = Tally(wanted: notifications)
        let ring = consumer == .callback
            ? NotificationRing(capacity: 16_384, maxValueSize: 512) { _ in tally.take() }
            : NotificationRing(capacity: 16_384, maxValueSize: 512)

        let setupStart = nowNanoseconds()
        let connection = try await central.connect(to: BluetoothAddress("F0:F1:F2:F3:F4:F5")!, addressType: .random)
        let services = try await connection.gatt.discoverPrimaryServices(uuid: service)
        guard let found = services.first,
              let characteristic = try await connection.gatt.discoverCharacteristics(of: found, uuid: notify).first else {
            throw BumbleProcess.Failure(description: "the peripheral has no notify characteristic")
        }
        let cpuStart = processCPUNanoseconds()
        try await connection.gatt.subscribe(characteristic, to: .notification, handler: ring)
        let setup = nowNanoseconds() - setupStart

        let streamStart = nowNanoseconds()
        var received = 0
        switch consumer {
        case .callback:
            for await _ in tally.done {}
            received = tally.count.load(ordering: .relaxed)
        case .async:
            for await _ in ring.notifications() {
                received += 1
                if received == notifications { break }
            }
        }
        let streamTime = nowNanoseconds() - streamStart
        let cpu = processCPUNanoseconds() - cpuStart
        try await connection.disconnect()
        return BenchReport(
            scenario: "e2e",
            figures: [
                "connectionSetupMilliseconds": Double(setup) / 1e6,
                "notifications": Double(received),
                "notificationsPerSecond": Double(received) / (Double(streamTime) / 1e9),
                "cpuMicrosecondsPerNotification": Double(cpu) / 1e3 / Double(max(received, 1)),
                "mtu": Double(connection.bearer.mtu),
                "readCoalescingMicroseconds": Double(readCoalescing.microseconds),
            ],
            units: ["connectionSetupMilliseconds": "ms", "notificationsPerSecond": "notifications/s",
                    "readCoalescingMicroseconds": "µs (0: off)",
                    "cpuMicrosecondsPerNotification": "µs (Strobe process, user+system)"],
            notes: ["setup = LE connection + MTU exchange + service and characteristic discovery + CCCD write",
                    "consumer: \(consumer.rawValue)" + (consumer == .callback
                        ? " (the ring's callback on the reader's thread, as Bumble's on_value)" : " (for await on a task)"),
                    "read coalescing: \(readCoalescing)" + (readCoalescing.isOff
                        ? " (each PDU read as it completes)" : " (the reader holds off after each read of ACL data)"),
                    "the rate is the Bumble peripheral's: it sends as fast as its Python loop can"])
    }
}
