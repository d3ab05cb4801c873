import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization
import Testing

import StrobeSim

@Suite(.timeLimit(.minutes(1))) struct VirtualAirTests {
    static func testDevice(_ name: String = "Strobe-Test") -> SimulatedDeviceDescription {
        SimulatedDeviceDescription(kind: .test, name: name, rssi: -61)
    }

    @Test func hostInitRunsUnchangedOnAVirtualController() async throws {
        try await VirtualTimeDriver.run(Self.hostInitRunsUnchangedOnAVirtualController)
    }

    static func hostInitRunsUnchangedOnAVirtualController(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        let info = try await controller.open()
        #expect(info.address == BluetoothAddress("00:5E:00:00:F0:01"))
        #expect(info.leACLDataPacketLength == 27)
        #expect(!info.supportsExtendedScanning)
        controller.close()
    }

    /// Counts what reaches it, as a host stack would take it.
    final class CountingSink: HCIPacketSink {
        let events = Lock(0)
        func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
            if type == .event { events.withLock { $0 += 1 } }
        }
        func transportDidFinishBatch() {}
        func transportDidClose(_ error: TransportError?) {}
    }

    /// `flush` returns only once what was queued for the host has reached it (what `sim serve`
    /// waits for before its process exits), and at once on a closed controller.
    @Test func flushReturnsOnceQueuedPacketsHaveReachedTheHost() async throws {
        try await VirtualTimeDriver.run(Self.flushReturnsOnceQueuedPacketsHaveReachedTheHost)
    }

    static func flushReturnsOnceQueuedPacketsHaveReachedTheHost(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = world.makeHostController()
        let sink = CountingSink()
        try controller.start(sink)
        for _ in 0..<500 { controller.deliver(SimEvents.disconnectionComplete(handle: 0x40, reason: .remoteUserTerminatedConnection)) }
        await controller.flush()
        #expect(sink.events.withLock { $0 } == 500)
        controller.close()
        await controller.flush()
    }

    @Test func anUnknownCommandIsAnsweredNotIgnored() async throws {
        try await VirtualTimeDriver.run(Self.anUnknownCommandIsAnsweredNotIgnored)
    }

    static func anUnknownCommandIsAnsweredNotIgnored(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = HCIController(transport: world.makeHostController(), clock: clock)
        try await controller.open()
        await #expect(throws: HCIError.commandFailed(.leSetDataLength, .unknownHCICommand)) {
            _ = try await controller.send(HCILESetDataLength(connectionHandle: 0x40, txOctets: 251, txTime: 2120))
        }
        #expect(world.air.counters.unknownCommands == 1)
        controller.close()
    }

    /// The advertising schedule (interval plus the random advDelay) under a virtual clock: the
    /// same seed gives the same times, another seed other times, and no real time passes. The
    /// test moves each world's clock by hand, from one timer to the next.
    @Test func advertisingTimesRepeatFromTheSeed() async throws {
        func schedule(seed: UInt64) async throws -> [Duration] {
            let clock = VirtualClock()
            var scenario = SimScenario(devices: [Self.testDevice()], seed: seed)
            scenario.devices[0].advertisingIntervalMilliseconds = 100
            let world = SimWorld(scenario: scenario, clock: clock)
            try await world.start()
            var times: [Duration] = []
            for _ in 0..<10 {
                await clock.waitForSleepers(count: 1)
                let next = try #require(clock.nextDeadline)
                times.append(next.offset)
                clock.advance(to: next)
            }
            world.stop()
            return times
        }
        let first = try await schedule(seed: 7)
        let again = try await schedule(seed: 7)
        let other = try await schedule(seed: 8)
        #expect(first == again)
        #expect(first != other)
        // Each gap is the interval plus 0-10 ms.
        for (earlier, later) in zip(first, first.dropFirst()) {
            #expect(later - earlier >= .milliseconds(100) && later - earlier < .milliseconds(110))
        }
    }
}
