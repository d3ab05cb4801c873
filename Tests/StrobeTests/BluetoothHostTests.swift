import Foundation
import Strobe
import StrobeSim
import Synchronization
import Testing

/// The front door against the simulated world, in virtual time: errors filed under their layer,
/// scans shared, subscriptions that count what they drop and end with the link.
@Suite struct BluetoothHostTests {
    static let counter: BluetoothUUID = "8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE"

    /// What a case found wrong.
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// What `body` returned or threw.
    static func outcome<T>(_ body: () async throws(StrobeError) -> T) async -> Result<T, StrobeError> {
        do throws(StrobeError) { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Runs `body` on a host over the standard simulated world, in virtual time.
    static func withHost(_ body: @escaping @Sendable (BluetoothHost, VirtualClock) async throws -> Void) async throws {
        try await VirtualTimeDriver.run { clock in
            try await SimTransport.$environment.withValue(SimTransport.Environment(clock: clock)) {
                let host = try await BluetoothHost(transport: SimTransport())
                defer { host.close() }
                try await body(host, clock)
            }
        }
    }

    @Test func aTransportThatCannotStartIsATransportError() async throws {
        let junk = ReplayTransport(bytes: Array("not a capture".utf8), name: "replay:junk")
        do throws(StrobeError) {
            _ = try await BluetoothHost(transport: junk)
            Issue.record("the host opened over a file that is not a capture")
        } catch {
            guard case .transport(.cannotOpen(let endpoint, _)) = error else {
                Issue.record("not a transport error: \(error)")
                return
            }
            #expect(endpoint == "replay:junk")
        }
    }

    @Test func aNameNobodyAdvertisesIsAConnectionError() async throws {
        try await Self.withHost(Self.aNameNobodyAdvertisesIsAConnectionError)
    }

    static func aNameNobodyAdvertisesIsAConnectionError(_ host: BluetoothHost, _ clock: VirtualClock) async throws {
        let connected = await outcome { () async throws(StrobeError) in try await host.connect(name: "Nobody", scanTimeout: .seconds(2)) }
        guard case .failure(.connection(.notFound(let name, let scanned))) = connected, name == "Nobody", scanned == .seconds(2) else {
            throw Failed(description: "\(connected)")
        }
        #expect(host.controller.scanning.running == nil, "the scan ends with its limit")
    }

    @Test func aCancelledConnectByNameStopsItsScan() async throws {
        try await Self.withHost(Self.aCancelledConnectByNameStopsItsScan)
    }

    static func aCancelledConnectByNameStopsItsScan(_ host: BluetoothHost, _ clock: VirtualClock) async throws {
        let attempt = Task(executorPreference: clock.executor) { () async throws(StrobeError) in try await host.connect(name: "Nobody", scanTimeout: .seconds(60)) }
        try await clock.sleep(for: .seconds(1))
        guard host.controller.scanning.running != nil else { throw Failed(description: "not scanning while it looks") }
        attempt.cancel()
        let connected = await attempt.result
        guard case .failure(let error) = connected, case .cancelled? = error as? StrobeError else {
            throw Failed(description: "\(connected)")
        }
        guard host.controller.scanning.running == nil else { throw Failed(description: "still scanning after the cancel") }
        // Long after the limit it would have had: nothing more happens.
        try await clock.sleep(for: .seconds(120))
        guard host.controller.scanning.running == nil else { throw Failed(description: "scanning again") }
    }

    @Test func whatThePeerLacksIsAPeerErrorAndWhatItRefusesAnATTError() async throws {
        try await Self.withHost(Self.whatThePeerLacksIsAPeerErrorAndWhatItRefusesAnATTError)
    }

    static func whatThePeerLacksIsAPeerErrorAndWhatItRefusesAnATTError(_ host: BluetoothHost, _ clock: VirtualClock) async throws {
        let peer = try await host.connect(name: "Strobe-Test")
        let missing: BluetoothUUID = "2A37"
        let lacking = await outcome { () async throws(StrobeError) in try await peer.read(missing) }
        guard case .failure(.peer(.noCharacteristic(missing))) = lacking else { throw Failed(description: "\(lacking)") }
        // The counter only notifies: the peer refuses to read it.
        let refused = await outcome { () async throws(StrobeError) in try await peer.read(Self.counter) }
        guard case .failure(.att(let att)) = refused, att.code == .readNotPermitted else { throw Failed(description: "\(refused)") }
    }

    @Test func aScanAndAConnectByNameShareTheController() async throws {
        try await Self.withHost(Self.aScanAndAConnectByNameShareTheController)
    }

    static func aScanAndAConnectByNameShareTheController(_ host: BluetoothHost, _ clock: VirtualClock) async throws {
        async let seen = host.scan(for: .seconds(2))
        async let novas = host.scan(for: .seconds(1)) { $0.name?.hasPrefix("Nova") == true }
        let peer = try await host.connect(name: "Strobe-Test")
        let devices = try await seen
        // A client with a filter of its own gets only what it asked for, beside the others.
        let novaNames = Set(try await novas.compactMap(\.name))
        guard novaNames == ["Nova", "Nova2"] else { throw Failed(description: "the filtered scan returned \(novaNames)") }
        // The scan heard every advertiser all along (each advertises every 100 ms: about 20
        // reports in 2 s), though the connect's own scan stopped once it found its device.
        let reports = Dictionary(devices.compactMap { device in device.name.map { ($0, device.reportCount) } }, uniquingKeysWith: max)
        let expected = ["Nova", "Nova2", "Grip-S1", "Pen-S1", "LEDBLE-Key", "AB Shutter3"]
        guard expected.allSatisfy({ (reports[$0] ?? 0) >= 15 }), peer.isConnected else {
            throw Failed(description: "reports \(reports), connected: \(peer.isConnected)")
        }
    }

    @Test func aSubscriptionCountsWhatItDropsAndEndsWithTheLink() async throws {
        try await Self.withHost(Self.aSubscriptionCountsWhatItDropsAndEndsWithTheLink)
    }

    static func aSubscriptionCountsWhatItDropsAndEndsWithTheLink(_ host: BluetoothHost, _ clock: VirtualClock) async throws {
        let peer = try await host.connect(name: "Strobe-Test")
        // Four slots, and a consumer that does not read until the device (100 values, one each
        // 10 ms) is done: four kept, the rest dropped and counted.
        let values = try await peer.subscribe(Self.counter, capacity: 4)
        try await clock.sleep(for: .seconds(3))
        try await peer.disconnect()
        var received: [UInt32] = []
        for await value in values { received.append(value.value.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }) }
        let counters = values.counters
        guard received == [0, 1, 2, 3], counters.pushed == 4, counters.droppedFull == 96 else {
            throw Failed(description: "received \(received), counters \(counters)")
        }
    }

    @Test func oneHostServesAnotherThroughItsPeripheralRole() async throws {
        try await VirtualTimeDriver.run(Self.oneHostServesAnotherThroughItsPeripheralRole)
    }

    static func oneHostServesAnotherThroughItsPeripheralRole(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        try await world.start()
        defer { world.stop() }
        let server = try await BluetoothHost(transport: world.makeHostController())
        let client = try await BluetoothHost(transport: world.makeHostController())
        defer {
            server.close()
            client.close()
        }
        let database = GATTAttributeDatabase()
        database.addPrimaryService(.batteryService)
        database.addCharacteristic(.batteryLevel, properties: [.read], value: [42])
        let peripheral = server.peripheral(serving: database, deviceName: "Unadvertised", appearance: 0x03C1)
        // The advertised name becomes the GAP Device Name too; the appearance stays.
        try await peripheral.startAdvertising(name: "Served")
        let peer = try await client.connect(name: "Served")
        let level = try await peer.read(.batteryLevel)
        let name = try await peer.read(.deviceName)
        let appearance = try await peer.read(.appearance)
        guard level == [42], name == Array("Served".utf8), appearance == [0xC1, 0x03], peripheral.connections.count == 1 else {
            throw Failed(description: "read \(level) and \(name), \(peripheral.connections.count) connections")
        }
    }
}
