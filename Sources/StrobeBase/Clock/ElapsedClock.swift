/// Any `Clock` measured in `Duration`, seen as the time elapsed since it was adopted: the one way
/// the stack keeps a clock without being generic over it. Owners time their deadlines on it
/// (`DeadlineTimer`), device logic keeps one concrete instant over it (`DeviceClock`); apps
/// inject the real clock, tests a `VirtualClock`.
package struct ElapsedClock: Sendable {
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

    /// Time since the clock was adopted.
    package var now: Duration { elapsed() }

    /// Suspends until `offset` (time since adoption); throws `CancellationError` when the task
    /// is cancelled.
    package func sleep(until offset: Duration) async throws {
        try await sleeper(offset)
    }

    /// Suspends for `duration` from now.
    package func sleep(for duration: Duration) async throws {
        try await sleeper(elapsed() + duration)
    }
}
