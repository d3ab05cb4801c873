import StrobeHCI

/// Any `Clock` measured in `Duration`, seen as time elapsed since it was adopted. Device logic
/// (state machines generic over an instant type) then keeps one concrete instant, while callers
/// inject the real clock in apps and a `VirtualClock` in tests.
package struct DeviceClock: Sendable {
    package typealias Instant = VirtualClock.Instant

    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        // The real clock's reading specialized: an armed flash stamps its fire with it on a
        // trigger's path, where a generic call's witness lookups would be cold memory.
        if let continuous = clock as? ContinuousClock {
            let origin = continuous.now
            elapsed = { origin.duration(to: ContinuousClock.now) }
            sleeper = { offset in try await continuous.sleep(until: origin.advanced(by: offset), tolerance: nil) }
            return
        }
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    package var now: Instant { Instant(offset: elapsed()) }

    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled.
    package func sleep(until deadline: Instant) async throws {
        try await sleeper(deadline.offset)
    }
}
