import StrobeDevices
import StrobeHCI
import StrobeHost
import Testing

import StrobeSim

/// A FLASH armed for a trigger, against a simulated Nova V2 over the whole stack: it sends
/// nothing until fired, its ack is collected even when it comes before the bookkeeping, and
/// anything else the flash is asked to do first withdraws it.
@Suite(.timeLimit(.minutes(1))) struct NovaArmedFlashTests {
    @Test func aFiredFlashIsAcknowledgedEvenBeforeItsBookkeeping() async throws {
        try await VirtualTimeDriver.run(Self.aFiredFlashIsAcknowledgedEvenBeforeItsBookkeeping)
    }

    static func aFiredFlashIsAcknowledgedEvenBeforeItsBookkeeping(_ clock: VirtualClock) async throws {
        let (host, connected) = try await NovaFailureRulesTests.flash(nil, clock: clock)
        let flash = connected.flash
        let sentBefore = host.controller.counters.aclPacketsSent
        let armed = try #require(await flash.armFlash(.full))
        #expect(host.controller.counters.aclPacketsSent == sentBefore)
        #expect(!flash.isLit)

        #expect(armed.fire())
        #expect(!armed.fire())
        #expect(host.controller.counters.aclPacketsSent == sentBefore + 1)
        // No armedFlashFired(_:): the ack itself makes the queue aware of its request.
        let ack = try await flash.acknowledgement(of: armed.ticket)
        #expect(ack.roundTrip > .zero)
        #expect(flash.isLit)
        flash.armedFlashFired(armed)
        try await flash.endFlash()
        #expect(!flash.isLit)
        #expect(flash.counters.acknowledged == 2)
        #expect(flash.counters.unexpectedAcks == 0)
        host.controller.close()
        host.world.stop()
    }

    @Test func aCommandMadeMeanwhileWithdrawsIt() async throws {
        try await VirtualTimeDriver.run(Self.aCommandMadeMeanwhileWithdrawsIt)
    }

    static func aCommandMadeMeanwhileWithdrawsIt(_ clock: VirtualClock) async throws {
        let (host, connected) = try await NovaFailureRulesTests.flash(nil, clock: clock)
        let flash = connected.flash
        let armed = try #require(await flash.armFlash(.full))
        _ = try await flash.ping()
        #expect(!armed.fire())
        await #expect(throws: NovaTicketError(ticket: armed.ticket)) { try await flash.acknowledgement(of: armed.ticket) }
        // The flash is free to arm again.
        let again = try #require(await flash.armFlash(.full))
        #expect(again.fire())
        _ = try await flash.acknowledgement(of: again.ticket)
        host.controller.close()
        host.world.stop()
    }

    @Test func disarmingGivesTheFlashBack() async throws {
        try await VirtualTimeDriver.run(Self.disarmingGivesTheFlashBack)
    }

    static func disarmingGivesTheFlashBack(_ clock: VirtualClock) async throws {
        let (host, connected) = try await NovaFailureRulesTests.flash(nil, clock: clock)
        let flash = connected.flash
        let credits = host.controller.aclCredits
        let armed = try #require(await flash.armFlash(.full))
        #expect(host.controller.aclCredits == credits - 1)
        armed.disarm()
        #expect(host.controller.aclCredits == credits)
        #expect(!armed.fire())
        #expect(try await flash.ping().roundTrip > .zero)
        #expect(flash.counters.written == 1)
        host.controller.close()
        host.world.stop()
    }

    @Test func aGATTRequestMadeMeanwhileWithdrawsIt() async throws {
        try await VirtualTimeDriver.run(Self.aGATTRequestMadeMeanwhileWithdrawsIt)
    }

    static func aGATTRequestMadeMeanwhileWithdrawsIt(_ clock: VirtualClock) async throws {
        let (host, connected) = try await NovaFailureRulesTests.flash(nil, clock: clock)
        let flash = connected.flash
        let armed = try #require(await flash.armFlash(.full))
        #expect(try await flash.batteryLevel().percent <= 100)
        #expect(!armed.isArmed)
        #expect(!armed.fire())
        #expect(await flash.armFlash(.full) != nil)
        host.controller.close()
        host.world.stop()
    }

    @Test func aDisconnectEndsIt() async throws {
        try await VirtualTimeDriver.run(Self.aDisconnectEndsIt)
    }

    static func aDisconnectEndsIt(_ clock: VirtualClock) async throws {
        let (host, connected) = try await NovaFailureRulesTests.flash(nil, clock: clock)
        let armed = try #require(await connected.flash.armFlash(.full))
        let credits = host.controller.aclCredits
        try #require(host.world.devices.first).stop()
        _ = await connected.connection.disconnected()
        #expect(await eventually(clock) { !connected.flash.isOpen })
        #expect(!armed.fire())
        // The buffer held for it came back with the connection's.
        #expect(host.controller.aclCredits == credits + 1)
        host.controller.close()
        host.world.stop()
    }
}
