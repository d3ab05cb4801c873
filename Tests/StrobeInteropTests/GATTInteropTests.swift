import Foundation
import Strobe
import StrobeBase
import Synchronization
import Testing

/// The connection layer, L2CAP and the GATT client against Bumble's GATT server on Bumble's
/// virtual controller: a peer someone else wrote.
@Suite(.timeLimit(.minutes(5))) struct GATTInteropTests {
    static let service = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DC0001")
    static let longRead = BluetoothUUID("6E400002-B5A3-F393-E0A9-E50E24DC0001")
    static let write = BluetoothUUID("6E400003-B5A3-F393-E0A9-E50E24DC0001")
    static let notify = BluetoothUUID("6E400004-B5A3-F393-E0A9-E50E24DC0001")
    static let indicate = BluetoothUUID("6E400005-B5A3-F393-E0A9-E50E24DC0001")

    /// Connects by name, discovers the test service and returns its characteristics by UUID.
    static func connect(_ host: HostUnderTest, name: String) async throws -> (LEConnection, [BluetoothUUID: GATTCharacteristic]) {
        let connection = try await host.central.connect(name: name)
        let services = try await connection.gatt.discoverPrimaryServices(uuid: service)
        let found = try #require(services.first)
        let characteristics = try await connection.gatt.discoverCharacteristics(of: found)
        return (connection, Dictionary(characteristics.map { ($0.uuid, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    @Test(arguments: [23, 247])
    func longReadAndBothKindsOfWrite(mtu: Int) async throws {
        let peripheral = try await BumblePeripheral()
        let host = try await HostUnderTest(transport: peripheral.transport, configuration: .init(preferredMTU: mtu))
        defer { host.close() }
        let (connection, characteristics) = try await Self.connect(host, name: peripheral.name)
        #expect(connection.bearer.mtu == mtu)

        let value = try await connection.gatt.readLong(handle: try #require(characteristics[Self.longRead]).valueHandle)
        #expect(value == (0..<300).map { UInt8($0 % 256) })

        let writeHandle = try #require(characteristics[Self.write]).valueHandle
        for index in 0..<5 { try await connection.gatt.write([UInt8(index)], handle: writeHandle) }
        for index in 0..<7 { try await connection.gatt.writeWithoutResponse([UInt8(index)], handle: writeHandle) }
        try await connection.disconnect()
        let summary = try await peripheral.stop()
        #expect(summary["write_requests"] as? Int == 5)
        #expect(summary["write_commands"] as? Int == 7)
        #expect(summary["mtu"] as? Int == mtu)
    }
}

extension GATTInteropTests {
    @Test(arguments: [23, 247])
    func tenThousandNotificationsArriveInOrderThroughTheRing(mtu: Int) async throws {
        let count = 10_000
        let peripheral = try await BumblePeripheral(arguments: ["--notify-count", "\(count)"])
        let host = try await HostUnderTest(transport: peripheral.transport, configuration: .init(preferredMTU: mtu))
        defer { host.close() }
        let (connection, characteristics) = try await Self.connect(host, name: peripheral.name)
        let ring = NotificationRing(capacity: 16_384, maxValueSize: 512)
        try await connection.gatt.subscribe(try #require(characteristics[Self.notify]), to: .notification, handler: ring)

        // The payload starts with a u32 sequence number, little endian.
        var sequences: [UInt32] = []
        var iterator = ring.notifications().makeAsyncIterator()
        while sequences.count < count, let notification = await iterator.next() {
            sequences.append(notification.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
        }
        #expect(sequences == (0..<UInt32(count)).map { $0 }, "no gap, no reorder")
        #expect(ring.counters.dropped == 0)
        try await connection.disconnect()
        let summary = try await peripheral.stop()
        #expect(summary["notifications_sent"] as? Int == count)
    }

    @Test func hundredIndicationsAreConfirmed() async throws {
        let peripheral = try await BumblePeripheral(arguments: ["--indicate-count", "100"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let (connection, characteristics) = try await Self.connect(host, name: peripheral.name)
        let received = Lock(0)
        let (done, finished) = AsyncStream.makeStream(of: Void.self)
        let handler = ATTValueClosureHandler { _, _, kind, _ in
            guard kind == .indication else { return }
            if received.withLock({ $0 += 1; return $0 }) == 100 { finished.yield() }
        }
        try await connection.gatt.subscribe(try #require(characteristics[Self.indicate]), to: .indication, handler: handler)
        var iterator = done.makeAsyncIterator()
        _ = await iterator.next()
        // The 100th confirmation goes out after the handler returns: wait for the peer to see it
        // by asking something of it, since ATT answers in order.
        _ = try await connection.gatt.read(handle: try #require(characteristics[Self.notify]).valueHandle)
        try await connection.disconnect()
        let summary = try await peripheral.stop()
        #expect(summary["indications_sent"] as? Int == 100)
        #expect(summary["indications_confirmed"] as? Int == 100)
    }

    @Test func peripheralsConnectionParameterUpdateRequestIsAnsweredAndApplied() async throws {
        // 30-50 ms interval, latency 0, 4 s supervision timeout.
        let peripheral = try await BumblePeripheral(arguments: ["--conn-update", "30,50,0,4000"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let updates = host.controller.events()
        let connection = try await host.central.connect(name: peripheral.name)
        for await timed in updates {
            if case .leConnectionUpdateComplete(let update) = timed.event, update.connectionHandle == connection.handle { break }
        }
        #expect(connection.parameterUpdateRequests == (received: 1, accepted: 1))
        #expect((24...40).contains(connection.parameters.interval), "30-50 ms in 1.25 ms units")
        try await connection.disconnect()
        let summary = try await peripheral.stop()
        #expect(summary["conn_update_result"] as? String == "accepted")
    }

    @Test func disconnectInTheMiddleOfAReadIsATypedErrorNotAHang() async throws {
        let peripheral = try await BumblePeripheral(arguments: ["--disconnect-on-read"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let (connection, characteristics) = try await Self.connect(host, name: peripheral.name)
        let handle = try #require(characteristics[Self.longRead]).valueHandle
        let error = await #expect(throws: StrobeError.self) {
            _ = try await connection.gatt.readLong(handle: handle)
        }
        #expect(error?.isBearerError == true, "\(String(describing: error))")
        #expect(await connection.disconnected() == .remoteUserTerminatedConnection)
        #expect(host.central.connections.isEmpty)
        _ = try await peripheral.stop()
    }

    @Test func twoPeripheralsAreConnectedAndServedAtOnce() async throws {
        let peripheral = try await BumblePeripheral(arguments: ["--count", "2", "--notify-count", "500"])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        let (first, firstCharacteristics) = try await Self.connect(host, name: peripheral.name)
        let (second, secondCharacteristics) = try await Self.connect(host, name: peripheral.name + "-2")
        #expect(first.handle != second.handle)
        #expect(host.central.connections.count == 2)
        // Both at once: concurrent long reads and notification streams.
        let rings = [NotificationRing(capacity: 1024), NotificationRing(capacity: 1024)]
        try await first.gatt.subscribe(try #require(firstCharacteristics[Self.notify]), to: .notification, handler: rings[0])
        try await second.gatt.subscribe(try #require(secondCharacteristics[Self.notify]), to: .notification, handler: rings[1])
        async let a = first.gatt.readLong(handle: try #require(firstCharacteristics[Self.longRead]).valueHandle)
        async let b = second.gatt.readLong(handle: try #require(secondCharacteristics[Self.longRead]).valueHandle)
        let (valueA, valueB) = try await (a, b)
        #expect(valueA.count == 300 && valueA == valueB)
        for ring in rings {
            var received = 0
            for await _ in ring.notifications() {
                received += 1
                if received == 500 { break }
            }
            #expect(received == 500)
        }
        try await first.disconnect()
        try await second.disconnect()
        let summary = try await peripheral.stop()
        #expect(summary["connections"] as? Int == 2)
    }
}

/// Connecting to what is not there: a typed timeout, and cancellation, on Bumble's controller
/// (which answers LE Create Connection Cancel as the spec says).
@Suite(.timeLimit(.minutes(5))) struct ConnectInteropTests {
    static let absent = BluetoothAddress("C0:FF:EE:00:00:01")!

    @Test func connectingToAnAbsentPeripheralTimesOut() async throws {
        let peripheral = try await BumblePeripheral()
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        await #expect(throws: StrobeError.connection(.timeout(address: Self.absent, after: .milliseconds(300)))) {
            _ = try await host.central.connect(to: Self.absent, addressType: .random, timeout: .milliseconds(300))
        }
        // The controller is free again: the real peripheral connects.
        let connection = try await host.central.connect(name: peripheral.name)
        try await connection.disconnect()
        _ = try await peripheral.stop()
    }

    @Test func cancellingAConnectStopsTheAttempt() async throws {
        let peripheral = try await BumblePeripheral()
        // LE Create Connection and LE Extended Create Connection.
        var watch: CommandStatusWatch?
        let host = try await HostUnderTest(transport: peripheral.transport) { inner in
            let wrapper = CommandStatusWatch(wrapping: inner, opcodes: [0x200D, 0x2043])
            watch = wrapper
            return wrapper
        }
        defer { host.close() }
        let statuses = try #require(watch).statuses
        let attempt = Task { try await host.central.connect(to: Self.absent, addressType: .random, timeout: .seconds(30)) }
        // Cancel once the controller is initiating: its Command Status for the create has come back.
        for await _ in statuses { break }
        attempt.cancel()
        await #expect(throws: StrobeError.cancelled) { _ = try await attempt.value }
        let connection = try await host.central.connect(name: peripheral.name)
        try await connection.disconnect()
        _ = try await peripheral.stop()
    }

    @Test func scanningForANameNobodyAdvertisesIsATypedError() async throws {
        let peripheral = try await BumblePeripheral()
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        await #expect(throws: StrobeError.connection(.notFound(name: "Nobody", scanned: .milliseconds(300)))) {
            _ = try await host.central.connect(name: "Nobody", scanTimeout: .milliseconds(300))
        }
        _ = try await peripheral.stop()
    }
}

extension GATTInteropTests {
    /// Four Bumble peripherals on one host at once, each streaming while every link also reads
    /// and writes; then one link goes down mid-stream and the other three carry on.
    @Test func fourPeripheralsStreamReadAndWriteAndOneDisconnectLeavesTheOthersRunning() async throws {
        // Paced (a notification per millisecond at most), so that the streams run beside the
        // reads and writes; the first stream never ends by itself, so its link goes down mid-stream
        // however long the reads and writes take.
        let count = 2_000
        let peripheral = try await BumblePeripheral(arguments: [
            "--count", "4", "--notify-count", "\(count)", "--first-notify-count", "0", "--notify-interval-ms", "1",
            "--long-value-size", "500",
        ])
        let host = try await HostUnderTest(transport: peripheral.transport)
        defer { host.close() }
        var links: [(connection: LEConnection, characteristics: [BluetoothUUID: GATTCharacteristic])] = []
        for name in [peripheral.name] + (2...4).map({ "\(peripheral.name)-\($0)" }) {
            links.append(try await Self.connect(host, name: name))
        }
        #expect(Set(links.map(\.connection.handle)).count == 4)

        let rings = links.map { _ in NotificationRing(capacity: 4096, maxValueSize: 512) }
        // Each link's consumer collects sequence numbers (the payload's first u32) until its
        // stream is complete or its link went down; the first says when it is 200 values in.
        let (underway, underwaySignal) = AsyncStream.makeStream(of: Void.self)
        let collectors = rings.enumerated().map { index, ring in
            Task {
                var sequences: [UInt32] = []
                for await notification in ring.notifications() {
                    sequences.append(notification.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
                    if index == 0, sequences.count == 200 { underwaySignal.finish() }
                    // The first link's stream runs until its ring is closed.
                    if index != 0, sequences.count == count { break }
                }
                underwaySignal.finish()
                return sequences
            }
        }
        for (link, ring) in zip(links, rings) {
            try await link.connection.gatt.subscribe(try #require(link.characteristics[Self.notify]), to: .notification, handler: ring)
        }

        // While all four stream, every link reads a long value and writes, concurrently.
        let expected = (0..<500).map { UInt8($0 % 256) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, link) in links.enumerated() {
                let gatt = link.connection.gatt
                let read = try #require(link.characteristics[Self.longRead]).valueHandle
                let write = try #require(link.characteristics[Self.write]).valueHandle
                group.addTask {
                    for round in 0..<3 {
                        #expect(try await gatt.readLong(handle: read) == expected)
                        try await gatt.write([UInt8(index), UInt8(round)], handle: write)
                    }
                }
            }
            try await group.waitForAll()
        }

        // The first link goes down mid-stream (its ring is closed after it); the others finish.
        for await _ in underway {}
        try await links[0].connection.disconnect()
        rings[0].close()
        for (index, link) in links.enumerated().dropFirst() {
            let sequences = await collectors[index].value
            #expect(sequences == (0..<UInt32(count)).map { $0 }, "link \(index): every value, in order")
            #expect(rings[index].counters.dropped == 0)
            // Still served after the other link's disconnect.
            let write = try #require(link.characteristics[Self.write]).valueHandle
            try await link.connection.gatt.write([0xFF, UInt8(index)], handle: write)
        }
        let firstSequences = await collectors[0].value
        #expect(firstSequences.count >= 200, "the first link was 200 values in when it went down")
        #expect(firstSequences == (0..<UInt32(firstSequences.count)).map { $0 }, "the closed link's values up to its end, in order")
        #expect(host.central.connections.count == 3)
        for link in links.dropFirst() { try await link.connection.disconnect() }
        let summary = try await peripheral.stop()
        #expect(summary["connections"] as? Int == 4)
        #expect(summary["write_requests"] as? Int == 4 * 3 + 3)
        #expect(summary["reads"] as? Int ?? 0 >= 4 * 3)
    }
}
