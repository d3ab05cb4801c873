import Foundation
import Strobe
import StrobeBase
import Synchronization
import Testing

/// Strobe's peripheral role and GATT server against Bumble's own host as the central and GATT
/// client: it scans for Strobe's advertisement, connects, discovers, reads (the GAP service's name
/// and appearance too), writes and subscribes.
@Suite(.timeLimit(.minutes(5))) struct PeripheralInteropTests {
    static let service = BluetoothUUID("8D1E0001-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let readable = BluetoothUUID("8D1E0002-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let writable = BluetoothUUID("8D1E0003-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let events = BluetoothUUID("8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE")

    final class Written: Sendable {
        let values = Lock<[[UInt8]]>([])
    }

    @Test func bumbleCentralDiscoversReadsWritesAndReceivesNotifications() async throws {
        let central = try await BumblePeripheral(script: "central.py", arguments: [
            "--name", "Strobe-Periph", "--read-uuid", Self.readable.description, "--write-uuid", Self.writable.description,
            "--write-value", "a1b2c3", "--notify-uuid", Self.events.description, "--notify-count", "5",
        ])
        let host = try await HostUnderTest(transport: central.transport)
        defer { host.close() }

        let database = GATTAttributeDatabase()
        let written = Written()
        database.addPrimaryService(Self.service)
        database.addCharacteristic(Self.readable, properties: [.read], value: Array("hello from Strobe".utf8))
        database.addCharacteristic(Self.writable, properties: [.write], onWrite: { _, value in
            written.values.withLock { $0.append(value) }
            return nil
        })
        let events = database.addCharacteristic(Self.events, properties: [.notify])
        let peripheral = Peripheral(central: host.central, database: database)
        var incoming = peripheral.incomingConnections().makeAsyncIterator()
        try await peripheral.startAdvertising(name: "Strobe-Periph")

        let connection = try #require(await incoming.next())
        let server = try #require(connection.server)
        let (subscribed, subscription) = AsyncStream.makeStream(of: Void.self)
        server.setSubscriptionHandler { handle, configuration in
            if handle == events.valueHandle, configuration.contains(.notification) { subscription.yield() }
        }
        var iterator = subscribed.makeAsyncIterator()
        _ = await iterator.next()
        for index in 0..<5 {
            #expect(try await server.notify(valueHandle: events.valueHandle, value: [UInt8(index), 0xEE]))
        }
        let summary = try await central.finished()
        #expect(await connection.disconnected() == .remoteUserTerminatedConnection)

        #expect(summary["found"] as? Bool == true)
        #expect(summary["mtu"] as? Int == 247)
        let services = (summary["services"] as? [String] ?? []).map { $0.uppercased() }
        #expect(services.contains { $0.contains(Self.service.description.uppercased()) }, "\(services)")
        #expect(summary["read"] as? String == Data("hello from Strobe".utf8).map { String(format: "%02x", $0) }.joined())
        #expect(written.values.withLock { $0 } == [[0xA1, 0xB2, 0xC3]])
        #expect(summary["notifications"] as? [String] == ["00ee", "01ee", "02ee", "03ee", "04ee"])
        // The GAP service Peripheral added: the advertised name, and the appearance it was given.
        let gap = try #require(summary["gap"] as? [String: Any])
        #expect(gap["device_name"] as? String == "Strobe-Periph")
        #expect(gap["appearance"] as? Int == 0)
        #expect(services.contains { $0.contains("1801") }, "the GATT service: \(services)")
    }
}
