import Testing
import StrobeHCI

@Suite(.timeLimit(.minutes(1))) struct ElapsedClockTests {
    /// The real clock is read straight from the kernel, beside `ContinuousClock`'s own sleep: a
    /// reading taken after sleeping until an offset is at least that offset, and no more than
    /// `ContinuousClock` says has passed since before the clock was adopted.
    @Test func theRealClockReadsAsContinuousClockSleeps() async throws {
        let before = ContinuousClock.now
        let clock = ElapsedClock(ContinuousClock())
        try await clock.sleep(until: .milliseconds(2))
        let reading = clock.now
        let passed = before.duration(to: .now)
        #expect(reading >= .milliseconds(2))
        #expect(reading <= passed)
        let nanoseconds = clock.nowNanoseconds
        #expect(nanoseconds >= 2_000_000)
        #expect(Duration.nanoseconds(nanoseconds) <= before.duration(to: .now))
    }

    @Test func aVirtualClockReadsInNanoseconds() {
        let virtual = VirtualClock()
        virtual.advance(by: .seconds(5))
        let clock = ElapsedClock(virtual)
        virtual.advance(by: .milliseconds(1500) + .nanoseconds(7))
        #expect(clock.now == .milliseconds(1500) + .nanoseconds(7))
        #expect(clock.nowNanoseconds == 1_500_000_007)
    }
}
