import StrobeHCI

/// A device's clock as instants: device logic (state machines generic over an instant type) keeps
/// one concrete instant over the stack's one clock wrapper, `ElapsedClock`.
package struct DeviceClock: Sendable {
    package typealias Instant = VirtualClock.Instant

    /// The wrapped clock, for the device's `DeadlineTimer`.
    package let elapsed: ElapsedClock

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        elapsed = ElapsedClock(clock)
    }

    package var now: Instant { Instant(offset: elapsed.now) }

    /// `now`'s offset in nanoseconds, for a stamp on a hot path.
    package var nowNanoseconds: Int64 { elapsed.nowNanoseconds }

    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled.
    package func sleep(until deadline: Instant) async throws {
        try await elapsed.sleep(until: deadline.offset)
    }
}
