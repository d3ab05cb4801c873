import Foundation
import Strobe

/// `e2e`: against a Bumble virtual controller and GATT peripheral on loopback, over H4/TCP:
/// connection setup (connect, MTU, discovery, subscription), then a notification stream.
enum EndToEndScenario {
    static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")
    static let notify = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DC0001")

    /// The peripheral's advertising interval, here and in Benchmarks/compare.sh.
    static let advertisingIntervalMilliseconds = 2

    static func run(notifications: Int) async throws -> BenchReport {
        // The peripheral advertises every 2 ms: connecting waits for its next advertising event,
        // which both stacks share, and a 20 ms interval would swamp the hosts' own setup time.
        let peripheral = try BumbleProcess(arguments: ["--notify-count", "\(notifications)", "--timeout", "300",
                                                       "--adv-interval-ms", "\(advertisingIntervalMilliseconds)"])
        defer { _ = peripheral.stop() }
        let host = try await BluetoothHost(transport: try TransportSpec(parsing: peripheral.transport).open())
        defer { host.close() }
        let central = host.central
        let ring = NotificationRing(capacity: 16_384, maxValueSize: 512)

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
        for await _ in ring.notifications() {
            received += 1
            if received == notifications { break }
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
            ],
            units: ["connectionSetupMilliseconds": "ms", "notificationsPerSecond": "notifications/s",
                    "cpuMicrosecondsPerNotification": "µs (Strobe process, user+system)"],
            notes: ["setup = LE connection + MTU exchange + service and characteristic discovery + CCCD write",
                    "the rate is the Bumble peripheral's: it sends as fast as its Python loop can"])
    }
}
