import Synchronization

/// A clock that only moves when told to. `sleep(until:)` suspends until `advance(by:)` or
/// `advance(to:)` moves the time to or past the deadline, so that code measuring timeouts on an
/// injected clock can be tested without ever sleeping for real.
public final class VirtualClock: Clock, Sendable {
    /// Virtual durations are ordinary `Swift.Duration` values.
    public typealias Duration = Swift.Duration

    /// A point on the virtual time line: the time since the clock's origin.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock's origin (time zero).
        public var offset: Swift.Duration

        /// The instant `offset` after the origin.
        public init(offset: Swift.Duration) { self.offset = offset }

        /// The instant `duration` later (earlier when `duration` is negative).
        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`; negative when `other` is earlier.
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }
        /// Earlier instants order first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        /// `t+` and the offset since the origin, such as `t+1.5 seconds`.
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct SleeperWaiter {
        var id: UInt64
        var count: Int
        var deadline: Instant?
        var continuation: CheckedContinuation<Void, Never>

        func isSatisfied(by sleepers: [Sleeper]) -> Bool {
            guard let deadline else { return sleepers.count >= count }
            return sleepers.lazy.filter { $0.deadline == deadline }.count >= count
        }
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        /// Sleeps whose task was cancelled before they registered.
        var cancelled: Set<UInt64> = []
        /// Sleeps between getting an id and registering, so a cancellation can find them.
        var registering: Set<UInt64> = []
        var sleeperWaiters: [SleeperWaiter] = []
    }

    private let state: Lock<State>

    /// The queue a virtual-time run of this clock goes through (see `executor`).
    package let scheduler = VirtualScheduler()

    /// Where a task of a virtual-time run on this clock must run to keep the run's order:
    /// `Task(executorPreference: clock.executor) { ... }`. A test's body and its child tasks run
    /// here already; a task started with `Task {}` does not, and a sleep on the clock from one
    /// fails the run (`VirtualTimeError.escaped`). Undriven, its jobs run on the global executor.
    public var executor: any TaskExecutor { scheduler }

    /// A clock that starts at `now` (default: the origin) and moves only through `advance(by:)` or
    /// `advance(to:)`.
    public init(now: Instant = Instant(offset: .zero)) {
        state = Lock(State(now: now))
    }

    /// The current virtual time; it changes only when `advance(by:)` or `advance(to:)` moves it.
    public var now: Instant { state.withLock { $0.now } }

    /// One nanosecond: the finest step the clock distinguishes.
    public var minimumResolution: Swift.Duration { .nanoseconds(1) }

    /// How many sleeps are waiting for time to move.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline any sleep waits for.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Suspends until the virtual time reaches `deadline`, returning at once when it already has;
    /// `tolerance` is ignored. Throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        scheduler.checkSleeper()
        let id: UInt64? = state.withLock { s in
            guard deadline > s.now else { return nil }
            s.nextID += 1
            s.registering.insert(s.nextID)
            return s.nextID
        }
        guard let id else {
            try Task.checkCancellation()
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, ready) = state.withLock { s -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    s.registering.remove(id)
                    if s.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    // Time may have moved while this task was getting here.
                    if deadline <= s.now { return (.success(()), []) }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, Self.takeSatisfiedWaiters(&s))
                }
                if let outcome { continuation.resume(with: outcome) }
                for waiter in ready { waiter.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                if let index = s.sleepers.firstIndex(where: { $0.id == id }) {
                    return s.sleepers.remove(at: index).continuation
                }
                if s.registering.contains(id) { s.cancelled.insert(id) }
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleep whose deadline is reached, earliest first.
    public func advance(by duration: Swift.Duration) {
        let target = now.advanced(by: duration)
        advance(to: target)
    }

    /// Moves time to `instant` (never backwards) and wakes every sleep whose deadline is reached.
    public func advance(to instant: Instant) {
        let due = state.withLock { s -> [Sleeper] in
            if instant > s.now { s.now = instant }
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }
            s.sleepers.removeAll { $0.deadline <= now }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Suspends until at least `count` sleeps are waiting (only those for `deadline`, when
    /// given), or until the task is cancelled: lets a test advance time only once the code under
    /// test has started its timer, without sleeping for real.
    public func waitForSleepers(count: Int = 1, deadline: Instant? = nil) async {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { s -> Bool in
                    let waiter = SleeperWaiter(id: id, count: count, deadline: deadline, continuation: continuation)
                    if waiter.isSatisfied(by: s.sleepers) || Task.isCancelled { return true }
                    s.sleeperWaiters.append(waiter)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> SleeperWaiter? in
                guard let index = s.sleeperWaiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleeperWaiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    private static func takeSatisfiedWaiters(_ s: inout State) -> [CheckedContinuation<Void, Never>] {
        guard !s.sleeperWaiters.isEmpty else { return [] }
        let sleepers = s.sleepers
        let ready = s.sleeperWaiters.filter { $0.isSatisfied(by: sleepers) }.map(\.continuation)
        s.sleeperWaiters.removeAll { $0.isSatisfied(by: sleepers) }
        return ready
    }
}
