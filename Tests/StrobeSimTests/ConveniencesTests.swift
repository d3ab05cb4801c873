import StrobeHCI
import StrobeHost
import Synchronization
import Testing

import StrobeSim

/// What apps built on CoreBluetooth helper libraries expect: connect with retry, per-operation
/// timeouts, a scan for a duration with a stop callback.
@Suite(.timeLimit(.minutes(1))) struct ConveniencesTests {
    @Test func connectRetriesThenGivesUpWithATypedError() async throws {
        try await VirtualTimeDriver.run(Self.connectRetriesThenGivesUpWithATypedError)
    }

    static func connectRetriesThenGivesUpWithATypedError(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close() }
        let central = Central(controller: controller, clock: clock)
        let absent = BluetoothAddress("C4:5E:00:00:00:77")!
        let before = controller.counters.commandsSent
        await #expect(throws: StrobeError.connection(.timeout(address: absent, after: .milliseconds(100)))) {
            _ = try await central.connect(to: absent, addressType: .random, timeout: .milliseconds(100),
                                          attempts: 3, retryInterval: .milliseconds(10))
        }
        // Each attempt: LE Create Connection, then LE Create Connection Cancel at its timeout.
        #expect(controller.counters.commandsSent - before == 6)
    }

    @Test func aPerOperationTimeoutCancelsWhatDidNotFinish() async throws {
        let clock = VirtualClock()
        let (never, _) = AsyncStream.makeStream(of: Int.self)
        let pending = Task(executorPreference: clock.executor) {
            try await withTimeout(.seconds(2), clock: clock) {
                for await value in never { return value }
                return -1
            }
        }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(2))
        await #expect(throws: OperationTimeout(limit: .seconds(2))) { _ = try await pending.value }
        #expect(try await withTimeout(.seconds(2), clock: clock) { 42 } == 42)
    }

    @Test func scanForADurationReportsThroughItsCallback() async throws {
        try await VirtualTimeDriver.run(Self.scanForADurationReportsThroughItsCallback)
    }

    static func scanForADurationReportsThroughItsCallback(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: .standard, clock: clock)
        try await world.start()
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        defer { controller.close() }
        let (results, report) = AsyncStream.makeStream(of: [DiscoveredDevice].self)
        LEScanner(controller: controller).scan(for: .milliseconds(500)) { result in
            report.yield((try? result.get()) ?? [])
        }
        var iterator = results.makeAsyncIterator()
        let found = try #require(await iterator.next())
        #expect(Set(found.compactMap(\.name)).isSuperset(of: ["Nova", "Nova2"]))
    }
}
