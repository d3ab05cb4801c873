#if canImport(Glibc)
import Glibc
#endif

/// Any `Clock` measured in `Duration`, seen as the time elapsed since it was adopted: the one way
/// the stack keeps a clock without being generic over it. Owners time their deadlines on it
/// (`DeadlineTimer`), device logic keeps one concrete instant over it (`DeviceClock`); apps
/// inject the real clock, tests a `VirtualClock`.
package struct ElapsedClock: Sendable {
    private enum Reading: Sendable {
        /// The kernel's CLOCK_BOOTTIME (the clock `ContinuousClock` reads on Linux), in
        /// nanoseconds from `start`: an armed flash stamps its fire with it on a trigger's path,
        /// where the runtime's generic instant arithmetic would be calls into cold library code.
        case bootTime(start: Int64)
        /// Any other clock, through its own instants.
        case clock(@Sendable () -> Duration)
    }

    private let reading: Reading
    private let sleeper: @Sendable (Duration) async throws -> Void
    /// A `VirtualClock` and the instant it was adopted at; nil for any other clock.
    package let virtual: (clock: VirtualClock, origin: VirtualClock.Instant)?

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        #if os(Linux)
        if let continuous = clock as? ContinuousClock {
            // Read before the sleeper's origin, so that a reading after `sleep(until: x)` is
            // never below x.
            let start = Self.bootTimeNanoseconds()
            let origin = continuous.now
            reading = .bootTime(start: start)
            virtual = nil
            sleeper = { offset in try await continuous.sleep(until: origin.advanced(by: offset), tolerance: nil) }
            return
        }
        #endif
        let origin = clock.now
        reading = .clock { origin.duration(to: clock.now) }
        if let clock = clock as? VirtualClock, let origin = origin as? VirtualClock.Instant {
            virtual = (clock, origin)
        } else {
            virtual = nil
        }
        sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// Whether this is the system's continuous clock (the real one), which a thread can wait on
    /// with the kernel's timeouts.
    package var isContinuous: Bool {
        if case .bootTime = reading { return true }
        return false
    }

    /// A `VirtualClock`'s queue, where tasks timed on this clock run to keep a virtual-time
    /// run's order; nil (anywhere) for any other clock.
    package var scheduler: VirtualScheduler? { virtual?.clock.scheduler }

    /// Time since the clock was adopted.
    package var now: Duration {
        switch reading {
        case .bootTime(let start): .nanoseconds(Self.bootTimeNanoseconds() &- start)
        case .clock(let elapsed): elapsed()
        }
    }

    /// `now` in whole nanoseconds (rounded down), with no `Duration` arithmetic on the real clock.
    package var nowNanoseconds: Int64 {
        switch reading {
        case .bootTime(let start):
            return Self.bootTimeNanoseconds() &- start
        case .clock(let elapsed):
            let (seconds, attoseconds) = elapsed().components
            return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
        }
    }

    #if os(Linux)
    private static func bootTimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }
    #else
    /// Never read: `.bootTime` is made on Linux only.
    private static func bootTimeNanoseconds() -> Int64 { 0 }
    #endif

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
