#if canImport(Glibc)
import Glibc
#endif

/// Any `Clock` measured in `Duration`, seen as the time elapsed since it was adopted: the one way
/// the stack keeps a clock without being generic over it. Owners time their deadlines on it
/// (`DeadlineTimer`), device logic keeps one concrete instant over it (`DeviceClock`); apps
/// inject the real clock, tests a `VirtualClock`.
package struct ElapsedClock: Sendable {
    /// Nanoseconds since adoption.
    private let elapsed: @Sendable () -> Int64
    private let sleeper: @Sendable (Duration) async throws -> Void

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        // The real clock read straight from the kernel (the clock ContinuousClock reads on
        // Linux): an armed flash stamps its fire with it on a trigger's path, where the
        // runtime's generic instant arithmetic would be calls into cold library code.
        if let continuous = clock as? ContinuousClock {
            let origin = continuous.now
            let start = Self.bootTimeNanoseconds()
            elapsed = { Self.bootTimeNanoseconds() &- start }
            sleeper = { offset in try await continuous.sleep(until: origin.advanced(by: offset), tolerance: nil) }
            return
        }
        let origin = clock.now
        elapsed = { Self.nanoseconds(origin.duration(to: clock.now)) }
        sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// Time since the clock was adopted.
    package var now: Duration { .nanoseconds(elapsed()) }

    /// `now` in whole nanoseconds, with no `Duration` arithmetic.
    package var nowNanoseconds: Int64 { elapsed() }

    private static func bootTimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// Suspends until `offset` (time since adoption); throws `CancellationError` when the task
    /// is cancelled.
    package func sleep(until offset: Duration) async throws {
        try await sleeper(offset)
    }

    /// Suspends for `duration` from now.
    package func sleep(for duration: Duration) async throws {
        try await sleeper(now + duration)
    }
}
