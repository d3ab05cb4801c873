import StrobeDevices
import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization
import Testing

import StrobeSim

/// The reference SDK's failure rules, against simulated flashes that answer wrongly: a lost ack
/// times the command out and the queue moves on; a wrong id or an unparsable answer fails
/// everything and drops the link; a disconnect fails every queued command. None hangs.
@Suite(.timeLimit(.minutes(1))) struct NovaFailureRulesTests {
    /// A connected Nova V2 that misbehaves so; tests of the ack timeout pass their own.
    static func flash(_ misbehaviour: SimulatedDeviceDescription.NovaMisbehaviour?, ackTimeout: Duration = .seconds(10), clock: VirtualClock)
        async throws -> (SimulatedDevicesTests.Host, NovaFlashManager.ConnectedFlash) {
        var scenario = SimScenario.standard
        scenario.devices = scenario.devices.filter { $0.kind == .nova2 }
        scenario.devices[0].misbehaviour = misbehaviour
        let host = try await SimulatedDevicesTests.host(scenario, clock: clock)
        let manager = NovaFlashManager(central: host.central, clock: clock,
                                       configuration: .init(scanBurst: .seconds(1), ackTimeout: ackTimeout))
        let connected = try #require(try await manager.connect(.closest).first)
        return (host, connected)
    }

    static func threeQueued(_ flash: NovaFlash) async -> [Result<NovaAcknowledgement, any Error>] {
        async let first = Result(catching: { try await flash.beginFlash(.full) })
        async let second = Result(catching: { try await flash.ping() })
        async let third = Result(catching: { try await flash.endFlash() })
        return await [first, second, third]
    }

    @Test func aLostAckTimesOutAndTheQueueMovesOn() async throws {
        try await VirtualTimeDriver.run(Self.aLostAckTimesOutAndTheQueueMovesOn)
    }

    static func aLostAckTimesOutAndTheQueueMovesOn(_ clock: VirtualClock) async throws {
        let (host, connected) = try await Self.flash(.noAck, ackTimeout: .milliseconds(200), clock: clock)
        for result in await Self.threeQueued(connected.flash) {
            #expect(throws: NovaError.command(.ackTimeout)) { try result.get() }
        }
        #expect(connected.connection.isConnected)
        #expect(connected.flash.counters.timedOut == 3)
        host.controller.close()
        host.world.stop()
    }

    @Test func aWrongIDFailsEverythingAndDropsTheLink() async throws {
        try await VirtualTimeDriver.run { try await Self.aBadAnswerFailsEverythingAndDropsTheLink(.wrongID, $0) }
    }

    @Test func garbageFailsEverythingAndDropsTheLink() async throws {
        try await VirtualTimeDriver.run { try await Self.aBadAnswerFailsEverythingAndDropsTheLink(.garbage, $0) }
    }

    static func aBadAnswerFailsEverythingAndDropsTheLink(_ misbehaviour: SimulatedDeviceDescription.NovaMisbehaviour,
                                                         _ clock: VirtualClock) async throws {
        let (host, connected) = try await Self.flash(misbehaviour, clock: clock)
        for result in await Self.threeQueued(connected.flash) {
            let error = #expect(throws: NovaError.self) { try result.get() }
            #expect(error?.commandFailure != nil)
        }
        #expect(await connected.connection.disconnected() == .connectionTerminatedByLocalHost)
        #expect(!connected.flash.isOpen)
        host.controller.close()
        host.world.stop()
    }

    @Test func aDisconnectFailsEveryQueuedCommand() async throws {
        try await VirtualTimeDriver.run(Self.aDisconnectFailsEveryQueuedCommand)
    }

    static func aDisconnectFailsEveryQueuedCommand(_ clock: VirtualClock) async throws {
        let (host, connected) = try await Self.flash(.noAck, ackTimeout: .seconds(30), clock: clock)
        let device = try #require(host.world.devices.first)
        async let results = Self.threeQueued(connected.flash)
        // The flash goes away (switched off) while the first command waits for its ack.
        device.stop()
        // Queued before the link went: .disconnected; any that raced behind it: .notConnected.
        for result in await results {
            let failure = try #require(throws: NovaError.self) { try result.get() }
            #expect(failure == .command(.disconnected) || failure == .command(.notConnected))
        }
        host.controller.close()
        host.world.stop()
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// Auto-pairing as the reference SDK does it: enable, the status stream, a mode change at run
/// time reconnecting accordingly, disable.
@Suite(.timeLimit(.minutes(1))) struct NovaAutoPairTests {
    @Test func closestThenAllThenDisabled() async throws {
        try await VirtualTimeDriver.run(Self.closestThenAllThenDisabled)
    }

    static func closestThenAllThenDisabled(_ clock: VirtualClock) async throws {
        let host = try await SimulatedDevicesTests.host(.standard, clock: clock)
        // Real time on a machine that may be loaded: an ack deadline no healthy link misses.
        let manager = NovaFlashManager(central: host.central, clock: clock, mode: .closest,
                                       configuration: .init(scanBurst: .milliseconds(500), ackTimeout: .seconds(10)))
        let seen = StatusLog()
        manager.setStatusHandler { seen.append($0) }
        var statuses = manager.statusUpdates().makeAsyncIterator()
        #expect(await statuses.next() == .disabled)
        manager.enable()
        while let status = await statuses.next(), status != .ready {}
        // Closest: the strongest Nova only (Nova2 at -48 dBm).
        #expect(manager.flashes.map(\.name) == ["Nova2"])
        #expect(seen.all.starts(with: [.disconnected, .scanning, .connecting, .handshaking, .ready]))

        try await manager.setAutoPairMode(.all)
        while let status = await statuses.next(), status != .ready {}
        #expect(Set(manager.flashes.map(\.name)) == ["Nova", "Nova2"])
        let results = await manager.beginFlash(.gentle)
        #expect(results.count == 2)
        for result in results {
            #expect(throws: Never.self, "\(result.address)") { _ = try result.result.get() }
        }
        _ = await manager.endFlash()

        try await manager.disable()
        #expect(manager.status == .disabled)
        #expect(manager.flashes.isEmpty)
        host.controller.close()
        host.world.stop()
    }
}

final class StatusLog: Sendable {
    private let entries = Lock<[NovaFlashManager.Status]>([])
    func append(_ status: NovaFlashManager.Status) { entries.withLock { $0.append(status) } }
    var all: [NovaFlashManager.Status] { entries.withLock { $0 } }
}

extension NovaFailureRulesTests {
    /// A FLASH queued without suspending is collected once, with its ack; a second collection,
    /// or a ticket never issued, is a typed error.
    @Test func aQueuedFlashIsCollectedOnce() async throws {
        try await VirtualTimeDriver.run(Self.aQueuedFlashIsCollectedOnce)
    }

    static func aQueuedFlashIsCollectedOnce(_ clock: VirtualClock) async throws {
        let (host, connected) = try await Self.flash(nil, clock: clock)
        let ticket = connected.flash.enqueueFlash(.full)
        let ack = try await connected.flash.acknowledgement(of: ticket)
        #expect(ack.roundTrip > .zero)
        #expect(connected.flash.isLit)
        await #expect(throws: NovaTicketError(ticket: ticket)) { try await connected.flash.acknowledgement(of: ticket) }
        let stranger = NovaCommandTicket(rawValue: 999)
        await #expect(throws: NovaTicketError(ticket: stranger)) { try await connected.flash.acknowledgement(of: stranger) }
        host.controller.close()
        host.world.stop()
    }

    /// Waiting can stop (a shot's deadline) while the command stays queued: it still times out
    /// by the queue's rules, and the next command runs.
    @Test func aCancelledWaitLeavesTheCommandToTheQueue() async throws {
        try await VirtualTimeDriver.run(Self.aCancelledWaitLeavesTheCommandToTheQueue)
    }

    static func aCancelledWaitLeavesTheCommandToTheQueue(_ clock: VirtualClock) async throws {
        let (host, connected) = try await Self.flash(.noAck, ackTimeout: .milliseconds(200), clock: clock)
        let ticket = connected.flash.enqueueFlash(.full)
        let waiting = Task(executorPreference: clock.executor) { try await connected.flash.acknowledgement(of: ticket) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        await #expect(throws: NovaError.command(.ackTimeout)) { try await connected.flash.ping() }
        #expect(connected.flash.counters.timedOut == 2)
        host.controller.close()
        host.world.stop()
    }
}
