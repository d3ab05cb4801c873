import Testing
import StrobeHCI

@Suite(.timeLimit(.minutes(1))) struct VirtualClockTests {
    @Test func sleepEndsOnlyWhenTimeReachesTheDeadline() async throws {
        let clock = VirtualClock()
        let woke = Task { try await clock.sleep(for: .seconds(2)); return clock.now }
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .milliseconds(1999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        #expect(clock.sleeperCount == 0)
        #expect(try await woke.outcome == VirtualClock.Instant(offset: .seconds(2)))
    }

    @Test func sleepersWakeInDeadlineOrder() async throws {
        let clock = VirtualClock()
        let late = Task { try await clock.sleep(until: .init(offset: .seconds(3))) }
        let early = Task { try await clock.sleep(until: .init(offset: .seconds(1))) }
        await clock.waitForSleepers(count: 2)
        #expect(clock.nextDeadline == .init(offset: .seconds(1)))
        clock.advance(by: .seconds(2))
        try await early.outcome
        #expect(clock.sleeperCount == 1)
        clock.advance(to: .init(offset: .seconds(3)))
        try await late.outcome
        #expect(clock.now == .init(offset: .seconds(3)))
    }

    @Test func pastDeadlineReturnsAtOnceAndTimeNeverGoesBack() async throws {
        let clock = VirtualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: .init(offset: .seconds(1)))
        clock.advance(to: .init(offset: .seconds(2)))
        #expect(clock.now == .init(offset: .seconds(5)))
    }

    @Test func cancellingASleepThrowsAndUnregisters() async {
        let clock = VirtualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.waitForSleepers(count: 1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.outcome }
        #expect(clock.sleeperCount == 0)
    }
}
